package cli

import (
	"context"
	"os"

	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

// guardianExe is the program started as a guardian: this binary (tests
// point it at the built one).
var guardianExe = os.Executable

// startGuardian starts a guardian for the invocation inv, bound to the
// invocation's anchor, and waits for its report (package holder).
func startGuardian(ctx context.Context, inv identity.Invocation, a holder.Request) (holder.Report, error) {
	anc, err := inv.Anchor()
	if err != nil {
		return holder.Report{}, err
	}
	a.AnchorPID, a.AnchorStart, a.Harness = anc.PID, anc.StartedAt.UnixMilli(), inv.Harness != ""
	exe, err := guardianExe()
	if err != nil {
		return holder.Report{}, stick.Errorf(stick.CodeInternal, "cannot find the stick binary: %v", err)
	}
	return holder.Start(ctx, holder.Spawn{Command: append([]string{exe}, guardianArgs(a)...),
		Env: []string{identity.ReclaimTokenEnv + "=" + a.Token}, Anchor: anc})
}
