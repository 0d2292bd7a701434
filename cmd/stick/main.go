// Command stick is the talking-stick coordinator for coding agents and people
// sharing a workspace. This build prints its version, its help and where its
// database lives; the protocol itself is package stick.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/stickhq/stick/store"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); otherwise
// it comes from the module build info.
var version = ""

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "help"
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "stick", buildVersion())
		return 0
	case "help", "--help", "-h":
		help(stdout)
		return 0
	case "where":
		dir, err := store.DataDir()
		if err != nil {
			fmt.Fprintln(stderr, "stick: cannot resolve the data directory:", err)
			fmt.Fprintf(stderr, "hint: set %s to a local directory\n", store.DataDirEnv)
			return 1
		}
		fmt.Fprintln(stdout, dir+string(os.PathSeparator)+store.DBFileName)
		return 0
	}
	fmt.Fprintf(stderr, "stick: unknown command %q\nhint: run 'stick help' for the commands this build has\n", cmd)
	return 2
}

func help(w io.Writer) {
	fmt.Fprintf(w, `stick %s: take turns in a shared workspace, one holder at a time, with a structured handoff.

Usage:
  stick version   print the version
  stick where     print the database path (set %s to move it)
  stick help      print this help

This build has no MCP server or room commands yet. The protocol itself is
the Go library github.com/stickhq/stick/stick (see the README).
`, buildVersion(), store.DataDirEnv)
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
