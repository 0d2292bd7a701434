package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"

	"github.com/stickhq/stick/internal/rundb"
)

// driver runs one soak. Its goroutine owns every field except those under
// mu, which the agents' reader goroutines update too.
type driver struct {
	o      Options
	rng    *rand.Rand
	pol    stick.Policy
	window time.Duration

	// The soak's directory (removed at the end when temp), its parts, and
	// the driver's append and read handles on the check file.
	root                            string
	temp                            bool
	data, repo, checkPath, proxyDir string
	check, reader                   *os.File

	// hub is the hub over which the agents act, when Options.Hub is set.
	hub hubState

	// The soak's store (SQLite in data, or a PostgreSQL database made for
	// the soak, dropped by drop), and the driver's own view of it and of
	// the room.
	db   rundb.DB
	drop func() error
	st   stick.Store
	svc  *stick.Service
	room string

	// The agents: the current one of each slot, how many each slot has
	// started, and every one ever started (all are reaped at the end).
	slots []*child
	gens  []int
	all   []*child

	// The checks: the check file's checker and how many of its violations
	// were recorded, the event log read so far, the newest event before
	// the stop, and what the last history check counted.
	sec         *sectionChecker
	secAbsorbed int
	events      []stick.Event
	cursor      int64
	stopSeq     int64
	stats       historyStats

	// rep collects the driver's own counts; sectionChecks and history
	// count the checks made during the run.
	rep                    Report
	sectionChecks, history int

	mu         sync.Mutex
	tally      tally
	violations []string
	seen       map[string]bool
}

// tally is what the agents reported.
type tally struct {
	errors                map[string]int
	found                 map[string]int
	handed                []handed
	stalls, dawdles, lost int
}

// Run runs one chaos soak and returns its report. The error is non-nil
// when an invariant was violated (its text then has the seed, the command
// that reproduces the soak, the violations and the tail of the room's
// event log, and the directory is kept), when ctx ended, or when the soak
// could not be set up. Every agent process is killed and reaped before Run
// returns, whatever happened.
func Run(ctx context.Context, o Options) (Report, error) {
	began := time.Now()
	o, err := o.normalize()
	if err != nil {
		return Report{Seed: o.Seed, Procs: o.Procs, Duration: o.Duration}, err
	}
	pol := policyFor(o.Hub)
	d := &driver{
		o: o, rng: rand.New(rand.NewPCG(uint64(o.Seed), 0x63686f73)), pol: pol, window: takeoverWindow(pol),
		slots: make([]*child, o.Procs), gens: make([]int, o.Procs), sec: newSectionChecker(),
		tally: tally{errors: map[string]int{}, found: map[string]int{}}, seen: map[string]bool{},
	}
	err = d.setUp(ctx)
	if err == nil {
		err = d.run(ctx)
	}
	d.closeFiles()
	rep := d.report()
	rep.Elapsed = time.Since(began)
	switch {
	case err != nil:
		d.removeDir()
		d.dropDatabase()
		return rep, fmt.Errorf("chaos soak with seed %d: %w", o.Seed, err)
	case len(rep.Violations) > 0:
		rep.Dir = d.root
		return rep, d.failure(rep.Violations)
	}
	d.removeDir()
	if err := d.dropDatabase(); err != nil {
		return rep, fmt.Errorf("chaos soak with seed %d: %w", o.Seed, err)
	}
	return rep, nil
}

// setUp creates the directory, the check file and the room, and sets the
// room's policy; over a hub it also makes the agents' token and starts
// the hub on a free loopback port.
func (d *driver) setUp(ctx context.Context) error {
	if err := d.makeDirs(); err != nil {
		return err
	}
	var err error
	if d.check, err = os.OpenFile(d.checkPath, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
		return fmt.Errorf("chaos: create the check file: %w", err)
	}
	if d.reader, err = os.Open(d.checkPath); err != nil {
		return fmt.Errorf("chaos: open the check file: %w", err)
	}
	d.db = rundb.DB{Dir: d.data}
	if d.o.Database != "" {
		srv, err := rundb.Connect(ctx, d.o.Database)
		if err != nil {
			return fmt.Errorf("chaos: %w", err)
		}
		if err := os.MkdirAll(d.data, 0o700); err != nil {
			return fmt.Errorf("chaos: create the data directory: %w", err)
		}
		if d.db, d.drop, err = srv.Fresh(ctx, "stickchaos", d.data); err != nil {
			return fmt.Errorf("chaos: %w", err)
		}
		d.logf("the soak's store: %s", d.db)
	}
	if d.st, err = d.db.Open(ctx); err != nil {
		return fmt.Errorf("chaos: open the store: %w", err)
	}
	if d.svc, err = stick.New(d.st); err != nil {
		return fmt.Errorf("chaos: start the service: %w", err)
	}
	// The driver joins only to create the room and set its policy, then
	// leaves, so it never takes part in the sequence. Over a hub the room
	// is a named one, which members of any host join by its name.
	me := stick.Caller{AgentID: "chaos-driver", Kind: stick.KindOneShot}
	req := stick.JoinRequest{Path: d.repo}
	if d.o.Hub {
		req = stick.JoinRequest{Name: hubRoom}
	}
	j, err := d.svc.JoinPath(ctx, me, req)
	if err != nil {
		return fmt.Errorf("chaos: create the room: %w", err)
	}
	d.room = j.RoomID
	p := d.pol
	u := stick.PolicyUpdate{OwnerLeaseTTL: &p.OwnerLeaseTTL, ClaimTTL: &p.ClaimTTL,
		HeartbeatInterval: &p.HeartbeatInterval, PresenceTTL: &p.PresenceTTL, WaitMaxWait: &p.WaitMaxWait}
	if d.o.Hub {
		u.ProxyGrace = &p.ProxyGrace
	}
	if _, err := d.svc.SetPolicy(ctx, me, d.room, u); err != nil {
		return fmt.Errorf("chaos: set the room's policy: %w", err)
	}
	if err := d.svc.Leave(ctx, me, d.room); err != nil {
		return fmt.Errorf("chaos: leave the room after setting it up: %w", err)
	}
	if !d.o.Hub {
		return nil
	}
	if err := d.makeToken(ctx); err != nil {
		return err
	}
	return d.startHub(ctx, "127.0.0.1:0")
}

