// Command stick is the talking-stick coordinator for coding agents and people
// sharing a workspace. It only wires: it chooses the store (the SQLite
// database of this host's data directory, cli.LocalWiring, which the global
// --database flag or $STICK_DATABASE_URL turns to a PostgreSQL database)
// and hands it to the commands, which are in package cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/stickhq/stick/cli"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); otherwise
// it comes from the module build info.
var version = ""

func main() {
	ctx, stop := signalContext()
	code := cli.Execute(ctx, cli.LocalWiring(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, buildVersion())
	stop()
	os.Exit(code)
}

// signalContext returns a context that the first Ctrl-C or SIGTERM ends
// with cli.Interrupted as its cause; later ones are ignored
// until stop.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			cancel(cli.Interrupted{Signal: s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(sigs); cancel(nil) }
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
