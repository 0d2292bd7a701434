package browser_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// shared is the one Chromium of the test binary, started by the first
// test that needs it and stopped after the last (stopBrowser).
var shared struct {
	once    sync.Once
	ctx     context.Context
	cancel  []context.CancelFunc
	profile string
	// skip or fail is why there is no browser.
	skip, fail string
}

// startBrowser starts Chromium headless with the flags this machine
// needs: no sandbox (tests may run as root), no GPU, and nothing that
// reaches out to the network by itself (background networking, component
// updates, sync, QUIC), in a fresh profile.
func startBrowser() {
	path, found, err := findChromium(os.Getenv)
	switch {
	case err != nil:
		shared.fail = err.Error()
		return
	case !found && browserRequired(os.Getenv):
		shared.fail = missingBrowser()
		return
	case !found:
		shared.skip = missingBrowser()
		return
	}
	profile, err := os.MkdirTemp("", "stick-chromium-")
	if err != nil {
		shared.fail = err.Error()
		return
	}
	shared.profile = profile
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(alloc)
	shared.cancel = []context.CancelFunc{cancelBrowser, cancelAlloc}
	if err := chromedp.Do(ctx); err != nil {
		shared.fail = fmt.Sprintf("%s does not start: %v", path, err)
		return
	}
	shared.ctx = ctx
}

// stopBrowser stops the shared Chromium, if it started, and removes its
// profile.
func stopBrowser() {
	for _, cancel := range shared.cancel {
		cancel()
	}
	if shared.profile != "" {
		_ = os.RemoveAll(shared.profile)
	}
}

// tab is one tab of the shared browser, in a browser context of its own
// (its own cookies), on the hub at base.
type tab struct {
	t    *testing.T
	ctx  context.Context
	base string
}

// newTab opens a tab at desktop size (1280×860), or skips or fails the
// test when there is no browser (see missingBrowser).
func newTab(t *testing.T, base string) *tab {
	t.Helper()
	shared.once.Do(startBrowser)
	if shared.fail != "" {
		t.Fatal(shared.fail)
	}
	if shared.skip != "" {
		t.Skip(shared.skip)
	}
	ctx, cancel := chromedp.NewContext(shared.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// The first run opens the tab, and binds it to ctx, not to a
	// context with a timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	b := &tab{t: t, ctx: ctx, base: base}
	b.size(1280, 860, false, false)
	return b
}

// timeout bounds every step: a safety net against hung tests, not a
// measurement.
const timeout = 20 * time.Second

// do runs actions, failing the test on an error.
func (b *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// run runs one action and returns its value, failing the test on an
// error.
func run[T any](b *tab, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *tab, js string) T {
	b.t.Helper()
	return run(b, "evaluating "+firstLine(js), chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// open navigates to path on the hub and returns the HTTP status of the
// page it lands on (after redirects).
func (b *tab) open(path string) int {
	b.t.Helper()
	resp := run(b, "opening "+path, chromedp.NavigateResponse(b.base+path))
	if resp == nil {
		b.t.Fatalf("opening %s: no response", path)
	}
	return int(resp.Status)
}

// page opens path, which must answer 200.
func (b *tab) page(path string) {
	b.t.Helper()
	if st := b.open(path); st != 200 {
		b.t.Fatalf("GET %s: %d\n%s", path, st, b.text("body"))
	}
}

// path is the path (and query) of the page the tab shows.
func (b *tab) path() string {
	b.t.Helper()
	return eval[string](b, `location.pathname + location.search`)
}

// text is the text of the first element sel matches, "" when none does.
func (b *tab) text(sel string) string {
	b.t.Helper()
	return eval[string](b, fmt.Sprintf(`(document.querySelector(%q) || {innerText: ""}).innerText`, sel))
}

// count is how many elements sel matches.
func (b *tab) count(sel string) int {
	b.t.Helper()
	return eval[int](b, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}

// submit clicks the submit button of the form that holds the element sel
// matches and waits for the page it leads to.
func (b *tab) submit(sel string) {
	b.t.Helper()
	run(b, "submitting the form of "+sel, chromedp.WaitEvent(page.LoadEventFired, nil,
		chromedp.Click(chromedp.JSPath(fmt.Sprintf(`[...document.querySelector(%q).form.elements].find((e) => e.type === "submit")`, sel)))))
}

// size sets the viewport: width × height CSS pixels, phone-like (touch,
// mobile) when mobile, and the colour scheme the page is asked for.
func (b *tab) size(width, height int64, mobile, dark bool) {
	b.t.Helper()
	var opts []chromedp.EmulateViewportOption
	if mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(2))
	}
	b.do("setting the viewport", chromedp.EmulateViewport(width, height, opts...))
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		b.t.Fatalf("asking for the %s colour scheme: %v", scheme, err)
	}
}

// shot saves a screenshot of the whole page as
// $STICK_SCREENSHOTS/<test>/<name>.png.
func (b *tab) shot(name string) string {
	b.t.Helper()
	// From the top, so the sticky header is where people see it.
	eval[chromedp.Void](b, `window.scrollTo(0, 0)`)
	png := run(b, "taking a screenshot", chromedp.FullScreenshot(100))
	dir := filepath.Join(screenshotDir(b.t), testDir(b.t))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	return p
}

var screenshots struct {
	once sync.Once
	dir  string
	err  error
}

// screenshotDir is where screenshots go: $STICK_SCREENSHOTS, else
// $TMPDIR/stick-screenshots; the test log names it.
func screenshotDir(t *testing.T) string {
	t.Helper()
	screenshots.once.Do(func() {
		screenshots.dir = os.Getenv("STICK_SCREENSHOTS")
		if screenshots.dir == "" {
			screenshots.dir = filepath.Join(os.TempDir(), "stick-screenshots")
		}
		screenshots.dir, screenshots.err = filepath.Abs(screenshots.dir)
		if screenshots.err == nil {
			screenshots.err = os.MkdirAll(screenshots.dir, 0o755)
		}
	})
	if screenshots.err != nil {
		t.Fatalf("the screenshot directory: %v", screenshots.err)
	}
	return screenshots.dir
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// testDir is the directory of a test's screenshots, named for the test.
func testDir(t *testing.T) string {
	return unsafeName.ReplaceAllString(t.Name(), "_")
}

// logShots names the directory of the test's screenshots in its log.
func logShots(t *testing.T) {
	t.Helper()
	t.Logf("screenshots: %s", filepath.Join(screenshotDir(t), testDir(t)))
}
