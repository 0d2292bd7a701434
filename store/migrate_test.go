package store

import (
	"context"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// TestMigrationFromVersion1 opens a database written by schema version 1
// (rooms open and closed, events with AUTOINCREMENT and unique ids) and
// checks that version 2 keeps every row, keeps the log append-only, keeps
// one open room per path, and continues the event sequence.
func TestMigrationFromVersion1(t *testing.T) {
	path := writeVersion1(t, `
INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at, closed_at) VALUES ('room_a', '/w', 'closed', 1, 5, 4);
INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at) VALUES ('room_b', '/w', 'closed', 6, 7);
INSERT INTO rooms (room_id, canonical_path, state, turn_id, created_at, updated_at) VALUES ('room_c', '/w', 'owned', 3, 8, 9);
INSERT INTO events (event_id, room_id, turn_id, event_type, created_at) VALUES ('evt_1', 'room_a', 0, 'join', 1);
INSERT INTO events (event_id, room_id, turn_id, event_type, text, created_at) VALUES ('evt_2', 'room_c', 3, 'note', 'kept', 2);
INSERT INTO events (event_id, room_id, turn_id, event_type, created_at) VALUES ('evt_3', 'room_c', 3, 'claim', 3);
INSERT INTO members (room_id, agent_id, ordinal, joined_at, last_seen_at, session_kind) VALUES ('room_c', 'ana', 1, 1, 1, 'process');
`)

	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	c := rawConn(t, path)
	if v := query(t, c, "SELECT value FROM meta WHERE key = 'schema_version'"); v != strconv.Itoa(SchemaVersion) {
		t.Fatalf("schema_version %q, want %d", v, SchemaVersion)
	}
	if v := query(t, c, "SELECT group_concat(event_seq || ':' || event_id || ':' || coalesce(text, ''), ',') FROM events"); v != "1:evt_1:,2:evt_2:kept,3:evt_3:" {
		t.Fatalf("events after migration: %s", v)
	}
	if v := query(t, c, "SELECT group_concat(room_id || ':' || coalesce(closed_at, 'open'), ',') FROM rooms ORDER BY room_id"); v != "room_a:4,room_b:7,room_c:open" {
		t.Fatalf("closed_at after migration: %s", v)
	}
	if v := query(t, c, "SELECT group_concat(room_id || ':' || agent_id) FROM members"); v != "room_c:ana" {
		t.Fatalf("members after migration: %s", v)
	}
	if v := query(t, c, "SELECT count(*) FROM members WHERE reclaim_token GLOB 'rt_*' AND length(reclaim_token) = 35"); v != "1" {
		t.Fatalf("a member from before reclaim tokens must get one, so its name is reserved: %s", v)
	}
	if v := query(t, c, "SELECT count(*) FROM sqlite_sequence WHERE name = 'events'"); v != "0" {
		t.Fatalf("events still in sqlite_sequence: %s", v)
	}
	if v := query(t, c, "PRAGMA integrity_check"); v != "ok" {
		t.Fatalf("integrity_check: %s", v)
	}

	// The log stays append-only, states and references stay checked, and
	// the sequence continues.
	if err := sqlitex.ExecuteTransient(c, "PRAGMA foreign_keys = ON", nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"UPDATE events SET text = 'x' WHERE event_seq = 2",
		"DELETE FROM events WHERE event_seq = 1",
		"UPDATE rooms SET state = 'bogus' WHERE room_id = 'room_c'",
		"INSERT INTO members (room_id, agent_id, ordinal, joined_at, last_seen_at, session_kind) VALUES ('room_x', 'bo', 1, 1, 1, 'process')",
	} {
		if err := sqlitex.ExecuteTransient(c, q, nil); err == nil {
			t.Fatalf("%s succeeded after the migration", q)
		}
	}
	err = st.Update(ctx, func(tx stick.Tx) error {
		e, err := tx.AppendEvent(stick.Event{RoomID: "room_c", TurnID: 3, Type: stick.EventNote, Text: "new"})
		if err != nil {
			return err
		}
		if e.Seq != 4 {
			t.Errorf("next event seq %d, want 4", e.Seq)
		}
		// One open room per path: a second open room at /w is refused...
		err = tx.CreateRoom(stick.Room{ID: "room_d", Path: "/w", State: stick.StateIdle})
		if err == nil {
			t.Error("a second open room at /w was created")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// ...until the open one is closed, when the path is free again.
	err = st.Update(ctx, func(tx stick.Tx) error {
		r, ok, err := tx.Room("room_c")
		if err != nil || !ok {
			return err
		}
		r.State, r.ClosedAt = stick.StateClosed, r.UpdatedAt
		if err := tx.SaveRoom(r); err != nil {
			return err
		}
		return tx.CreateRoom(stick.Room{ID: "room_d", Path: "/w", State: stick.StateIdle})
	})
	if err != nil {
		t.Fatalf("new room after close: %v", err)
	}
	if v := query(t, c, "SELECT closed_at IS NOT NULL FROM rooms WHERE room_id = 'room_c'"); v != "1" {
		t.Fatalf("closing did not write closed_at: %s", v)
	}
}

// writeVersion1 creates a database as schema version 1 wrote it, with the
// rows that rows inserts, and returns its path.
func writeVersion1(t *testing.T, rows string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rooms.sqlite")
	c, err := sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenWAL)
	if err != nil {
		t.Fatal(err)
	}
	script := "PRAGMA application_id = " + strconv.Itoa(applicationID) + ";\n" +
		"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;\n" + migrations[0] +
		"INSERT INTO meta VALUES ('schema_version', '1');\n" + rows
	if err := sqlitex.ExecuteScript(c, script, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func rawConn(t *testing.T, path string) *sqlite.Conn {
	t.Helper()
	c, err := sqlite.OpenConn(path, sqlite.OpenReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func query(t *testing.T, c *sqlite.Conn, q string) string {
	t.Helper()
	var out string
	err := sqlitex.ExecuteTransient(c, q, &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
		out = st.ColumnText(0)
		return nil
	}})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// TestMigrationRefusesDanglingRows leaves a version 1 file with an event of
// a room that does not exist untouched and says so.
func TestMigrationRefusesDanglingRows(t *testing.T) {
	path := writeVersion1(t, `
INSERT INTO events (event_id, room_id, turn_id, event_type, created_at) VALUES ('evt_1', 'room_gone', 0, 'join', 1);
`)
	_, err := Open(path, Options{})
	if stick.ErrorCode(err) != stick.CodeDBCorrupt {
		t.Fatalf("open: %v, want db_corrupt", err)
	}
	if v := query(t, rawConn(t, path), "SELECT value FROM meta WHERE key = 'schema_version'"); v != "1" {
		t.Fatalf("schema_version %q after a refused migration, want 1", v)
	}
}

// TestMigrationFromVersion12 opens a database of schema version 12: its
// rows read back as they were, with no handle, wake, recipients, channel
// or channel declarations; the log stays append-only but for notes, which
// may now be deleted; a handle is unique in its room.
func TestMigrationFromVersion12(t *testing.T) {
	path := writeVersion(t, 12, `
INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at, room_key) VALUES ('room_a', '/w', 'idle', 1, 2, 'local:h:/w');
INSERT INTO members (room_id, agent_id, ordinal, joined_at, last_seen_at, session_kind, display_name, sync_cursor, reclaim_token)
	VALUES ('room_a', 'ana', 1, 3, 4, 'process', 'Ana', 2, 'rt_x');
INSERT INTO events (event_id, room_id, turn_id, event_type, from_agent_id, created_at) VALUES ('evt_1', 'room_a', 0, 'join', 'ana', 3);
INSERT INTO events (event_id, room_id, turn_id, event_type, from_agent_id, text, message_type, created_at)
	VALUES ('evt_2', 'room_a', 0, 'note', 'ana', 'kept', 'note', 5);
`)
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := rawConn(t, path)
	if v := query(t, c, "SELECT value FROM meta WHERE key = 'schema_version'"); v != strconv.Itoa(SchemaVersion) || SchemaVersion < 13 {
		t.Fatalf("schema_version %q, want %d, at least 13", v, SchemaVersion)
	}
	err = st.View(context.Background(), func(tx stick.Tx) error {
		r, ok, err := tx.Room("room_a")
		if err != nil || !ok {
			t.Fatalf("room_a after the migration: %v %v", ok, err)
		}
		if r.Key != "local:h:/w" || r.Path != "/w" || r.Channels != nil {
			t.Errorf("room_a after the migration: %+v", r)
		}
		ms, err := tx.Members("room_a")
		if err != nil {
			return err
		}
		want := stick.Member{RoomID: "room_a", AgentID: "ana", Ordinal: 1, JoinedAt: time.UnixMilli(3).UTC(), LastSeenAt: time.UnixMilli(4).UTC(),
			Kind: stick.KindProcess, DisplayName: "Ana", SyncCursor: 2, ReclaimToken: "rt_x"}
		if len(ms) != 1 || !reflect.DeepEqual(ms[0], want) {
			t.Errorf("members after the migration: %+v, want %+v", ms, want)
		}
		evs, err := tx.Events("room_a", 0, 10)
		if err != nil {
			return err
		}
		if len(evs) != 2 || evs[0].ID != "evt_1" || evs[1].Text != "kept" || evs[1].Channel != "" || evs[1].Recipients != nil || evs[1].Interrupt {
			t.Errorf("events after the migration: %+v", evs)
		}
		stats, err := tx.ChannelStats("room_a")
		if err != nil {
			return err
		}
		if len(stats) != 1 || stats[0] != (stick.ChannelStat{Channel: stick.DefaultChannel, Notes: 1, Bytes: 4, Last: time.UnixMilli(5).UTC()}) {
			t.Errorf("channel stats after the migration: %+v; a note from before channels is in %s", stats, stick.DefaultChannel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := query(t, c, "PRAGMA integrity_check"); v != "ok" {
		t.Fatalf("integrity_check: %s", v)
	}
	for _, q := range []string{
		"UPDATE events SET text = 'x' WHERE event_seq = 2",
		"DELETE FROM events WHERE event_seq = 1",
		"DELETE FROM events",
		"INSERT INTO members (room_id, agent_id, ordinal, joined_at, last_seen_at, session_kind, handle) VALUES ('room_a', 'bo', 2, 1, 1, 'process', 'ana')," +
			" ('room_a', 'cy', 3, 1, 1, 'process', 'ana')",
	} {
		if err := sqlitex.ExecuteTransient(c, q, nil); err == nil {
			t.Fatalf("%s succeeded after the migration", q)
		}
	}
	if err := sqlitex.ExecuteTransient(c, "DELETE FROM events WHERE event_seq = 2", nil); err != nil {
		t.Fatalf("deleting a note after the migration: %v", err)
	}
	if v := query(t, c, "SELECT group_concat(event_id) FROM events"); v != "evt_1" {
		t.Fatalf("events after deleting the note: %s", v)
	}
}
