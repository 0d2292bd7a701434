package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/internal/reexec"
)

func TestMain(m *testing.M) {
	reexec.Main()
	stop := pgtest.Start()
	code := m.Run()
	stop()
	os.Exit(code)
}

// 'stickbench --database URL' runs a scenario on PostgreSQL: its
// processes take turns on a database of their own, and the result is
// judged by the target for PostgreSQL.
func TestDatabaseRunsOnPostgres(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--database", pgtest.URL(t), "--quick", "--count", "100", "--json", "handoff-library"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Store     string `json:"store"`
		Floors    []any  `json:"floors"`
		Scenarios []struct {
			Scenario string   `json:"scenario"`
			Count    int      `json:"count"`
			Target   string   `json:"target"`
			Problems []string `json:"problems"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if rep.Store != "postgresql" || len(rep.Floors) != 0 || len(rep.Scenarios) != 1 {
		t.Fatalf("store %q, %d floors, scenarios %+v", rep.Store, len(rep.Floors), rep.Scenarios)
	}
	r := rep.Scenarios[0]
	if r.Scenario != "handoff-library" || r.Count < 90 || len(r.Problems) > 0 || r.Target != "p50 <= 3 ms, p99 <= 15 ms" {
		t.Errorf("result %+v", r)
	}
}

// A database URL from the environment is taken as from --database, and
// one that is not PostgreSQL's is refused before anything runs, without
// its password.
func TestDatabaseFromTheEnvironment(t *testing.T) {
	t.Setenv("STICK_DATABASE_URL", "mysql://ana:s3cret-pw@db/stick")
	for _, args := range [][]string{{"handoff-library"}, {"chaos", "--duration", "1s", "--procs", "2"}} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if code != 2 || !strings.Contains(out, "not a PostgreSQL URL") || strings.Contains(out, "s3cret-pw") {
			t.Errorf("%q: exit %d: %s", args, code, out)
		}
	}
}
