package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// A brief read sees every commit, writes nothing, never waits for a write
// of its own process (it reads beside it), and fails clearly once the
// store is closed.
func TestBriefView(t *testing.T) {
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	room := stick.Room{ID: "room_brief", Path: "/brief", State: stick.StateIdle, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := st.Update(ctx, func(tx stick.Tx) error { return tx.CreateRoom(room) }); err != nil {
		t.Fatal(err)
	}
	read := func() (stick.Room, error) {
		var got stick.Room
		err := st.BriefView(ctx, func(tx stick.Tx) error {
			r, ok, err := tx.Room(room.ID)
			if err == nil && !ok {
				t.Error("a brief read does not see the committed room")
			}
			got = r
			return err
		})
		return got, err
	}
	if _, err := read(); err != nil {
		t.Fatal(err)
	}
	err = st.BriefView(ctx, func(tx stick.Tx) error { return tx.SaveRoom(room) })
	if stick.ErrorCode(err) != stick.CodeInternal {
		t.Errorf("a write in a brief read: %v, want internal", err)
	}

	// With a write of this process under way, it reads the last commit.
	held, free, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- st.Update(ctx, func(tx stick.Tx) error {
			r := room
			r.TurnID = 7
			if err := tx.SaveRoom(r); err != nil {
				return err
			}
			close(held)
			<-free
			return nil
		})
	}()
	<-held
	got, err := read()
	close(free)
	if err != nil || got.TurnID != 0 {
		t.Errorf("brief read during a write: %+v, %v; want the committed room", got, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, err := read(); err != nil || got.TurnID != 7 {
		t.Errorf("brief read after the write: turn %d, %v; want 7", got.TurnID, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := read(); stick.ErrorCode(err) != stick.CodeInternal {
		t.Errorf("brief read of a closed store: %v, want internal", err)
	}
}
