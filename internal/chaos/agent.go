package chaos

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/internal/rundb"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// agentRole is the reexec role of an agent process.
const agentRole = "chaos-agent"

func init() {
	reexec.Register(agentRole, agentMain)
}

// agentConfig is what an agent is told on its command line: the data
// directory, repository and check file of the soak, its provisional id
// (its member id, unless it reaches the room through a hub), its seed,
// and over a hub the hub's URL and the directory of its proxy.
type agentConfig struct {
	data, repo, check, id string
	seed                  uint64
	server, proxyDir      string
}

// args returns the command line that runs the agent.
func (c agentConfig) args() []string {
	args := []string{"-data", c.data, "-repo", c.repo, "-check", c.check, "-id", c.id, "-seed", strconv.FormatUint(c.seed, 10)}
	if c.server != "" {
		args = append(args, "-server", c.server, "-proxy-dir", c.proxyDir)
	}
	return args
}

func parseAgentConfig(args []string) (agentConfig, error) {
	var c agentConfig
	fs := flag.NewFlagSet(agentRole, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.data, "data", "", "the data directory")
	fs.StringVar(&c.repo, "repo", "", "the repository whose room the agents share")
	fs.StringVar(&c.check, "check", "", "the check file")
	fs.StringVar(&c.id, "id", "", "the agent id")
	fs.Uint64Var(&c.seed, "seed", 0, "the seed of the agent's random choices")
	fs.StringVar(&c.server, "server", "", "the hub's URL, to reach the room through a proxy")
	fs.StringVar(&c.proxyDir, "proxy-dir", "", "the directory of the proxy's claims and log")
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%s: %w", agentRole, err)
	}
	if c.data == "" || c.repo == "" || c.check == "" || c.id == "" || fs.NArg() > 0 || (c.server == "") != (c.proxyDir == "") {
		return c, fmt.Errorf("%s: -data, -repo, -check and -id are required, -server and -proxy-dir go together, and nothing else (got %q)", agentRole, args)
	}
	return c, nil
}

// agentMain is the agent role: it runs until its standard input ends,
// which is how the driver tells it to stop (or dies), then finishes its
// turn and exits 0. Any failure is printed on standard error, exit 1; an
// agent whose proxy vanished exits exitProxyGone at once.
func agentMain(args []string) int {
	cfg, err := parseAgentConfig(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := runAgent(ctx, cfg, os.Stdout, func() { os.Exit(exitProxyGone) }); err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n", agentRole, cfg.id, err)
		return 1
	}
	return 0
}

// agent is one participant of the soak. Its own process stands for its
// liveness: directly, when it uses package stick over the shared
// database, or through its proxy's liveness stream over a hub.
type agent struct {
	cfg agentConfig
	cl  client
	// id is the agent's member id: cfg.id, or the one the hub named it by.
	id    string
	room  string
	pid   int
	rng   *rand.Rand
	check *os.File
	out   io.Writer
}

// runAgent joins the room and takes turns until ctx ends. Over a hub,
// proxyGone is called if the agent's proxy vanishes.
func runAgent(ctx context.Context, cfg agentConfig, out io.Writer, proxyGone func()) error {
	self, err := procid.Self()
	if err != nil {
		return fmt.Errorf("identify this process: %w", err)
	}
	check, err := os.OpenFile(cfg.check, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("open the check file: %w", err)
	}
	defer check.Close()
	a := &agent{
		cfg: cfg, pid: self.PID, check: check, out: out,
		rng: rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15)),
	}
	proxy := 0
	if cfg.server != "" {
		hc, err := dialHub(ctx, cfg.server, cfg.proxyDir, cfg.id, proxyGone)
		if err != nil && ctx.Err() != nil {
			return nil // told to stop before it connected
		}
		if err != nil {
			return err
		}
		defer hc.close()
		a.cl, proxy = hc, hc.proxyPID()
	} else {
		db := rundb.Inherited(cfg.data)
		st, err := db.Open(ctx)
		if err != nil {
			return fmt.Errorf("open the %s: %w", db, err)
		}
		defer st.Close()
		svc, err := stick.New(st)
		if err != nil {
			return fmt.Errorf("start the service: %w", err)
		}
		a.cl = &libClient{svc: svc, repo: cfg.repo,
			me: stick.Caller{AgentID: cfg.id, Kind: stick.KindProcess, Process: self, DisplayName: "chaos agent"}}
	}
	j, err := a.cl.join(ctx)
	if err != nil && ctx.Err() != nil {
		return nil // told to stop before it joined
	}
	if err != nil {
		return fmt.Errorf("join the room: %w", err)
	}
	a.room, a.id = j.RoomID, j.AgentID
	if err := a.say(msgReady, strconv.Itoa(a.pid), a.id, strconv.Itoa(proxy)); err != nil {
		return err
	}
	return a.loop(ctx)
}

