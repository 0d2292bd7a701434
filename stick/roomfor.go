package stick

import (
	"context"

	"github.com/stickhq/stick/workspace"
)

// RoomFor returns the room a path belongs to, as a command that acts on
// "the room of this directory" finds it: the deepest open room on the
// path's chain of directories up to its workspace root (the room a join of
// the path without ForceNew lands in). With closedToo, a path whose rooms
// on the chain are all closed yields the one of them that changed last, so
// its log and document stay readable. Named rooms are never a path's. The
// Service's Workspaces resolves path, and the chain is compared one whole
// directory at a time (workspace.Ancestors), so /repo2 is not inside /repo
// and Windows paths work as well as POSIX ones.
//
// It only reads: it creates no room. A frontend that suggests how to make
// one replaces the hint of room_not_found with its own words.
//
// Errors: invalid_argument (context_path), room_not_found (no room on the
// chain; details: path, the canonical path), room_closed (every room on
// the chain is closed and closedToo is false; details: room_id, path).
func (s *Service) RoomFor(ctx context.Context, path string, closedToo bool) (RoomSummary, error) {
	if err := s.allow(ActionRoomFor); err != nil {
		return RoomSummary{}, err
	}
	res, err := s.resolve(path)
	if err != nil {
		return RoomSummary{}, err
	}
	chain := workspace.Ancestors(res.Path, res.Root)
	var out RoomSummary
	err = s.store.View(ctx, func(tx Tx) error {
		rooms, err := tx.RoomsAt(chain, true)
		if err != nil {
			return err
		}
		pick, err := roomOnChain(chain, s.reachable(rooms), closedToo)
		if err != nil {
			return err
		}
		sums, err := s.summaries(tx, []Room{pick})
		if err == nil {
			out = sums[0]
		}
		return err
	})
	return out, err
}

// roomOnChain picks the room of the deepest directory of chain (deepest
// first) that has an open room; without one, the closed room that changed
// last when closedToo, else room_closed, or room_not_found when chain has
// no room at all.
func roomOnChain(chain []string, rooms []Room, closedToo bool) (Room, error) {
	var closed *Room
	for _, p := range chain {
		for i := range rooms {
			r := &rooms[i]
			switch {
			case r.Name != "" || r.Path != p:
			case r.State != StateClosed:
				return *r, nil
			case closed == nil || r.UpdatedAt.After(closed.UpdatedAt):
				closed = r
			}
		}
	}
	switch {
	case closed != nil && closedToo:
		return *closed, nil
	case closed != nil:
		return Room{}, Errorf(CodeRoomClosed, "the room at %s is closed", closed.Path).
			With("room_id", closed.ID).With("path", chain[0]).
			WithHint("get_room_events, get_room_state and read_room_doc still read it; join_path starts a new room here")
	}
	return Room{}, Errorf(CodeRoomNotFound, "no room for %s", chain[0]).With("path", chain[0]).
		WithHint("join_path with this path creates or joins the room of its workspace")
}
