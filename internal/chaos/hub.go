package chaos

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/stickhq/stick/cli"
	"github.com/stickhq/stick/internal/childproc"
	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/stick"
)

func init() {
	reexec.Register(stickRole, runStick)
}

// logFlag, first on the command line of the stick role, names a file its
// standard error (the hub's log of requests) is appended to instead.
const logFlag = "-log-to"

// runStick is the stick command line, the same code as cmd/stick: the
// hub ('stick serve') and the agents' proxies ('stick mcp --server').
func runStick(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stderr := os.Stderr
	if len(args) >= 2 && args[0] == logFlag {
		f, err := os.OpenFile(args[1], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer f.Close()
		stderr, args = f, args[2:]
	}
	return cli.Execute(ctx, cli.LocalWiring(), args, os.Stdin, os.Stdout, stderr, "(chaos)")
}

// tokenName names the token the soak's agents reach the hub with; the
// hub names each agent <client>:<session>@chaos-soak.
const tokenName = "chaos-soak"

// tokenEnv carries the token to the agents and their proxies: never an
// argument, which any user of the host could read in the process list.
const tokenEnv = "STICK_TOKEN"

// listeningPrefix starts the first line 'stick serve' prints.
const listeningPrefix = "stick serve: listening on "

// The hub's faults.
const (
	// minHubKillGap and maxHubKillGap bound the time from a start of the
	// hub to the kill that hits it next, instead of an agent or a proxy.
	minHubKillGap = 2 * time.Second
	maxHubKillGap = 6 * time.Second
	// proxyKillChance is how often a kill aimed at an agent hits its
	// proxy instead of the agent itself.
	proxyKillChance = 0.5
	// orphanTimeout bounds how long a proxy may outlive its killed agent:
	// it tells the hub the harness exited (trying for five seconds at
	// most) and exits.
	orphanTimeout = 15 * time.Second
	// hubStopTimeout bounds a graceful stop of the hub at the end.
	hubStopTimeout = 20 * time.Second
)

// hubState is the driver's hub: the 'stick serve' child running now, the
// address it listens on (the same across restarts), its URL, the token
// the agents use, when it last started listening, and how long it was
// down at most.
type hubState struct {
	proc    *childproc.Proc
	addr    string
	url     string
	token   string
	started time.Time
	// killAt is when a kill hits the hub next.
	killAt  time.Time
	maxDown time.Duration
	// orphans are the proxies of killed agents, which must exit by
	// themselves before their deadline.
	orphans []orphan
}

// makeToken creates the agents' token in the soak's database.
func (d *driver) makeToken(ctx context.Context) error {
	_, secret, err := d.svc.CreateToken(ctx, stick.TokenRequest{Name: tokenName, Role: stick.AccessAgent})
	if err != nil {
		return fmt.Errorf("chaos: create the agents' token: %w", err)
	}
	d.hub.token = secret
	return nil
}

// startHub starts 'stick serve' over the soak's database on addr and
// returns once it listens, noting in the check file when it did: from
// then on it judges members behind proxies by their streams afresh.
func (d *driver) startHub(ctx context.Context, addr string) error {
	cmd, err := reexec.Command(ctx, stickRole, logFlag, filepath.Join(d.root, "hub.log"), "serve", "--addr", addr)
	if err != nil {
		return err
	}
	// Plain HTTP on loopback, whatever the environment sets.
	cmd.Env = append(append(cmd.Env, d.db.Env()...), "STICK_TLS_CERT=", "STICK_TLS_KEY=", "STICK_PUBLIC_URL=", "STICK_ADDR=")
	first := make(chan string, 1)
	p, err := childproc.Start(cmd, childproc.Options{Name: "hub", StderrTail: 16 << 10,
		OnLine: func(line string) bool {
			select {
			case first <- line:
			default:
			}
			return true
		}})
	if err != nil {
		return fmt.Errorf("chaos: start the hub: %w", err)
	}
	var line string
	select {
	case line = <-first:
	case <-p.Done():
	case <-time.After(readyTimeout):
	case <-ctx.Done():
	}
	rest, ok := strings.CutPrefix(line, listeningPrefix)
	url, _, _ := strings.Cut(rest, " ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		_ = p.Close()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("chaos: the hub did not listen on %s: it said %q (%v)%s", addr, line, p.State(), stderrNote(p))
	}
	d.hub.proc, d.hub.url, d.hub.addr = p, url, strings.TrimPrefix(url, "http://")
	d.hub.started = time.Now()
	d.hub.killAt = d.hub.started.Add(minHubKillGap + time.Duration(d.rng.Int64N(int64(maxHubKillGap-minHubKillGap))))
	return d.appendCheck(hubLine(d.hub.started))
}

// stderrNote is the tail of a child's standard error, for a message.
func stderrNote(p *childproc.Proc) string {
	if e := strings.TrimSpace(p.Stderr()); e != "" {
		return "; stderr: " + e
	}
	return ""
}

// killHubAndRestart SIGKILLs the hub and starts it again on the same
// address and database. The room cannot change while its hub is down, so
// the room's recovery is timed from the hub's return, and the time it
// was down does not count against the room.
func (d *driver) killHubAndRestart(ctx context.Context, w *watch, st stick.RoomStatus) {
	killed := time.Now()
	p := d.hub.proc
	_ = p.Signal(os.Kill)
	select {
	case <-p.Done():
	case <-time.After(stopTimeout):
		d.fail("the hub survived SIGKILL for %v", stopTimeout)
		return
	}
	if runtime.GOOS != "windows" && p.State().ExitCode() != -1 {
		d.fail("the hub exited by itself before the driver killed it: %v%s", p.State(), stderrNote(p))
	}
	_ = p.Close()
	d.rep.Kills++
	d.rep.HubKills++
	if err := d.startHub(ctx, d.hub.addr); err != nil {
		if ctx.Err() == nil {
			d.fail("restart the hub on %s after killing it: %v", d.hub.addr, err)
		}
		return
	}
	down := d.hub.started.Sub(killed)
	d.hub.maxDown = max(d.hub.maxDown, down)
	w.lastProgress = w.lastProgress.Add(down)
	w.pending, w.since, w.victim, w.aim, w.before, w.turn = true, d.hub.started, "the hub", "hub", st, st.TurnID
}

// stopHub stops the hub as Ctrl-C would, once the agents stopped: it
// must end its streams and long polls and exit 0.
func (d *driver) stopHub() {
	p := d.hub.proc
	if p == nil {
		return
	}
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.Done():
		if !p.State().Success() {
			d.fail("the hub failed when told to stop: %v%s", p.State(), stderrNote(p))
		}
	case <-time.After(hubStopTimeout):
		d.fail("the hub did not stop within %v of SIGTERM%s", hubStopTimeout, stderrNote(p))
	}
}
