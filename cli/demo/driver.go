package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// DefaultTimeout bounds a run when Options.Timeout is zero. A run takes a
// second or two; the bound only stops one that hangs.
const DefaultTimeout = 2 * time.Minute

// Options configure Run.
type Options struct {
	// Out receives the narrative and the summary; with JSON set, only the summary.
	Out io.Writer
	// Log receives the narrative when JSON is set; nil discards it.
	Log io.Writer
	// JSON prints the summary as one JSON object.
	JSON bool
	// Keep leaves the temporary directory (database and workspace) in place
	// and prints its path.
	Keep bool
	// Executable is the stick binary that runs the agents; empty means the
	// running executable.
	Executable string
	// Timeout bounds the whole run; zero means DefaultTimeout.
	Timeout time.Duration
	// PrintRoom prints a room's state; nil prints a compact form.
	PrintRoom func(w io.Writer, st stick.RoomStatus)
}

// The cast of the demo. The agents join in this order, so they take turns
// in it; victim holds the stick on its second turn until the driver kills it.
var (
	roster   = []string{"demo:alice", "demo:bob", "demo:carol"}
	victim   = "demo:bob"
	director = stick.Caller{AgentID: "demo:driver", Kind: stick.KindOneShot}
)

// lastTurn is the plan's last turn: the victim dies on turn 5, one survivor
// takes over turn 6, and the two take turns for two more rounds.
const lastTurn = 10

// driver runs one demo: it owns the temporary directory, its own view of
// the database, and the agent processes, and it is the only goroutine that
// touches its fields; readers only send it messages.
type driver struct {
	o     Options
	log   io.Writer
	begun time.Time
	exe   string
	dir   string    // the temporary directory
	data  string    // the data directory inside it
	ws    workspace // the workspace inside it
	st    *store.Store
	svc   *stick.Service

	msgs     chan message
	quit     chan struct{}
	wg       sync.WaitGroup
	children []*child

	room     string
	steps    []step
	killedAt time.Time
	heldTurn int64     // the turn the victim held when it was killed
	leaseEnd time.Time // when the victim's lease would have run out
	pending  int64     // the handoff pending when the room closed
	closeSeq int64
	left     map[string]bool

	// The narrative's order: what was told (releases and takeovers by turn,
	// joins), and each agent's steps not told yet.
	told     map[int64]bool
	tookOver map[int64]bool
	joins    int
	queued   map[string][]step
}

// Run runs the demo: on a temporary database it starts three agent
// processes that take turns with real handoffs, kills one of them with
// SIGKILL while it holds the stick, lets the others detect owner_gone, take
// over and recover from the log, then closes the room and checks the log.
// It prints the story as it goes and a summary at the end, removes the
// temporary directory (unless Options.Keep), and returns an error when
// anything went other than expected: a stick.Error naming the failed check,
// or ctx's error when ctx ended first. No agent outlives Run.
func Run(ctx context.Context, o Options) (Summary, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	d := &driver{o: o, log: o.Out, begun: time.Now(), msgs: make(chan message), quit: make(chan struct{}),
		left: map[string]bool{}, told: map[int64]bool{}, tookOver: map[int64]bool{}, queued: map[string][]step{}}
	if o.JSON {
		d.log = o.Log
		if d.log == nil {
			d.log = io.Discard
		}
	}
	if err := d.setup(); err != nil {
		d.teardown()
		return Summary{}, err
	}
	d.header()
	err := d.run(ctx)
	d.flushAll()
	var checks []Check
	if err == nil {
		checks = d.verify(ctx)
	}
	d.stopChildren()
	cleaned := d.teardown()
	if err != nil {
		if o.Keep {
			fmt.Fprintf(d.log, "kept %s\n", d.dir)
		}
		if stick.ErrorCode(err) == stick.CodeCanceled {
			err = stick.Errorf(stick.CodeCanceled, "the demo was interrupted; its agents were stopped (%s)", cleaned.Detail).Wrap(err)
		}
		return Summary{}, err
	}
	checks = append(checks, cleaned)
	sum := d.summary(checks)
	if err := d.printSummary(sum); err != nil {
		return sum, err
	}
	for _, c := range checks {
		if !c.OK {
			return sum, stick.Errorf(stick.CodeInternal, "demo check %s failed: %s", c.Name, c.Detail).
				WithHint("run 'stick demo --keep' to inspect the database and the workspace it leaves behind")
		}
	}
	return sum, nil
}

// setup creates the temporary directory with a data directory and a
// workspace (a git top level) in it, and opens the database.
func (d *driver) setup() error {
	fail := func(err error) error {
		return stick.Errorf(stick.CodeInternal, "demo: prepare a temporary directory: %v", err).Wrap(err)
	}
	d.exe = d.o.Executable
	if d.exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return stick.Errorf(stick.CodeInternal, "demo: find the stick executable: %v", err).Wrap(err)
		}
		d.exe = exe
	}
	dir, err := os.MkdirTemp("", "stick-demo-")
	if err != nil {
		return fail(err)
	}
	if d.dir, err = filepath.EvalSymlinks(dir); err != nil {
		d.dir = dir
		return fail(err)
	}
	d.data = filepath.Join(d.dir, "data")
	d.ws = workspace(filepath.Join(d.dir, "workspace"))
	if err := os.MkdirAll(d.ws.path(".git"), 0o755); err != nil {
		return fail(err)
	}
	if d.st, err = store.OpenDir(d.data, store.Options{}); err != nil {
		return err
	}
	d.svc, err = stick.New(d.st)
	return err
}

// teardown closes the database and removes the temporary directory unless
// it is to be kept; the children must be gone. It returns the cleanup check.
func (d *driver) teardown() Check {
	if d.st != nil {
		d.st.Close()
	}
	c := Check{Name: "cleaned_up", OK: true}
	switch {
	case d.dir == "":
	case d.o.Keep:
		c.Detail = "kept " + d.dir
	default:
		c.Detail = "temporary directory removed"
		if err := os.RemoveAll(d.dir); err != nil {
			c.OK, c.Detail = false, err.Error()
		} else if _, err := os.Lstat(d.dir); !errors.Is(err, fs.ErrNotExist) {
			c.OK, c.Detail = false, fmt.Sprintf("%s is still there (%v)", d.dir, err)
		}
	}
	return c
}
