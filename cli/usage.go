package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/stick"
)

// requireSubcommand makes each command that only groups others (completion,
// prompt) a usage error when run without one of them or with an unknown
// one, instead of printing its help and exiting 0: 'stick completion tcsh'
// must not look like success to a script.
func requireSubcommand(root *cobra.Command) {
	root.InitDefaultHelpCmd() // first, as cobra does, so help stays before completion
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if !c.HasAvailableSubCommands() || c.Runnable() {
			continue
		}
		c.Args = cobra.NoArgs
		c.RunE = func(cmd *cobra.Command, _ []string) error {
			var names []string
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && sub.Name() != "help" {
					names = append(names, sub.Name())
				}
			}
			return fmt.Errorf("'%s' needs one of: %s", cmd.CommandPath(), strings.Join(names, ", "))
		}
	}
}

// needs is the argument check of a command that needs at least min
// arguments and takes at most max (max < 0: any number). Too few is a usage
// error that names what is missing: "'stick note' needs TEXT: ...".
func needs(min, max int, missing string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min {
			return fmt.Errorf("'%s' needs %s", cmd.CommandPath(), missing)
		}
		if max >= 0 && len(args) > max {
			return cobra.RangeArgs(min, max)(cmd, args)
		}
		return nil
	}
}

// agentArg is " --agent ID" when the command ran with --agent, else "": the
// next steps a command prints carry it, so that running one acts as the
// same member.
func agentArg(cmd *cobra.Command) string {
	f := cmd.Flags().Lookup("agent")
	if f == nil || !f.Changed || f.Value.String() == "" {
		return ""
	}
	return " --agent " + shellQuote(f.Value.String())
}

// notJoined explains an unknown_member error of the caller itself in a
// command that writes to the room r without joining it (note, doc append,
// sync, policy): why it does not join by itself, and how to join (by the
// name, for a named room). Other errors pass through.
func notJoined(s *session, r stick.RoomSummary, err error) error {
	var se *stick.Error
	if !errors.As(err, &se) || se.Code != stick.CodeUnknownMember || se.Details["agent_id"] != s.caller.AgentID {
		return err
	}
	e := *se
	join := "stick join" + s.agentArg
	if r.RoomName != "" {
		join += " --name " + shellQuote(r.RoomName)
	}
	e.Hint = fmt.Sprintf("run '%s' first. Only wait, try and hold join by themselves, since they ask for the stick: "+
		"a member takes part in the turn order, and a release may reserve the stick for it", join)
	return &e
}