// makeDirs lays out the soak's directory: data (the database), repo (the
// workspace, a git top level, whose room the agents share) and the check
// file's path.
func (d *driver) makeDirs() error {
	root := d.o.Dir
	if root == "" {
		var err error
		if root, err = os.MkdirTemp("", "stick-chaos-"); err != nil {
			return fmt.Errorf("chaos: create a temporary directory: %w", err)
		}
		d.temp, d.root = true, root
	} else {
		if err := os.MkdirAll(root, 0o700); err != nil {
			return fmt.Errorf("chaos: create %s: %w", root, err)
		}
		if entries, err := os.ReadDir(root); err != nil || len(entries) > 0 {
			return fmt.Errorf("chaos: %s must be a new or empty directory (%d entries, %v)", root, len(entries), err)
		}
	}
	root, err := filepath.Abs(root)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return fmt.Errorf("chaos: resolve %s: %w", d.o.Dir, err)
	}
	d.root = root
	d.data, d.repo = filepath.Join(root, "data"), filepath.Join(root, "repo")
	d.checkPath = filepath.Join(root, "critical-section.log")
	if err := os.MkdirAll(filepath.Join(d.repo, ".git"), 0o700); err != nil {
		return fmt.Errorf("chaos: create the repository: %w", err)
	}
	if d.o.Hub {
		// The proxies' host: their claims, and one log per agent.
		d.proxyDir = filepath.Join(root, "proxies")
		if err := os.MkdirAll(filepath.Join(d.proxyDir, "data"), 0o700); err != nil {
			return fmt.Errorf("chaos: create the proxies' directory: %w", err)
		}
	}
	return nil
}

// run starts the agents, soaks, stops them and checks everything.
func (d *driver) run(ctx context.Context) error {
	defer d.killAll()
	if err := d.startAgents(ctx); err != nil {
		return err
	}
	if err := d.soak(ctx); err != nil {
		return err
	}
	if err := d.stopAgents(ctx); err != nil {
		return err
	}
	d.stopHub()
	d.verify(ctx)
	return ctx.Err()
}

