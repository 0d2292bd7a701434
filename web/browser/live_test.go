package browser_test

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/stick"
)

// liveTurns is how many releases the other process commits while the
// page watches; liveHoldMS how long each turn holds the stick.
const (
	liveTurns  = 12
	liveHoldMS = 120
	// maxLatency is the longest a release may take from its commit to
	// the page.
	maxLatency = 500 * time.Millisecond
)

// release is one release the other process committed.
type release struct {
	n, seq int64
	// before and after are the wall-clock times just before the release
	// was called and just after it committed.
	before, after time.Time
}

// seen is one event the page appended, as the page's MutationObserver
// recorded it: its seq, classes, handoff status and when (ms since the
// epoch, the page's high-resolution clock).
type seen struct {
	Seq    int64   `json:"seq"`
	Class  string  `json:"class"`
	Status string  `json:"status"`
	At     float64 `json:"at"`
}

// observeFeed records every event the page appends to its feed, with the
// time it appeared, in window.seen.
const observeFeed = `(() => {
  window.seen = [];
  const feed = document.getElementById("feed");
  new MutationObserver((records) => {
    const at = performance.timeOrigin + performance.now();
    for (const r of records) for (const n of r.addedNodes) {
      if (n.nodeType !== 1 || !n.matches("li.event")) continue;
      const dd = n.querySelector(".handoff dd");
      window.seen.push({seq: Number(n.dataset.seq), class: n.className, status: dd ? dd.textContent : "", at: at});
    }
  }).observe(feed, {childList: true});
  return true;
})()`

// A person watches a room while another process takes turns in it
// through the library, over the hub's database: each release appears on
// the page, with its handoff, within 500 ms of its commit, in order,
// without a reload.
func TestLiveReleasesAppearWithin500ms(t *testing.T) {
	data := t.TempDir()
	secret := makeToken(t, data, "watcher", stick.AccessViewer)
	b := newTab(t, startHub(t, data))
	logShots(t)

	other := testproc.StartEnv(t, hubEnv(data), "turns", "live-migration", strconv.Itoa(liveTurns), strconv.Itoa(liveHoldMS))
	line, err := other.ReadLine(30 * time.Second)
	room, ok := strings.CutPrefix(line, "ready ")
	if err != nil || !ok {
		t.Fatalf("the turns process: %q %v\n%s", line, err, other.Stderr())
	}

	b.signIn(secret)
	b.page("/rooms/" + room)
	waitLive(b)
	if !eval[bool](b, observeFeed) {
		t.Fatal("the feed observer did not start")
	}
	b.shot("01-room-before")

	if _, err := io.WriteString(other.Stdin(), "go\n"); err != nil {
		t.Fatal(err)
	}
	var releases []release
	for {
		line, err := other.ReadLine(60 * time.Second)
		if err != nil {
			t.Fatalf("the turns process: %v\n%s", err, other.Stderr())
		}
		if line == "done" {
			break
		}
		var r release
		var before, after int64
		if _, err := fmt.Sscanf(line, "release %d %d %d %d", &r.n, &r.seq, &before, &after); err != nil {
			t.Fatalf("the turns process printed %q", line)
		}
		r.before, r.after = time.Unix(0, before), time.Unix(0, after)
		releases = append(releases, r)
	}
	if code, err := other.Wait(); code != 0 || err != nil {
		t.Fatalf("the turns process: exit %d %v\n%s", code, err, other.Stderr())
	}
	last := releases[len(releases)-1].seq
	got := poll(b, fmt.Sprintf(`window.seen.some((e) => e.seq === %d)`, last), 5*time.Second)
	page := eval[[]seen](b, `window.seen`)
	b.shot("02-room-after")
	if !got {
		t.Errorf("the last release (#%d) never appeared; the page appended %+v", last, page)
	}

	bySeq := map[int64]seen{}
	var order []int64
	for _, e := range page {
		bySeq[e.Seq] = e
		order = append(order, e.Seq)
	}
	if !slices.IsSorted(order) {
		t.Errorf("the page appended events out of order: %v", order)
	}
	var worst, worstCommit time.Duration
	var lat []string
	for _, r := range releases {
		e, ok := bySeq[r.seq]
		if !ok {
			t.Errorf("release %d (#%d) never appeared on the page", r.n, r.seq)
			continue
		}
		if !strings.Contains(e.Class, "event-release") || !strings.HasPrefix(e.Status, fmt.Sprintf("release %d:", r.n)) {
			t.Errorf("event #%d on the page is %q with status %q, not release %d with its handoff", r.seq, e.Class, e.Status, r.n)
		}
		at := time.UnixMicro(int64(e.At * 1000))
		// From the call (an upper bound on the time from the commit) and
		// from the return (a lower bound).
		d, dc := at.Sub(r.before), at.Sub(r.after)
		worst, worstCommit = max(worst, d), max(worstCommit, dc)
		lat = append(lat, fmt.Sprintf("%d:%.1f", r.n, float64(d.Microseconds())/1000))
		if d > maxLatency {
			t.Errorf("release %d (#%d) appeared %v after it was committed, more than %v", r.n, r.seq, d, maxLatency)
		}
	}
	t.Logf("%d releases; ms from each release's call to its element on the page: %s; max %.1f ms (%.1f ms from its return)",
		len(releases), strings.Join(lat, " "), float64(worst.Microseconds())/1000, float64(worstCommit.Microseconds())/1000)
	if n := b.count("#feed li.event-release"); n != liveTurns {
		t.Errorf("the feed shows %d releases, want %d", n, liveTurns)
	}
	b.noScriptRan()
}

// waitLive waits until the page's live stream is open.
func waitLive(b *tab) {
	b.t.Helper()
	if !poll(b, `(document.getElementById("live-status") || {}).textContent?.startsWith("Live")`, 10*time.Second) {
		b.t.Fatalf("the live stream did not open: %q", b.text("#live-status"))
	}
}

// poll waits, in the page, until a JavaScript condition holds (checked
// every 10 ms) or within passes, and reports whether it held.
func poll(b *tab, cond string, within time.Duration) bool {
	b.t.Helper()
	return eval[bool](b, fmt.Sprintf(`new Promise((resolve) => {
	  const end = Date.now() + %d;
	  const check = () => {
	    let ok = false;
	    try { ok = Boolean(%s); } catch (e) {}
	    if (ok || Date.now() > end) resolve(ok); else setTimeout(check, 10);
	  };
	  check();
	})`, within.Milliseconds(), cond))
}
