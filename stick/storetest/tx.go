package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/stickhq/stick/stick"
)

var txCases = []testCase{
	{"ErrorRollsBackEverything", testRollback},
	{"ViewFailsWrites", testViewFailsWrites},
	{"ViewSeesCommitsBeforeIt", testViewSeesCommits},
	{"ViewIsASnapshot", testViewSnapshot},
	{"ReadsDoNotWaitForWriters", testReadsDoNotWait},
	{"ConcurrentWritersLoseNoUpdate", testConcurrentWriters},
	{"CanceledContext", testCanceled},
	{"Close", testClose},
}

// world is what the transaction tests write and compare: a room, its
// members, its log and its document.
type world struct {
	room    stick.Room
	members []stick.Member
	events  []stick.Event
	doc     stick.Document
	rooms   []stick.Room // every room
}

// seedWorld writes one room with a member, an event and a document.
func seedWorld(e *env) {
	e.t.Helper()
	createRooms(e, newRoom("room_1", "/w/one"))
	e.update(e.s, func(tx stick.Tx) error {
		if err := tx.SaveMember(member("room_1", "a", 1)); err != nil {
			return err
		}
		if _, err := tx.AppendEvent(note("room_1", "a", "first", 1)); err != nil {
			return err
		}
		d := docVersionAt("room_1", 1, "# Doc\n\nfirst version\n")
		return tx.SaveDoc(d)
	})
}

// readWorld reads room_1's world in a View of s.
func readWorld(e *env, s stick.Store) world {
	e.t.Helper()
	var w world
	e.view(s, func(tx stick.Tx) (err error) {
		w, err = worldIn(tx)
		return err
	})
	return w
}

// worldIn reads room_1's world inside tx.
func worldIn(tx stick.Tx) (w world, err error) {
	if w.room, _, err = tx.Room("room_1"); err != nil {
		return w, err
	}
	if w.members, err = tx.Members("room_1"); err != nil {
		return w, err
	}
	if w.events, err = tx.Events("room_1", 0, 1000); err != nil {
		return w, err
	}
	if w.doc, _, err = tx.Doc("room_1", 0); err != nil {
		return w, err
	}
	w.rooms, err = tx.RoomsUnder("", true)
	return w, err
}

// sameWorld fails the test when got differs from want.
func sameWorld(e *env, what string, got, want world) {
	e.t.Helper()
	mustEqual(e, what+": the room", got.room, want.room, normRoom)
	mustEqual(e, what+": the members", got.members, want.members, normAll(normMember))
	mustEqual(e, what+": the log", got.events, want.events, normAll(normEvent))
	mustEqual(e, what+": the document", got.doc, want.doc, normDoc)
	if g, w := roomIDs(got.rooms), roomIDs(want.rooms); fmt.Sprint(g) != fmt.Sprint(w) {
		e.t.Fatalf("%s: rooms %q, want %q", what, g, w)
	}
}

