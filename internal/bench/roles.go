package bench

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/stickhq/stick/cli"
	"github.com/stickhq/stick/internal/reexec"
)

func init() {
	reexec.Register("stick", runStick)
}

// runStick is the stick command line, for the MCP scenarios when no
// stick binary is given: the same code as cmd/stick.
func runStick(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer startProfiles("stick")()
	return cli.Execute(ctx, cli.LocalWiring(), args, os.Stdin, os.Stdout, os.Stderr, "(stickbench)")
}
