package cli

import (
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

func newGuardian() *cobra.Command {
	var a holder.Request
	mode := string(holder.ModeWait)
	cmd := &cobra.Command{
		Use:    "guardian",
		Short:  "Hold the stick for a terminal command (started by wait, try and takeover)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.AnchorPID == 0 {
				return stick.Errorf(stick.CodeInvalidArgument, "the guardian is started by 'stick wait', 'try' and 'takeover'")
			}
			// The report goes to the starter through stdout; a starter gone
			// before reading must not kill the guardian with SIGPIPE.
			signal.Ignore(syscall.SIGPIPE)
			a.Mode = holder.Mode(mode)
			if a.Chosen {
				a.Token = getenv(identity.ReclaimTokenEnv)
			}
			return holder.Run(cmd.Context(), a, openService, cmd.InOrStdin(), os.Stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&mode, "mode", mode, "wait, try or takeover")
	f.StringVar(&a.Path, "path", "", "the path whose room to join")
	f.StringVar(&a.Name, "name", "", "the name of the room to join, instead of a path")
	f.StringVar(&a.Agent, "as", "", "the agent id to hold for")
	f.DurationVar(&a.Timeout, "timeout", 0, "how long to wait (0: until the turn comes)")
	f.StringVar(&a.Reason, "reason", "", "the takeover reason")
	f.Int64Var(&a.Turn, "turn", 0, "the turn to take over")
	f.IntVar(&a.AnchorPID, "anchor-pid", 0, "the process the guardian must not outlive")
	f.Int64Var(&a.AnchorStart, "anchor-start", 0, "that process's start time (ms)")
	f.BoolVar(&a.Harness, "harness", false, "the anchor is an agent's harness")
	f.BoolVar(&a.Chosen, "chosen", false, "--agent or $"+identity.AgentEnv+" chose the agent id")
	return cmd
}

// guardianArgs is the command line of the guardian command for a: what
// newGuardian's flags read back. The reclaim token is not on it.
func guardianArgs(a holder.Request) []string {
	args := []string{"guardian", "--mode", string(a.Mode), "--path", a.Path, "--as", a.Agent,
		"--timeout", a.Timeout.String(), "--reason", a.Reason, "--turn", strconv.FormatInt(a.Turn, 10),
		"--anchor-pid", strconv.Itoa(a.AnchorPID), "--anchor-start", strconv.FormatInt(a.AnchorStart, 10)}
	if a.Name != "" {
		args = append(args, "--name", a.Name)
	}
	if a.Harness {
		args = append(args, "--harness")
	}
	if a.Chosen {
		args = append(args, "--chosen")
	}
	return args
}
