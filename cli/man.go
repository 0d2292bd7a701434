package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func newMan(version string) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the manual pages of every command into DIR (stick.1, stick-wait.1, ...)",
		Long: `Write one manual page (section 1, roff) per command into DIR, generated from
the same help text as --help: stick.1, stick-wait.1, stick-doc-edit.1 and so
on. DIR is created if needed. Write them into a man1 directory on MANPATH
(such as /usr/local/share/man/man1) for 'man stick-wait' to find them.
SOURCE_DATE_EPOCH, when set, dates the pages.`,
		Example: "  stick man ./man/man1 && man -M ./man stick-wait\n  sudo stick man /usr/local/share/man/man1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &failure{code: 1, msg: fmt.Sprintf("cannot create %s: %v", dir, err), hint: "pass a directory you can write"}
			}
			header := &doc.GenManHeader{Title: "STICK", Section: "1", Source: "stick " + version, Manual: "stick manual"}
			if err := doc.GenManTree(cmd.Root(), header, dir); err != nil {
				return &failure{code: 1, msg: fmt.Sprintf("cannot write the manual pages into %s: %v", dir, err), hint: "pass a directory you can write"}
			}
			pages, _ := filepath.Glob(filepath.Join(dir, "stick*.1"))
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d manual pages into %s; read one with: %s\n", len(pages), dir, manCommand(dir))
			return nil
		},
	}
}

// manCommand is how to read the pages written into dir: 'man -M' with the
// parent of a man1 section directory, else man with the page's path.
func manCommand(dir string) string {
	if filepath.Base(dir) == "man1" {
		return "man -M " + filepath.Dir(dir) + " stick"
	}
	return "man " + filepath.Join(dir, "stick.1")
}
