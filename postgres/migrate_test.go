package postgres_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/stick"
)

// A database of schema version 12 migrates to the current one keeping its
// rows, which read back with no handle, wake, recipients, channel or
// channel declarations; the log stays append-only but for notes, which
// may now be deleted; a handle is unique in its room.
func TestMigrationFromVersion12(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	admin(t, u, "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (12);\n"+
		strings.Join(postgres.MigrationsThrough(12), "\n")+`
INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at, room_key) VALUES ('room_a', '/w', 'idle', 1, 2, 'local:h:/w');
INSERT INTO members (room_id, agent_id, ordinal, joined_at, last_seen_at, session_kind, display_name, sync_cursor, reclaim_token)
	VALUES ('room_a', 'ana', 1, 3, 4, 'process', 'Ana', 2, 'rt_x');
INSERT INTO events (event_seq, event_id, room_id, turn_id, event_type, from_agent_id, created_at) VALUES (1, 'evt_1', 'room_a', 0, 'join', 'ana', 3);
INSERT INTO events (event_seq, event_id, room_id, turn_id, event_type, from_agent_id, text, message_type, created_at)
	VALUES (2, 'evt_2', 'room_a', 0, 'note', 'ana', 'kept', 'note', 5);
`)
	st, err := postgres.Open(ctx, u, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var version int
	if err := conn.QueryRow(ctx, "SELECT version FROM schema_version").Scan(&version); err != nil || version != postgres.SchemaVersion || version < 13 {
		t.Fatalf("schema version %d %v, want %d, at least 13", version, err, postgres.SchemaVersion)
	}
	err = st.View(ctx, func(tx stick.Tx) error {
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
	for _, q := range []string{
		"UPDATE events SET text = 'x' WHERE event_seq = 2",
		"DELETE FROM events WHERE event_seq = 1",
		"DELETE FROM events",
		"INSERT INTO members (room_id, agent_id, ordinal, joined_at, last_seen_at, session_kind, handle) VALUES ('room_a', 'bo', 2, 1, 1, 'process', 'ana')," +
			" ('room_a', 'cy', 3, 1, 1, 'process', 'ana')",
	} {
		if _, err := conn.Exec(ctx, q); err == nil {
			t.Fatalf("%s succeeded after the migration", q)
		}
	}
	if _, err := conn.Exec(ctx, "DELETE FROM events WHERE event_seq = 2"); err != nil {
		t.Fatalf("deleting a note after the migration: %v", err)
	}
	var left string
	if err := conn.QueryRow(ctx, "SELECT string_agg(event_id, ',') FROM events").Scan(&left); err != nil || left != "evt_1" {
		t.Fatalf("events after deleting the note: %q %v", left, err)
	}
}
