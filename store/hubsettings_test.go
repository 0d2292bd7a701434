package store

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stickhq/stick/stick"
)

// A database of schema version 7 migrates to the current version with an
// empty table of hub settings; a public URL set through a Service is kept
// across a reopen, and forgetting it leaves no row.
func TestHubSettingsMigrateAndPersist(t *testing.T) {
	path := schema7(t)
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rawConn(t, path)
	if v := query(t, c, "SELECT value FROM meta WHERE key = 'schema_version'"); v != strconv.Itoa(SchemaVersion) || SchemaVersion < 12 {
		t.Fatalf("schema_version %s, want %d", v, SchemaVersion)
	}
	if v := query(t, c, "SELECT count(*) FROM hub_settings"); v != "0" {
		t.Fatalf("a migrated database has %s hub settings", v)
	}
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := svc.SetPublicURL(ctx, "https://stick.example.com/"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, _ = stick.New(st)
	got, err := svc.HubSettings(ctx)
	if err != nil || got.PublicURL != "https://stick.example.com" {
		t.Fatalf("after a reopen: %+v %v", got, err)
	}
	if _, err := svc.SetPublicURL(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if v := query(t, c, "SELECT count(*) FROM hub_settings"); v != "0" {
		t.Fatalf("a forgotten public URL left %s rows", v)
	}
}

// A database of schema version 11, the one before hub settings, gains
// their table and keeps its tokens.
func TestMigrationFromVersion11(t *testing.T) {
	path := writeVersion(t, 11, `
INSERT INTO tokens (token_id, name, role, secret_hash, created_at) VALUES ('tok_1', 'kept', 'agent', randomblob(32), 1);
`)
	dir := filepath.Dir(path)
	ctx := context.Background()
	c := rawConn(t, path)
	st, err := OpenDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for q, want := range map[string]string{
		"SELECT value FROM meta WHERE key = 'schema_version'":            strconv.Itoa(SchemaVersion),
		"SELECT count(*) FROM sqlite_schema WHERE name = 'hub_settings'": "1",
		"SELECT group_concat(name) FROM tokens":                          "kept",
		"PRAGMA integrity_check":                                         "ok",
	} {
		if got := query(t, c, q); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
	svc, _ := stick.New(st)
	if _, err := svc.SetPublicURL(ctx, "http://10.0.0.7:7420"); err != nil {
		t.Fatal(err)
	}
}
