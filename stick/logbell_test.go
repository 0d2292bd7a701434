package stick_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/stick"
)

// countingStore counts the reads made through it.
type countingStore struct {
	stick.Store
	views atomic.Int64
}

func (s *countingStore) View(ctx context.Context, fn func(stick.Tx) error) error {
	defer s.views.Add(1)
	return s.Store.View(ctx, fn)
}

// TestFollowEventsWakesOnlyForItsRoom: a reader following one room's log
// (a page's live stream) is not woken by commits in another room, however
// many, and is woken at once by an event in its own.
func TestFollowEventsWakesOnlyForItsRoom(t *testing.T) {
	st := &countingStore{Store: openStore(t)}
	svc := newService(t, st)
	ctx := context.Background()
	a, b := agent("a"), agent("b")
	quiet, err := svc.JoinPath(ctx, a, stick.JoinRequest{Path: mkRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	busy, err := svc.JoinPath(ctx, b, stick.JoinRequest{Path: mkRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	st0, err := svc.RoomState(ctx, quiet.RoomID)
	if err != nil {
		t.Fatal(err)
	}
	type page struct {
		p   stick.EventPage
		err error
	}
	got := make(chan page, 1)
	before := st.views.Load()
	go func() {
		p, err := svc.FollowEvents(ctx, quiet.RoomID, st0.LastEventSeq, 0)
		got <- page{p, err}
	}()
	for i := range 50 {
		if _, err := svc.Post(ctx, b, busy.RoomID, stick.Note{Text: "busy " + string(rune('a'+i%26))}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case p := <-got:
		t.Fatalf("the follower of the quiet room returned for another room's notes: %+v %v", p.p, p.err)
	default:
	}
	if n := st.views.Load() - before; n > 5 {
		t.Fatalf("the follower of the quiet room read its log %d times while another room took 50 notes", n)
	}
	res, err := svc.Post(ctx, a, quiet.RoomID, stick.Note{Text: "here"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		if p.err != nil || len(p.p.Events) != 1 || p.p.Events[0].Seq != res.Event.Seq {
			t.Fatalf("follower got %+v %v, want the note #%d", p.p, p.err, res.Event.Seq)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the follower was not woken by its own room's note within 2 s (its bell)")
	}
}

// TestFollowEventsRefreshesForAMissedBell: an event whose writer never
// rang the log's bell (it died between commit and ring) still reaches a
// follower, at its next refresh (4 s on the Service's clock).
func TestFollowEventsRefreshesForAMissedBell(t *testing.T) {
	st := &countingStore{Store: openStore(t)}
	clock := testclock.New(epoch)
	svc := newService(t, st, stick.WithClock(clock))
	ctx := context.Background()
	a := agent("a")
	joined, err := svc.JoinPath(ctx, a, stick.JoinRequest{Path: mkRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	room := joined.RoomID
	status, err := svc.RoomState(ctx, room)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan stick.EventPage, 1)
	read := st.views.Load()
	go func() {
		p, err := svc.FollowEvents(ctx, room, status.LastEventSeq, 0)
		if err != nil {
			t.Error(err)
		}
		got <- p
	}()
	// The follower has read the log (and found nothing) once its read
	// returned.
	for deadline := time.Now().Add(10 * time.Second); st.views.Load() == read; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the follower never read the log")
		}
	}
	// A note appended straight through the store: no bell rings.
	var seq int64
	if err := st.Update(ctx, func(tx stick.Tx) error {
		ev, err := tx.AppendEvent(stick.Event{RoomID: room, Type: stick.EventNote, From: "a", Text: "unrung", CreatedAt: clock.Now()})
		seq = ev.Seq
		return err
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		t.Fatalf("the follower returned before its refresh, with no bell: %+v", p)
	case <-time.After(200 * time.Millisecond):
	}
	clock.Advance(4 * time.Second)
	select {
	case p := <-got:
		if len(p.Events) != 1 || p.Events[0].Seq != seq {
			t.Fatalf("after the refresh: %+v, want the note #%d", p, seq)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the follower did not read the log at its refresh")
	}
}
