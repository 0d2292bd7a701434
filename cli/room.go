package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/workspace"
)

// session is what a room command needs: the service over the shared
// database and the identity this invocation acts as (a one-shot caller,
// whose process is never recorded as a member's liveness).
type session struct {
	svc    *stick.Service
	caller stick.Caller
	close  func()
	// agentArg is " --agent ID" when the command ran with --agent, for the
	// commands its hints suggest.
	agentArg string
}

// openService opens the store (see Wiring) and a service over it; close
// releases both.
func openService() (svc *stick.Service, close func(), err error) {
	st, err := wiring().Open()
	if err != nil {
		return nil, nil, err
	}
	svc, err = newService(st)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return svc, func() { st.Close() }, nil
}

func openSession(agentFlag string) (*session, error) {
	svc, closeFn, err := openService()
	if err != nil {
		return nil, err
	}
	s := &session{svc: svc, caller: invocation(agentFlag).Caller(), close: closeFn}
	if agentFlag != "" {
		s.agentArg = " --agent " + shellQuote(agentFlag)
	}
	return s, nil
}

// pathArg is the optional path argument, the current directory by default.
func pathArg(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "."
}

// findRoom finds the room a path belongs to (stick.Service.RoomFor): the
// open one, or with closedToo the one closed last. A path with no room
// gets the CLI's hint: the join command that makes one, as typed here.
func (s *session) findRoom(ctx context.Context, path string, closedToo bool) (stick.RoomSummary, error) {
	r, err := s.svc.RoomFor(ctx, path, closedToo)
	if e := stick.AsError(err); e != nil && e.Code == stick.CodeRoomNotFound {
		e.WithHint("run 'stick join%s %s' to create or join the room of this workspace", s.agentArg, path)
	}
	return r, err
}

// inRoom opens a session for agent and runs fn with the room of path (with
// closedToo, also a closed one), closing the session afterwards.
func inRoom(ctx context.Context, agent, path string, closedToo bool, fn func(*session, stick.RoomSummary) error) error {
	s, err := openSession(agent)
	if err != nil {
		return err
	}
	defer s.close()
	r, err := s.findRoom(ctx, path, closedToo)
	if err != nil {
		return err
	}
	return fn(s, r)
}

// roomFlagHelp is the help of the --room flag of the commands that read a
// room.
const roomFlagHelp = "the room with this id or name ('stick list' shows them) instead of the room of a path; reaches closed rooms too"

// addRoomFlag adds --room to a command that reads a room, so a user can
// name a room by its id, the one way to reach a closed room once a new
// room is open at its path, or a named room by its name.
func addRoomFlag(cmd *cobra.Command, roomID *string) {
	cmd.Flags().StringVar(roomID, "room", "", roomFlagHelp)
}

// inNamedRoom runs fn with the room --room names (open or closed) or,
// without --room, with the room of the path argument (the open one, else
// the most recently closed one). A path argument together with --room is a
// usage error.
func inNamedRoom(cmd *cobra.Command, agent, roomID string, args []string, fn func(*session, stick.RoomSummary) error) error {
	t, err := targetOf(cmd, roomID, args)
	if err != nil {
		return err
	}
	return inTarget(cmd.Context(), agent, t, true, fn)
}

// resolveRoom finds the room a --room value names: a value that is an
// existing path is the room of that path, as a path argument is (the open
// room, else the most recently closed one); a room name is the named room
// (the open one, else the one closed last); any other value is a room id,
// of an open or a closed room. The summary of a room found by its id
// leaves ActiveMembers zero.
func (s *session) resolveRoom(ctx context.Context, value string) (stick.RoomSummary, error) {
	if strings.TrimSpace(value) == "" {
		return stick.RoomSummary{}, errors.New("--room needs a room id, as 'stick list' shows it (or a path)")
	}
	if _, err := os.Stat(value); err == nil {
		return s.findRoom(ctx, value, true)
	}
	if stick.ValidRoomName(value) {
		r, err := s.svc.RoomNamed(ctx, value)
		if e := stick.AsError(err); e != nil && e.Code == stick.CodeRoomNotFound {
			e.WithHint("'stick join%s --name %s' creates the room of that name; 'stick list' shows the open named rooms, 'stick list --all' the closed ones too", s.agentArg, value)
		}
		return r, err
	}
	st, err := s.svc.RoomState(ctx, value)
	if err != nil {
		return stick.RoomSummary{}, err
	}
	return stick.RoomSummary{RoomID: st.RoomID, CanonicalPath: st.CanonicalPath, RoomKey: st.RoomKey, RoomName: st.RoomName,
		State: st.State, Owner: st.Owner, ReservedFor: st.ReservedFor, TurnID: st.TurnID, Members: len(st.Members), UpdatedAt: st.UpdatedAt}, nil
}

