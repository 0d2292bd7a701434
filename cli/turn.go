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
	var roomValue string
	cmd := &cobra.Command{
		Use:   "wait [path | --room ROOM]",
		Short: "Wait for the stick, then leave a holder running and print the handoff",
		Long: `Wait until it is your turn in the room of the path (joining it if needed), then
print the handoff you receive and return, leaving a small holder process that
heartbeats for you until 'stick release' or 'stick pass'. The holder ends with
the shell or harness that ran this command, so the room sees owner_gone if it
goes away. --room waits in an open room named by its id or its name instead
(a named room has no path), joining it if needed.

Exit status: 0 you hold the stick, 3 not your turn before --timeout,
4 takeover available (the holder failed; see 'stick takeover'), 1 an error.`,
		Example: "  stick wait\n  stick wait --timeout 10m ~/src/app\n  stick wait --json | jq .wait.handoff\n" +
			"  stick wait --room release-1.4-review   # a named room",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if timeout < 0 {
				return stick.Errorf(stick.CodeInvalidArgument, "--timeout must not be negative").With("field", "timeout").WithHint("give a duration such as 90s or 10m; 0 waits until your turn")
			}
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return acquire(cmd, *agent, t, holder.Request{Mode: holder.ModeWait, Timeout: timeout}, asJSON)
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (0: wait until your turn)")
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

func newTry(agent *string) *cobra.Command {
	var asJSON bool
	var roomValue string
	cmd := &cobra.Command{
		Use:   "try [path | --room ROOM]",
		Short: "Take the stick if it is free or yours now, without waiting",
		Long: `Make one attempt to get the stick in the room of the path (joining it if
needed), or with --room in an open room named by its id or its name. On
success it prints the handoff and leaves a holder running, like 'stick wait'.

Exit status: 0 you hold the stick, 3 someone else has it, 4 takeover available, 1 an error.`,
		Example: "  stick try && make test\n  stick try --room release-1.4-review",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return acquire(cmd, *agent, t, holder.Request{Mode: holder.ModeTry}, asJSON)
		},
	}
	addJSON(cmd, &asJSON)
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

func newTakeover(agent *string) *cobra.Command {
	var asJSON bool
	var reason, roomValue string
	cmd := &cobra.Command{
		Use:   "takeover [path | --room ROOM] --reason TEXT",
		Short: "Take the stick from a holder whose lease ran out or whose process is gone",
		Long: `Take the stick over when its holder (or the member it was reserved for) failed:
its lease or claim timed out, or its process is gone. A holder process is left
running, as with 'stick wait'; read the log to see what the failed holder did.`,
		Example: "  stick takeover --reason \"codex crashed mid-refactor\"\n  stick events --after 40\n" +
			"  stick takeover --room release-1.4-review --reason \"ana's laptop went to sleep\"",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reason == "" {
				return stick.Errorf(stick.CodeInvalidArgument, "takeover needs --reason").With("field", "reason").
					WithHint(`say why, e.g. --reason "the holder's session crashed"`)
			}
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return acquire(cmd, *agent, t, holder.Request{Mode: holder.ModeTakeover, Reason: reason}, asJSON)
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().StringVar(&reason, "reason", "", "why you take the stick over (required)")
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

// acquire gets the stick in the room of t through a guardian and prints the
// outcome.
func acquire(cmd *cobra.Command, agent string, t target, a holder.Request, asJSON bool) error {
	inv := invocation(agent)
	a.Agent, a.Chosen, a.Token = inv.AgentID, inv.Chosen, inv.ReclaimToken
	join, held, err := prepareJoin(cmd.Context(), agent, a.Agent, t)
	if err != nil {
		return err
	}
	a.Path, a.Name = join.Path, join.Name
	if held != nil {
		p := newPrinter(cmd.OutOrStdout(), asJSON)
		if asJSON {
			return p.JSON(map[string]any{"already_holding": held})
		}
		fmt.Fprintf(p.w, "%s you already hold the stick in %s (turn %d); holder pid %d\n",
			p.green("✓"), render.Line(held.Where()), held.Lease.TurnID, held.Guardian.PID)
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
	case rep.Wait != nil && rep.Wait.Status == stick.Closed && a.Name != "":
		return stick.Errorf(stick.CodeRoomClosed, "the room %s is closed", rep.Wait.RoomID).
			WithHint("read it with 'stick events --room %s'; 'stick join%s --name %s' starts a new room of that name", a.Name, agentArg(cmd), a.Name)
	case rep.Wait != nil && rep.Wait.Status == stick.Closed:
		return stick.Errorf(stick.CodeRoomClosed, "the room %s is closed", rep.Wait.RoomID).
			WithHint("read it with 'stick events'; 'stick join' starts a new room at the path")
	}
	return exitCode(exitNotYet)
}

// alreadyHeld returns the live holder record of identity id for the path's
// room, so a second wait does not start a second guardian; an identity
// already waiting there is an error (see heldIn). It only reads: no open
// room (or a database a writer has yet to migrate) is nothing held, and the
// guardian's join does the rest.
func alreadyHeld(ctx context.Context, id, path string) (*holder.Record, error) {
	var held *holder.Record
	err := readRoom(ctx, id, path, func(s *session, r stick.RoomStatus) error {
		var err error
		held, err = heldIn(r.RoomID, s.caller.AgentID)
		return err
	})
	if stick.ErrorCode(err) == stick.CodeDBSchemaMismatch {
		return nil, nil
	}
	return held, err
}

// printAcquired prints what a wait, try or takeover got; ag (" --agent
// ID" or "") goes into the commands it suggests, and so does --room for a
// named room.
func printAcquired(p *printer, rep holder.Report, ag string) {
	var where, name string
	if rep.Join != nil {
		where, name = rep.Join.CanonicalPath, rep.Join.RoomName
		ag += roomArg(name)
	}
	switch {
	case rep.Takeover != nil:
		t := rep.Takeover
		fmt.Fprintf(p.w, "%s you took over the stick: room %s %s, turn %d (%s, was %s)\n",
			p.green("✓"), render.Line(t.RoomID), render.Line(stick.Where(where, name)), t.TurnID, render.Line(string(t.Reason)), render.Dash(render.Line(t.Revoked)))
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
		fmt.Fprintf(p.w, "%s your turn: room %s %s, turn %d (%s)\n", p.green("✓"), render.Line(w.RoomID), render.Line(stick.Where(where, name)), w.TurnID, render.Line(string(w.Reason)))
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
		fmt.Fprintf(p.w, "%s takeover available in %s: %s (turn %d, held by %s)\n", p.Warn("!"), render.Line(place(where, name)), render.Line(string(w.Reason)), w.TurnID, render.Dash(render.Line(w.CurrentOwner+w.ReservedFor)))
		fmt.Fprintf(p.w, "hint: run 'stick takeover%s --reason \"…\"' to take the stick, then read 'stick events%s' to recover\n", ag, ag)
	case rep.Wait.Status == stick.Closed:
	default:
		w := rep.Wait
		who := render.Dash(render.Line(w.CurrentOwner))
		if w.ReservedFor != "" {
			who = render.Line(w.ReservedFor) + " (reserved)"
		}
		fmt.Fprintf(p.w, "not your turn yet in %s: %s has the stick (%s)\n", render.Line(place(where, name)), who, p.State(string(w.RoomState)))
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
	var roomValue string
	cmd := &cobra.Command{
		Use:   "release [path | --room ROOM] --status TEXT --next-action TEXT [flags]",
		Short: "End your turn with a handoff; the next member in sequence gets the stick",
		Example: `  stick release --status "parser fixed; tests pass" --next-action "review the error messages" \
    --artifact cli/handoff.go:40-96=review --question "keep the old flag?"
  stick release --handoff handoff.json
  stick release --room release-1.4-review --status "changelog checked" --next-action "tag 1.4"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return finishTurn(cmd, *agent, t, "", hf, asJSON)
		},
	}
	hf.add(cmd)
	addJSON(cmd, &asJSON)
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

func newPass(agent *string) *cobra.Command {
	var hf handoffFlags
	var asJSON bool
	var roomValue string
	cmd := &cobra.Command{
		Use:   "pass AGENT [path | --room ROOM] --status TEXT --next-action TEXT [flags]",
		Short: "End your turn with a handoff to a named member",
		Example: `  stick pass codex:9b22ce --status "API drafted" --next-action "implement the client side" --artifact api.md=context
  stick pass bob --room release-1.4-review --status "notes written" --next-action "review them"`,
		Args: needs(1, 2, "AGENT, the member to pass the stick to ('stick state' lists them)"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				if cmd.Flags().Changed("room") {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return nil, cobra.ShellCompDirectiveDefault // the path
			}
			return memberNames(cmd, *agent, roomValue), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := targetOf(cmd, roomValue, args[1:])
			if err != nil {
				return err
			}
			return finishTurn(cmd, *agent, t, args[0], hf, asJSON)
		},
	}
	hf.add(cmd)
	addJSON(cmd, &asJSON)
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

// finishTurn releases (or, with to, passes) the stick this identity holds
// in the room of t through a local holder, then stops that holder.
func finishTurn(cmd *cobra.Command, agent string, t target, to string, hf handoffFlags, asJSON bool) error {
	ctx := cmd.Context()
	return inTarget(ctx, agent, t, false, func(s *session, r stick.RoomSummary) error {
		// The flags first: a bad flag is no reason to look for the lease.
		h, err := hf.handoff(cmd, artifactRoot(r))
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
		fmt.Fprintf(p.w, "%s %s turn %d in %s (event %d); ", p.green("✓"), verb, res.TurnID, render.Line(place(r.CanonicalPath, r.RoomName)), res.EventSeq)
		if res.ReservedFor != "" {
			fmt.Fprintf(p.w, "the stick is reserved for %s\n", p.Bold(render.Line(res.ReservedFor)))
		} else {
			fmt.Fprintln(p.w, "the room is idle: the next to ask gets the stick and your handoff")
		}
		fmt.Fprintln(p.w, p.Dim("run 'stick wait"+agentArg(cmd)+roomArg(r.RoomName)+"' to queue for your next turn"))
		return nil
	})
}

func newHeartbeat(agent *string) *cobra.Command {
	var asJSON bool
	var roomValue string
	cmd := &cobra.Command{
		Use:     "heartbeat [path | --room ROOM]",
		Short:   "Extend your lease now (the holder does this on its own at the policy's cadence)",
		Example: "  stick heartbeat\n  stick heartbeat ~/src/app --json\n  stick heartbeat --room release-1.4-review",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return inTarget(ctx, *agent, t, false, func(s *session, r stick.RoomSummary) error {
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
	addActRoomFlag(cmd, &roomValue)
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
	me, where, ra := s.caller.AgentID, place(r.CanonicalPath, r.RoomName), roomArg(r.RoomName)
	if st.Owner == me && st.State == stick.StateOwnerGone {
		return holder.Record{}, stick.Errorf(stick.CodeStaleLease, "the holder process of %s in %s has exited, so its turn %d cannot be released", me, where, st.TurnID).
			With("room_id", r.RoomID).WithHint("another member takes over ('stick takeover%s --reason …'); when nobody else is active, take it over yourself ('stick takeover%s%s --reason …')", ra, s.agentArg, ra)
	}
	if st.Owner == me {
		return holder.Record{}, stick.Errorf(stick.CodeStaleLease, "%s holds the stick in %s through another session (an MCP server or another machine), not a holder started here", me, where).
			With("room_id", r.RoomID).WithHint("release it from the session that holds it, or pass --agent for another identity")
	}
	return holder.Record{}, stick.Errorf(stick.CodeStaleLease, "%s does not hold the stick in %s (turn %d, %s)", me, where, st.TurnID, describeHolder(st)).
		With("room_id", r.RoomID).With("current_owner", st.Owner).WithHint("run 'stick wait%s%s' (or 'stick hold%s%s') to get the stick first; 'stick whoami' shows who you are", s.agentArg, ra, s.agentArg, ra)
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
// room of the current directory, read without writing anything, or of the
// room --room names.
func memberNames(cmd *cobra.Command, agent, roomValue string) []cobra.Completion {
	ctx := cmd.Context()
	var out []cobra.Completion
	others := func(s *session, st stick.RoomStatus) error {
		for _, m := range st.Members {
			if m.AgentID != s.caller.AgentID && m.Status != "gone" {
				out = append(out, m.AgentID+"\t"+m.Status)
			}
		}
		return nil
	}
	if !cmd.Flags().Changed("room") {
		_ = readRoom(ctx, invocation(agent).AgentID, pathArg(nil), others)
		return out
	}
	_ = inTarget(ctx, agent, target{byRoom: true, room: roomValue}, false, func(s *session, r stick.RoomSummary) error {
		st, err := s.svc.RoomState(ctx, r.RoomID)
		if err != nil {
			return err
		}
		return others(s, st)
	})
	return out
}
