package browser_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// The page of a closed room shows its conclusion first: above the
// roster, the document and the feed, on the first screen, with who closed
// it and why; a conclusion that holds markup shows it as text and runs
// nothing; the closed room streams nothing live.
func TestClosedRoomShowsConclusionFirst(t *testing.T) {
	data := t.TempDir()
	secret := makeToken(t, data, "alex", stick.AccessOperator)
	lib := openLibrary(t, data)
	conclusion := "Shipped v1.3.0 on Tuesday.\nThe flaky WAL test was a rename race, fixed in store/watch.go.\nNext: the 1.4 room takes the refund work.\n" + hostile
	room := closedRoom(lib, conclusion)
	b := newTab(t, startHub(t, data))
	logShots(t)
	b.signIn(secret)
	b.mustContain("#rooms", "release-1.3", "closed")
	b.shot("01-rooms")

	b.page("/rooms/" + room)
	b.shot("02-closed-room")
	if b.count(".conclusion") != 1 {
		t.Fatalf("the closed room's page has no conclusion:\n%s", b.text("main"))
	}
	b.mustContain(".conclusion", "Conclusion", "Shipped v1.3.0 on Tuesday.", "fixed in store/watch.go", "human:ana", "released",
		"<script>window.pwned=true</script>", `href="javascript:window.pwned=true"`)
	order := eval[map[string]float64](b, `(() => {
	  const top = (sel) => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect().top : -1; };
	  return {conclusion: top(".conclusion"), roster: top(".roster"), document: top(".document"), feed: top(".feed-card"), screen: window.innerHeight};
	})()`)
	for _, part := range []string{"roster", "document", "feed"} {
		if order[part] < 0 || order["conclusion"] >= order[part] {
			t.Errorf("the conclusion (at %v px) is not above the %s (at %v px)", order["conclusion"], part, order[part])
		}
	}
	if order["conclusion"] >= order["screen"]/2 {
		t.Errorf("the conclusion starts at %v px, not in the top half of the first screen (%v px)", order["conclusion"], order["screen"])
	}
	if first := eval[string](b, `document.querySelector("main .card").className`); !strings.Contains(first, "conclusion") {
		t.Errorf("the first card of the page is %q, not the conclusion", first)
	}
	if b.count("#live-status") != 0 || b.count("#feed[data-live]") != 0 {
		t.Error("a closed room's page still streams live events")
	}
	b.mustContain("#feed", "closed the room")
	b.noScriptRan()
}
