package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// Exit codes of wait and try when the stick did not come.
const (
	exitNotYet   = 3 // someone else has the stick; try again later
	exitTakeover = 4 // the holder failed; 'stick takeover' may take the stick
)

// exitCode ends a command with a code after it printed what it had to say.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func newWait(agent *string) *cobra.Command {
	var asJSON bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait [path]",
		Short: "Wait for the stick, then leave a holder running and print the handoff",
		Long: `Wait until it is your turn in the room of the path (joining it if needed), then
print the handoff you receive and return, leaving a small holder process that
heartbeats for you until 'stick release' or 'stick pass'. The holder ends with
the shell or harness that ran this command, so the room sees owner_gone if it
goes away.

Exit status: 0 you hold the stick, 3 not your turn before --timeout,
4 takeover available (the holder failed; see 'stick takeover'), 1 an error.`,
		Example: "  stick wait\n  stick wait --timeout 10m ~/src/app\n  stick wait --json | jq .wait.handoff",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if timeout < 0 {
				return stick.Errorf(stick.CodeInvalidArgument, "--timeout must not be negative").With("field", "timeout").WithHint("give a duration such as 90s or 10m; 0 waits until your turn")
			}
			return acquire(cmd, *agent, holder.Request{Mode: holder.ModeWait, Path: pathArg(args), Timeout: timeout}, asJSON)
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (0: wait until your turn)")
	return cmd
}

func newTry(agent *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "try [path]",
		Short: "Take the stick if it is free or yours now, without waiting",
		Long: `Make one attempt to get the stick in the room of the path (joining it if
needed). On success it prints the handoff and leaves a holder running, like
'stick wait'.

Exit status: 0 you hold the stick, 3 someone else has it, 4 takeover available, 1 an error.`,
		Example: "  stick try && make test",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return acquire(cmd, *agent, holder.Request{Mode: holder.ModeTry, Path: pathArg(args)}, asJSON)
		},
	}
	addJSON(cmd, &asJSON)
	return cmd
}

