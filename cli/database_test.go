package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/stick"
)

// roomsNamed reads the open rooms of name from the PostgreSQL database u
// with a Store of its own, as another hub would.
func roomsNamed(t *testing.T, u, name string) []stick.Room {
	t.Helper()
	ctx := context.Background()
	st, err := postgres.Open(ctx, u, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rooms []stick.Room
	if err := st.View(ctx, func(tx stick.Tx) error {
		rooms, err = tx.RoomsNamed(name, false)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return rooms
}

// 'stick serve --database URL' serves the PostgreSQL database: /healthz
// answers, and a join through the JSON API lands in that database; the
// data directory gets nothing.
func TestBinaryServeOnPostgres(t *testing.T) {
	u := pgtest.URL(t)
	b := newBinRoom(t)
	_, _, url := startServe(t, b.env, "--addr", "127.0.0.1:0", "--database", u)
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
	resp, err = http.Post(url+"/api/v1/rooms", "application/json", strings.NewReader(`{"name":"team"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("join through the API: %d", resp.StatusCode)
	}
	if rooms := roomsNamed(t, u, "team"); len(rooms) != 1 {
		t.Fatalf("rooms named team in PostgreSQL: %d, want 1", len(rooms))
	}
	if r := b.run(t, "list"); strings.Contains(r.stdout, "team") {
		t.Fatalf("the data directory's database has the room:\n%s", r.stdout)
	}
}

// With $STICK_DATABASE_URL, 'stick join' and 'stick state' use the
// PostgreSQL database.
func TestBinaryCLIOnPostgres(t *testing.T) {
	u := pgtest.URL(t)
	b := newBinRoom(t)
	b.env = append(b.env, "STICK_DATABASE_URL="+u)
	b.ok(t, "join", "--name", "crew")
	if rooms := roomsNamed(t, u, "crew"); len(rooms) != 1 || !strings.Contains(b.ok(t, "state", "--room", rooms[0].ID), "human:ana") {
		t.Fatalf("rooms named crew in PostgreSQL: %v", rooms)
	}
}

// A database URL that is not PostgreSQL's is refused before anything is
// opened, and a password in the URL is never printed.
func TestBinaryDatabaseURLErrors(t *testing.T) {
	b := newBinRoom(t)
	r := b.run(t, "--database", "mysql://ana:s3cret-pw@db/stick", "list")
	if r.code == 0 || !strings.Contains(r.stderr, "invalid_argument") || strings.Contains(r.stderr+r.stdout, "s3cret-pw") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = b.run(t, "--database", "postgres://ana:s3cret-pw@127.0.0.1:1/stick?connect_timeout=2", "list")
	if r.code == 0 || !strings.Contains(r.stderr, "db_unavailable") || strings.Contains(r.stderr+r.stdout, "s3cret-pw") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// 'stick doctor' with $STICK_DATABASE_URL checks the PostgreSQL database:
// its server, schema and the processes connected, and its rooms; a server
// that cannot be reached fails with what to do, the password never shown.
func TestBinaryDoctorOnPostgres(t *testing.T) {
	u := pgtest.URL(t)
	b := newBinRoom(t)
	b.env = append(b.env, "STICK_DATABASE_URL="+u)
	b.ok(t, "join", "--name", "crew")
	out := b.ok(t, "doctor")
	for _, want := range []string{"database", "PostgreSQL 1", fmt.Sprintf("schema %d", postgres.SchemaVersion), "stick process(es) connected", "1 open, 0 closed"} {
		if !strings.Contains(out, want) {
			t.Fatalf("doctor on PostgreSQL does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no database yet") || strings.Contains(out, "integrity") {
		t.Fatalf("doctor on PostgreSQL checks the SQLite database:\n%s", out)
	}
	b.env = append(b.env, "STICK_DATABASE_URL=postgres://ana:s3cret-pw@/none?host=/nonexistent-socket-dir&connect_timeout=2")
	r := b.run(t, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "db_unavailable") || strings.Contains(r.stdout+r.stderr, "s3cret-pw") {
		t.Fatalf("doctor on an unreachable server: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// heldMarksOf counts the marks of pid in the PostgreSQL database u, and
// how many of them a listening connection of stick holds.
func heldMarksOf(t *testing.T, u string, pid int) (rows, held int) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE EXISTS (SELECT 1 FROM pg_locks l
			JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.objid::bigint = m.mark_id AND l.granted
			AND l.mode = 'ExclusiveLock' AND a.application_name = $2))
		FROM process_marks m WHERE m.pid = $1`, pid, postgres.ListenerAppName).Scan(&rows, &held); err != nil {
		t.Fatal(err)
	}
	return rows, held
}

// 'stick mcp' on a database server marks its harness (here the test,
// its parent) while it runs, so that other hosts see the harness alive,
// and releases the mark when it ends while its harness runs on; one-shot
// commands mark nothing.
func TestBinaryMCPMarksItsHarness(t *testing.T) {
	u := pgtest.URL(t)
	b := newBinRoom(t)
	b.ok(t, "--database", u, "join", "--name", "crew")
	if rows, _ := heldMarksOf(t, u, os.Getpid()); rows != 0 {
		t.Fatalf("marks of the test after a one-shot command: %d; want none", rows)
	}
	m := startRawMCPWith(t, b.repo, []string{"--database", u}, b.env...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		rows, held := heldMarksOf(t, u, os.Getpid())
		if rows == 1 && held == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("marks of the harness while 'stick mcp' runs: %d, %d held; want one held", rows, held)
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.stdin.Close()
	if err := m.cmd.Wait(); err != nil {
		t.Fatalf("stick mcp at the end of stdin: %v\n%s", err, m.stderr.String())
	}
	if rows, _ := heldMarksOf(t, u, os.Getpid()); rows != 0 {
		t.Fatalf("marks of a harness that runs on after its 'stick mcp' ended: %d; want none (judged by its leases)", rows)
	}
}
