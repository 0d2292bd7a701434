package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// TestBellsOfLeftMembersAreRemoved: a member's bell goes when the member
// leaves (and its waiter wakes), and opening the store removes the bells
// of members and rooms that no longer exist and of closed rooms, keeping
// everyone else's.
func TestBellsOfLeftMembersAreRemoved(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	err = st.Update(ctx, func(tx stick.Tx) error {
		if err := tx.CreateRoom(stick.Room{ID: "room_1", Path: "/w", State: stick.StateIdle, CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		if err := tx.CreateRoom(stick.Room{ID: "room_closed", Path: "/c", State: stick.StateClosed, CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		if err := tx.SaveMember(stick.Member{RoomID: "room_closed", AgentID: "a", Ordinal: 1, Kind: stick.KindProcess, JoinedAt: now, LastSeenAt: now}); err != nil {
			return err
		}
		for i, a := range []string{"a", "b", "c"} {
			if err := tx.SaveMember(stick.Member{RoomID: "room_1", AgentID: a, Ordinal: i + 1, Kind: stick.KindProcess, JoinedAt: now, LastSeenAt: now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	bellsDir := st.Path() + bellsSuffix
	bell := func(room, agent string) string { return filepath.Join(bellsDir, bellName(room, agent)) }
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	for _, a := range []string{"", "a", "b", "c"} {
		_ = st.Rung("room_1", a)
		if !exists(bell("room_1", a)) {
			t.Skip("bells cannot be watched here")
		}
	}
	woken := st.Rung("room_1", "b")
	if err := st.Update(ctx, func(tx stick.Tx) error { return tx.DeleteMember("room_1", "b") }); err != nil {
		t.Fatal(err)
	}
	if exists(bell("room_1", "b")) {
		t.Error("the bell of a member that left is still there")
	}
	select {
	case <-woken:
	case <-time.After(5 * time.Second):
		t.Error("the waiter on the removed bell was not woken")
	}
	// Bells left behind by members and rooms that are gone (a crash, an
	// older version), and those of closed rooms, go at the next open.
	stale := []string{bell("room_1", "zed"), bell("room_gone", ""), bell("room_gone", "a"), bell("room_closed", ""), bell("room_closed", "a")}
	for _, p := range stale {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(bellsDir, "not-a-bell")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = OpenDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, p := range stale {
		if exists(p) {
			t.Errorf("a stale bell survived the open: %s", filepath.Base(p))
		}
	}
	for _, a := range []string{"", "a", "c"} {
		if !exists(bell("room_1", a)) {
			t.Errorf("the open removed the bell of %q", a)
		}
	}
	if !exists(other) {
		t.Error("the open removed a file that is no bell")
	}
}
