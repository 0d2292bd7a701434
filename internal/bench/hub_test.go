package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestHubClient: the HTTP client of the hub's scenarios acts through a
// real 'stick serve' with its token, reports each refusal with the hub's
// status and code (never as a success a scenario would count), reads the
// hub's metrics, and the hub stops cleanly on SIGTERM.
func TestHubClient(t *testing.T) {
	ctx := context.Background()
	e, err := newEnv(t.TempDir(), Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	h, secrets, err := e.startHubWithTokens(ctx, "team")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = h.Close() }()
	tr := newTransport(2)
	defer tr.CloseIdleConnections()

	stranger := newRESTClient(h.url, "stk_not_a_token", "bench", tr)
	if _, err := stranger.join(ctx, hubRoom); err == nil || !strings.Contains(err.Error(), "401 Unauthorized unauthenticated") {
		t.Errorf("join with a wrong token: %v", err)
	}
	c := newRESTClient(h.url, secrets[0], "bench", tr)
	room, err := c.join(ctx, hubRoom)
	if err != nil || !strings.HasPrefix(room, "room_") {
		t.Fatalf("join: %q, %v", room, err)
	}
	w, err := c.wait(ctx, room, 0)
	if err != nil || w.Status != stick.YourTurn || w.RoomID != room || w.TurnID != 1 {
		t.Fatalf("wait: %+v, %v", w, err)
	}
	stale := w.Lease()
	stale.LeaseID = "lease_stale"
	if err := c.release(ctx, stale, stamped("next")); err == nil || !strings.Contains(err.Error(), "409 Conflict stale_lease") {
		t.Errorf("release with a stale lease: %v", err)
	}
	if err := c.release(ctx, w.Lease(), stamped("next")); err != nil {
		t.Errorf("release: %v", err)
	}
	if err := c.note(ctx, room, "a note"); err != nil {
		t.Errorf("note: %v", err)
	}
	if open, err := c.metric(ctx, h.url, "stick_long_polls_open"); err != nil || open != 0 {
		t.Errorf("long polls open: %v, %v", open, err)
	}
	if v, err := c.metric(ctx, h.url, "stick_no_such_metric"); err != nil || v != -1 {
		t.Errorf("a metric the hub lacks: %v, %v", v, err)
	}
	if err := h.stop(); err != nil {
		t.Error(err)
	}
}
