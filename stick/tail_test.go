package stick_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// TailEvents gives the newest events, oldest first, and says whether
// earlier ones exist; ListRooms' LastEventAt counts notes, which leave the
// room's own record (UpdatedAt) alone.
func TestTailEventsAndLastEventAt(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	var last stick.Event
	for _, text := range []string{"one", "two", "three"} {
		e.clock.Advance(time.Minute)
		res, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		last = res.Event
	}

	tail, err := e.svc.TailEvents(e.ctx, room, 2)
	if err != nil || len(tail.Events) != 2 || tail.Events[0].Text != "two" || tail.Events[1].Text != "three" ||
		!tail.Earlier || tail.HasMore || tail.Cursor != last.Seq {
		t.Fatalf("tail 2: %+v %v", tail, err)
	}
	all, err := e.svc.TailEvents(e.ctx, room, 0)
	if err != nil || len(all.Events) != 4 || all.Events[0].Type != stick.EventJoin || all.Earlier || all.Cursor != last.Seq {
		t.Fatalf("tail 0: %+v %v", all, err)
	}
	for _, n := range []int{-1, stick.MaxEventLimit + 1} {
		_, err := e.svc.TailEvents(e.ctx, room, n)
		if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "tail" {
			t.Errorf("tail %d: %+v", n, se)
		}
	}
	_, err = e.svc.TailEvents(e.ctx, "room_none", 1)
	wantCode(t, err, stick.CodeRoomNotFound)

	older, err := e.svc.EventsBefore(e.ctx, room, tail.Events[0].Seq, 1)
	if err != nil || len(older.Events) != 1 || older.Events[0].Text != "one" || !older.Earlier {
		t.Fatalf("before 'two', 1: %+v %v", older, err)
	}
	first, err := e.svc.EventsBefore(e.ctx, room, older.Events[0].Seq, 0)
	if err != nil || len(first.Events) != 1 || first.Events[0].Type != stick.EventJoin || first.Earlier {
		t.Fatalf("before 'one': %+v %v", first, err)
	}
	_, err = e.svc.EventsBefore(e.ctx, room, 0, 1)
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "before" {
		t.Errorf("before 0: %+v", se)
	}

	rooms, err := e.svc.ListRooms(e.ctx, e.repo)
	if err != nil || len(rooms) != 1 || !rooms[0].LastEventAt.Equal(last.CreatedAt) || !rooms[0].LastEventAt.After(rooms[0].UpdatedAt) {
		t.Fatalf("list after notes: %+v %v (last note at %v)", rooms, err, last.CreatedAt)
	}
}
