package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/workspace"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// writeVersion creates a database as schema version v wrote it, with the
// rows that rows inserts, and returns its path.
func writeVersion(t *testing.T, v int, rows string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rooms.sqlite")
	c, err := sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenWAL)
	if err != nil {
		t.Fatal(err)
	}
	script := "PRAGMA application_id = " + strconv.Itoa(applicationID) + ";\n" +
		"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;\n" +
		strings.Join(migrations[:v], "") +
		"INSERT INTO meta VALUES ('schema_version', '" + strconv.Itoa(v) + "');\n" + rows
	if err := sqlitex.ExecuteScript(c, script, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMigrationFillsRoomKeys opens a database of schema version 6, whose
// rooms have paths only: the migration keys each room by its path as it
// is now: a clone with an origin by the repository (a nested room with its
// path inside), anything else, and a path that no longer exists, locally.
func TestMigrationFillsRoomKeys(t *testing.T) {
	src := testkit.GitSource(t)
	clone := testkit.GitClone(t, src, "git@github.com:acme/api.git")
	nested := filepath.Join(clone, "services", "billing")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	plain, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(plain, "gone")
	path := writeVersion(t, 6, `
INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at) VALUES ('room_a', '`+clone+`', 'idle', 1, 1);
INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at) VALUES ('room_b', '`+nested+`', 'idle', 2, 2);
INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at, closed_at) VALUES ('room_c', '`+gone+`', 'closed', 3, 3, 3);
INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at) VALUES ('room_d', '`+plain+`', 'idle', 4, 4);
INSERT INTO events (event_id, room_id, turn_id, event_type, created_at) VALUES ('evt_1', 'room_a', 0, 'join', 1);
`)
	st, err := Open(path, Options{Workspaces: workspace.Local{HostID: "h1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := rawConn(t, path)
	if v := query(t, c, "SELECT value FROM meta WHERE key = 'schema_version'"); v != strconv.Itoa(SchemaVersion) || SchemaVersion < keysVersion {
		t.Fatalf("schema_version %s, want %d, at least %d", v, SchemaVersion, keysVersion)
	}
	want := "room_a=github.com/acme/api,room_b=github.com/acme/api/-/services/billing," +
		"room_c=local:h1:" + gone + ",room_d=local:h1:" + plain
	if got := query(t, c, "SELECT group_concat(room_id || '=' || room_key, ',') FROM (SELECT * FROM rooms ORDER BY room_id)"); got != want {
		t.Fatalf("keys after the migration:\n got %s\nwant %s", got, want)
	}
	if v := query(t, c, "SELECT count(*) FROM rooms WHERE room_name IS NOT NULL"); v != "0" {
		t.Fatalf("rooms of paths got names: %s", v)
	}
	if v := query(t, c, "PRAGMA integrity_check"); v != "ok" {
		t.Fatalf("integrity_check: %s", v)
	}
	ctx := context.Background()
	err = st.View(ctx, func(tx stick.Tx) error {
		for key, want := range map[string][]string{
			"github.com/acme/api":                    {"room_a"},
			"github.com/acme/api/-/services/billing": {"room_b"},
			"local:h1:" + plain:                      {"room_d"},
			"github.com/acme/web":                    nil,
		} {
			rooms, err := tx.RoomsByKey(key, true)
			if err != nil {
				return err
			}
			if got := ids(rooms); !slices.Equal(got, want) {
				t.Errorf("RoomsByKey(%s) = %v, want %v", key, got, want)
			}
		}
		if rooms, err := tx.RoomsByKey("local:h1:"+gone, false); err != nil || len(rooms) != 0 {
			t.Errorf("RoomsByKey of a closed room without includeClosed: %v %v", ids(rooms), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Named rooms: one open room per name, any number closed; the names of
// rooms, and rooms of paths, do not get in each other's way.
func TestNamedRooms(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "rooms.sqlite"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	create := func(r stick.Room) error {
		r.State = stick.StateIdle
		return st.Update(ctx, func(tx stick.Tx) error { return tx.CreateRoom(r) })
	}
	for _, r := range []stick.Room{
		{ID: "room_1", Name: "release", CreatedAt: at(1)},
		{ID: "room_2", Name: "review", CreatedAt: at(2)},
		{ID: "room_3", Path: "/w", Key: "github.com/acme/api", CreatedAt: at(3)},
		{ID: "room_4", Path: "/v", Key: "github.com/acme/api", CreatedAt: at(4)},
	} {
		if err := create(r); err != nil {
			t.Fatalf("create %s: %v", r.ID, err)
		}
	}
	if err := create(stick.Room{ID: "room_5", Name: "release"}); err == nil {
		t.Fatal("a second open room named release was created")
	}
	err = st.Update(ctx, func(tx stick.Tx) error {
		r, _, err := tx.Room("room_1")
		if err != nil {
			return err
		}
		if r.Name != "release" || r.Path != "" || r.Key != "" {
			t.Errorf("room_1 reads back as %+v", r)
		}
		r.State, r.ClosedAt = stick.StateClosed, at(5)
		if err := tx.SaveRoom(r); err != nil {
			return err
		}
		return tx.CreateRoom(stick.Room{ID: "room_6", Name: "release", State: stick.StateIdle, CreatedAt: at(6)})
	})
	if err != nil {
		t.Fatalf("a closed room's name is free again: %v", err)
	}
	err = st.View(ctx, func(tx stick.Tx) error {
		for _, tc := range []struct {
			name   string
			closed bool
			want   []string
		}{
			{"release", true, []string{"room_1", "room_6"}},
			{"release", false, []string{"room_6"}},
			{"", false, []string{"room_2", "room_6"}},
			{"", true, []string{"room_1", "room_2", "room_6"}},
			{"nobody", true, nil},
		} {
			rooms, err := tx.RoomsNamed(tc.name, tc.closed)
			if err != nil {
				return err
			}
			if got := ids(rooms); !slices.Equal(got, tc.want) {
				t.Errorf("RoomsNamed(%q, %v) = %v, want %v", tc.name, tc.closed, got, tc.want)
			}
		}
		rooms, err := tx.RoomsByKey("github.com/acme/api", false)
		if got := ids(rooms); err != nil || !slices.Equal(got, []string{"room_3", "room_4"}) {
			t.Errorf("RoomsByKey = %v, %v", got, err)
		}
		rooms, err = tx.RoomsAt([]string{"/w", "/", ""}, true)
		if got := ids(rooms); err != nil || !slices.Equal(got, []string{"room_3"}) {
			t.Errorf("RoomsAt finds named rooms: %v, %v", got, err)
		}
		rooms, err = tx.RoomsUnder("", true)
		if got := ids(rooms); err != nil || len(got) != 5 {
			t.Errorf("RoomsUnder(\"\") = %v, %v; want every room", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Lookups by key and by name use their indexes.
	c := rawConn(t, st.path)
	for q, index := range map[string]string{
		"SELECT " + roomCols + " FROM rooms WHERE room_key = 'k' ORDER BY created_at, rowid":                                     "rooms_key_idx",
		"SELECT " + roomCols + " FROM rooms WHERE room_name IS NOT NULL AND room_name = 'n' ORDER BY created_at, rowid":          "rooms_name_idx",
		"SELECT " + roomCols + " FROM rooms WHERE canonical_path IN ('/a', '/b') AND canonical_path <> '' AND closed_at IS NULL": "rooms_open_path_idx",
	} {
		if plan := queryPlan(t, c, q); !strings.Contains(plan, "USING INDEX "+index) || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s\nplan: %s; want it to use %s", q, plan, index)
		}
	}
}

func queryPlan(t *testing.T, c *sqlite.Conn, q string) string {
	t.Helper()
	var b strings.Builder
	err := sqlitex.ExecuteTransient(c, "EXPLAIN QUERY PLAN "+q, &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
		b.WriteString(st.ColumnText(3) + "; ")
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func ids(rooms []stick.Room) []string {
	var out []string
	for _, r := range rooms {
		out = append(out, r.ID)
	}
	return out
}

// at is a time n seconds into 2026, for rooms' creation order.
func at(n int) time.Time { return time.Date(2026, 1, 1, 0, 0, n, 0, time.UTC) }
