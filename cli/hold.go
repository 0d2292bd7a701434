package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

func newHold(agent *string) *cobra.Command {
	var hf handoffFlags
	var roomValue string
	cmd := &cobra.Command{
		Use:   "hold [path | --room ROOM]",
		Short: "Wait for the stick and hold it in the foreground until you press Ctrl-C",
		Long: `Wait for the stick in the room of the path (joining it if needed), then hold it
in the foreground: heartbeating, and printing what happens in the room. Press
Ctrl-C to hand the stick on: hold asks for the handoff (status, next action,
files, questions) and releases. With --status and --next-action it releases
with those without asking. 'stick release' from another terminal also ends it.
--room holds the stick in an open room named by its id or its name instead.`,
		Example: "  stick hold\n  stick hold --status \"reviewed the parser\" --next-action \"merge it\" --artifact cli/handoff.go=review\n" +
			"  stick hold --room release-1.4-review",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return runHold(cmd, *agent, t, hf)
		},
	}
	hf.add(cmd)
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

// errInterrupted ends a hold that was interrupted before it got the stick.
var errInterrupted = stick.Errorf(stick.CodeCanceled, "interrupted; stopped waiting")

func runHold(cmd *cobra.Command, agentFlag string, t target, hf handoffFlags) error {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	// The command's context ends on the same signals; this one ends only
	// when the hold decides so.
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(cmd.Context()))
	defer cancel(nil)
	p := newPrinter(cmd.OutOrStdout(), false)

	inv := invocation(agentFlag)
	id := inv.AgentID
	req, held, err := prepareJoin(ctx, agentFlag, id, t)
	if err != nil {
		return err
	}
	if held != nil {
		return stick.Errorf(stick.CodeInvalidArgument, "%s already holds the stick in %s through holder pid %d", held.AgentID, held.Where(), held.Guardian.PID).
			WithHint("release it first with 'stick release%s%s', or keep working under that holder", agentArg(cmd), roomArg(held.Name))
	}
	// Check the handoff flags now, not hours later at Ctrl-C, and before
	// anything changes.
	if _, err := checkHandoffFlags(cmd, &hf, artifactRoot(stick.RoomSummary{CanonicalPath: req.Path, RoomName: req.Name})); err != nil {
		return err
	}
	self, err := procid.Self()
	if err != nil {
		return stick.Errorf(stick.CodeInternal, "cannot identify this process: %v", err)
	}
	anc, err := inv.Anchor()
	if err != nil {
		return err
	}
	go holder.WatchAnchor(ctx, anc.Identity, func() { cancel(holder.ErrAnchorGone) })
	dir, err := holder.Dir()
	if err != nil {
		return err
	}
	svc, closeSvc, err := openService()
	if err != nil {
		return err
	}
	defer closeSvc()
	g := &holder.Holder{Service: svc, Caller: stick.Caller{AgentID: id, Kind: stick.KindGuardian, Process: self, DisplayName: "stick hold"}}
	g.Caller.Chosen, g.Caller.ReclaimToken = inv.Chosen, inv.ReclaimToken
	join, err := svc.JoinPath(ctx, g.Caller, req)
	if err != nil {
		return err
	}
	g.Caller.AgentID = join.AgentID
	root := artifactRoot(stick.RoomSummary{CanonicalPath: join.CanonicalPath, RoomName: join.RoomName})
	given, err := checkHandoffFlags(cmd, &hf, root)
	if err != nil {
		return err
	}
	rec := holder.Record{RoomID: join.RoomID, Path: join.CanonicalPath, Name: join.RoomName, AgentID: join.AgentID, State: holder.Waiting, Guardian: self, Anchor: anc.Identity, Since: time.Now().UTC()}
	if err := holder.Add(cmd.Context(), dir, rec); err != nil {
		return err
	}
	defer func() { _ = holder.Drop(dir, self) }()

	follow, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		followRoom(follow, svc, p, join.RoomID, join.Room.LastEventSeq)
	}()
	fmt.Fprintf(p.w, "waiting for the stick in %s as %s (Ctrl-C stops waiting)\n", render.Line(place(join.CanonicalPath, join.RoomName)), p.Bold(render.Line(join.AgentID)))

	res, interrupted, err := holdWait(ctx, g, join.RoomID, sigs)
	switch {
	case err != nil:
		return err
	case res.Status == stick.TakeoverAvailable:
		printAcquired(p, holder.Report{Join: &join, Wait: &res, Guardian: self}, agentArg(cmd))
		return exitCode(exitTakeover)
	case res.Status == stick.Closed:
		return stick.Errorf(stick.CodeRoomClosed, "the room %s was closed", join.RoomID)
	case res.Status != stick.YourTurn:
		return errInterrupted
	}
	lease := res.Lease()
	rec.State, rec.Lease, rec.Since = holder.Holding, lease, time.Now().UTC()
	if err := holder.Put(dir, rec); err != nil {
		return err
	}
	fmt.Fprintf(p.w, "%s your turn: turn %d (%s); holding until Ctrl-C\n", p.green("✓"), res.TurnID, render.Line(string(res.Reason)))
	if res.Handoff != nil {
		fmt.Fprintf(p.w, "handoff from %s (event %d):\n", render.Dash(render.Line(res.FromAgentID)), res.HandoffSeq)
		render.WriteHandoff(p.w, p, *res.Handoff)
	} else {
		fmt.Fprintln(p.w, "no handoff: this is the room's first turn")
	}

	beat, stopBeat := context.WithCancel(ctx)
	defer stopBeat()
	lost := make(chan string, 1)
	go func() { lost <- g.Keep(beat, lease, *res.NextHeartbeatAt, *res.LeaseExpiresAt) }()
	var sig os.Signal = os.Interrupt
	if !interrupted {
		select {
		case why := <-lost:
			return stick.Errorf(stick.CodeStaleLease, "stopped holding turn %d: %s", lease.TurnID, why)
		case sig = <-sigs:
		}
	}
	stopFollow()
	<-followed
	if sig == syscall.SIGTERM {
		return holdTerminated(ctx, svc, g.Caller, lease, p)
	}
	var rel stick.ReleaseResult
	var lines <-chan string // the terminal's answers, read by one goroutine for every round
	for {
		h := given
		if h == nil {
			if lines == nil {
				lines = readLines(cmd.InOrStdin())
			}
			asked, err := askHandoff(cmd, p, hf, root, sigs, lines)
			if err != nil {
				return err
			}
			h = &asked
		}
		rel, err = svc.Release(ctx, stick.Caller{AgentID: g.Caller.AgentID, Kind: stick.KindOneShot, Chosen: g.Caller.Chosen, ReclaimToken: g.Caller.ReclaimToken}, lease, *h)
		if se := stick.AsError(err); err != nil && se.Code == stick.CodeInvalidHandoff {
			fmt.Fprintf(p.w, "%s %s; once more:\n", p.red("✗"), render.Text(se.Message))
			hf, given = handoffFlags{}, nil
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	stopBeat()
	fmt.Fprintf(p.w, "%s released turn %d (event %d); ", p.green("✓"), rel.TurnID, rel.EventSeq)
	if rel.ReservedFor != "" {
		fmt.Fprintf(p.w, "the stick is reserved for %s\n", p.Bold(render.Line(rel.ReservedFor)))
	} else {
		fmt.Fprintln(p.w, "the room is idle")
	}
	return nil
}

// holdWait waits for the stick until it comes or a signal stops the wait.
// interrupted is true when the stick came although a signal arrived.
func holdWait(ctx context.Context, g *holder.Holder, roomID string, sigs <-chan os.Signal) (stick.WaitResult, bool, error) {
	type outcome struct {
		res stick.WaitResult
		err error
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan outcome, 1)
	go func() {
		res, err := g.Wait(wctx, roomID, 0)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, false, holder.Cause(ctx, o.err)
	case <-sigs:
		stop()
		o := <-done
		if o.err == nil && o.res.Status == stick.YourTurn {
			return o.res, true, nil
		}
		return stick.WaitResult{}, false, errInterrupted
	}
}

// holdTerminated ends a hold on SIGTERM: quietly when another process
// released the turn ('stick release' stops the holder that way), with a
// warning otherwise.
func holdTerminated(ctx context.Context, svc *stick.Service, c stick.Caller, l stick.Lease, p *printer) error {
	st, err := svc.RoomState(ctx, l.RoomID)
	if err == nil && (st.Owner != c.AgentID || st.TurnID != l.TurnID) {
		fmt.Fprintf(p.w, "%s turn %d was handed on from another process\n", p.green("✓"), l.TurnID)
		return nil
	}
	return stick.Errorf(stick.CodeCanceled, "terminated while holding turn %d without a handoff", l.TurnID).
		WithHint("the room sees the holder gone; another member can take over and read 'stick events'")
}

// followRoom prints the room's events after seq until ctx ends.
func followRoom(ctx context.Context, svc *stick.Service, p *printer, roomID string, after int64) {
	for {
		page, err := svc.FollowEvents(ctx, roomID, after, 0)
		if err != nil {
			return
		}
		for _, e := range page.Events {
			render.WriteEvent(p.w, p, e)
		}
		after = page.Cursor
	}
}

// askHandoff returns the handoff of the flags, asking in the terminal for
// what they leave out. A second Ctrl-C while asking gives up.
func askHandoff(cmd *cobra.Command, p *printer, hf handoffFlags, root string, sigs <-chan os.Signal, lines <-chan string) (stick.Handoff, error) {
	giveUp := stick.Errorf(stick.CodeCanceled, "no handoff given; the stick was not released").
		WithHint("the room sees the holder gone once this process ends; another member can take over")
	ask := func(prompt string) (string, error) {
		fmt.Fprint(p.w, prompt)
		select {
		case l, ok := <-lines:
			if !ok {
				return "", giveUp
			}
			return strings.TrimSpace(l), nil
		case <-sigs:
			fmt.Fprintln(p.w)
			return "", giveUp
		}
	}
	askList := func(title string) ([]string, error) {
		fmt.Fprintln(p.w, title)
		var out []string
		for {
			l, err := ask("  › ")
			if err != nil || l == "" {
				return out, err
			}
			out = append(out, l)
		}
	}
	fmt.Fprintln(p.w, "\n"+p.Bold("hand the stick on")+" (Ctrl-C again leaves without a release)")
	for hf.status == "" {
		s, err := ask("what did you do, what is unfinished? › ")
		if err != nil {
			return stick.Handoff{}, err
		}
		hf.status = s
	}
	for hf.next == "" {
		s, err := ask("what should the next holder do? › ")
		if err != nil {
			return stick.Handoff{}, err
		}
		hf.next = s
	}
	for {
		more, err := askList("files to look at, PATH[:START-END][=ROLE], one per line, empty line to finish:")
		if err != nil {
			return stick.Handoff{}, err
		}
		hf.artifacts = append(hf.artifacts, more...)
		h, err := hf.handoff(cmd, root)
		var se *stick.Error
		if errors.As(err, &se) && se.Code == stick.CodeInvalidArgument {
			fmt.Fprintf(p.w, "%s %s; enter the files again\n", p.red("✗"), render.Text(se.Message))
			hf.artifacts = nil
			continue
		}
		if err != nil {
			return h, err
		}
		qs, err := askList("open questions, one per line, empty line to finish:")
		if err != nil {
			return stick.Handoff{}, err
		}
		h.OpenQuestions = append(h.OpenQuestions, qs...)
		return h, nil
	}
}

// checkHandoffFlags builds the handoff the flags give in full, validated
// now rather than hours later at Ctrl-C; for partial flags (the rest is
// asked for at Ctrl-C) it returns nil after checking that they parse.
func checkHandoffFlags(cmd *cobra.Command, hf *handoffFlags, root string) (*stick.Handoff, error) {
	if (hf.status != "" && hf.next != "") || hf.file != "" {
		h, err := hf.handoff(cmd, root)
		if err != nil {
			return nil, err
		}
		if err := h.Validate(); err != nil {
			return nil, stick.AsError(err).WithHint("fix the flag; nothing was changed")
		}
		return &h, nil
	}
	for _, a := range hf.artifacts {
		if _, err := parseArtifact(a, root); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// readLines delivers the lines of r until it ends, then closes the channel.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines
}
