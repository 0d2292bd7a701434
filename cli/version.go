package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionInfo is what 'stick version --json' prints: the release and the
// exact source it was built from, so a bug report can name both.
type versionInfo struct {
	// Version is the release (a module version such as v1.2.3), or
	// "(devel)" for a build from a source tree.
	Version string `json:"version"`
	// Module is the main module's path.
	Module string `json:"module,omitempty"`
	// Commit is the version-control revision the binary was built from;
	// empty when the build did not record it (go build -buildvcs=false, or
	// no git checkout).
	Commit string `json:"commit,omitempty"`
	// CommitTime is when that revision was committed (RFC 3339).
	CommitTime string `json:"commit_time,omitempty"`
	// Modified is true when the working tree had uncommitted changes; absent
	// when no revision was recorded.
	Modified *bool `json:"modified,omitempty"`
	// GoVersion is the Go toolchain that built the binary.
	GoVersion string `json:"go_version"`
	// Platform is the operating system and architecture, "linux/amd64".
	Platform string `json:"platform"`
}

// buildInfo reads the running binary's build information (replaced in tests).
var buildInfo = debug.ReadBuildInfo

// readVersion describes this binary: version, module, the recorded
// revision, the Go version and the platform.
func readVersion(version string) versionInfo {
	v := versionInfo{Version: version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := buildInfo()
	if !ok {
		return v
	}
	v.Module = bi.Main.Path
	if bi.GoVersion != "" {
		v.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			modified := s.Value == "true"
			v.Modified = &modified
		}
	}
	return v
}

func newVersion(version string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version (--json: also the commit and Go version it was built from)",
		Long: `Print the version of stick. With --json, also the module, the commit the
binary was built from (when the build recorded it: a 'go build' or 'go install'
in a git checkout does), whether the tree had uncommitted changes, the Go
version and the platform.`,
		Example: "  stick version\n  stick --version\n  stick version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				return newPrinter(cmd.OutOrStdout(), true).JSON(readVersion(version))
			}
			fmt.Fprintln(cmd.OutOrStdout(), "stick", version)
			return nil
		},
	}
	addJSON(cmd, &asJSON)
	return cmd
}