// loop waits for turns and takes over when told it may, until ctx ends.
func (a *agent) loop(ctx context.Context) error {
	for {
		w, err := grantCall(ctx, a, func(ctx context.Context) (stick.WaitResult, error) { return a.cl.wait(ctx, a.room) })
		switch {
		case err != nil && ctx.Err() != nil:
			return nil
		case err != nil:
			if err := a.report("wait", err); err != nil {
				return err
			}
			if !sleep(ctx, 50*time.Millisecond) {
				return nil
			}
			continue
		}
		switch w.Status {
		case stick.YourTurn:
			if w.LeaseExpiresAt == nil {
				return fmt.Errorf("your_turn for turn %d came without a lease expiry", w.TurnID)
			}
			how, tok := string(stick.EventClaim), noToken
			if w.Handoff != nil {
				tok = tokenOrMark(w.Handoff)
			}
			if w.Reason == string(stick.GrantTakeover) {
				// The agent's own takeover, whose answer was lost.
				var err error
				if how, tok, err = a.takeoverFound(ctx, w.TurnID); err != nil {
					return err
				}
			}
			if err := a.turn(ctx, grant{lease: w.Lease(), how: how, token: tok, expires: *w.LeaseExpiresAt}); err != nil {
				return err
			}
		case stick.TakeoverAvailable:
			if ctx.Err() != nil {
				return nil
			}
			if err := a.takeOver(ctx, w); err != nil {
				return err
			}
		case stick.Closed:
			return fmt.Errorf("the room closed; nobody in the soak closes it")
		}
		if ctx.Err() != nil {
			return nil
		}
		if a.rng.Float64() < dawdleChance {
			if err := a.say(msgDawdle); err != nil {
				return err
			}
			sleep(ctx, a.policy().ClaimTTL+300*time.Millisecond)
		}
	}
}

// takeOver takes the stick after takeover_available and holds it.
func (a *agent) takeOver(ctx context.Context, w stick.WaitResult) error {
	tr, err := grantCall(ctx, a, func(ctx context.Context) (stick.TakeoverResult, error) {
		return a.cl.takeover(ctx, a.room, w.TurnID, "chaos: "+w.Reason)
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return a.report("takeover", err)
	}
	tok := noToken
	if tr.RecentHandoff != nil {
		tok = tokenOrMark(tr.RecentHandoff.Handoff)
	}
	return a.turn(ctx, grant{lease: tr.Lease(), how: string(stick.EventTakeover), token: tok, expires: tr.LeaseExpiresAt})
}

// grantCall makes a call that may grant the agent the stick (a wait or a
// takeover) and is never abandoned half way when the agent is told to
// stop: over MCP, a cancelled call loses its result, and with it a turn
// the hub may already have granted. It is bounded instead, by the room's
// longest wait and the time a hand-on may take.
func grantCall[T any](ctx context.Context, a *agent, call func(context.Context) (T, error)) (T, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.policy().WaitMaxWait+handOnTimeout)
	defer cancel()
	return call(cctx)
}

// takeoverFound is how the agent got turn, given back by a wait after
// its takeover's answer was lost, and the handoff token it should have
// seen (see takenOver). It fails only when the driver cannot be told.
func (a *agent) takeoverFound(ctx context.Context, turn int64) (how, tok string, err error) {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handOnTimeout)
	defer cancel()
	tok, lerr := a.takenOver(lctx, turn)
	if lerr != nil {
		if err := a.report("events", lerr); err != nil {
			return "", "", err
		}
	}
	return string(stick.EventTakeover), tok, a.say(msgFound, "takeover")
}

// policy is the room's policy the agent plans by.
func (a *agent) policy() stick.Policy { return policyFor(a.cfg.server != "") }

// tokenOrMark is a received handoff's token, or "?" for a handoff without
// one (which the checker then reports).
func tokenOrMark(h *stick.Handoff) string {
	if tok, ok := handoffToken(h); ok {
		return tok
	}
	return "?"
}

// sleep waits d or until ctx ends; it reports whether the full time passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
