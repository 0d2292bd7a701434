package cli

import (
	"context"
	"os"

	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// guardianExe is the program started as a guardian: this binary (tests
// point it at the built one).
var guardianExe = os.Executable

// startGuardian starts a guardian for the invocation's identity, bound to
// the invocation's anchor, and waits for its report (package holder).
func startGuardian(ctx context.Context, a holder.Request) (holder.Report, error) {
	byHarness := harnessMarker(getenv) != ""
	anc, err := invocationAnchor(byHarness)
	if err != nil {
		return holder.Report{}, err
	}
	a.AnchorPID, a.AnchorStart, a.Harness = anc.PID, anc.StartedAt.UnixMilli(), byHarness
	exe, err := guardianExe()
	if err != nil {
		return holder.Report{}, stick.Errorf(stick.CodeInternal, "cannot find the stick binary: %v", err)
	}
	return holder.Start(ctx, holder.Spawn{Command: append([]string{exe}, guardianArgs(a)...),
		Env: []string{ReclaimTokenEnv + "=" + a.Token}, Anchor: anc})
}

// invocationAnchor is the anchor of this invocation, or an error that
// says a holder needs one.
func invocationAnchor(byHarness bool) (procid.Ancestor, error) {
	anc, err := anchor(byHarness)
	if err != nil {
		return procid.Ancestor{}, stick.Errorf(stick.CodeInternal, "cannot find the shell or harness this command runs in: %v", err).
			WithHint("run it from a shell or a harness; a holder needs a live parent to belong to (not one detached with setsid or a double fork)")
	}
	return anc, nil
}

// harnessMarker returns the slug of the harness whose marker is set, or "".
func harnessMarker(getenv func(string) string) string {
	for _, m := range harnessMarkers {
		if getenv(m.env) != "" {
			return m.slug
		}
	}
	return ""
}
