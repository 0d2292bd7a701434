package browser_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stickhq/stick/stick"
)

// markedResult reports whether the page shows text in a result that
// marks the word: a <mark> holding the word (in any case) near an element
// whose text holds the whole text.
const markedResult = `((word, text) => [...document.querySelectorAll("main mark")].some((m) => {
  if (m.textContent.toLowerCase() !== word.toLowerCase()) return false;
  for (let e = m.parentElement, i = 0; e && e.tagName !== "MAIN" && i < 5; e = e.parentElement, i++) {
    if (e.textContent.replace(/\s+/g, " ").includes(text)) return true;
  }
  return false;
}))(%q, %q)`

// Search across rooms finds a note, in the room it was written in, with
// the words that matched marked; a note that holds markup runs nothing.
// The page is GET /search?q=, from a form with an input named q.
func TestSearchFindsNote(t *testing.T) {
	data := t.TempDir()
	lib := openLibrary(t, data)
	room := busyRoom(lib)
	other := lib.join(gemini, "docs-site")
	lib.post(gemini, other, "The flaky WAL watcher test was a rename race.", stick.DefaultNoteType, 0)
	lib.post(gemini, other, "needle "+hostile, stick.DefaultNoteType, 0)
	b := newTab(t, startHub(t, data)) // a loopback hub without tokens: no sign-in
	logShots(t)

	if st := b.open("/search"); st != http.StatusOK {
		t.Fatalf("GET /search: %d\n%s", st, b.text("main"))
	}
	b.shot("01-search")
	if !eval[bool](b, `(() => {
	  const q = [...document.querySelectorAll("main form input[name=q]")].find((e) => new URL(e.form.action, location.href).pathname === "/search");
	  if (q) q.setAttribute("data-e2e", "q");
	  return Boolean(q);
	})()`) {
		t.Fatalf("/search has no form in its content with an input named q that searches:\n%s", b.text("main"))
	}
	if b.count(`label[for="`+eval[string](b, `document.querySelector("[data-e2e=q]").id`)+`"]`)+b.count("[data-e2e=q][aria-label]") == 0 {
		t.Error("the search input has no label")
	}
	b.do("typing the query", chromedp.SendKeys(chromedp.CSS("[data-e2e=q]"), "idempotency"))
	b.submit("[data-e2e=q]")
	b.shot("02-results")
	if p := b.path(); !strings.HasPrefix(p, "/search?") || !strings.Contains(p, "q=idempotency") {
		t.Errorf("the search led to %s, not /search?q=idempotency", p)
	}
	note := "Reproduced: a retry after a 504 re-sends the charge with a fresh idempotency key, so the provider charges twice."
	if !eval[bool](b, fmt.Sprintf(markedResult, "idempotency", note)) {
		t.Errorf("the results do not show the note with 'idempotency' marked:\n%s", b.text("main"))
	}
	if b.count(fmt.Sprintf(`main a[href^="/rooms/%s"]`, room)) == 0 {
		t.Error("the results do not link to the note's room")
	}

	b.page("/search?q=flaky")
	b.shot("03-other-room")
	if !eval[bool](b, fmt.Sprintf(markedResult, "flaky", "The flaky WAL watcher test was a rename race.")) {
		t.Errorf("searching 'flaky' does not find the note of docs-site:\n%s", b.text("main"))
	}
	b.page("/search?q=needle")
	b.shot("04-hostile")
	b.mustContain("main", "<script>window.pwned=true</script>")
	b.noScriptRan()
}
