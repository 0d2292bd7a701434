package holder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// Mode says how a guardian gets the stick.
type Mode string

// The modes of a guardian.
const (
	ModeWait     Mode = "wait"     // wait until the turn comes, or the timeout
	ModeTry      Mode = "try"      // ask once
	ModeTakeover Mode = "takeover" // take the stick over from a holder that failed
)

// Request is what a guardian is started with.
type Request struct {
	Mode Mode
	// Path is the path whose room to join; Name, given instead, is the
	// name of the room to join, for a named room, which has no path.
	Path    string
	Name    string
	Agent   string // the agent id to hold for
	Timeout time.Duration
	Reason  string // takeover
	Turn    int64  // takeover: the turn to take over, 0 for the current one
	// AnchorPID and AnchorStart (ms since the epoch) name the process the
	// guardian must not outlive: the shell or harness the command ran in.
	AnchorPID   int
	AnchorStart int64
	// Harness says the anchor is an agent's harness: its process, not the
	// guardian's, then stands for the member, as it does for the
	// harness's own 'stick mcp'.
	Harness bool
	// Chosen says --agent or $TALKING_STICK_AGENT_ID chose Agent; Token is
	// the reclaim token given with it, which reaches the guardian through
	// its environment, never its command line.
	Chosen bool
	Token  string
}

// Report is the one line a guardian sends its starter when it got the
// stick or knows it will not: what happened, or the error.
type Report struct {
	Join     *stick.JoinResult     `json:"join,omitempty"`
	Wait     *stick.WaitResult     `json:"wait,omitempty"`
	Takeover *stick.TakeoverResult `json:"takeover,omitempty"`
	Error    *stick.Error          `json:"error,omitempty"`
	Guardian procid.Identity       `json:"guardian"`
	// Anchor names the shell or harness the holder ends with (set by the starter).
	Anchor string `json:"anchor,omitempty"`
}

// Granted reports whether the guardian now holds the stick.
func (r Report) Granted() bool {
	return (r.Wait != nil && r.Wait.Status == stick.YourTurn) || r.Takeover != nil
}

// errStarterGone ends a guardian's attempt to get the stick when the
// command that started it ends first.
var errStarterGone = errors.New("the command that started the wait has ended")

// Run is the body of a guardian: a small process whose liveness stands for
// a holder. It joins the room of r.Path, or the room named r.Name, with its
// own process facts (or its anchor's, for a harness), records itself, gets
// the stick as r.Mode says, writes its [Report] to report and closes it,
// then heartbeats at the policy's cadence. It exits when the lease is lost,
// when its anchor exits, or when ctx ends ('stick release' stops it with
// SIGTERM). It never releases by itself: when it dies without a release the
// room sees owner_gone. starter is the starter's end of a pipe: when it
// closes before the stick came, the guardian gives up. open opens the
// service; Run closes it. Run logs to its stderr.
func Run(ctx context.Context, r Request, open func() (*stick.Service, func(), error), starter io.Reader, report io.WriteCloser) error {
	lg := log.New(render.SafeWriter(os.Stderr), fmt.Sprintf("guardian %d: ", os.Getpid()), log.LstdFlags)
	rep := Report{}
	send := func() {
		data, _ := json.Marshal(rep)
		if _, err := report.Write(append(data, '\n')); err != nil {
			lg.Printf("cannot report to the starter: %v", err)
		}
		report.Close()
	}
	fail := func(err error) error {
		rep.Error = stick.AsError(err)
		send()
		return err
	}
	self, err := procid.Self()
	if err != nil {
		return fail(stick.Errorf(stick.CodeInternal, "cannot identify the guardian process: %v", err))
	}
	rep.Guardian = self
	anchor, err := procid.Of(r.AnchorPID)
	if err != nil || anchor.StartedAt.UnixMilli() != r.AnchorStart {
		return fail(stick.Errorf(stick.CodeCanceled, "the shell or harness this command belongs to (pid %d) has exited", r.AnchorPID))
	}
	dir, err := Dir()
	if err != nil {
		return fail(err)
	}
	svc, closeSvc, err := open()
	if err != nil {
		return fail(err)
	}
	defer closeSvc()
	// A person's holder is the guardian itself: killed, the room sees its
	// holder gone. A harness-run holder is the harness, like the harness's
	// 'stick mcp', so the member stays alive between turns.
	h := &Holder{Service: svc, Log: lg, Caller: stick.Caller{AgentID: r.Agent, Kind: stick.KindGuardian, Process: self,
		DisplayName: "stick " + string(r.Mode), Chosen: r.Chosen, ReclaimToken: r.Token}}
	if r.Harness {
		h.Caller.Kind, h.Caller.Process = stick.KindHarness, anchor
	}

	// The anchor's exit ends everything; the starter's exit (its end of
	// stdin closing) ends only the attempt to get the stick.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go WatchAnchor(ctx, anchor, func() { cancel(ErrAnchorGone) })
	acquire, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go func() {
		_, _ = io.Copy(io.Discard, starter)
		stop(errStarterGone)
	}()

	join, err := svc.JoinPath(acquire, h.Caller, stick.JoinRequest{Path: r.Path, Name: r.Name})
	if err != nil {
		return fail(Cause(acquire, err))
	}
	rep.Join = &join
	h.Caller.AgentID = join.AgentID
	rec := Record{RoomID: join.RoomID, Path: join.CanonicalPath, Name: join.RoomName, AgentID: join.AgentID, State: Waiting,
		Guardian: self, Anchor: anchor, Since: time.Now().UTC()}
	if err := Add(acquire, dir, rec); err != nil {
		return fail(Cause(acquire, err))
	}
	defer func() {
		if err := Drop(dir, self); err != nil {
			lg.Printf("cannot remove the holder record: %v", err)
		}
	}()

	var lease stick.Lease
	var nextHeartbeat, expires time.Time
	switch r.Mode {
	case ModeTakeover:
		res, err := h.Takeover(acquire, join.RoomID, r.Turn, r.Reason)
		if err != nil {
			return fail(Cause(acquire, err))
		}
		rep.Takeover = &res
		lease, nextHeartbeat, expires = res.Lease(), res.NextHeartbeatAt, res.LeaseExpiresAt
	default:
		var res stick.WaitResult
		if r.Mode == ModeTry {
			res, err = h.Try(acquire, join.RoomID)
		} else {
			res, err = h.Wait(acquire, join.RoomID, r.Timeout)
		}
		if err != nil {
			return fail(Cause(acquire, err))
		}
		rep.Wait = &res
		if res.Status != stick.YourTurn {
			send()
			return nil
		}
		lease, nextHeartbeat, expires = res.Lease(), *res.NextHeartbeatAt, *res.LeaseExpiresAt
	}
	rec.State, rec.Lease, rec.Since = Holding, lease, time.Now().UTC()
	if err := Put(dir, rec); err != nil {
		lg.Printf("cannot record the lease: %v", err)
	}
	send()
	lg.Printf("holds %s turn %d for %s", lease.RoomID, lease.TurnID, h.Caller.AgentID)
	why := h.Keep(ctx, lease, nextHeartbeat, expires)
	lg.Printf("stops holding turn %d: %s", lease.TurnID, why)
	return nil
}
