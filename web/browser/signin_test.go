package browser_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stickhq/stick/stick"
)

// A person opens the hub's page, is sent to the sign-in form, signs in
// with a token made by 'stick token create', sees the rooms, and signs
// out: the page forgets the token, and the rooms ask for a sign-in again.
// A wrong token is refused with a message, and no script can read the
// session cookie.
func TestSignInAndOut(t *testing.T) {
	data := t.TempDir()
	secret := makeToken(t, data, "alex", stick.AccessOperator)
	lib := openLibrary(t, data)
	lib.join(claude, "release-1.4")
	lib.join(codex, "triage")
	b := newTab(t, startHub(t, data))
	logShots(t)

	b.page("/")
	if p := b.path(); p != "/signin" {
		t.Fatalf("the rooms without a sign-in: at %s, not the sign-in form", p)
	}
	if b.count("form input#token[type=password]") != 1 || b.count(`label[for=token]`) != 1 {
		t.Fatalf("the sign-in form has no labelled token field:\n%s", b.text("main"))
	}
	b.shot("01-signin-form")

	b.do("typing a wrong token", chromedp.SendKeys(chromedp.CSS("#token"), "not-a-token"))
	b.submit("#token")
	b.mustContain("main", "That token is not valid")
	b.shot("02-wrong-token")

	b.signIn(secret)
	b.mustContain("main", "Rooms", "release-1.4", "triage")
	b.mustContain("header", "alex", "operator", "Sign out")
	if c := eval[string](b, `document.cookie`); strings.Contains(c, "stick_session") {
		t.Errorf("a script reads the session cookie: %q", c)
	}
	b.shot("03-signed-in-rooms")

	b.submit(".signout button")
	if p := b.path(); p != "/signin" {
		t.Fatalf("signing out led to %s", p)
	}
	b.shot("04-signed-out")
	b.page("/")
	if p := b.path(); p != "/signin" || strings.Contains(b.text("body"), "release-1.4") {
		t.Fatalf("after signing out the rooms still show (at %s):\n%s", p, b.text("body"))
	}
	if b.count(".signout") != 0 {
		t.Error("after signing out the page still offers to sign out")
	}
}
