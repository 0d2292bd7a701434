package mcpserver

import (
	"context"
	"errors"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/workspace"
)

// recorded returns the reclaim tokens this host recorded for the
// connection's harness in the workspace of path, or in the room named name,
// the most recent first, for a join to pass as
// stick.JoinRequest.ReclaimIfGone: package stick takes one only when its
// member's process is proven gone.
func (s *Server) recorded(c *conn, path, name string) []string {
	if s.records == nil {
		return nil
	}
	place := namedPlace(name)
	if name == "" {
		res, err := workspace.Resolve(path)
		if err != nil {
			return nil
		}
		place = res.Root
	}
	recs, err := s.records.Find(c.id.Harness, place)
	if err != nil {
		return nil
	}
	tokens := make([]string, 0, len(recs))
	for _, r := range recs {
		tokens = append(tokens, r.ReclaimToken)
	}
	return tokens
}

// record keeps the member a successful join made the connection, with its
// reclaim token, under the connection's harness and the join's workspace.
// It is best effort: a join does not fail because the record could not be
// written, as the reclaim token still covers a restart.
func (s *Server) record(ctx context.Context, c *conn, res stick.JoinResult) {
	if s.records == nil {
		return
	}
	token := c.token(res.RoomID, res.AgentID)
	if token == "" {
		return
	}
	_ = s.records.Put(identity.Record{Harness: c.id.Harness, WorkspaceRoot: joinedPlace(res), RoomID: res.RoomID, AgentID: res.AgentID, ReclaimToken: token})
	s.prune(ctx, c.id.Harness, res)
}

// prune removes the records of c's harness in the join's workspace whose
// member is no longer one: gone from the room joined (it left another way),
// or in a room that is closed or no longer exists. Records stay few, and
// no join passes tokens that cannot work.
func (s *Server) prune(ctx context.Context, slug string, res stick.JoinResult) {
	recs, err := s.records.Find(slug, joinedPlace(res))
	if err != nil {
		return
	}
	members := map[string]bool{}
	for _, m := range res.Room.Members {
		members[m.AgentID] = true
	}
	for _, r := range recs {
		gone := r.RoomID == res.RoomID && !members[r.AgentID]
		if r.RoomID != res.RoomID {
			st, err := s.cfg.Service.RoomState(ctx, r.RoomID)
			gone = errors.Is(err, &stick.Error{Code: stick.CodeRoomNotFound}) || err == nil && st.State == stick.StateClosed
		}
		if gone {
			_ = s.records.Remove(r.RoomID, r.AgentID)
		}
	}
}

// namedPlace is where the records of the room named name are kept, in
// place of a workspace root: a string no canonical path can be.
func namedPlace(name string) string { return "name:" + name }

// joinedPlace is where the records of the room a join joined are kept: its
// workspace root, or for a named room its namedPlace.
func joinedPlace(res stick.JoinResult) string {
	if res.RoomName != "" {
		return namedPlace(res.RoomName)
	}
	return res.WorkspaceRoot
}

// forget removes the records of a member that left its room.
func (s *Server) forget(roomID, agentID string) {
	if s.records != nil {
		_ = s.records.Remove(roomID, agentID)
	}
}
