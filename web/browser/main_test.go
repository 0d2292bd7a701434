package browser_test

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/stickhq/stick/cli"
	"github.com/stickhq/stick/internal/testproc"
)

// The hubs of these tests are real 'stick serve' processes (the test
// binary run again as the stick command, as cmd/stick runs it), and the
// members that take turns while a page watches are processes of their
// own ("turns"). One Chromium serves every test of the binary: each test
// opens its own tabs in a browser context of its own (cookies apart).
func TestMain(m *testing.M) {
	testproc.Register("stick", func(args []string) int {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return cli.Execute(ctx, cli.LocalWiring(), args, os.Stdin, os.Stdout, os.Stderr, "test")
	})
	testproc.Register("turns", takeTurns)
	testproc.Main(m, stopBrowser)
}
