package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// TestWritesStopWhenTheFilesAreDeleted deletes the -wal and -shm files, or
// only one of them, under a store that has written: its next write fails
// with data_dir_unusable naming the missing file and saying to restart
// every stick process, instead of going on in files no new process sees.
func TestWritesStopWhenTheFilesAreDeleted(t *testing.T) {
	for _, gone := range [][]string{{"-wal", "-shm"}, {"-wal"}, {"-shm"}} {
		t.Run(strings.Join(gone, ","), func(t *testing.T) {
			dir, _, svc, ana, room := openSeeded(t)
			for _, suffix := range gone {
				if err := os.Remove(filepath.Join(dir, store.DBFileName+suffix)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := svc.AppendNote(t.Context(), ana, room, "into the void")
			se := stick.AsError(err)
			if err == nil || se.Code != stick.CodeDataDir || !strings.Contains(se.Message, "deleted or replaced") || !strings.Contains(se.Hint, "start them again") {
				t.Fatalf("a note after %v was deleted: %v; want data_dir_unusable saying to restart", gone, err)
			}
		})
	}
}

// TestFilesCheckedAfterAQuietDirectory: a directory whose entries last
// changed long ago lets a store skip the stats of its three files, yet a
// file deleted or renamed away after that is still refused at the next
// call, because the change moves the directory's modification time.
func TestFilesCheckedAfterAQuietDirectory(t *testing.T) {
	for _, change := range []string{"delete -wal", "rename the database"} {
		t.Run(change, func(t *testing.T) {
			dir, _, svc, ana, room := openSeeded(t)
			long := time.Now().Add(-time.Hour)
			if err := os.Chtimes(dir, long, long); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				if _, err := svc.AppendNote(t.Context(), ana, room, fmt.Sprintf("quiet %d", i)); err != nil {
					t.Fatal(err)
				}
			}
			db := filepath.Join(dir, store.DBFileName)
			var err error
			if change == "delete -wal" {
				err = os.Remove(db + "-wal")
			} else {
				err = os.Rename(db, db+".moved")
			}
			if err != nil {
				t.Fatal(err)
			}
			_, err = svc.AppendNote(t.Context(), ana, room, "into the void")
			if se := stick.AsError(err); err == nil || se.Code != stick.CodeDataDir || !strings.Contains(se.Message, "deleted or replaced") {
				t.Fatalf("a note after %s: %v; want data_dir_unusable", change, err)
			}
		})
	}
}

// TestWaitersStopWhenTheFilesAreDeleted deletes the -wal and -shm files
// under a store that only waits (FollowEvents blocked, never writing),
// beside one that wrote: within a few fallback polls the waiter returns
// data_dir_unusable instead of waiting forever for commits that will never
// reach it, and a read on either store says the same.
func TestWaitersStopWhenTheFilesAreDeleted(t *testing.T) {
	dir, writer, _, _, room := openSeeded(t)
	st, err := store.OpenDir(dir, store.Options{FallbackPoll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	page, err := svc.RoomEvents(t.Context(), room, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := svc.FollowEvents(t.Context(), room, page.Cursor, 100)
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it block; a head start is not needed for the outcome
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(filepath.Join(dir, store.DBFileName+suffix)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-got:
		if se := stick.AsError(err); err == nil || se.Code != stick.CodeDataDir || !strings.Contains(se.Hint, "start them again") {
			t.Fatalf("FollowEvents after -wal and -shm were deleted: %v; want data_dir_unusable saying to restart", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("FollowEvents still waits 10s after -wal and -shm were deleted under it")
	}
	for _, s := range []*store.Store{st, writer} {
		err := s.View(t.Context(), func(stick.Tx) error { return nil })
		if stick.ErrorCode(err) != stick.CodeDataDir {
			t.Fatalf("a read after -wal and -shm were deleted: %v; want data_dir_unusable", err)
		}
	}
}

// TestTurnWaitersStopWhenTheFilesAreDeleted deletes the -wal and -shm
// files while one member holds the turn and another, through a second
// store, waits for it on its bells: the waiter returns data_dir_unusable
// at its next look at the room instead of waiting for a turn that no
// commit will ever hand over.
func TestTurnWaitersStopWhenTheFilesAreDeleted(t *testing.T) {
	dir, _, svc, _, _ := openSeeded(t)
	ana := stick.Caller{AgentID: "ana", Kind: stick.KindProcess}
	bob := stick.Caller{AgentID: "bob", Kind: stick.KindProcess}
	repo := testkit.Repo(t)
	j, err := svc.JoinPath(t.Context(), ana, stick.JoinRequest{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	room := j.RoomID
	if w, err := svc.WaitForTurn(t.Context(), ana, stick.WaitRequest{RoomID: room}); err != nil || w.Status != stick.YourTurn {
		t.Fatalf("ana's turn: %+v %v", w, err)
	}
	st2, err := store.OpenDir(dir, store.Options{FallbackPoll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	svc2, err := stick.New(st2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc2.JoinPath(t.Context(), bob, stick.JoinRequest{Path: repo}); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		w, err := svc2.WaitForTurn(t.Context(), bob, stick.WaitRequest{RoomID: room})
		if err == nil {
			err = fmt.Errorf("status %s", w.Status)
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it block; a head start is not needed for the outcome
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(filepath.Join(dir, store.DBFileName+suffix)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-got:
		if stick.ErrorCode(err) != stick.CodeDataDir {
			t.Fatalf("WaitForTurn after -wal and -shm were deleted: %v; want data_dir_unusable", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WaitForTurn still waits 10s after -wal and -shm were deleted under it")
	}
}
