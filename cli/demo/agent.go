package demo

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// agentCommand is how the driver runs one agent: the stick executable with
// these arguments, then the agent's name and flags. Package cli registers
// the hidden command under this name.
var agentCommand = []string{"demo", "agent"}

// agentConfig is what one agent is told on its command line.
type agentConfig struct {
	name      string
	workspace string
	roster    []string // every agent of the demo, in join order
	lastTurn  int64    // the plan ends with this turn
	open      bool     // claim the first turn, and release it only once the roster has joined
	stopOn    int      // on its stopOn-th turn, hold the stick and stop (0: never)
}

// args returns the command line that runs the agent.
func (c agentConfig) args() []string {
	a := append([]string{}, agentCommand...)
	a = append(a, c.name, "--workspace", c.workspace, "--roster", strings.Join(c.roster, ","),
		"--last-turn", fmt.Sprint(c.lastTurn))
	if c.open {
		a = append(a, "--open")
	}
	if c.stopOn > 0 {
		a = append(a, "--stop-on", fmt.Sprint(c.stopOn))
	}
	return a
}

// parseAgentArgs reads an agent's command line (without agentCommand).
func parseAgentArgs(args []string) (agentConfig, error) {
	var c agentConfig
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return c, stick.Errorf(stick.CodeInvalidArgument, "demo agent: the first argument must be the agent's name").
			WithHint("this command is started by 'stick demo'; run that instead")
	}
	c.name = args[0]
	fs := flag.NewFlagSet("demo agent", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	roster := fs.String("roster", "", "every agent's name, comma-separated, in join order")
	fs.StringVar(&c.workspace, "workspace", "", "the workspace the agents share")
	fs.Int64Var(&c.lastTurn, "last-turn", 0, "the last turn of the plan")
	fs.BoolVar(&c.open, "open", false, "claim the first turn")
	fs.IntVar(&c.stopOn, "stop-on", 0, "hold the stick and stop on this turn of the agent's")
	if err := fs.Parse(args[1:]); err != nil {
		return c, stick.Errorf(stick.CodeInvalidArgument, "demo agent: %v", err)
	}
	c.roster = strings.Split(*roster, ",")
	if c.workspace == "" || *roster == "" || c.lastTurn < 2 || fs.NArg() > 0 {
		return c, stick.Errorf(stick.CodeInvalidArgument, "demo agent: --workspace, --roster and --last-turn (at least 2) are required, and nothing else").
			WithHint("this command is started by 'stick demo'; run that instead")
	}
	return c, nil
}

// agent is one demo participant: a long-lived process that uses package
// stick directly, as a coding agent's tool would.
type agent struct {
	cfg   agentConfig
	svc   *stick.Service
	me    stick.Caller
	room  string
	out   *json.Encoder
	ws    workspace
	turns int   // turns granted so far
	seq   int64 // the newest event this agent made
	// cursor is the newest WaitForTurn cursor, so a wait also returns when
	// the log moves; seen is the newest event read while catching up.
	cursor string
	seen   int64
}

// RunAgent runs one demo agent with the command line args (its name, then
// its flags), reporting each step as a JSON line on stdout. It joins the
// room of the workspace, then waits for its turn, appends a line to
// notes.txt and releases with a handoff that points at that line, until
// the plan's last turn; it takes over when a holder's process dies. It
// returns nil when the room closes, and ctx's error (at once) when ctx ends
// or stdin reaches end of file, which is how it notices that the driver is
// gone.
func RunAgent(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	cfg, err := parseAgentArgs(args)
	if err != nil {
		return err
	}
	data := os.Getenv(store.DataDirEnv)
	if data == "" { // never the user's own database
		return stick.Errorf(stick.CodeInvalidArgument, "demo agent: $%s must name the demo's data directory", store.DataDirEnv).
			WithHint("this command is started by 'stick demo'; run that instead")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		cancel()
	}()
	st, err := store.OpenDir(data, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		return err
	}
	self, err := procid.Self()
	if err != nil {
		return stick.Errorf(stick.CodeInternal, "demo agent: identify this process: %v", err).Wrap(err)
	}
	a := &agent{
		cfg: cfg, svc: svc, out: json.NewEncoder(stdout), ws: workspace(cfg.workspace),
		me: stick.Caller{AgentID: cfg.name, Kind: stick.KindProcess, Process: self, DisplayName: "stick demo agent"},
	}
	j, err := svc.JoinPath(ctx, a.me, stick.JoinRequest{Path: cfg.workspace})
	if err != nil {
		return err
	}
	a.room, a.seen = j.RoomID, j.Room.LastEventSeq
	if cfg.open {
		return a.openRoom(ctx, self.PID)
	}
	if err := a.emit(step{Kind: stepJoined, PID: self.PID, Room: a.room}); err != nil {
		return err
	}
	return a.loop(ctx)
}

