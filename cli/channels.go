package cli

import (
	"context"
	"strings"

	"github.com/stickhq/stick/project"
	"github.com/stickhq/stick/stick"
)

// declared declares in the room res joined the channels of the project
// file at its workspace root, if there is one; a file that cannot be
// declared becomes res's warning (the join stands).
func declared(ctx context.Context, svc *stick.Service, c stick.Caller, res *stick.JoinResult) {
	c.AgentID = res.AgentID
	if err := project.Declare(ctx, svc, c, res.RoomID, res.WorkspaceRoot); err != nil {
		res.Warning = strings.TrimPrefix(res.Warning+"; ", "; ") + "the project's channels were not declared: " + err.Error()
	}
}
