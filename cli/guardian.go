package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// Guardian modes: how the guardian gets the stick.
const (
	modeWait     = "wait"
	modeTry      = "try"
	modeTakeover = "takeover"
)

// guardianArgs is what a guardian is started with.
type guardianArgs struct {
	mode        string
	path        string
	agent       string
	timeout     time.Duration // wait: 0 waits until the turn comes
	reason      string        // takeover
	turn        int64         // takeover: the turn to take over, 0 for the current one
	anchorPID   int
	anchorStart int64 // the anchor's start time, ms since the epoch
	// harness says the anchor is an agent's harness: its process, not the
	// guardian's, then stands for the member, as it does for the harness's
	// own 'stick mcp'.
	harness bool
	// chosen says --agent or $TALKING_STICK_AGENT_ID chose agent; token is
	// the reclaim token given with it, passed to the guardian in its
	// environment ($TALKING_STICK_RECLAIM_TOKEN), never on its command line.
	chosen bool
	token  string
}

// guardianReport is the one line a guardian sends its starter when it got
// the stick or knows it will not: what happened, or the error.
type guardianReport struct {
	Join     *stick.JoinResult     `json:"join,omitempty"`
	Wait     *stick.WaitResult     `json:"wait,omitempty"`
	Takeover *stick.TakeoverResult `json:"takeover,omitempty"`
	Error    *stick.Error          `json:"error,omitempty"`
	Guardian procid.Identity       `json:"guardian"`
	// Anchor names the shell or harness the holder ends with (set by the starter).
	Anchor string `json:"anchor,omitempty"`
}

// granted reports whether the guardian now holds the stick.
func (r guardianReport) granted() bool {
	return (r.Wait != nil && r.Wait.Status == stick.YourTurn) || r.Takeover != nil
}

func newGuardian() *cobra.Command {
	var a guardianArgs
	cmd := &cobra.Command{
		Use:    "guardian",
		Short:  "Hold the stick for a terminal command (started by wait, try and takeover)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.anchorPID == 0 {
				return stick.Errorf(stick.CodeInvalidArgument, "the guardian is started by 'stick wait', 'try' and 'takeover'")
			}
			// The report goes to the starter through stdout; a starter gone
			// before reading must not kill the guardian with SIGPIPE.
			signal.Ignore(syscall.SIGPIPE)
			if a.chosen {
				a.token = getenv(ReclaimTokenEnv)
			}
			return runGuardian(cmd.Context(), a, cmd.InOrStdin(), os.Stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&a.mode, "mode", modeWait, "wait, try or takeover")
	f.StringVar(&a.path, "path", "", "the path whose room to join")
	f.StringVar(&a.agent, "as", "", "the agent id to hold for")
	f.DurationVar(&a.timeout, "timeout", 0, "how long to wait (0: until the turn comes)")
	f.StringVar(&a.reason, "reason", "", "the takeover reason")
	f.Int64Var(&a.turn, "turn", 0, "the turn to take over")
	f.IntVar(&a.anchorPID, "anchor-pid", 0, "the process the guardian must not outlive")
	f.Int64Var(&a.anchorStart, "anchor-start", 0, "that process's start time (ms)")
	f.BoolVar(&a.harness, "harness", false, "the anchor is an agent's harness")
	f.BoolVar(&a.chosen, "chosen", false, "--agent or $"+AgentEnv+" chose the agent id")
	return cmd
}

// guardian is a small process whose liveness stands for a holder: it gets
// the stick with its own process facts, heartbeats at the policy's cadence
// and exits when the lease is lost, when its anchor (the harness or shell
// it belongs to) exits, or when 'stick release' stops it. It never releases
// by itself: when it dies without a release the room sees owner_gone.
type guardian struct {
	a      guardianArgs
	svc    *stick.Service
	caller stick.Caller
	self   procid.Identity
	dir    string
	log    *log.Logger
}

