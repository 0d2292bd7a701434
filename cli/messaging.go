package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// newChannels is 'stick channels': the room's channels.
func newChannels(agent *string) *cobra.Command {
	var asJSON bool
	var roomValue string
	cmd := &cobra.Command{
		Use:   "channels [path | --room ROOM]",
		Short: "List the room's channels: lanes for notes, with their counts and last activity",
		Long: `List the channels of the room: general, then the channels the project declares
in ` + stick.ProjectFile + ` at its workspace root (or, without that file, roadmap,
parallel-work and errors). 'stick note --channel C' posts to one; 'stick events
--channel C' and 'stick sync --channel C' read one. A channel with a retention
keeps only its newest notes; handoffs, turn events and the document are never pruned.`,
		Example: "  stick channels\n  stick channels --json",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return inNamedRoom(cmd, *agent, roomValue, args, func(s *session, r stick.RoomSummary) error {
				chs, err := s.svc.ListChannels(cmd.Context(), r.RoomID)
				if err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(chs)
				}
				rows := make([][]string, 0, len(chs))
				for _, c := range chs {
					last := "-"
					if c.LastActivity != nil {
						last = c.LastActivity.Local().Format("2006-01-02 15:04")
					}
					rows = append(rows, []string{render.Line(c.Name), fmt.Sprint(c.Notes), last, retention(c.ChannelSpec), render.Line(c.Description)})
				}
				p.table([]string{"CHANNEL", "NOTES", "LAST", "KEEPS", "DESCRIPTION"}, rows)
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	addRoomFlag(cmd, &roomValue)
	return cmd
}

// retention says in words what a channel keeps.
func retention(c stick.ChannelSpec) string {
	var parts []string
	if c.MaxMessages > 0 {
		parts = append(parts, fmt.Sprintf("%d notes", c.MaxMessages))
	}
	if c.MaxBytes > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes", c.MaxBytes))
	}
	if c.MaxAge > 0 {
		parts = append(parts, render.Duration(c.MaxAge))
	}
	if len(parts) == 0 {
		return "all"
	}
	return strings.Join(parts, ", ")
}

// newHandle is 'stick handle': show or choose this identity's handle in the room.
func newHandle(agent *string) *cobra.Command {
	var asJSON, clear bool
	var roomValue string
	cmd := &cobra.Command{
		Use:   "handle [NAME] [--room ROOM]",
		Short: "Show or choose your short handle in the room (others can address you by it)",
		Long: `Without NAME, show your identity in the room: handle, agent id, display name.
With NAME, choose it as your handle: lower-case letters, digits and '-', unique
in the room; 'stick note --to @NAME' then addresses you. --clear drops it.`,
		Example: "  stick handle\n  stick handle reviewer\n  stick handle --clear",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if clear && len(args) > 0 {
				return fmt.Errorf("give a handle or --clear, not both")
			}
			t, err := pathOrRoom(cmd, "", roomValue)
			if err != nil {
				return err
			}
			return inTarget(cmd.Context(), *agent, t, false, func(s *session, r stick.RoomSummary) error {
				var id stick.Identity
				var err error
				if len(args) > 0 || clear {
					name := ""
					if len(args) > 0 {
						name = args[0]
					}
					id, err = s.svc.SetHandle(cmd.Context(), s.caller, r.RoomID, name)
				} else {
					id, err = s.svc.WhoAmI(cmd.Context(), s.caller, r.RoomID)
				}
				if err != nil {
					return notJoined(s, r, err)
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(id)
				}
				handle := "no handle ('stick handle NAME' chooses one)"
				if id.Handle != "" {
					handle = "handle @" + render.Line(id.Handle)
				}
				fmt.Fprintf(p.w, "%s in room %s: %s\n", p.Bold(render.Line(id.AgentID)), render.Line(r.RoomID), handle)
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().BoolVar(&clear, "clear", false, "drop your handle")
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

// newStandby is 'stick standby': stay in the room without taking turns,
// until addressed or handed the stick.
func newStandby(agent *string) *cobra.Command {
	var asJSON, off, noWait bool
	var timeout time.Duration
	var roomValue string
	cmd := &cobra.Command{
		Use:   "standby [path | --room ROOM]",
		Short: "Stay in the room without taking turns; return when addressed or handed the stick",
		Long: `Put this identity on standby in the room: it stays a member, the stick never
comes to it in sequence, and it does not claim an idle room. Then wait until a
note is addressed to it, the stick is passed to it, or it is asked for the
room's conclusion, and say which (a shell agent runs this instead of idling).
--no-wait only sets standby; --off takes turns again ('stick wait' also does).
An agent's MCP server (stick mcp) wakes its idle session itself instead.`,
		Example: "  stick standby                 # until addressed or handed the stick\n" +
			"  stick standby --timeout 30m\n  stick standby --no-wait\n  stick standby --off",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			return inTarget(cmd.Context(), *agent, t, false, func(s *session, r stick.RoomSummary) error {
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				m, err := s.svc.SetStandby(cmd.Context(), s.caller, r.RoomID, !off)
				if err != nil {
					return notJoined(s, r, err)
				}
				if off || noWait {
					if asJSON {
						return p.JSON(m)
					}
					state := "on standby: the stick will not come to you in sequence ('stick standby --off' takes turns again)"
					if off {
						state = "taking turns again: 'stick wait' waits for the stick"
					}
					fmt.Fprintf(p.w, "%s in room %s: %s\n", render.Line(m.AgentID), render.Line(r.RoomID), state)
					return nil
				}
				ctx := cmd.Context()
				if timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, timeout)
					defer cancel()
				}
				if !asJSON {
					fmt.Fprintf(p.w, "%s on standby in room %s; waiting to be addressed or handed the stick (Ctrl-C stops)\n", render.Line(m.AgentID), render.Line(r.RoomID))
				}
				claim, err := s.svc.AwaitWake(ctx, s.caller, r.RoomID, func() bool { return true })
				if err != nil {
					if ctx.Err() != nil && cmd.Context().Err() == nil {
						if asJSON {
							return p.JSON(m)
						}
						fmt.Fprintf(p.w, "nobody addressed you or handed you the stick in %s; still on standby\n", render.Duration(timeout))
						return exitCode(exitNotYet)
					}
					return err
				}
				if asJSON {
					return p.JSON(claim)
				}
				from := render.Line(claim.From)
				switch claim.Why {
				case stick.WakeAddressed:
					fmt.Fprintf(p.w, "%s addressed you (#%d): run 'stick sync%s' to read it\n", from, claim.Seq, agentArg(cmd))
				case stick.WakeConclusion:
					fmt.Fprintf(p.w, "%s asks you for the room's conclusion (#%d): run 'stick wait%s' to take the stick, then 'stick close --conclusion ...'\n", from, claim.Seq, agentArg(cmd))
				default:
					fmt.Fprintf(p.w, "%s handed you the stick (#%d): run 'stick wait%s' to take it\n", from, claim.Seq, agentArg(cmd))
				}
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	f := cmd.Flags()
	f.BoolVar(&off, "off", false, "take turns again")
	f.BoolVar(&noWait, "no-wait", false, "only set standby, do not wait")
	f.DurationVar(&timeout, "timeout", 0, "give up waiting after this long (default: until interrupted)")
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

// newKick is 'stick kick': remove a member from the room's sequence.
func newKick(agent *string) *cobra.Command {
	var asJSON bool
	var reason, roomValue string
	cmd := &cobra.Command{
		Use:   "kick AGENT [--reason TEXT] [--room ROOM]",
		Short: "Remove a member from the room's sequence (logged; a holder loses the stick)",
		Long: `Remove a member from the room: it leaves the sequence, the log records who
removed it and why, and if it holds the stick the room goes idle and its lease
is fenced (its later calls fail). A person (this CLI) and a hub's operators
remove any member; an agent removes only a member whose process is proven gone.
AGENT is its agent id ('stick state' lists them).`,
		Example: "  stick kick codex:4f2a91 --reason \"session closed, not coming back\"",
		Args:    needs(1, 1, "AGENT, the agent id of the member to remove"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := pathOrRoom(cmd, "", roomValue)
			if err != nil {
				return err
			}
			return inTarget(cmd.Context(), *agent, t, false, func(s *session, r stick.RoomSummary) error {
				st, err := s.svc.RemoveMember(cmd.Context(), s.caller, r.RoomID, args[0], reason)
				if err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(st)
				}
				fmt.Fprintf(p.w, "removed %s from room %s (%s now)\n", render.Line(args[0]), render.Line(r.RoomID), render.Count(len(st.Members), "member"))
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().StringVar(&reason, "reason", "", "why, for the log")
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

// historyFilter is what 'stick events' filters the log by.
type historyFilter struct {
	channels, from, types []string
	since, until          string
	before                int64
	limit                 int
}

// printHistory prints the newest events of r that match f, oldest first.
func printHistory(cmd *cobra.Command, s *session, r stick.RoomSummary, f historyFilter, asJSON bool) error {
	q := stick.HistoryQuery{RoomID: r.RoomID, Channels: f.channels, From: f.from, Before: f.before, Limit: f.limit}
	for _, t := range f.types {
		if stick.EventType(t).Known() {
			q.Types = append(q.Types, stick.EventType(t))
		} else {
			q.NoteTypes = append(q.NoteTypes, stick.NoteType(t))
		}
	}
	if err := q.SetSpan(f.since, f.until); err != nil {
		return err
	}
	evs, err := s.svc.History(cmd.Context(), q)
	if err != nil {
		return err
	}
	p := newPrinter(cmd.OutOrStdout(), asJSON)
	if asJSON {
		if evs == nil {
			evs = []stick.Event{}
		}
		return p.JSON(evs)
	}
	if len(evs) == 0 {
		fmt.Fprintln(p.w, "no events match")
		return nil
	}
	for _, e := range evs {
		render.WriteEvent(p.w, p, e)
	}
	limit := f.limit
	if limit == 0 {
		limit = stick.DefaultEventLimit
	}
	if len(evs) == limit {
		fmt.Fprintln(p.w, p.Dim(fmt.Sprintf("older: add --before %d", evs[0].Seq)))
	}
	return nil
}

// printAddressed prints first the notes addressed to the caller in r that
// it has not read yet, if it is a member with any.
func printAddressed(cmd *cobra.Command, p *printer, s *session, r stick.RoomSummary) {
	evs, err := s.svc.Addressed(cmd.Context(), s.caller, r.RoomID)
	if err != nil || len(evs) == 0 {
		return
	}
	fmt.Fprintln(p.w, p.Bold(fmt.Sprintf("addressed to you, unread (%d; 'stick sync%s' marks them read):", len(evs), agentArg(cmd))))
	for _, e := range evs {
		render.WriteEvent(p.w, p, e)
	}
	fmt.Fprintln(p.w, p.Bold("the log:"))
}