// emit reports one step, stamped now unless it carries the time of the
// call it reports (a commit happens between a call's start and its return,
// so stamping with the start keeps the stamps in causal order).
func (a *agent) emit(s step) error {
	s.Agent = a.cfg.name
	if s.At == 0 {
		s.At = time.Now().UnixMicro()
	}
	return a.out.Encode(s)
}

// openRoom claims the first turn, reports the join (so the driver starts the
// next agent only now, and the order of turns follows the order of joins),
// waits until the whole roster has joined, and then works as usual.
func (a *agent) openRoom(ctx context.Context, pid int) error {
	now := time.Duration(0)
	w, err := a.svc.WaitForTurn(ctx, a.me, stick.WaitRequest{RoomID: a.room, MaxWait: &now})
	if err != nil {
		return err
	}
	if w.Status != stick.YourTurn {
		return stick.Errorf(stick.CodeInternal, "demo agent %s: the room was not free to open: %s", a.cfg.name, w.Status)
	}
	if err := a.emit(step{Kind: stepJoined, PID: pid, Room: a.room, Turn: w.TurnID}); err != nil {
		return err
	}
	if err := a.granted(w); err != nil {
		return err
	}
	if err := a.awaitRoster(ctx); err != nil {
		return err
	}
	done, err := a.work(ctx, w.Lease(), nil)
	if err != nil || done {
		return a.finish(ctx, err)
	}
	return a.loop(ctx)
}

// awaitRoster blocks until every agent of the roster has joined the room,
// following the log as it commits.
func (a *agent) awaitRoster(ctx context.Context) error {
	missing := map[string]bool{}
	for _, n := range a.cfg.roster {
		missing[n] = true
	}
	for after := int64(0); len(missing) > 0; {
		page, err := a.svc.FollowEvents(ctx, a.room, after, stick.MaxEventLimit)
		if err != nil {
			return err
		}
		for _, ev := range page.Events {
			if ev.Type == stick.EventJoin {
				delete(missing, ev.From)
			}
		}
		after = page.Cursor
	}
	return nil
}

// loop takes turns until the plan is done or the room closes.
func (a *agent) loop(ctx context.Context) error {
	for {
		w, err := a.svc.WaitForTurn(ctx, a.me, stick.WaitRequest{RoomID: a.room, Cursor: a.cursor})
		if err != nil {
			return err
		}
		a.cursor = w.Cursor
		if err := a.catchUp(ctx); err != nil {
			return err
		}
		var done bool
		switch w.Status {
		case stick.NotYet:
		case stick.Closed:
			return a.emit(step{Kind: stepClosed, Turn: w.TurnID})
		case stick.YourTurn:
			if err := a.granted(w); err != nil {
				return err
			}
			done, err = a.work(ctx, w.Lease(), nil)
		case stick.TakeoverAvailable:
			var tr *stick.TakeoverResult
			if tr, err = a.takeOver(ctx, w); err != nil || tr == nil {
				break
			}
			var rec *recovery
			if rec, err = a.recoverTurn(ctx, *tr); err == nil {
				done, err = a.work(ctx, tr.Lease(), rec)
			}
		}
		if err != nil || done {
			return a.finish(ctx, err)
		}
	}
}

// catchUp reads the events committed since the agent last looked and
// reports takeovers by others: that is how a waiting member learns that a
// holder died when another member's takeover commits before its own wait
// sees owner_gone.
func (a *agent) catchUp(ctx context.Context) error {
	for {
		page, err := a.svc.RoomEvents(ctx, a.room, a.seen, stick.MaxEventLimit)
		if err != nil {
			return err
		}
		for _, ev := range page.Events {
			if ev.Type == stick.EventTakeover && ev.From != a.cfg.name {
				s := step{Kind: stepSawTakeover, Turn: ev.TurnID, From: ev.To, To: ev.From, Reason: ev.Reason, Seq: ev.Seq}
				if err := a.emit(s); err != nil {
					return err
				}
			}
		}
		a.seen = max(a.seen, page.Cursor)
		if !page.HasMore {
			return nil
		}
	}
}

