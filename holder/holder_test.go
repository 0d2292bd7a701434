package holder_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// room opens a service on a fresh database and returns holders for the
// members named, joined in that order to the room of a new workspace.
func room(t *testing.T, opts []stick.Option, names ...string) (string, []*holder.Holder) {
	t.Helper()
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := stick.New(st, opts...)
	if err != nil {
		t.Fatal(err)
	}
	repo := testkit.Repo(t)
	var roomID string
	var hs []*holder.Holder
	for _, n := range names {
		h := &holder.Holder{Service: svc, Caller: stick.Caller{AgentID: n, Kind: stick.KindProcess}}
		j, err := svc.JoinPath(t.Context(), h.Caller, stick.JoinRequest{Path: repo})
		if err != nil {
			t.Fatal(err)
		}
		roomID = j.RoomID
		hs = append(hs, h)
	}
	return roomID, hs
}

var handoff = stick.Handoff{Status: "did my part", NextAction: "do yours"}

func TestTryWaitAndKeep(t *testing.T) {
	ctx := t.Context()
	roomID, hs := room(t, nil, "alice", "bob", "carol")
	alice, bob, carol := hs[0], hs[1], hs[2]
	got, err := alice.Try(ctx, roomID)
	if err != nil || got.Status != stick.YourTurn {
		t.Fatalf("alice's Try in an idle room = %v, %v; want your_turn", got.Status, err)
	}
	if res, err := bob.Try(ctx, roomID); err != nil || res.Status != stick.NotYet {
		t.Fatalf("bob's Try while alice holds = %v, %v; want not_yet", res.Status, err)
	}
	start := time.Now()
	if res, err := carol.Wait(ctx, roomID, 50*time.Millisecond); err != nil || res.Status != stick.NotYet || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("carol's Wait of 50ms = %v, %v after %v; want not_yet after the timeout", res.Status, err, time.Since(start))
	}

	// bob waits until alice hands the stick on to him.
	type waited struct {
		res stick.WaitResult
		err error
	}
	bobs := make(chan waited, 1)
	go func() {
		res, err := bob.Wait(ctx, roomID, 0)
		bobs <- waited{res, err}
	}()
	if _, err := alice.Service.Pass(ctx, alice.Caller, got.Lease(), "bob", handoff); err != nil {
		t.Fatal(err)
	}
	w := <-bobs
	if w.err != nil || w.res.Status != stick.YourTurn || w.res.Handoff == nil || w.res.Handoff.Status != handoff.Status {
		t.Fatalf("bob's Wait = %+v, %v; want your_turn with alice's handoff", w.res, w.err)
	}

	// Keep heartbeats until its context ends, and says why.
	keep, stop := context.WithCancelCause(ctx)
	why := make(chan string, 1)
	go func() { why <- bob.Keep(keep, w.res.Lease(), time.Now(), *w.res.LeaseExpiresAt) }()
	stop(holder.ErrAnchorGone)
	if got := <-why; got != holder.ErrAnchorGone.Error() {
		t.Errorf("Keep ended by the anchor's exit says %q", got)
	}
	// A lease handed on is no longer kept.
	if _, err := bob.Service.Release(ctx, bob.Caller, w.res.Lease(), handoff); err != nil {
		t.Fatal(err)
	}
	if got := bob.Keep(ctx, w.res.Lease(), time.Now(), *w.res.LeaseExpiresAt); !strings.HasPrefix(got, "the lease is no longer valid: ") {
		t.Errorf("Keep of a released lease says %q", got)
	}
}

// Takeover at turn 0 takes the stick over at the current turn.
func TestTakeoverAtTheCurrentTurn(t *testing.T) {
	ctx := t.Context()
	clock := testclock.New(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	roomID, hs := room(t, []stick.Option{stick.WithClock(clock)}, "alice", "bob")
	alice, bob := hs[0], hs[1]
	if res, err := alice.Try(ctx, roomID); err != nil || res.Status != stick.YourTurn {
		t.Fatalf("alice's Try = %v, %v", res.Status, err)
	}
	if _, err := bob.Takeover(ctx, roomID, 0, "alice is silent"); stick.ErrorCode(err) != stick.CodeTakeoverNotAvailable {
		t.Fatalf("Takeover of a live lease = %v, want takeover_not_available", err)
	}
	clock.Advance(stick.DefaultPolicy.OwnerLeaseTTL + time.Minute)
	res, err := bob.Takeover(ctx, roomID, 0, "alice is silent")
	if err != nil || res.TurnID != 2 || res.Revoked != "alice" {
		t.Fatalf("Takeover after alice's lease ran out = %+v, %v; want turn 2, alice revoked", res, err)
	}
}

// Cause says why a context ended, when it ended with a cause of its own.
func TestCause(t *testing.T) {
	other := stick.Errorf(stick.CodeRoomClosed, "closed")
	if err := holder.Cause(t.Context(), other); err != other {
		t.Errorf("Cause of a live context = %v, want the error itself", err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(holder.ErrAnchorGone)
	err := holder.Cause(ctx, context.Canceled)
	if se := stick.AsError(err); se.Code != stick.CodeCanceled || se.Message != holder.ErrAnchorGone.Error() {
		t.Errorf("Cause of a context the anchor ended = %v", err)
	}
}
