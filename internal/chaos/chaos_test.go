package chaos

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/reexec"

	"github.com/stickhq/stick/internal/pgtest"
)

func TestMain(m *testing.M) {
	reexec.Main()
	stop := pgtest.Start()
	code := m.Run()
	stop()
	os.Exit(code)
}

// soakOptions is the short soak the suite runs, or a longer one through
// STICK_CHAOS_DURATION, STICK_CHAOS_PROCS and STICK_CHAOS_SEED (give go
// test a -timeout to match).
func soakOptions(t *testing.T) Options {
	o := Options{Duration: 5 * time.Second, Procs: 6, Seed: 20260407}
	if v := os.Getenv("STICK_CHAOS_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("STICK_CHAOS_DURATION: %v", err)
		}
		o.Duration = d
	}
	for _, e := range []struct {
		name string
		set  func(int64)
	}{
		{"STICK_CHAOS_PROCS", func(n int64) { o.Procs = int(n) }},
		{"STICK_CHAOS_SEED", func(n int64) { o.Seed = n }},
	} {
		if v := os.Getenv(e.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			e.set(n)
		}
	}
	return o
}

// logWriter sends progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// A short soak passes every check, and its report shows that it really
// killed, restarted, took over and handed off, so it cannot pass vacuously.
func TestSoak(t *testing.T) {
	o := soakOptions(t)
	o.Log = logWriter{t}
	rep, err := Run(context.Background(), o)
	t.Logf("\n%s", rep)
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep)
}

// The soak over a hub passes every check too: agents behind their own
// proxies, with kills of agents, of proxies and of the hub, which comes
// back on the same address and database while the proxies connect again
// by themselves.
func TestHubSoak(t *testing.T) {
	o := soakOptions(t)
	o.Hub = true
	o.Duration = max(o.Duration, 8*time.Second) // the hub is first killed 2 to 6 s after it starts
	o.Log = logWriter{t}
	rep, err := Run(context.Background(), o)
	t.Logf("\n%s", rep)
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep)
	if !rep.Hub || rep.ProxyKills == 0 || rep.HubKills == 0 || rep.Kills-rep.ProxyKills-rep.HubKills == 0 {
		t.Errorf("kills over a hub: %d in all, %d proxies, %d of the hub", rep.Kills, rep.ProxyKills, rep.HubKills)
	}
}

// The soak on PostgreSQL passes every check: agents on one database
// with SIGKILLs of holders, waiters and recipients.
func TestSoakOnPostgres(t *testing.T) {
	o := soakOptions(t)
	o.Procs = min(o.Procs, 4)
	o.Database = pgtest.URL(t)
	o.Log = logWriter{t}
	rep, err := Run(context.Background(), o)
	t.Logf("\n%s", rep)
	if err != nil {
		t.Fatal(err)
	}
	checkReportOn(t, rep, integrityNotRun)
}

// The soak over a hub whose store is PostgreSQL passes every check too,
// with kills of agents, of proxies and of the hub, which comes back on
// the same address and database.
func TestHubSoakOnPostgres(t *testing.T) {
	o := soakOptions(t)
	o.Procs = min(o.Procs, 4)
	o.Hub = true
	o.Duration = max(o.Duration, 8*time.Second) // the hub is first killed 2 to 6 s after it starts
	o.Database = pgtest.URL(t)
	o.Log = logWriter{t}
	rep, err := Run(context.Background(), o)
	t.Logf("\n%s", rep)
	if err != nil {
		t.Fatal(err)
	}
	checkReportOn(t, rep, integrityNotRun)
	if rep.HubKills == 0 || rep.Kills-rep.ProxyKills-rep.HubKills == 0 {
		t.Errorf("kills over a hub: %d in all, %d proxies, %d of the hub", rep.Kills, rep.ProxyKills, rep.HubKills)
	}
}

// checkReport fails unless a soak's report shows that it really killed,
// restarted, took over and handed off, with a sound log and database.
func checkReport(t *testing.T, rep Report) {
	t.Helper()
	checkReportOn(t, rep, "ok")
}