// granted reports a turn WaitForTurn granted, after reading back the lines
// the handoff points at: a handoff is only useful if it is true.
func (a *agent) granted(w stick.WaitResult) error {
	s := step{Kind: stepGrant, Turn: w.TurnID, Reason: w.Reason, From: w.FromAgentID, Seq: w.HandoffSeq, Handoff: w.Handoff}
	if w.Handoff != nil {
		s.Checked, s.Problem = a.ws.check(*w.Handoff, w.FromAgentID)
	}
	return a.emit(s)
}

// takeOver reports that takeover opened and tries it. It returns nil (and
// no error) when another member was faster.
func (a *agent) takeOver(ctx context.Context, w stick.WaitResult) (*stick.TakeoverResult, error) {
	if err := a.emit(step{Kind: stepOwnerGone, Turn: w.TurnID, From: w.CurrentOwner, Reason: w.Reason}); err != nil {
		return nil, err
	}
	called := time.Now().UnixMicro()
	tr, err := a.svc.Takeover(ctx, a.me, a.room, w.TurnID, w.Reason)
	switch code := stick.ErrorCode(err); code {
	case "":
		a.seq = tr.EventSeq
		return &tr, a.emit(step{Kind: stepTakeover, At: called, Turn: tr.TurnID, From: tr.Revoked, Reason: string(tr.Reason), Seq: tr.EventSeq})
	case stick.CodeTurnMismatch, stick.CodeTakeoverNotAvailable, stick.CodeTakeoverIneligible:
		if err := a.emit(step{Kind: stepTakeoverLost, Turn: w.TurnID, Code: string(code), Text: stick.AsError(err).Message}); err != nil {
			return nil, err
		}
		if code == stick.CodeTurnMismatch {
			return nil, nil // the room moved on: the next wait sees how
		}
		return nil, a.awaitChange(ctx)
	default:
		return nil, err
	}
}

// awaitChange blocks until the room's log moves, so a takeover that was
// refused is not retried before anything changed.
func (a *agent) awaitChange(ctx context.Context) error {
	st, err := a.svc.RoomState(ctx, a.room)
	if err != nil {
		return err
	}
	_, err = a.svc.FollowEvents(ctx, a.room, st.LastEventSeq, 1)
	return err
}

// recoverTurn rebuilds what the revoked holder was doing, as a member that
// took over must: the failed holder wrote no handoff, so the handoff it was
// working from (RecentHandoff), its grant and its notes come from the log,
// and the critical-section file it left behind from the workspace.
func (a *agent) recoverTurn(ctx context.Context, tr stick.TakeoverResult) (*recovery, error) {
	rec := &recovery{Dead: tr.Revoked, DeadTurn: tr.TurnID - 1}
	var after int64
	if h := tr.RecentHandoff; h != nil && h.Handoff != nil {
		rec.HandoffSeq, rec.HandoffFrom, rec.Status, rec.Next = h.Seq, h.From, h.Handoff.Status, h.Handoff.NextAction
		after = h.Seq
	}
	for after < tr.EventSeq {
		page, err := a.svc.RoomEvents(ctx, a.room, after, stick.MaxEventLimit)
		if err != nil {
			return nil, err
		}
		for _, ev := range page.Events {
			switch {
			case ev.TurnID != rec.DeadTurn || ev.From != rec.Dead:
			case ev.Type == stick.EventClaim || ev.Type == stick.EventTakeover:
				rec.GrantSeq = ev.Seq
			case ev.Type == stick.EventNote:
				rec.Notes = append(rec.Notes, note{Seq: ev.Seq, Text: ev.Text})
			}
		}
		if !page.HasMore {
			break
		}
		after = page.Cursor
	}
	marker, err := a.ws.clearStale(rec.Dead, rec.DeadTurn)
	if err != nil {
		return nil, a.violation(tr.TurnID, err)
	}
	rec.Marker = marker
	return rec, a.emit(step{Kind: stepRecovered, Turn: tr.TurnID, From: rec.Dead, Recovery: rec})
}

