package browser_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// writeControls lists the controls of the page that could write: a form
// that posts anywhere but /signout, a button or submit input that sends
// one (or stands outside any form, unless it only copies text), a
// textarea, an editable element. The sign-out form is the one form a
// viewer may send.
const writeControls = `(() => {
  const bad = [];
  const posts = (f) => (f.getAttribute("method") || "get").toLowerCase() === "post";
  const signout = (f) => new URL(f.action, location.href).pathname === "/signout";
  const name = (e) => e.tagName.toLowerCase() + (e.name ? "[name=" + e.name + "]" : "") + " " + JSON.stringify((e.innerText || e.value || "").trim().slice(0, 40));
  for (const f of document.forms) {
    if (posts(f) && !signout(f)) bad.push("a form that posts to " + new URL(f.action, location.href).pathname);
  }
  for (const e of document.querySelectorAll("button, input[type=submit], input[type=image], input[type=button]")) {
    const f = e.form;
    if (f && (signout(f) || !posts(f)) && !e.hasAttribute("formmethod") && !e.hasAttribute("formaction")) continue;
    if (!f && /copy/i.test((e.innerText || "") + " " + (e.getAttribute("aria-label") || "") + " " + Object.keys(e.dataset).join(" "))) continue;
    bad.push("a button that writes: " + name(e));
  }
  for (const e of document.querySelectorAll("textarea, [contenteditable]:not([contenteditable=false])")) bad.push("an editable " + name(e));
  return bad;
})()`

// pageLinks lists the distinct same-origin pages the page links to
// (without fragments).
const pageLinks = `(() => {
  const out = new Set();
  for (const a of document.querySelectorAll("a[href]")) {
    const u = new URL(a.href, location.href);
    if (u.origin !== location.origin || u.pathname.startsWith("/static/")) continue;
    out.add(u.pathname + u.search);
  }
  return [...out];
})()`

// fetchKind fetches a path as the page would and says what it is: its
// status, content type and disposition (an attachment is a download, not
// a page).
const fetchKind = `fetch(%q, {credentials: "same-origin"}).then((r) => ({status: r.status, type: r.headers.get("content-type") || "", disposition: r.headers.get("content-disposition") || ""}))`

// A viewer (a token with --role viewer) reads everything and finds no
// control that writes: not on the rooms list, not on a busy room's page,
// not on a closed room's, and not on any page they link to. Only the
// sign-out form posts.
func TestViewerFindsNoWriteControl(t *testing.T) {
	data := t.TempDir()
	secret := makeToken(t, data, "watcher", stick.AccessViewer)
	lib := openLibrary(t, data)
	room := busyRoom(lib)
	lib.post(ana, room, hostile, stick.DefaultNoteType, 0)
	for i := range 100 { // a page of older events, linked from the room
		lib.post(gemini, room, fmt.Sprintf("progress %d: refund path", i+1), stick.DefaultNoteType, 0)
	}
	closed := closedRoom(lib, "Shipped v1.3.0.")
	lib.join(gemini, "docs-site") // linked from the rooms list only
	b := newTab(t, startHub(t, data))
	logShots(t)
	b.signIn(secret)
	b.mustContain("header", "watcher", "viewer", "Sign out")

	start := []string{"/", "/rooms/" + room, "/rooms/" + closed}
	visited := map[string]bool{}
	var next []string
	check := func(path string) {
		if bad := eval[[]string](b, writeControls); len(bad) > 0 {
			t.Errorf("the viewer finds controls that write on %s:\n  %s", path, strings.Join(bad, "\n  "))
		}
		if b.count("form.signout") != 1 {
			t.Errorf("%s offers the viewer no way to sign out", path)
		}
		b.noScriptRan()
	}
	for i, p := range start {
		b.page(p)
		visited[p] = true
		check(p)
		b.shot(fmt.Sprintf("%02d-%s", i+1, shotName(p)))
		for _, l := range eval[[]string](b, pageLinks) {
			if !slices.Contains(next, l) {
				next = append(next, l)
			}
		}
	}
	crawled := 0
	for _, p := range next {
		if visited[p] {
			continue
		}
		visited[p] = true
		kind := eval[struct {
			Status      int    `json:"status"`
			Type        string `json:"type"`
			Disposition string `json:"disposition"`
		}](b, fmt.Sprintf(fetchKind, p))
		if kind.Status != 200 {
			t.Errorf("a page links to %s, which answers %d", p, kind.Status)
			continue
		}
		if !strings.HasPrefix(kind.Type, "text/html") || strings.HasPrefix(kind.Disposition, "attachment") {
			continue // a download or a document, with nothing to press
		}
		b.page(p)
		check(p)
		crawled++
		b.shot(fmt.Sprintf("%02d-%s", len(start)+crawled, shotName(p)))
	}
	t.Logf("checked %d pages and the %d pages they link to", len(start), crawled)
	if crawled == 0 {
		t.Error("the pages link to no other page")
	}
}

// shotName names a screenshot after a path.
func shotName(path string) string {
	u, err := url.Parse(path)
	if err != nil || u.Path == "/" {
		return "rooms"
	}
	name := strings.Trim(strings.ReplaceAll(u.Path, "/", "-"), "-")
	if u.RawQuery != "" {
		name += "-" + u.RawQuery
	}
	return unsafeName.ReplaceAllString(name, "_")
}