func runGuardian(ctx context.Context, a guardianArgs, starter io.Reader, report *os.File) error {
	g := &guardian{a: a, log: log.New(render.SafeWriter(os.Stderr), fmt.Sprintf("guardian %d: ", os.Getpid()), log.LstdFlags)}
	rep := guardianReport{}
	send := func() {
		data, _ := json.Marshal(rep)
		if _, err := report.Write(append(data, '\n')); err != nil {
			g.log.Printf("cannot report to the starter: %v", err)
		}
		report.Close()
	}
	fail := func(err error) error {
		rep.Error = stick.AsError(err)
		send()
		return err
	}
	var err error
	if g.self, err = procid.Self(); err != nil {
		return fail(stick.Errorf(stick.CodeInternal, "cannot identify the guardian process: %v", err))
	}
	rep.Guardian = g.self
	anchor, err := procid.Of(a.anchorPID)
	if err != nil || anchor.StartedAt.UnixMilli() != a.anchorStart {
		return fail(stick.Errorf(stick.CodeCanceled, "the shell or harness this command belongs to (pid %d) has exited", a.anchorPID))
	}
	if g.dir, err = localDir(); err != nil {
		return fail(err)
	}
	svc, closeSvc, err := openService()
	if err != nil {
		return fail(err)
	}
	defer closeSvc()
	g.svc = svc
	// A person's holder is the guardian itself: killed, the room sees its
	// holder gone. A harness-run holder is the harness, like the harness's
	// 'stick mcp', so the member stays alive between turns.
	g.caller = stick.Caller{AgentID: a.agent, Kind: stick.KindGuardian, Process: g.self, DisplayName: "stick " + a.mode,
		Chosen: a.chosen, ReclaimToken: a.token}
	if a.harness {
		g.caller.Kind, g.caller.Process = stick.KindHarness, anchor
	}

	// The anchor's exit ends everything; the starter's exit (its end of
	// stdin closing) ends only the attempt to get the stick.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go watchAnchor(ctx, anchor, func() { cancel(errAnchorGone) })
	acquire, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go func() {
		_, _ = io.Copy(io.Discard, starter)
		stop(errStarterGone)
	}()

	join, err := g.svc.JoinPath(acquire, g.caller, stick.JoinRequest{Path: a.path})
	if err != nil {
		return fail(g.cause(acquire, err))
	}
	rep.Join = &join
	g.caller.AgentID = join.AgentID
	rec := holder{RoomID: join.RoomID, Path: join.CanonicalPath, AgentID: join.AgentID, State: holderWaiting,
		Guardian: g.self, Anchor: anchor, Since: time.Now().UTC()}
	if err := addHolder(acquire, g.dir, rec); err != nil {
		return fail(g.cause(acquire, err))
	}
	defer func() {
		if err := dropHolder(g.dir, g.self); err != nil {
			g.log.Printf("cannot remove the holder record: %v", err)
		}
	}()

	var lease stick.Lease
	var nextHeartbeat, expires time.Time
	switch a.mode {
	case modeTakeover:
		res, err := g.takeover(acquire, join.RoomID)
		if err != nil {
			return fail(g.cause(acquire, err))
		}
		rep.Takeover = &res
		lease, nextHeartbeat, expires = res.Lease(), res.NextHeartbeatAt, res.LeaseExpiresAt
	default:
		res, err := g.wait(acquire, join.RoomID)
		if err != nil {
			return fail(g.cause(acquire, err))
		}
		rep.Wait = &res
		if res.Status != stick.YourTurn {
			send()
			return nil
		}
		lease, nextHeartbeat, expires = res.Lease(), *res.NextHeartbeatAt, *res.LeaseExpiresAt
	}
	rec.State, rec.Lease, rec.Since = holderHolding, lease, time.Now().UTC()
	if err := putHolder(g.dir, rec); err != nil {
		g.log.Printf("cannot record the lease: %v", err)
	}
	send()
	g.log.Printf("holds %s turn %d for %s", lease.RoomID, lease.TurnID, g.caller.AgentID)
	why := g.hold(ctx, lease, nextHeartbeat, expires)
	g.log.Printf("stops holding turn %d: %s", lease.TurnID, why)
	return nil
}

var (
	errAnchorGone  = errors.New("the shell or harness this holder belongs to has exited")
	errStarterGone = errors.New("the command that started the wait has ended")
)

// cause turns the cancellation of ctx into a stick error that says why.
func (g *guardian) cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && ctx.Err() != nil {
		return stick.Errorf(stick.CodeCanceled, "%v", c)
	}
	return err
}

// wait asks for the stick until it comes, takeover opens, the room closes
// or the timeout passes; try asks once.
func (g *guardian) wait(ctx context.Context, roomID string) (stick.WaitResult, error) {
	var deadline time.Time
	if g.a.timeout > 0 {
		deadline = time.Now().Add(g.a.timeout)
	}
	for {
		req := stick.WaitRequest{RoomID: roomID}
		switch {
		case g.a.mode == modeTry:
			req.MaxWait = new(time.Duration)
		case !deadline.IsZero():
			// One call blocks at most stick.MaxWaitLimit; the loop waits on.
			left := min(max(time.Until(deadline), 0), stick.MaxWaitLimit)
			req.MaxWait = &left
		}
		res, err := g.svc.WaitForTurn(ctx, g.caller, req)
		if err != nil || res.Status != stick.NotYet || g.a.mode == modeTry ||
			(!deadline.IsZero() && !time.Now().Before(deadline)) {
			return res, err
		}
	}
}

// takeover takes the stick over at the given turn, or the current one.
func (g *guardian) takeover(ctx context.Context, roomID string) (stick.TakeoverResult, error) {
	turn := g.a.turn
	if turn == 0 {
		st, err := g.svc.RoomState(ctx, roomID)
		if err != nil {
			return stick.TakeoverResult{}, err
		}
		turn = st.TurnID
	}
	return g.svc.Takeover(ctx, g.caller, roomID, turn, g.a.reason)
}

// hold heartbeats until the lease is lost or ctx ends, and says why it stopped.
func (g *guardian) hold(ctx context.Context, lease stick.Lease, next, expires time.Time) string {
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
				return c.Error()
			}
			return "stopped"
		case <-timer.C:
		}
		hb, err := g.svc.Heartbeat(ctx, g.caller, lease)
		switch code := stick.ErrorCode(err); {
		case err == nil:
			expires = hb.LeaseExpiresAt
			timer.Reset(time.Until(hb.NextHeartbeatAt))
		case code == stick.CodeStaleLease || code == stick.CodeTurnMismatch || code == stick.CodeRoomClosed || code == stick.CodeRoomNotFound:
			return "the lease is no longer valid: " + err.Error()
		case !time.Now().Before(expires):
			return "the lease became stale: " + err.Error()
		default:
			g.log.Printf("heartbeat failed, retrying: %v", err)
			timer.Reset(min(5*time.Second, max(time.Until(expires)/2, 100*time.Millisecond)))
		}
	}
}

// watchAnchor calls gone when the anchor process exits: through the
// platform's exit watch, or by checking every second where there is none.
func watchAnchor(ctx context.Context, anchor procid.Identity, gone func()) {
	if exited, ok := procid.WatchExit(ctx, anchor); ok {
		select {
		case <-exited:
			gone()
		case <-ctx.Done():
		}
		return
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if procid.Check(anchor) == procid.Gone {
				gone()
				return
			}
		case <-ctx.Done():
			return
		}
	}
}