// writeEverything calls every write method of tx, on room_1 and a new
// room_2, and reports the first error.
func writeEverything(tx stick.Tx) error {
	r, ok, err := tx.Room("room_1")
	if err != nil || !ok {
		return fmt.Errorf("room_1: ok %v, err %v", ok, err)
	}
	r.TurnID, r.State, r.Owner, r.UpdatedAt = r.TurnID+1, stick.StateOwned, "a", at(500)
	for _, step := range []func() error{
		func() error { return tx.CreateRoom(newRoom("room_2", "/w/two")) },
		func() error { return tx.SaveRoom(r) },
		func() error { return tx.SaveMember(member("room_1", "b", 2)) },
		func() error { return tx.DeleteMember("room_1", "a") },
		func() error { _, err := tx.AppendEvent(note("room_1", "b", "second", 2)); return err },
		func() error { return tx.SaveDoc(docVersionAt("room_1", 2, "# Doc\n\nsecond version\n")) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// An error from Update's function keeps nothing it wrote, and Update
// returns it: a coded *stick.Error as it is, any other so that errors.Is
// finds it. View returns its function's coded error as it is too.
func testRollback(e *env) {
	seedWorld(e)
	before := readWorld(e, e.s)
	coded := stick.Errorf(stick.CodeStaleLease, "the lease moved on").With("current_turn_id", 3)
	for _, tc := range []struct {
		name string
		err  error
	}{{"a coded error", coded}, {"a plain error", errRollback}} {
		err := e.s.Update(e.ctx, func(tx stick.Tx) error {
			if err := writeEverything(tx); err != nil {
				e.t.Fatalf("write in an update: %v", err)
			}
			return tc.err
		})
		switch {
		case tc.err == coded && err != error(coded):
			e.t.Fatalf("update whose function returned %v: got %#v; want that very *stick.Error", coded, err)
		case !errors.Is(err, tc.err):
			e.t.Fatalf("update whose function returned %v: got %v, which does not wrap it", tc.err, err)
		}
		sameWorld(e, "after an update that returned "+tc.name, readWorld(e, e.s), before)
	}
	if err := e.s.View(e.ctx, func(stick.Tx) error { return coded }); err != error(coded) {
		e.t.Fatalf("view whose function returned %v: got %#v; want that very *stick.Error", coded, err)
	}
	// The store works on: the same writes commit.
	e.update(e.s, writeEverything)
	after := readWorld(e, e.s)
	if after.room.TurnID != before.room.TurnID+1 || len(after.events) != 2 || after.doc.Version != 2 || len(after.rooms) != 2 {
		e.t.Fatalf("the writes did not commit after the rollbacks: %+v", after)
	}
}

// Every write method fails inside View (and BriefView), and nothing is
// written, even when the function ignores the errors.
func testViewFailsWrites(e *env) {
	seedWorld(e)
	before := readWorld(e, e.s)
	views := map[string]func(context.Context, func(stick.Tx) error) error{"View": e.s.View}
	if bv, ok := e.s.(stick.BriefViewer); ok {
		views["BriefView"] = bv.BriefView
	}
	for name, view := range views {
		err := view(e.ctx, func(tx stick.Tx) error {
			r, _, err := tx.Room("room_1")
			if err != nil {
				return err
			}
			for method, write := range map[string]func() error{
				"CreateRoom":   func() error { return tx.CreateRoom(newRoom("room_2", "/w/two")) },
				"SaveRoom":     func() error { r.TurnID++; return tx.SaveRoom(r) },
				"SaveMember":   func() error { return tx.SaveMember(member("room_1", "b", 2)) },
				"DeleteMember": func() error { return tx.DeleteMember("room_1", "a") },
				"AppendEvent":  func() error { _, err := tx.AppendEvent(note("room_1", "b", "second", 2)); return err },
				"SaveDoc":      func() error { return tx.SaveDoc(docVersionAt("room_1", 2, "# Doc\n\nsecond\n")) },
				"PruneNotes":   func() error { _, err := tx.PruneNotes("room_1", "", 0, 0, at(1000)); return err },
			} {
				if err := write(); err == nil {
					e.t.Errorf("%s inside %s succeeded; write methods must fail in a read transaction", method, name)
				}
			}
			return nil
		})
		if err != nil {
			e.t.Fatalf("%s whose function ignored its failed writes: %v", name, err)
		}
		sameWorld(e, "after writes inside "+name, readWorld(e, e.s), before)
	}
}

// A View, and a BriefView, sees every commit made before it began, by
// this handle or another.
func testViewSeesCommits(e *env) {
	other := e.handle()
	createRooms(e, newRoom("room_1", "/w/one"))
	views := map[string]func(stick.Store) func(context.Context, func(stick.Tx) error) error{
		"View": func(s stick.Store) func(context.Context, func(stick.Tx) error) error { return s.View },
	}
	if _, ok := e.s.(stick.BriefViewer); ok {
		views["BriefView"] = func(s stick.Store) func(context.Context, func(stick.Tx) error) error {
			return s.(stick.BriefViewer).BriefView
		}
	}
	turn := int64(0)
	for i := range 6 {
		writer, reader := e.s, other
		if i%2 == 1 {
			writer, reader = other, e.s
		}
		turn++
		want := turn
		var seq int64
		e.update(writer, func(tx stick.Tx) error {
			r, _, err := tx.Room("room_1")
			if err != nil {
				return err
			}
			r.TurnID = want
			if err := tx.SaveRoom(r); err != nil {
				return err
			}
			ev, err := tx.AppendEvent(note("room_1", "a", "turn", int(want)))
			seq = ev.Seq
			return err
		})
		for name, view := range views {
			err := view(reader)(e.ctx, func(tx stick.Tx) error {
				r, _, err := tx.Room("room_1")
				if err != nil {
					return err
				}
				last, err := tx.LastSeq("room_1")
				if r.TurnID != want || last != seq {
					e.t.Fatalf("%s after a commit by %s handle: turn %d, last seq %d; want %d, %d",
						name, map[bool]string{true: "the same", false: "another"}[writer == reader], r.TurnID, last, want, seq)
				}
				return err
			})
			if err != nil {
				e.t.Fatal(err)
			}
		}
	}
}

// A View reads one snapshot: a commit made while it runs, by another
// handle, which it does not hold up, is not seen by its later reads.
func testViewSnapshot(e *env) {
	other := e.handle()
	seedWorld(e)
	before := readWorld(e, e.s)
	ctx, cancel := context.WithTimeout(e.ctx, e.h.WakeWithin)
	defer cancel()
	e.view(e.s, func(tx stick.Tx) error {
		if _, _, err := tx.Room("room_1"); err != nil {
			return err
		}
		if err := other.Update(ctx, writeEverything); err != nil {
			e.t.Fatalf("an update by another handle while a view runs: %v; a read must not hold up a writer", err)
		}
		var got world
		var err error
		if got.room, _, err = tx.Room("room_1"); err != nil {
			return err
		}
		if got.members, err = tx.Members("room_1"); err != nil {
			return err
		}
		if got.events, err = tx.Events("room_1", 0, 1000); err != nil {
			return err
		}
		if got.doc, _, err = tx.Doc("room_1", 0); err != nil {
			return err
		}
		if got.rooms, err = tx.RoomsUnder("", true); err != nil {
			return err
		}
		sameWorld(e, "a view's reads after another handle's commit", got, before)
		return nil
	})
	if after := readWorld(e, e.s); after.room.TurnID != before.room.TurnID+1 || len(after.events) != 2 {
		e.t.Fatalf("a view after the commit does not see it: %+v", after)
	}
}

// While a write transaction of one handle is open, reads of either
// handle answer at once, and see the data as it was before it.
func testReadsDoNotWait(e *env) {
	other := e.handle()
	seedWorld(e)
	before := readWorld(e, e.s)
	wrote, finish := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- e.s.Update(e.ctx, func(tx stick.Tx) error {
			if err := writeEverything(tx); err != nil {
				return err
			}
			select {
			case <-wrote: // a retried function: already signalled
			default:
				close(wrote)
			}
			<-finish
			return nil
		})
	}()
	select {
	case <-wrote:
	case err := <-done:
		e.t.Fatalf("the update ended before it was let: %v", err)
	}
	for name, s := range map[string]stick.Store{"this handle": e.s, "another handle": other} {
		ctx, cancel := context.WithTimeout(e.ctx, e.h.WakeWithin)
		var got world
		err := s.View(ctx, func(tx stick.Tx) (err error) {
			got, err = worldIn(tx)
			return err
		})
		cancel()
		if err != nil {
			close(finish)
			e.t.Fatalf("a view on %s while an update is open: %v; a read must not wait for a writer", name, err)
		}
		sameWorld(e, "a view on "+name+" while an update is open", got, before)
	}
	close(finish)
	if err := <-done; err != nil {
		e.t.Fatal(err)
	}
	if after := readWorld(e, other); after.room.TurnID != before.room.TurnID+1 {
		e.t.Fatalf("the update did not commit: %+v", after.room)
	}
}

// Writers on two handles, several goroutines each, read a room's counter
// and write it incremented, with an event carrying the new value: no
// increment is lost, and the log holds the values in Seq order, since
// write transactions take effect one at a time and Seqs grow in commit
// order. Readers meanwhile always find the room and its log agreeing,
// and the counter never going back.
func testConcurrentWriters(e *env) {
	const writers, rounds = 4, 15
	handles := []stick.Store{e.s, e.handle()}
	createRooms(e, newRoom("room_1", "/w/one"))
	var wg sync.WaitGroup
	errs := make(chan error, len(handles)*writers+len(handles))
	for h, s := range handles {
		for w := range writers {
			wg.Go(func() {
				for range rounds {
					err := s.Update(e.ctx, func(tx stick.Tx) error {
						r, ok, err := tx.Room("room_1")
						if err != nil || !ok {
							return fmt.Errorf("read the room: ok %v, err %v", ok, err)
						}
						r.TurnID++
						if err := tx.SaveRoom(r); err != nil {
							return err
						}
						_, err = tx.AppendEvent(stick.Event{RoomID: "room_1", TurnID: r.TurnID, Type: stick.EventClaim,
							From: fmt.Sprintf("h%d-w%d", h, w), CreatedAt: at(int(r.TurnID))})
						return err
					})
					if err != nil {
						errs <- fmt.Errorf("writer %d of handle %d: %w", w, h, err)
						return
					}
				}
			})
		}
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for h, s := range handles {
		readers.Go(func() {
			seen := int64(-1)
			for {
				var turn, logged int64
				err := s.View(e.ctx, func(tx stick.Tx) error {
					r, _, err := tx.Room("room_1")
					if err != nil {
						return err
					}
					ev, ok, err := tx.LastEvent("room_1")
					turn = r.TurnID
					if ok {
						logged = ev.TurnID
					}
					return err
				})
				switch {
				case err != nil:
					errs <- fmt.Errorf("reader of handle %d: %w", h, err)
					return
				case turn != logged:
					errs <- fmt.Errorf("reader of handle %d: the room's counter is %d, its newest event's %d; one view must see one snapshot", h, turn, logged)
					return
				case turn < seen:
					errs <- fmt.Errorf("reader of handle %d: the counter went back from %d to %d", h, seen, turn)
					return
				}
				seen = turn
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		e.t.Error(err)
	}
	if e.t.Failed() {
		return
	}
	total := len(handles) * writers * rounds
	r, _, _ := roomOf(e, e.s, "room_1")
	if r.TurnID != int64(total) {
		e.t.Fatalf("after %d increments the counter is %d: updates were lost", total, r.TurnID)
	}
	evs := read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.Events("room_1", 0, 2*total) })
	if len(evs) != total {
		e.t.Fatalf("%d events, want %d", len(evs), total)
	}
	for i, ev := range evs {
		if ev.TurnID != int64(i+1) {
			e.t.Fatalf("event %d in Seq order carries counter %d, want %d: Seqs do not follow the order of commits (%v)", i+1, ev.TurnID, i+1, seqs(evs))
		}
	}
}

// A context that ended before Update or View is canceled, and nothing is
// written.
func testCanceled(e *env) {
	seedWorld(e)
	before := readWorld(e, e.s)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if err := e.s.Update(ctx, writeEverything); stick.ErrorCode(err) != stick.CodeCanceled {
		e.t.Fatalf("update with a canceled context: %v; want canceled", err)
	}
	sameWorld(e, "after an update with a canceled context", readWorld(e, e.s), before)
	if err := e.s.View(ctx, func(stick.Tx) error { return nil }); stick.ErrorCode(err) != stick.CodeCanceled {
		e.t.Fatalf("view with a canceled context: %v; want canceled", err)
	}
}

// Close lets a write in flight commit, and transactions begun after it
// fail; the store's other handles go on.
func testClose(e *env) {
	closing := e.handle()
	seedWorld(e)
	before := readWorld(e, e.s)
	wrote, finish := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- closing.Update(e.ctx, func(tx stick.Tx) error {
			if err := writeEverything(tx); err != nil {
				return err
			}
			select {
			case <-wrote:
			default:
				close(wrote)
			}
			<-finish
			return nil
		})
	}()
	select {
	case <-wrote:
	case err := <-done:
		e.t.Fatalf("the update ended before it was let: %v", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- e.close(closing) }()
	close(finish)
	if err := <-done; err != nil {
		e.t.Fatalf("a write in flight at Close: %v", err)
	}
	if err := <-closed; err != nil {
		e.t.Fatalf("close: %v", err)
	}
	if after := readWorld(e, e.s); after.room.TurnID != before.room.TurnID+1 || len(after.events) != 2 {
		e.t.Fatalf("the write in flight at Close was not kept: %+v", after)
	}
	if err := closing.Update(e.ctx, func(tx stick.Tx) error { return tx.CreateRoom(newRoom("room_9", "/w/nine")) }); err == nil {
		e.t.Fatal("an update on a closed handle succeeded")
	}
	if err := closing.View(e.ctx, func(stick.Tx) error { return nil }); err == nil {
		e.t.Fatal("a view on a closed handle succeeded")
	}
	e.update(e.s, func(tx stick.Tx) error { return tx.CreateRoom(newRoom("room_9", "/w/nine")) })
}
