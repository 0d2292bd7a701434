package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// standing is where this identity stands in the room of a path: the
// one-line segment 'stick status --prompt' prints, and its parts.
type standing struct {
	Segment string `json:"segment"`
	AgentID string `json:"agent_id"`
	RoomID  string `json:"room_id,omitempty"`
	Path    string `json:"path,omitempty"`
	Name    string `json:"room_name,omitempty"`
	State   string `json:"state,omitempty"`
	TurnID  int64  `json:"turn_id,omitempty"`
	Holder  string `json:"holder,omitempty"`
	Next    string `json:"reserved_for,omitempty"`
	Waiting bool   `json:"waiting"`
	Ahead   int    `json:"ahead,omitempty"`
	Warning string `json:"warning,omitempty"`
}

func newStatus(agent *string) *cobra.Command {
	var prompt, asJSON bool
	var roomValue string
	cmd := &cobra.Command{
		Use:   "status [path | --room ROOM]",
		Short: "Say in one line where you stand in the room of a path (for shell prompts)",
		Long: `Say in one line where you stand in the room of the path: holding T42, waiting,
2 ahead, idle, codex holding, or a warning when the holder is stale or gone.
It only reads (one read-only connection, no writes), so it is fast enough for
a shell prompt; with --prompt it prints just the segment, nothing outside a
room, and never an error. 'stick prompt install' puts it in your prompt.
--room says where you stand in an open room named by its id or its name
instead; a named room has no path, so no prompt shows it by itself.`,
		Example: "  stick status\n  stick status --prompt\n  stick status --json\n  stick status --room release-1.4-review",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := targetOf(cmd, roomValue, args)
			if err != nil {
				return err
			}
			s, err := standAt(cmd.Context(), *agent, t)
			if prompt {
				if err == nil && s.Segment != "" {
					fmt.Fprintln(cmd.OutOrStdout(), render.Line(s.Segment))
				}
				return nil
			}
			if err != nil {
				return err
			}
			p := newPrinter(cmd.OutOrStdout(), asJSON)
			if asJSON {
				return p.JSON(s)
			}
			if s.RoomID == "" {
				fmt.Fprintf(p.w, "%s: not in a room (run 'stick join' to create or join one)\n", render.Line(s.AgentID))
				return nil
			}
			fmt.Fprintf(p.w, "%s in %s: %s\n", render.Line(s.AgentID), render.Line(place(s.Path, s.Name)), render.Line(s.Segment))
			return nil
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().BoolVar(&prompt, "prompt", false, "print only the prompt segment (empty outside a room, no errors)")
	addActRoomFlag(cmd, &roomValue)
	return cmd
}

// readRoom runs fn with the state of the room of path, read through a
// read-only view of the database; it does not call fn when there is no
// database or no room at the path.
func readRoom(ctx context.Context, id, path string, fn func(*session, stick.RoomStatus) error) error {
	r, err := wiring().OpenReader()
	if stick.ErrorCode(err) == stick.CodeRoomNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	defer r.Close()
	svc, err := newService(r)
	if err != nil {
		return err
	}
	s := &session{svc: svc, caller: stick.Caller{AgentID: id, Kind: stick.KindOneShot}}
	room, err := s.findRoom(ctx, path, false)
	if stick.ErrorCode(err) == stick.CodeRoomNotFound || stick.ErrorCode(err) == stick.CodeRoomClosed {
		return nil
	}
	if err != nil {
		return err
	}
	st, err := svc.RoomState(ctx, room.RoomID)
	if err != nil {
		return err
	}
	return fn(s, st)
}

// stand reads where the identity stands. No database or no open room at
// the path is an empty standing, not an error.
func stand(ctx context.Context, agentFlag, path string) (standing, error) {
	id := invocation(agentFlag).AgentID
	out := standing{AgentID: id}
	err := readRoom(ctx, id, path, func(_ *session, st stick.RoomStatus) error {
		out = standIn(st, id)
		return nil
	})
	return out, err
}

// standAt reads where the identity stands in the room of t: of a path as
// stand does, or the open room a --room value names, which must exist. It
// only reads, through a read-only view of the database.
func standAt(ctx context.Context, agentFlag string, t target) (standing, error) {
	if !t.byRoom {
		return stand(ctx, agentFlag, t.path)
	}
	id := invocation(agentFlag).AgentID
	out := standing{AgentID: id}
	r, err := wiring().OpenReader()
	if err != nil {
		return out, err
	}
	defer r.Close()
	svc, err := newService(r)
	if err != nil {
		return out, err
	}
	s := &session{svc: svc, caller: stick.Caller{AgentID: id, Kind: stick.KindOneShot}}
	room, err := s.roomOf(ctx, t, false)
	if err != nil {
		return out, err
	}
	st, err := svc.RoomState(ctx, room.RoomID)
	if err == nil {
		out = standIn(st, id)
	}
	return out, err
}

// standIn is where the identity id stands in the room st, its local
// holder records telling whether it waits there.
func standIn(st stick.RoomStatus, id string) standing {
	out := standing{AgentID: id, RoomID: st.RoomID, Path: st.CanonicalPath, Name: st.RoomName, State: string(st.State), TurnID: st.TurnID,
		Holder: st.Owner, Next: st.ReservedFor}
	if lh, err := holder.Dir(); err == nil {
		if hs, err := holder.Read(lh); err == nil {
			for _, h := range hs {
				if h.RoomID == st.RoomID && h.AgentID == id && h.State == holder.Waiting && procid.Check(h.Guardian) == procid.Alive {
					out.Waiting = true
				}
			}
		}
	}
	out.Ahead = st.Ahead(id)
	out.Segment, out.Warning = segment(st, id, out.Waiting, out.Ahead)
	return out
}

// segment words a room's state from the identity me's point of view.
func segment(st stick.RoomStatus, me string, waiting bool, ahead int) (seg, warning string) {
	turn := fmt.Sprintf("T%d", st.TurnID)
	switch st.State {
	case stick.StateClosed:
		return "", ""
	case stick.StateStaleOwner:
		if st.Owner == me {
			return "holding " + turn + " ⚠ lease expired", "your lease expired: heartbeat or release"
		}
		return "⚠ " + short(st.Owner) + " stale", st.Owner + "'s lease expired; takeover is open"
	case stick.StateOwnerGone, stick.StateRecipientGone:
		who := st.Owner + st.ReservedFor
		return "⚠ " + short(who) + " gone", who + "'s process is gone; takeover is open"
	}
	if st.Takeover == stick.ReasonClaimTimeout {
		if st.ReservedFor == me {
			return "your turn ⚠ claim expired", "your claim time ran out; claim now before someone takes over"
		}
		return "⚠ " + short(st.ReservedFor) + " claim expired", st.ReservedFor + " did not claim in time; takeover is open"
	}
	switch {
	case st.Owner == me:
		return "holding " + turn, ""
	case st.ReservedFor == me:
		return "your turn", ""
	case waiting && (st.Owner != "" || st.ReservedFor != ""):
		return fmt.Sprintf("waiting, %d ahead", ahead), ""
	case st.Owner != "":
		return short(st.Owner) + " holding", ""
	case st.ReservedFor != "":
		return short(st.ReservedFor) + " next", ""
	}
	return string(st.State), ""
}

// short names an agent for a prompt: the harness part of an agent id
// ("codex" for codex:9b22ce), the name of a person (ana for human:ana).
func short(agent string) string {
	kind, rest, ok := strings.Cut(agent, ":")
	if !ok {
		return agent
	}
	if kind == "human" {
		return rest
	}
	return kind
}