// checkReportOn is checkReport with the integrity finding the store
// gives: "ok" on SQLite.
func checkReportOn(t *testing.T, rep Report, integrity string) {
	t.Helper()
	for _, c := range []struct {
		what string
		n    int
	}{
		{"kills", rep.Kills}, {"kills of the holder", rep.HolderKills}, {"restarts", rep.Restarts},
		{"takeovers", rep.Takeovers}, {"releases", rep.Releases},
		{"handoffs delivered", rep.HandoffsDelivered}, {"handoffs acknowledged", rep.HandoffsAcknowledged},
		{"recoveries", rep.Recoveries}, {"check-file lines", rep.SectionLines}, {"checks during the run", rep.SectionChecks},
	} {
		if c.n == 0 {
			t.Errorf("the soak saw no %s: it proved nothing", c.what)
		}
	}
	if rep.Grants != int(rep.Turns) || rep.Claims+rep.Takeovers != rep.Grants {
		t.Errorf("grants %d (claims %d, takeovers %d) for %d turns", rep.Grants, rep.Claims, rep.Takeovers, rep.Turns)
	}
	if rep.FinalRecovery <= 0 || rep.FinalRecovery > rep.RecoveryWindow {
		t.Errorf("recovery after the final kill: %v (window %v)", rep.FinalRecovery, rep.RecoveryWindow)
	}
	if rep.Integrity != integrity || rep.ErrorCodes["db_busy"] != 0 {
		t.Errorf("integrity %q, db_busy %d", rep.Integrity, rep.ErrorCodes["db_busy"])
	}
}

func TestRunRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Procs: 1}, {Procs: MaxProcs + 1}, {Duration: time.Millisecond},
	} {
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("Run(%+v) succeeded", o)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Duration: time.Second, Procs: 2, Dir: dir}); err == nil ||
		!strings.Contains(err.Error(), "empty") {
		t.Errorf("Run in a directory that is not empty: %v", err)
	}
}

// Cancelling a soak ends it at once, with every agent killed and reaped.
func TestCancelReapsAgents(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the agents through /proc")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	began := time.Now()
	_, err := Run(ctx, Options{Duration: time.Minute, Procs: 3, Seed: 1, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Fatalf("a cancelled soak returned %v", err)
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("the cancelled soak took %v to return", took)
	}
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), dir) {
			t.Errorf("an agent outlived the soak: %s: %q", p, b)
		}
	}
}

// Cancelling a soak over a hub ends it at once too, with every agent,
// every proxy and the hub killed: each has the soak's directory in its
// environment (its data directory).
func TestHubCancelReapsEverything(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the processes through /proc")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	began := time.Now()
	_, err := Run(ctx, Options{Duration: time.Minute, Procs: 3, Seed: 1, Dir: dir, Hub: true})
	if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Fatalf("a cancelled soak returned %v", err)
	}
	if took := time.Since(began); took > 15*time.Second {
		t.Errorf("the cancelled soak took %v to return", took)
	}
	// A proxy is not the driver's child: it may take a moment to be gone.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		left := processesWith(t, dir)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes outlived the soak: %q", left)
		}
	}
}

// processesWith lists the command lines of the processes whose command
// line or environment mentions s.
func processesWith(t *testing.T, s string) []string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, d := range dirs {
		cmd, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		env, _ := os.ReadFile(filepath.Join(d, "environ"))
		if strings.Contains(string(cmd), s) || strings.Contains(string(env), s) {
			found = append(found, d+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return found
}

// A violation found during the run ends the soak early, and the error
// says how to reproduce it and what the room's log shows.
func TestViolationFailsWithReproduction(t *testing.T) {
	dir := t.TempDir()
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Once the agents take turns, an intruder enters its critical
		// section out of turn.
		path := filepath.Join(dir, "critical-section.log")
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
			if b, _ := os.ReadFile(path); strings.Count(string(b), "enter ") >= 3 {
				break
			}
			if time.Now().After(deadline) {
				t.Error("the agents never took three turns")
				return
			}
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		if _, err := f.WriteString("enter 999999 intruder 1 claim -\n"); err != nil {
			t.Error(err)
		}
	}()
	began := time.Now()
	rep, err := Run(context.Background(), Options{Duration: 30 * time.Second, Procs: 3, Seed: 99, Dir: dir})
	<-done
	if err == nil {
		t.Fatalf("a soak with an intruder passed:\n%s", rep)
	}
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("the soak took %v: a violation during the run must end it early", took)
	}
	msg := err.Error()
	for _, want := range []string{
		"chaos soak failed with seed 99", "intruder",
		"reproduce: stickbench chaos --duration 30s --procs 3 --seed 99",
		"data kept in " + dir, "events of room room_", " claim    a", "lines of the check file:",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
	if rep.Dir != dir || len(rep.Violations) == 0 || !strings.Contains(rep.String(), "FAILED") {
		t.Errorf("report: dir %q, violations %q\n%s", rep.Dir, rep.Violations, rep)
	}
	t.Logf("the failure as reported:\n%s", msg)
}
