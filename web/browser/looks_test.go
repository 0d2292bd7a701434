package browser_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stickhq/stick/stick"
)

// The pages as people see them: a busy room at desktop width in light
// mode (saved as room.png at the top of the screenshot directory, the
// README's picture), and the rooms list and the room in dark mode and at
// phone width (390 CSS pixels), where nothing may stick out sideways.
func TestPagesLook(t *testing.T) {
	data := t.TempDir()
	secret := makeToken(t, data, "alex", stick.AccessOperator)
	lib := openLibrary(t, data)
	room := busyRoom(lib)
	closedRoom(lib, "Shipped v1.3.0 on Tuesday.")
	lib.join(gemini, "docs-site")
	b := newTab(t, startHub(t, data))
	logShots(t)
	b.signIn(secret)

	b.page("/rooms/" + room)
	waitLive(b)
	b.mustContain("main", "payments-refactor", "codex:9b22", "internal/pay/charge.go:41-88", "Do refunds need their own key table?",
		"Should refunds share", "Share it", "Keys expire after 24 h", "Version 2")
	b.shot("room-desktop-light")
	// The README's picture: what a screen of 1280 × 1440 shows of the
	// room, from the top (the whole page is the shot above).
	b.size(1280, 1440, false, false)
	eval[chromedp.Void](b, `window.scrollTo(0, 0)`)
	png := run(b, "taking a screenshot of the screen", chromedp.CaptureScreenshot())
	readme := filepath.Join(screenshotDir(t), "room.png")
	if err := os.WriteFile(readme, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the README's picture: %s", readme)

	for _, look := range []struct {
		name          string
		width, height int64
		mobile, dark  bool
	}{
		{"desktop-dark", 1280, 860, false, true},
		{"phone-light", 390, 844, true, false},
		{"phone-dark", 390, 844, true, true},
	} {
		b.size(look.width, look.height, look.mobile, look.dark)
		for _, pg := range []struct{ name, path string }{{"rooms", "/"}, {"room", "/rooms/" + room}} {
			b.page(pg.path)
			b.shot(pg.name + "-" + look.name)
			if wide := eval[bool](b, `document.documentElement.scrollWidth > window.innerWidth`); wide {
				t.Errorf("%s at %s is wider than the screen (%d px > %d px)", pg.path, look.name,
					eval[int](b, `document.documentElement.scrollWidth`), eval[int](b, `window.innerWidth`))
			}
		}
	}
}