// startAgents starts Procs agents and waits until each has joined.
func (d *driver) startAgents(ctx context.Context) error {
	began := time.Now()
	for slot := range d.slots {
		if err := d.start(ctx, slot); err != nil {
			return err
		}
	}
	deadline := time.After(readyTimeout)
	for _, c := range d.slots {
		select {
		case <-c.ready:
		case <-c.p.Done():
			d.fail("%s exited before it joined", c.describe())
			return nil
		case <-deadline:
			d.fail("%s did not join within %v", c.describe(), readyTimeout)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	over := ""
	if d.o.Hub {
		over = fmt.Sprintf(" through their proxies to the hub at %s", d.hub.url)
	}
	d.logf("%d agents joined room %s%s in %v (policy: lease %v, heartbeat %v, claim %v, proxy grace %v; takeover window %v)",
		len(d.slots), d.room, over, time.Since(began).Round(time.Millisecond),
		d.pol.OwnerLeaseTTL, d.pol.HeartbeatInterval, d.pol.ClaimTTL, d.pol.ProxyGrace, d.window)
	return nil
}

// stopAgents notes the newest event, then stops the agents.
func (d *driver) stopAgents(ctx context.Context) error {
	st, err := d.svc.RoomState(ctx, d.room)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d.fail("the driver could not read the room before stopping: %v", err)
	}
	d.stopSeq = st.LastEventSeq
	d.logf("stopping the agents")
	d.stopAll()
	return nil
}

// verify runs the final checks: the whole check file, the whole event log
// against it, and the database's integrity.
func (d *driver) verify(ctx context.Context) {
	if err := d.fetchEvents(ctx); err != nil {
		d.fail("the driver could not read the event log: %v", err)
	}
	if err := d.readSection(); err != nil {
		d.fail("%v", err)
	}
	d.sec.finish()
	d.absorbSection()
	var pending int64
	st, err := d.svc.RoomState(ctx, d.room)
	if err != nil {
		d.fail("the driver could not read the room at the end: %v", err)
	} else if st.PendingHandoff != nil {
		pending = st.PendingHandoff.Seq
	}
	d.mu.Lock()
	handedOn := slices.Clone(d.tally.handed)
	d.mu.Unlock()
	stats, v := checkHistory(historyInput{
		events: d.events, sec: d.sec, stopSeq: d.stopSeq, pending: pending, handed: handedOn, final: true, grace: d.grace(),
	})
	d.stats = stats
	for _, s := range v {
		d.fail("%s", s)
	}
	d.integrity(ctx)
	d.logf("checked %d check-file lines and %d events", d.sec.lines, len(d.events))
}

// grace is the proxy grace the history is checked with: the room's over
// a hub, none without one.
func (d *driver) grace() time.Duration {
	if d.o.Hub {
		return d.pol.ProxyGrace
	}
	return 0
}

// integrity runs the database's integrity check through a read-only
// store.Reader; PostgreSQL has no counterpart that needs no extension.
func (d *driver) integrity(ctx context.Context) {
	if d.db.Postgres() {
		d.rep.Integrity = integrityNotRun
		return
	}
	r, err := store.OpenReader(d.data)
	if err != nil {
		d.fail("open the database for the integrity check: %v", err)
		return
	}
	defer r.Close()
	res, err := r.Integrity(ctx)
	d.rep.Integrity = strings.Join(res, "; ")
	if err != nil || len(res) != 1 || res[0] != "ok" {
		d.fail("integrity check: %q %v", res, err)
	}
}

// fetchEvents appends the room's events after the cursor.
func (d *driver) fetchEvents(ctx context.Context) error {
	for {
		page, err := d.svc.RoomEvents(ctx, d.room, d.cursor, stick.MaxEventLimit)
		if err != nil {
			d.checkCode(err)
			return err
		}
		d.events = append(d.events, page.Events...)
		d.cursor = page.Cursor
		if !page.HasMore {
			return nil
		}
	}
}

// readSection feeds the check file's new bytes to the checker.
func (d *driver) readSection() error {
	buf := make([]byte, 64<<10)
	for {
		n, err := d.reader.Read(buf)
		d.sec.feed(buf[:n])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("chaos: read the check file: %w", err)
		}
	}
	d.absorbSection()
	return nil
}

// absorbSection records the checker's new violations.
func (d *driver) absorbSection() {
	for _, v := range d.sec.violations[d.secAbsorbed:] {
		d.fail("%s", v)
	}
	d.secAbsorbed = len(d.sec.violations)
}

// appendCheck appends one line to the check file.
func (d *driver) appendCheck(line string) error {
	if _, err := d.check.Write([]byte(line)); err != nil {
		return fmt.Errorf("chaos: write the check file: %w", err)
	}
	return nil
}

// checkCode records db_busy reaching the driver.
func (d *driver) checkCode(err error) {
	if stick.ErrorCode(err) == stick.CodeDBBusy {
		d.fail("db_busy reached a caller: the driver: %v", err)
	}
}

// fail records a violation (once, however often it is found).
func (d *driver) fail(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failLocked(format, args...)
}

func (d *driver) failLocked(format string, args ...any) {
	v := fmt.Sprintf(format, args...)
	if !d.seen[v] {
		d.seen[v] = true
		d.violations = append(d.violations, v)
		fmt.Fprintf(d.o.Log, "chaos: VIOLATION: %s\n", v)
	}
}

// failed reports whether a violation was recorded.
func (d *driver) failed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.violations) > 0
}

// logf writes a progress line; like failLocked it writes under mu, so
// Options.Log is never written from two goroutines at once.
func (d *driver) logf(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.o.Log, "chaos: "+format+"\n", args...)
}

// closeFiles closes the driver's store and files.
func (d *driver) closeFiles() {
	for _, f := range []*os.File{d.check, d.reader} {
		if f != nil {
			_ = f.Close()
		}
	}
	if d.st != nil {
		_ = d.st.Close()
	}
}

// dropDatabase drops the soak's PostgreSQL database, once its store is
// closed; there is none on SQLite.
func (d *driver) dropDatabase() error {
	if d.drop == nil {
		return nil
	}
	err := d.drop()
	d.drop = nil
	return err
}

// integrityNotRun is Report.Integrity on PostgreSQL.
const integrityNotRun = "not run (PostgreSQL)"

// removeDir removes a temporary directory.
func (d *driver) removeDir() {
	if d.temp && d.root != "" {
		_ = os.RemoveAll(d.root)
	}
}