func newTakeover(agent *string) *cobra.Command {
	var asJSON bool
	var reason string
	cmd := &cobra.Command{
		Use:   "takeover [path] --reason TEXT",
		Short: "Take the stick from a holder whose lease ran out or whose process is gone",
		Long: `Take the stick over when its holder (or the member it was reserved for) failed:
its lease or claim timed out, or its process is gone. A holder process is left
running, as with 'stick wait'; read the log to see what the failed holder did.`,
		Example: "  stick takeover --reason \"codex crashed mid-refactor\"\n  stick events --after 40",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reason == "" {
				return stick.Errorf(stick.CodeInvalidArgument, "takeover needs --reason").With("field", "reason").
					WithHint(`say why, e.g. --reason "the holder's session crashed"`)
			}
			return acquire(cmd, *agent, holder.Request{Mode: holder.ModeTakeover, Path: pathArg(args), Reason: reason}, asJSON)
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().StringVar(&reason, "reason", "", "why you take the stick over (required)")
	return cmd
}

// acquire gets the stick through a guardian and prints the outcome.
func acquire(cmd *cobra.Command, agent string, a holder.Request, asJSON bool) error {
	inv := invocation(agent)
	a.Agent, a.Chosen, a.Token = inv.AgentID, inv.Chosen, inv.ReclaimToken
	if held, err := alreadyHeld(cmd.Context(), a.Agent, a.Path); err != nil || held != nil {
		if err != nil {
			return err
		}
		p := newPrinter(cmd.OutOrStdout(), asJSON)
		if asJSON {
			return p.JSON(map[string]any{"already_holding": held})
		}
		fmt.Fprintf(p.w, "%s you already hold the stick in %s (turn %d); holder pid %d\n",
			p.green("✓"), render.Line(held.Path), held.Lease.TurnID, held.Guardian.PID)
		return nil
	}
	rep, err := startGuardian(cmd.Context(), inv, a)
	if err != nil {
		return err
	}
	p := newPrinter(cmd.OutOrStdout(), asJSON)
	if asJSON {
		if err := p.JSON(rep); err != nil {
			return err
		}
	} else {
		printAcquired(p, rep, agentArg(cmd))
	}
	switch {
	case rep.Granted():
		return nil
	case rep.Wait != nil && rep.Wait.Status == stick.TakeoverAvailable:
		return exitCode(exitTakeover)
	case rep.Wait != nil && rep.Wait.Status == stick.Closed:
		return stick.Errorf(stick.CodeRoomClosed, "the room %s is closed", rep.Wait.RoomID).
			WithHint("read it with 'stick events'; 'stick join' starts a new room at the path")
	}
	return exitCode(exitNotYet)
}

// alreadyHeld returns the live holder record of identity id for the path's
// room, so a second wait does not start a second guardian; an identity
// already waiting elsewhere is an error. It only reads: no open room (or a
// database a writer has yet to migrate) is nothing held, and the guardian's
// join does the rest.
func alreadyHeld(ctx context.Context, id, path string) (*holder.Record, error) {
	var held *holder.Record
	err := readRoom(ctx, id, path, func(s *session, r stick.RoomStatus) error {
		dir, err := holder.Dir()
		if err != nil {
			return err
		}
		hs, err := holder.Read(dir)
		if err != nil {
			return err
		}
		h, ok := holder.Find(hs, r.RoomID, s.caller.AgentID)
		switch {
		case !ok:
		case h.State == holder.Holding:
			held = &h
		default:
			return stick.Errorf(stick.CodeInvalidArgument, "%s already waits for the stick in %s (holder pid %d)", h.AgentID, h.Path, h.Guardian.PID).
				WithHint("let that wait finish, or stop it with Ctrl-C in its terminal")
		}
		return nil
	})
	if stick.ErrorCode(err) == stick.CodeDBSchemaMismatch {
		return nil, nil
	}
	return held, err
}

// printAcquired prints what a wait, try or takeover got; ag (" --agent
// ID" or "") goes into the commands it suggests.
func printAcquired(p *printer, rep holder.Report, ag string) {
	switch {
	case rep.Takeover != nil:
		t := rep.Takeover
		fmt.Fprintf(p.w, "%s you took over the stick: room %s at %s, turn %d (%s, was %s)\n",
			p.green("✓"), render.Line(t.RoomID), render.Line(rep.Join.CanonicalPath), t.TurnID, render.Line(string(t.Reason)), render.Dash(render.Line(t.Revoked)))
		printHolderLine(p, rep, t.LeaseExpiresAt)
		if e := t.RecentHandoff; e != nil && e.Handoff != nil {
			fmt.Fprintf(p.w, "\nthe last handoff in the log, from %s (event %d); read what happened since with 'stick events%s --after %d':\n", render.Line(e.From), e.Seq, ag, e.Seq)
			render.WriteHandoff(p.w, p, *e.Handoff)
		} else {
			fmt.Fprintf(p.w, "\nno handoff in the log yet: read 'stick events%s' to see what happened\n", ag)
		}
		printDoneHint(p, ag)
	case rep.Wait == nil:
	case rep.Wait.Status == stick.YourTurn:
		w := rep.Wait
		fmt.Fprintf(p.w, "%s your turn: room %s at %s, turn %d (%s)\n", p.green("✓"), render.Line(w.RoomID), render.Line(rep.Join.CanonicalPath), w.TurnID, render.Line(string(w.Reason)))
		printHolderLine(p, rep, *w.LeaseExpiresAt)
		if w.Handoff != nil {
			fmt.Fprintf(p.w, "\nhandoff from %s (event %d):\n", render.Dash(render.Line(w.FromAgentID)), w.HandoffSeq)
			render.WriteHandoff(p.w, p, *w.Handoff)
		} else {
			fmt.Fprintln(p.w, "\nno handoff: this is the room's first turn")
		}
		printDoneHint(p, ag)
	case rep.Wait.Status == stick.TakeoverAvailable:
		w := rep.Wait
		fmt.Fprintf(p.w, "%s takeover available in %s: %s (turn %d, held by %s)\n", p.Warn("!"), render.Line(rep.Join.CanonicalPath), render.Line(string(w.Reason)), w.TurnID, render.Dash(render.Line(w.CurrentOwner+w.ReservedFor)))
		fmt.Fprintf(p.w, "hint: run 'stick takeover%s --reason \"…\"' to take the stick, then read 'stick events%s' to recover\n", ag, ag)
	case rep.Wait.Status == stick.Closed:
	default:
		w := rep.Wait
		who := render.Dash(render.Line(w.CurrentOwner))
		if w.ReservedFor != "" {
			who = render.Line(w.ReservedFor) + " (reserved)"
		}
		fmt.Fprintf(p.w, "not your turn yet in %s: %s has the stick (%s)\n", render.Line(rep.Join.CanonicalPath), who, p.State(string(w.RoomState)))
	}
}

func printHolderLine(p *printer, rep holder.Report, expires time.Time) {
	fmt.Fprintf(p.w, "  lease until %s; holder pid %d heartbeats every %s until you release, and ends with %s\n",
		expires.Local().Format("15:04:05"), rep.Guardian.PID, render.Duration(rep.Join.Policy.HeartbeatInterval), render.Dash(render.Line(rep.Anchor)))
}

func printDoneHint(p *printer, ag string) {
	fmt.Fprintln(p.w, p.Dim("\nwhen you are done: stick release"+ag+" --status \"what you did\" --next-action \"what comes next\" [--artifact PATH:START-END=ROLE]"))
}

func newRelease(agent *string) *cobra.Command {
	var hf handoffFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "release [path] --status TEXT --next-action TEXT [flags]",
		Short: "End your turn with a handoff; the next member in sequence gets the stick",
		Example: `  stick release --status "parser fixed; tests pass" --next-action "review the error messages" \
    --artifact cli/handoff.go:40-96=review --question "keep the old flag?"
  stick release --handoff handoff.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return finishTurn(cmd, *agent, pathArg(args), "", hf, asJSON)
		},
	}
	hf.add(cmd)
	addJSON(cmd, &asJSON)
	return cmd
}

func newPass(agent *string) *cobra.Command {
	var hf handoffFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "pass AGENT [path] --status TEXT --next-action TEXT [flags]",
		Short:   "End your turn with a handoff to a named member",
		Example: `  stick pass codex:9b22ce --status "API drafted" --next-action "implement the client side" --artifact api.md=context`,
		Args:    needs(1, 2, "AGENT, the member to pass the stick to ('stick state' lists them)"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveDefault // the path
			}
			return memberNames(cmd.Context(), *agent), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return finishTurn(cmd, *agent, pathArg(args[1:]), args[0], hf, asJSON)
		},
	}
	hf.add(cmd)
	addJSON(cmd, &asJSON)
	return cmd
}

// finishTurn releases (or, with to, passes) the stick this identity holds
// through a local holder, then stops that holder.
func finishTurn(cmd *cobra.Command, agent, path, to string, hf handoffFlags, asJSON bool) error {
	ctx := cmd.Context()
	return inRoom(ctx, agent, path, false, func(s *session, r stick.RoomSummary) error {
		// The flags first: a bad flag is no reason to look for the lease.
		h, err := hf.handoff(cmd, r.CanonicalPath)
		if err != nil {
			return err
		}
		rec, err := ownHolder(ctx, s, r)
		if err != nil {
			return err
		}
		var res stick.ReleaseResult
		if to == "" {
			res, err = s.svc.Release(ctx, s.caller, rec.Lease, h)
		} else {
			res, err = s.svc.Pass(ctx, s.caller, rec.Lease, to, h)
		}
		if code := stick.ErrorCode(err); err != nil && code != stick.CodeStaleLease && code != stick.CodeTurnMismatch && code != stick.CodeRoomClosed {
			return err // the turn goes on: the holder keeps heartbeating
		}
		holder.Stop(rec)
		if err != nil {
			return err
		}
		p := newPrinter(cmd.OutOrStdout(), asJSON)
		if asJSON {
			return p.JSON(res)
		}
		verb := "released"
		if to != "" {
			verb = "passed"
		}
		fmt.Fprintf(p.w, "%s %s turn %d in %s (event %d); ", p.green("✓"), verb, res.TurnID, render.Line(r.CanonicalPath), res.EventSeq)
		if res.ReservedFor != "" {
			fmt.Fprintf(p.w, "the stick is reserved for %s\n", p.Bold(render.Line(res.ReservedFor)))
		} else {
			fmt.Fprintln(p.w, "the room is idle: the next to ask gets the stick and your handoff")
		}
		fmt.Fprintln(p.w, p.Dim("run 'stick wait"+agentArg(cmd)+"' to queue for your next turn"))
		return nil
	})
}

func newHeartbeat(agent *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "heartbeat [path]",
		Short:   "Extend your lease now (the holder does this on its own at the policy's cadence)",
		Example: "  stick heartbeat\n  stick heartbeat ~/src/app --json",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return inRoom(ctx, *agent, pathArg(args), false, func(s *session, r stick.RoomSummary) error {
				rec, err := ownHolder(ctx, s, r)
				if err != nil {
					return err
				}
				hb, err := s.svc.Heartbeat(ctx, s.caller, rec.Lease)
				if err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(hb)
				}
				fmt.Fprintf(p.w, "%s lease of turn %d extended until %s; next heartbeat due %s\n", p.green("✓"), hb.TurnID,
					hb.LeaseExpiresAt.Local().Format("15:04:05"), hb.NextHeartbeatAt.Local().Format("15:04:05"))
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	return cmd
}

// ownHolder finds the local holder of this identity in room r, or explains
// why there is none.
func ownHolder(ctx context.Context, s *session, r stick.RoomSummary) (holder.Record, error) {
	dir, err := holder.Dir()
	if err != nil {
		return holder.Record{}, err
	}
	hs, err := holder.Read(dir)
	if err != nil {
		return holder.Record{}, err
	}
	if h, ok := holder.Find(hs, r.RoomID, s.caller.AgentID); ok && h.State == holder.Holding {
		return h, nil
	}
	st, err := s.svc.RoomState(ctx, r.RoomID)
	if err != nil {
		return holder.Record{}, err
	}
	me := s.caller.AgentID
	if st.Owner == me && st.State == stick.StateOwnerGone {
		return holder.Record{}, stick.Errorf(stick.CodeStaleLease, "the holder process of %s in %s has exited, so its turn %d cannot be released", me, r.CanonicalPath, st.TurnID).
			With("room_id", r.RoomID).WithHint("another member takes over ('stick takeover --reason …'); when nobody else is active, take it over yourself ('stick takeover%s --reason …')", s.agentArg)
	}
	if st.Owner == me {
		return holder.Record{}, stick.Errorf(stick.CodeStaleLease, "%s holds the stick in %s through another session (an MCP server or another machine), not a holder started here", me, r.CanonicalPath).
			With("room_id", r.RoomID).WithHint("release it from the session that holds it, or pass --agent for another identity")
	}
	return holder.Record{}, stick.Errorf(stick.CodeStaleLease, "%s does not hold the stick in %s (turn %d, %s)", me, r.CanonicalPath, st.TurnID, describeHolder(st)).
		With("room_id", r.RoomID).With("current_owner", st.Owner).WithHint("run 'stick wait%s' (or 'stick hold%s') to get the stick first; 'stick whoami' shows who you are", s.agentArg, s.agentArg)
}

func describeHolder(st stick.RoomStatus) string {
	switch {
	case st.Owner != "":
		return "held by " + st.Owner
	case st.ReservedFor != "":
		return "reserved for " + st.ReservedFor
	}
	return string(st.State)
}

// memberNames completes the AGENT of 'stick pass': the other members of the
// room of the current directory, read without writing anything.
func memberNames(ctx context.Context, agent string) []cobra.Completion {
	var out []cobra.Completion
	id := invocation(agent).AgentID
	_ = readRoom(ctx, id, pathArg(nil), func(s *session, st stick.RoomStatus) error {
		for _, m := range st.Members {
			if m.AgentID != s.caller.AgentID && m.Status != "gone" {
				out = append(out, m.AgentID+"\t"+m.Status)
			}
		}
		return nil
	})
	return out
}
