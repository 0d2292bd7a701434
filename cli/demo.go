package cli

import (
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/cli/demo"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

func newDemo() *cobra.Command {
	var o demo.Options
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch three agent processes take turns, lose one to SIGKILL mid-turn, and recover",
		Long: `demo runs a self-contained demonstration on a temporary database and workspace:
three agent processes join one room and take turns, each appending a line to
notes.txt and handing over with a handoff that points at it. One of them is
killed with SIGKILL while it holds the stick; the others see owner_gone at once
(without waiting for its lease), one takes over and reads the log to recover
what the dead agent was doing, and the two finish the plan. The room is then
closed and the log checked.

It prints the room as it goes and a summary of checks at the end, removes the
temporary directory, and exits 0 only when everything happened as expected.
It never touches your own database.`,
		Example: "  stick demo\n  stick demo --keep     # keep the database and workspace to look at\n  stick demo --json | jq .checks",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out, o.Log = cmd.OutOrStdout(), cmd.ErrOrStderr()
			o.PrintRoom = func(w io.Writer, st stick.RoomStatus) { render.WriteState(w, newPrinter(w, false), st, time.Now()) }
			_, err := demo.Run(cmd.Context(), o)
			return err
		},
	}
	addJSON(cmd, &o.JSON)
	cmd.Flags().BoolVar(&o.Keep, "keep", false, "keep the temporary directory (database and workspace) and print its path")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", demo.DefaultTimeout, "give up when the demo has not finished after this long")
	cmd.AddCommand(&cobra.Command{
		Use:                "agent NAME [flags]",
		Short:              "Run one agent of the demo (started by 'stick demo')",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return demo.RunAgent(cmd.Context(), args, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	})
	return cmd
}
