package stick_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// countingStore counts the reads made through it.
type countingStore struct {
	stick.Store
	views atomic.Int64
}

func (s *countingStore) View(ctx context.Context, fn func(stick.Tx) error) error {
	s.views.Add(1)
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
