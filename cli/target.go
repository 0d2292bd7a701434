package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/stick"
)

// target is the room a command acts in: the room of a path, or the room a
// --room value names (a room id, a name, or a path).
type target struct {
	path   string // the path whose room, without --room
	byRoom bool   // --room was given
	room   string // the --room value
}

// actRoomFlagHelp is the help of the --room flag of the commands that act
// in a room: as the reading commands' --room, but only an open room can be
// acted in.
const actRoomFlagHelp = "the open room with this id or name ('stick list' shows them) instead of the room of a path"

// addActRoomFlag adds --room to a command that acts in a room (a turn, a
// note, the document), so a user can act in a named room, which has no
// path, or in a room by its id.
func addActRoomFlag(cmd *cobra.Command, roomValue *string) {
	cmd.Flags().StringVar(roomValue, "room", "", actRoomFlagHelp)
}

// targetOf reads the room a command acts in from its --room flag and its
// optional path argument, the current directory by default. A path
// argument together with --room is a usage error.
func targetOf(cmd *cobra.Command, roomValue string, args []string) (target, error) {
	if !cmd.Flags().Changed("room") {
		return target{path: pathArg(args)}, nil
	}
	if len(args) > 0 {
		return target{}, fmt.Errorf("give either a path or --room, not both (--room %s already names the room)", roomValue)
	}
	return target{byRoom: true, room: roomValue}, nil
}

// pathOrRoom is the target of a command that takes its path as --path
// (note, doc append) rather than as an argument: --path and --room together
// are a usage error.
func pathOrRoom(cmd *cobra.Command, path, roomValue string) (target, error) {
	switch {
	case !cmd.Flags().Changed("room"):
		if path == "" {
			path = pathArg(nil)
		}
		return target{path: path}, nil
	case path != "":
		return target{}, fmt.Errorf("give either --path or --room, not both (--room %s already names the room)", roomValue)
	}
	return target{byRoom: true, room: roomValue}, nil
}

// inTarget opens a session for agent and runs fn with the room of t (with
// closedToo, also a closed one), closing the session afterwards.
func inTarget(ctx context.Context, agent string, t target, closedToo bool, fn func(*session, stick.RoomSummary) error) error {
	if !t.byRoom {
		return inRoom(ctx, agent, t.path, closedToo, fn)
	}
	return withSession(agent, func(s *session) error {
		r, err := s.roomOf(ctx, t, closedToo)
		if err != nil {
			return err
		}
		return fn(s, r)
	})
}

// roomOf finds the room of t: the room of its path (see findRoom), or the
// room its --room value names (see resolveRoom). Without closedToo a closed
// room is room_closed, however it was named.
func (s *session) roomOf(ctx context.Context, t target, closedToo bool) (stick.RoomSummary, error) {
	if !t.byRoom {
		return s.findRoom(ctx, t.path, closedToo)
	}
	r, err := s.resolveRoom(ctx, t.room)
	if err == nil && !closedToo && r.State == stick.StateClosed {
		return r, s.closedRoom(r)
	}
	return r, err
}

// closedRoom is the room_closed error of a command that acts in the closed
// room r, saying how to read it and how to start a new room in its place.
func (s *session) closedRoom(r stick.RoomSummary) error {
	if r.RoomName != "" {
		return stick.Errorf(stick.CodeRoomClosed, "the room named %s (%s) is closed", r.RoomName, r.RoomID).
			With("room_id", r.RoomID).With("name", r.RoomName).
			WithHint("'stick events --room %s' and 'stick doc --room %s' still read it; 'stick join%s --name %s' starts a new room of that name",
				r.RoomName, r.RoomName, s.agentArg, r.RoomName)
	}
	return stick.Errorf(stick.CodeRoomClosed, "the room %s at %s is closed", r.RoomID, r.CanonicalPath).
		With("room_id", r.RoomID).With("path", r.CanonicalPath).
		WithHint("'stick events --room %s' and 'stick doc --room %s' still read it; 'stick join%s %s' starts a new room there",
			r.RoomID, r.RoomID, s.agentArg, shellQuote(r.CanonicalPath))
}

// joinFor is the join that reaches the open room r again: by its name, or
// by its path, whose deepest open room it is.
func joinFor(r stick.RoomSummary) stick.JoinRequest {
	if r.RoomName != "" {
		return stick.JoinRequest{Name: r.RoomName}
	}
	return stick.JoinRequest{Path: r.CanonicalPath}
}

// heldIn returns the live holder record of identity id in the room roomID,
// so a second wait does not start a second guardian; an identity that
// already waits there is an error.
func heldIn(roomID, id string) (*holder.Record, error) {
	dir, err := holder.Dir()
	if err != nil {
		return nil, err
	}
	hs, err := holder.Read(dir)
	if err != nil {
		return nil, err
	}
	h, ok := holder.Find(hs, roomID, id)
	switch {
	case !ok:
		return nil, nil
	case h.State == holder.Holding:
		return &h, nil
	}
	return nil, stick.Errorf(stick.CodeInvalidArgument, "%s already waits for the stick in %s (holder pid %d)", h.AgentID, h.Where(), h.Guardian.PID).
		WithHint("let that wait finish, or stop it with Ctrl-C in its terminal")
}

// prepareJoin returns the join a holder of identity id makes to get the
// stick in the room of t, and the live holder record of id there, if any.
// For a path, the join is the path's, which creates the room when there is
// none. A --room value must name an open room: room_not_found or
// room_closed otherwise.
func prepareJoin(ctx context.Context, agent, id string, t target) (stick.JoinRequest, *holder.Record, error) {
	if !t.byRoom {
		held, err := alreadyHeld(ctx, id, t.path)
		return stick.JoinRequest{Path: t.path}, held, err
	}
	var join stick.JoinRequest
	var held *holder.Record
	err := withSession(agent, func(s *session) error {
		r, err := s.roomOf(ctx, t, false)
		if err != nil {
			return err
		}
		join = joinFor(r)
		held, err = heldIn(r.RoomID, id)
		return err
	})
	return join, held, err
}

// place names a room in a sentence: its path, or "the room named NAME".
func place(path, name string) string {
	if name != "" {
		return "the room named " + name
	}
	return path
}

// roomArg is " --room NAME" for a named room, which only --room reaches,
// and "" for the room of a path: the commands a hint suggests carry it, as
// they carry --agent.
func roomArg(name string) string {
	if name == "" {
		return ""
	}
	return " --room " + shellQuote(name)
}

// artifactRoot is the directory relative artifact paths of a handoff are
// stored relative to: the room's path, or for a named room, which has none,
// the workspace root of the current directory, so that members in other
// clones of the repository read the same paths ("" when the current
// directory is in no workspace stick would make a room in: the paths stay
// absolute).
func artifactRoot(r stick.RoomSummary) string {
	if r.RoomName == "" {
		return r.CanonicalPath
	}
	res, err := stick.ResolvePath(pathArg(nil))
	if err != nil || res.Refused != "" {
		return ""
	}
	return res.Root
}