// work does one turn: it enters the critical section, announces what it is
// about to do in a note, appends its line to notes.txt, leaves the critical
// section and releases with a handoff pointing at the line. On the turn it
// was told to stop on, it holds the stick after the note until it is killed.
// done reports that the plan is over for this agent.
func (a *agent) work(ctx context.Context, l stick.Lease, rec *recovery) (done bool, err error) {
	a.turns++
	if err := a.ws.enter(a.cfg.name, l.TurnID); err != nil {
		return false, a.violation(l.TurnID, err)
	}
	n, err := a.ws.lines()
	if err != nil {
		return false, err
	}
	n++
	plan := fmt.Sprintf("turn %d: appending line %d to %s", l.TurnID, n, notesFile)
	if rec != nil {
		plan += fmt.Sprintf(" in place of %s, whose process died during turn %d", rec.Dead, rec.DeadTurn)
	}
	if _, err := a.svc.AppendNote(ctx, a.me, a.room, plan); err != nil {
		return false, err
	}
	if a.turns == a.cfg.stopOn {
		if err := a.emit(step{Kind: stepHolding, Turn: l.TurnID, Line: n, Text: plan}); err != nil {
			return false, err
		}
		<-ctx.Done() // the driver kills this process here, mid-turn
		return false, ctx.Err()
	}
	text := fmt.Sprintf("%d. %s wrote this in turn %d", n, a.cfg.name, l.TurnID)
	if rec != nil {
		text += fmt.Sprintf(", finishing %s's turn %d", rec.Dead, rec.DeadTurn)
	}
	if err := a.ws.appendLine(text); err != nil {
		return false, err
	}
	if err := a.ws.exit(a.cfg.name, l.TurnID); err != nil {
		return false, a.violation(l.TurnID, err)
	}
	last := l.TurnID >= a.cfg.lastTurn
	called := time.Now().UnixMicro()
	res, err := a.svc.Release(ctx, a.me, l, handoff(n, l.TurnID, rec, last))
	if err != nil {
		return false, err
	}
	a.seq = res.EventSeq
	if err := a.emit(step{Kind: stepReleased, At: called, Turn: l.TurnID, To: res.ReservedFor, Line: n, Seq: res.EventSeq, Text: text}); err != nil {
		return false, err
	}
	// The member that released the turn before the last one stops here, so
	// the last release finds nobody to reserve for and leaves the room idle.
	return l.TurnID >= a.cfg.lastTurn-1, nil
}

// handoff is the handoff of a turn that wrote line n.
func handoff(n int, turn int64, rec *recovery, last bool) stick.Handoff {
	h := stick.Handoff{
		Status:     fmt.Sprintf("appended line %d to %s in turn %d", n, notesFile, turn),
		NextAction: fmt.Sprintf("read line %d of %s, then append line %d", n, notesFile, n+1),
		Artifacts:  []stick.Artifact{{Path: notesFile, Lines: []int{n, n}, Role: stick.RoleReview, Note: "the line this turn wrote"}},
		DoNot:      []string{"edit lines other holders wrote"},
	}
	if rec != nil {
		h.Status = fmt.Sprintf("took over after %s's process died during turn %d (it left no handoff), recovered its task from the log and did it: %s",
			rec.Dead, rec.DeadTurn, h.Status)
	}
	if last {
		h.NextAction = fmt.Sprintf("nothing: the plan is complete; read %s and close the room", notesFile)
	}
	return h
}

// violation reports a breach of mutual exclusion and returns it as an error.
func (a *agent) violation(turn int64, err error) error {
	_ = a.emit(step{Kind: stepViolation, Turn: turn, Text: err.Error()})
	return stick.Errorf(stick.CodeInternal, "demo agent %s: %v", a.cfg.name, err)
}

// finish ends the agent's part: on an error it returns it; when the plan is
// done it leaves the room and follows the log until the room closes.
func (a *agent) finish(ctx context.Context, err error) error {
	if err != nil {
		return err
	}
	called := time.Now().UnixMicro()
	if err := a.svc.Leave(ctx, a.me, a.room); err != nil {
		return err
	}
	if err := a.emit(step{Kind: stepLeft, At: called}); err != nil {
		return err
	}
	for after := a.seq; ; {
		page, err := a.svc.FollowEvents(ctx, a.room, after, stick.MaxEventLimit)
		if err != nil {
			return err
		}
		for _, ev := range page.Events {
			if ev.Type == stick.EventClose {
				return a.emit(step{Kind: stepClosed, Seq: ev.Seq, Text: ev.Text})
			}
		}
		after = page.Cursor
	}
}
