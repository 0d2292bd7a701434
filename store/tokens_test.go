package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite/sqlitex"
)

// schema7 unpacks testdata/schema7.sqlite.gz, a database that stick wrote
// at schema version 7 (before tokens): a room of a path keyed
// github.com/acme/api with a note and a document, and a named room
// release-1.4-review, closed with a conclusion. It returns the path of
// the copy.
func schema7(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "schema7.sqlite.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), DBFileName)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A database of schema version 7 migrates to the current version: every
// room, event and document stays, search still finds them, and the new
// tokens table takes tokens that authenticate. A second open changes
// nothing more.
func TestMigrationFromVersion7(t *testing.T) {
	path := schema7(t)
	if v := query(t, rawConn(t, path), "SELECT value FROM meta WHERE key = 'schema_version'"); v != "7" {
		t.Fatalf("the fixture has schema version %s, want 7", v)
	}
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := rawConn(t, path)
	if v := query(t, c, "SELECT value FROM meta WHERE key = 'schema_version'"); v != strconv.Itoa(SchemaVersion) || SchemaVersion < 8 {
		t.Fatalf("schema_version %s, want %d", v, SchemaVersion)
	}
	for q, want := range map[string]string{
		"SELECT count(*) FROM rooms":                                           "2",
		"SELECT count(*) FROM events":                                          "6",
		"SELECT room_key FROM rooms WHERE room_name IS NULL":                   "github.com/acme/api",
		"SELECT closed_at IS NOT NULL FROM rooms WHERE room_name IS NOT NULL":  "1",
		"SELECT count(*) FROM tokens":                                          "0",
		"PRAGMA integrity_check":                                               "ok",
		"SELECT count(*) FROM pragma_foreign_key_check":                        "0",
		"SELECT value FROM meta WHERE key = 'search_index'":                    "ready",
		"SELECT count(*) FROM sqlite_schema WHERE name = 'tokens'":             "1",
		"SELECT count(*) FROM doc_versions":                                    "2",
		"SELECT group_concat(agent_id) FROM (SELECT agent_id FROM members)":    "human:ana,human:ana",
		"SELECT count(*) FROM sqlite_schema WHERE sql LIKE '%secret_hash%'":    "1",
		"SELECT count(*) FROM rooms WHERE room_name = 'release-1.4-review'":    "1",
		"SELECT count(*) FROM events WHERE event_type = 'close'":               "1",
		"SELECT count(*) FROM events WHERE text = 'migrations need a review'":  "1",
		"SELECT count(*) FROM events WHERE text = 'changelog checked'":         "1",
		"SELECT count(*) FROM docs WHERE content LIKE '%check the tokens%'":    "1",
		"SELECT count(*) FROM docs WHERE content LIKE '%## Conclusion%Ship%'":  "1",
		"SELECT count(*) FROM members WHERE reclaim_token GLOB 'rt_*'":         "2",
		"SELECT count(*) FROM rooms WHERE room_key = '' AND room_name IS NULL": "0",
		"SELECT count(*) FROM rooms WHERE concluder IS NULL":                   "2",
	} {
		if got := query(t, c, q); got != want {
			t.Errorf("%s = %s, want %s", q, got, want)
		}
	}

	ctx := context.Background()
	svc, err := stick.New(st, stick.WithClock(testclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	hits, err := svc.Search(ctx, stick.SearchQuery{Query: "changelog"})
	if err != nil || len(hits) != 1 || hits[0].RoomName != "release-1.4-review" {
		t.Fatalf("search after the migration: %+v %v", hits, err)
	}
	tok, secret, err := svc.CreateToken(ctx, stick.TokenRequest{Name: "Alex's Team", Role: stick.AccessOperator})
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Authenticate(ctx, secret)
	if err != nil || p.TokenID != tok.ID || p.Role != stick.AccessOperator {
		t.Fatalf("authenticate after the migration: %+v %v", p, err)
	}
	hash := stick.HashSecret(secret)
	if v := query(t, c, "SELECT lower(hex(secret_hash)) FROM tokens"); v != hex.EncodeToString(hash[:]) {
		t.Fatalf("stored hash %s, want the SHA-256 of the secret", v)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal"} {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(secret)) {
			t.Fatalf("%s holds the token's secret", f)
		}
	}
	again, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("open the migrated file again: %v", err)
	}
	defer again.Close()
	if v := query(t, c, "SELECT count(*) FROM tokens"); v != "1" {
		t.Fatalf("tokens after a second open: %s", v)
	}
}

// The tokens table refuses what no token can be: an unknown role, a hash
// that is no SHA-256 hash, and two tokens with one hash.
func TestTokensTableChecks(t *testing.T) {
	path := filepath.Join(t.TempDir(), DBFileName)
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	h := stick.HashSecret("stk_x")
	for name, fn := range map[string]func(stick.Tx) error{
		"an unknown role": func(tx stick.Tx) error {
			return tx.CreateToken(stick.Token{ID: "tok_1", Name: "a", Role: "admin"}, h)
		},
		"one hash twice": func(tx stick.Tx) error {
			if err := tx.CreateToken(stick.Token{ID: "tok_1", Name: "a", Role: stick.AccessAgent}, h); err != nil {
				return nil // not the failure this case is about
			}
			return tx.CreateToken(stick.Token{ID: "tok_2", Name: "b", Role: stick.AccessAgent}, h)
		},
		"a revocation of no token": func(tx stick.Tx) error {
			return tx.SaveToken(stick.Token{ID: "tok_none", RevokedAt: time.Now()})
		},
	} {
		if err := st.Update(ctx, fn); err == nil {
			t.Errorf("%s was stored", name)
		}
	}
	if v := query(t, rawConn(t, path), "SELECT count(*) FROM tokens"); v != "0" {
		t.Fatalf("tokens after refused writes: %s", v)
	}
	if err := sqlitex.ExecuteTransient(rawConn(t, path), "INSERT INTO tokens (token_id, name, role, secret_hash, created_at) VALUES ('tok_3', 'c', 'agent', x'00', 1)", nil); err == nil {
		t.Error("a hash of one byte was stored")
	}
}