// withSession opens a session for agent and runs fn, closing it afterwards.
func withSession(agent string, fn func(*session) error) error {
	s, err := openSession(agent)
	if err != nil {
		return err
	}
	defer s.close()
	return fn(s)
}

func addJSON(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVar(v, "json", false, "print JSON instead of text")
}

func newList(agent *string) *cobra.Command {
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:   "list [path]",
		Short: "List the rooms of a workspace (or all rooms) and when anything last happened in each",
		Long: `List the rooms of a workspace: those on the path's chain up to its workspace
root and those nested below it, then the open named rooms, which anyone joins
by name ('stick join --name'). --all lists every room, closed named ones too.
PATH shows a room's path, or name:NAME for a named room. KEY, shown when a
room is in a repository with an origin, names a room's workspace the same way
on every host: the origin (and the room's path inside the repository), or
"local" for a room keyed to this host only. --json shows every key in full
(room_key) and every name (room_name).`,
		Example: "  stick list\n  stick list ~/src/app --json\n  stick list --all",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(*agent, func(s *session) error {
				path := pathArg(args)
				if all {
					path = ""
				}
				rooms, err := s.svc.ListRooms(cmd.Context(), path)
				if err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(rooms)
				}
				if len(rooms) == 0 {
					fmt.Fprintf(p.w, "no rooms here; 'stick join' creates one\n")
					return nil
				}
				now := time.Now()
				rows := make([][]string, 0, len(rooms))
				// A key local to this host says no more than the path, so
				// the keys are shown when one of them names a repository.
				keyed := slices.ContainsFunc(rooms, func(r stick.RoomSummary) bool {
					return r.RoomKey != "" && !workspace.IsLocalKey(r.RoomKey)
				})
				for _, r := range rooms {
					r = safeSummary(r)
					row := []string{r.RoomID, pathCell(r.CanonicalPath, r.RoomName)}
					if keyed {
						row = append(row, keyCell(r.RoomKey))
					}
					rows = append(rows, append(row, p.State(string(r.State)), render.Dash(r.Owner), render.Dash(r.ReservedFor),
						fmt.Sprint(r.TurnID), fmt.Sprintf("%d/%d", r.ActiveMembers, r.Members), render.Ago(now, lastActivity(r))))
				}
				header := []string{"ROOM", "PATH", "STATE", "HOLDER", "RESERVED", "TURN", "ACTIVE", "ACTIVITY"}
				if keyed {
					header = slices.Insert(header, 2, "KEY")
				}
				p.table(header, rows)
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().BoolVar(&all, "all", false, "list every room in the database")
	return cmd
}

// pathCell is what a table shows of where a room is: its path, or
// name:NAME for a named room.
func pathCell(path, name string) string {
	if name != "" {
		return "name:" + name
	}
	return path
}

// keyCell is what a table shows of a room's key: a repository's key in
// full, "local" for a key local to this host (the path says the rest),
// "-" for a named room, which has none.
func keyCell(key string) string {
	switch {
	case key == "":
		return "-"
	case workspace.IsLocalKey(key):
		return "local"
	}
	return key
}

// lastActivity is when anything last happened in a room: its newest event
// (a note, a handoff, a join) or its last change of state.
func lastActivity(r stick.RoomSummary) time.Time {
	if r.LastEventAt.After(r.UpdatedAt) {
		return r.LastEventAt
	}
	return r.UpdatedAt
}

func newJoin(agent *string) *cobra.Command {
	var asJSON, forceNew bool
	var name string
	cmd := &cobra.Command{
		Use:   "join [path | --name NAME]",
		Short: "Join the room of a workspace (created at the workspace root if there is none), or a room by its name",
		Long: fmt.Sprintf(`Join the room of a workspace: the deepest open room on the path's chain up to
its workspace root (the git top level, else the nearest directory with a
marker file), created at the root if there is none. --force-new creates a
room at the path itself, nested below the room above it.

--name joins the open room of that name instead, created if there is none: a
room for a team's session, which members join by its name from any directory
(and, through a hub, from any host). A name is 1 to %d lower-case letters,
digits, '.', '-' and '_', starting with a letter or a digit. Once the room is
closed, the next join by its name starts a new room. 'stick list' shows the
open named rooms; --room NAME reads one ('stick state --room NAME').`, stick.MaxRoomNameLen),
		Example: "  stick join\n  stick join packages/api --force-new\n  stick join --name release-1.4-review",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := stick.JoinRequest{ForceNew: forceNew, Name: name}
			switch {
			case cmd.Flags().Changed("name") && len(args) > 0:
				return fmt.Errorf("give a path or --name, not both (--name %s joins the room of that name, which has no path)", name)
			case cmd.Flags().Changed("name") && forceNew:
				return fmt.Errorf("--force-new nests a room below the room of a path; a named room has no path")
			case cmd.Flags().Changed("name") && name == "":
				return fmt.Errorf("--name needs a room name, for example --name release-1.4-review")
			case !cmd.Flags().Changed("name"):
				req.Path = pathArg(args)
			}
			return withSession(*agent, func(s *session) error {
				res, err := s.svc.JoinPath(cmd.Context(), s.caller, req)
				if err != nil {
					return err
				}
				declared(cmd.Context(), s.svc, s.caller, &res)
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(res)
				}
				verb := "joined"
				if res.Created {
					verb = "created and joined"
				}
				members := fmt.Sprintf("%d members", len(res.Room.Members))
				if len(res.Room.Members) == 1 {
					members = "1 member"
				}
				fmt.Fprintf(p.w, "%s room %s %s as %s (%s, turn %d, %s)\n", verb, p.Bold(render.Line(res.RoomID)), render.Line(stick.Where(res.CanonicalPath, res.RoomName)),
					p.Bold(render.Line(res.AgentID)), p.State(string(res.Room.State)), res.Room.TurnID, members)
				if res.RoomKey != "" && !workspace.IsLocalKey(res.RoomKey) {
					fmt.Fprintln(p.w, p.Dim("key "+render.Line(res.RoomKey)+": clones of this repository share it"))
				}
				if res.Warning != "" {
					fmt.Fprintln(p.w, p.Warn("warning: "+render.Text(res.Warning)))
				}
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().BoolVar(&forceNew, "force-new", false, "create a nested room at the path even below an existing room")
	cmd.Flags().StringVar(&name, "name", "", "join the room of this name instead of a path's, creating it if there is none")
	return cmd
}

func newState(agent *string) *cobra.Command {
	var asJSON bool
	var roomID string
	cmd := &cobra.Command{
		Use:   "state [path | --room ROOM_ID]",
		Short: "Show who holds the stick, the turn, the members and the pending handoff",
		Example: "  stick state\n  stick state --json | jq .owner\n" +
			"  stick state --room room_7b64e0c2a1f3d9b8   # a room by its id ('stick list' shows it), closed ones too\n" +
			"  stick state --room release-1.4-review      # a named room",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return inNamedRoom(cmd, *agent, roomID, args, func(s *session, r stick.RoomSummary) error {
				st, err := s.svc.RoomState(cmd.Context(), r.RoomID)
				if err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(st)
				}
				render.WriteState(p.w, p, st, time.Now())
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	addRoomFlag(cmd, &roomID)
	return cmd
}

func newEvents(agent *string) *cobra.Command {
	var asJSON, follow bool
	var after, before int64
	var limit, tail int
	var roomID, since, until string
	var channels, from, types []string
	cmd := &cobra.Command{
		Use:   "events [path | --room ROOM_ID]",
		Short: "Show a room's event log (claims, handoffs, takeovers, notes, ...), newest last",
		Long: fmt.Sprintf(`Show the newest events of a room's log, oldest of them first: the last %d, or
the last N with --tail N. --after N pages through the log from event N instead
(--after 0 from the start), --limit events at a time. --follow keeps printing
events as they commit, until interrupted.`, stick.DefaultEventLimit),
		Example: fmt.Sprintf("  stick events                   # the newest %d\n", stick.DefaultEventLimit) + "  stick events -n 10\n  stick events --after 0 --limit 20   # from the start, 20 at a time\n" +
			"  stick events --follow          # the newest, then events as they commit, until Ctrl-C\n" +
			"  stick events --follow --json   # one JSON object per line\n" +
			"  stick events --room room_7b64e0c2a1f3d9b8   # a room by its id ('stick list' shows it), closed ones too\n" +
			"  stick events --channel errors --since 2h     # a channel's notes of the last two hours\n" +
			"  stick events --from codex:4f2a91 --type decision",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if filtered := len(channels)+len(from)+len(types) > 0 || since != "" || until != "" || cmd.Flags().Changed("before"); filtered {
				if follow || cmd.Flags().Changed("after") {
					return fmt.Errorf("--channel, --from, --type, --since, --until and --before show the newest matching events; they go with neither --follow nor --after (page back with --before)")
				}
				n := tail
				if n == 0 {
					n = limit
				}
				return inNamedRoom(cmd, *agent, roomID, args, func(s *session, r stick.RoomSummary) error {
					return printHistory(cmd, s, r, historyFilter{channels: channels, from: from, types: types, since: since, until: until, before: before, limit: n}, asJSON)
				})
			}
			paging := cmd.Flags().Changed("after")
			if paging && cmd.Flags().Changed("tail") {
				return fmt.Errorf("give --tail (the newest events) or --after (from an event on), not both")
			}
			limitAsTail := !paging && cmd.Flags().Changed("limit") && !cmd.Flags().Changed("tail")
			if limitAsTail {
				tail = limit // without --after, --limit counts from the end too
			}
			return inNamedRoom(cmd, *agent, roomID, args, func(s *session, r stick.RoomSummary) error {
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if !asJSON {
					printAddressed(cmd, p, s, r)
				}
				which := render.Line(shellQuote(r.CanonicalPath))
				if cmd.Flags().Changed("room") {
					which = "--room " + render.Line(r.RoomID)
				}
				var page stick.EventPage
				switch {
				case !paging:
					t, err := s.svc.TailEvents(cmd.Context(), r.RoomID, tail)
					if e := stick.AsError(err); limitAsTail && e != nil && e.Details["field"] == "tail" {
						return &stick.Error{Code: e.Code, Hint: e.Hint, Details: map[string]any{"field": "limit"},
							Message: "limit" + strings.TrimPrefix(e.Message, "tail")}
					}
					if err != nil {
						return err
					}
					if asJSON && !follow {
						return p.JSON(t)
					}
					if t.Earlier && !asJSON {
						fmt.Fprintln(p.w, p.Dim(fmt.Sprintf("earlier: stick events%s %s --after 0", agentArg(cmd), which)))
					}
					page = t.EventPage
				case !follow:
					var err error
					if page, err = s.svc.RoomEvents(cmd.Context(), r.RoomID, after, limit); err != nil {
						return err
					}
					if asJSON {
						return p.JSON(page)
					}
				}
				if !follow {
					for _, e := range page.Events {
						render.WriteEvent(p.w, p, e)
					}
					if page.HasMore {
						more := fmt.Sprintf("more: stick events%s %s --after %d", agentArg(cmd), which, page.Cursor)
						if limit > 0 {
							more += fmt.Sprintf(" --limit %d", limit)
						}
						fmt.Fprintln(p.w, p.Dim(more))
					}
					return nil
				}
				if !paging {
					for _, e := range page.Events {
						if err := printStreamed(p, e, asJSON); err != nil {
							return err
						}
					}
					after = page.Cursor
				}
				for {
					page, err := s.svc.FollowEvents(cmd.Context(), r.RoomID, after, limit)
					if err != nil {
						return err
					}
					for _, e := range page.Events {
						if err := printStreamed(p, e, asJSON); err != nil {
							return err
						}
					}
					after = page.Cursor
				}
			})
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().BoolVar(&follow, "follow", false, "keep printing new events as they commit, until interrupted")
	cmd.Flags().IntVarP(&tail, "tail", "n", 0, "show the newest this many events "+pageRange(stick.DefaultEventLimit, stick.MaxEventLimit))
	cmd.Flags().Int64Var(&after, "after", 0, "show the events after this event number, oldest first (0: from the start)")
	cmd.Flags().IntVar(&limit, "limit", 0, "with --after, show at most this many events "+pageRange(stick.DefaultEventLimit, stick.MaxEventLimit)+"; without, as --tail")
	cmd.Flags().StringArrayVar(&channels, "channel", nil, "only notes of this channel (repeatable)")
	cmd.Flags().StringArrayVar(&from, "from", nil, "only events of this agent id (repeatable)")
	cmd.Flags().StringArrayVar(&types, "type", nil, "only events of this type (note, release, pass, claim, ...), or notes of this kind (question, decision, x-...) (repeatable)")
	cmd.Flags().StringVar(&since, "since", "", "only events at or after this time (RFC 3339) or this long ago (2h, 3d)")
	cmd.Flags().StringVar(&until, "until", "", "only events before this time (RFC 3339) or this long ago")
	cmd.Flags().Int64Var(&before, "before", 0, "only events before this event number (older pages of a filtered list)")
	addRoomFlag(cmd, &roomID)
	return cmd
}

// printStreamed prints one event of --follow: a line of JSON or the text.
func printStreamed(p *printer, e stick.Event, asJSON bool) error {
	if asJSON {
		return p.JSONLine(e)
	}
	render.WriteEvent(p.w, p, e)
	return nil
}

func newWhoami(agent *string) *cobra.Command {
	var asJSON, explain bool
	cmd := &cobra.Command{
		Use:     "whoami",
		Short:   "Print the identity this invocation acts as",
		Example: "  stick whoami --explain\n  TALKING_STICK_AGENT_ID=reviewer stick whoami",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			inv := invocation(*agent)
			id, why := inv.AgentID, inv.Why
			p := newPrinter(cmd.OutOrStdout(), asJSON)
			if asJSON {
				return p.JSON(map[string]string{"agent_id": id, "why": why})
			}
			fmt.Fprintln(p.w, render.Line(id))
			if explain {
				fmt.Fprintln(p.w, p.Dim(render.Text(why)))
			}
			return nil
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().BoolVar(&explain, "explain", false, "say where the identity comes from")
	return cmd
}
