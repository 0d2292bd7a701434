// Command stick is the talking-stick coordinator for coding agents and people
// sharing a workspace. It only wires: the commands are in package cli.
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, buildVersion())
	stop()
	os.Exit(code)
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
