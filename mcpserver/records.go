package mcpserver

import (
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/workspace"
)

// recorded returns the reclaim tokens this host recorded for the
// connection's harness in the workspace of path, the most recent first,
// for a join to pass as stick.JoinRequest.ReclaimIfGone: package stick
// takes one only when its member's process is proven gone.
func (s *Server) recorded(c *conn, path string) []string {
	if s.records == nil {
		return nil
	}
	res, err := workspace.Resolve(path)
	if err != nil {
		return nil
	}
	recs, err := s.records.Find(c.slug, res.Root)
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
func (s *Server) record(c *conn, res stick.JoinResult) {
	if s.records == nil {
		return
	}
	token := c.token(res.RoomID, res.AgentID)
	if token == "" {
		return
	}
	_ = s.records.Put(identity.Record{Harness: c.slug, WorkspaceRoot: res.WorkspaceRoot, RoomID: res.RoomID, AgentID: res.AgentID, ReclaimToken: token})
}

// forget removes the records of a member that left its room.
func (s *Server) forget(roomID, agentID string) {
	if s.records != nil {
		_ = s.records.Remove(roomID, agentID)
	}
}
