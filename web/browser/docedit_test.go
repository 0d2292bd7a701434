package browser_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Editing the shared document while another writer commits shows the
// conflict: saving over a version that is no longer the newest saves
// nothing, shows the other writer's text, and keeps the text typed in
// the form. The page is /rooms/{id}/doc/edit, with a textarea named
// content and a submit button.
func TestDocEditShowsConflict(t *testing.T) {
	data := t.TempDir()
	lib := openLibrary(t, data)
	room := lib.join(codex, "payments-refactor")
	lib.join(claude, "payments-refactor")
	first := "# Plan\n- reproduce the double charge\n"
	v1 := lib.writeDoc(codex, room, first, 0)
	b := newTab(t, startHub(t, data)) // a loopback hub without tokens: an operator
	logShots(t)

	edit := "/rooms/" + room + "/doc/edit"
	if st := b.open(edit); st != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", edit, st, b.text("main"))
	}
	field := "textarea[name=content]"
	if b.count(field) != 1 {
		t.Fatalf("%s has no textarea named content:\n%s", edit, b.text("main"))
	}
	if got := run(b, "reading the textarea", chromedp.Value(chromedp.CSS(field))); got != first {
		t.Errorf("the form starts from %q, not the document %q", got, first)
	}
	b.shot("01-edit")

	theirs := "- one key per checkout, from Claude"
	lib.writeDoc(claude, room, first+theirs+"\n", v1)
	mine := "- refunds share the key table, from me"
	eval[chromedp.Void](b, `document.querySelector("`+field+`").value = ""`)
	b.do("typing", chromedp.SendKeys(chromedp.CSS(field), first+mine+"\n"))
	b.shot("02-typed")
	b.submit(field)
	b.shot("03-conflict")

	if got := lib.doc(room); got.Version != v1+1 || !strings.Contains(got.Content, theirs) || strings.Contains(got.Content, mine) {
		t.Errorf("saving over an older version changed the document: version %d\n%s", got.Version, got.Content)
	}
	b.mustContain("main", theirs)
	if b.count(field) != 1 {
		t.Fatalf("the conflict page has no form to save again:\n%s", b.text("main"))
	}
	if got := run(b, "reading the textarea", chromedp.Value(chromedp.CSS(field))); !strings.Contains(got, mine) {
		t.Errorf("the conflict page lost the text typed: %q", got)
	}
}
