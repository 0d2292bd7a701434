package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// stdinIsTerminal reports whether r, a command's standard input, is a
// terminal a person can answer a question on; tests replace it.
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// errNotConfirmed ends a command a person declined at the prompt: nothing
// changed, exit 1.
var errNotConfirmed = &failure{code: 1, msg: "not confirmed; nothing changed"}

// confirm asks question on the terminal and returns nil when the answer is
// yes. Without a terminal to ask on it is a usage error that names --yes:
// a script must say what it means.
func confirm(cmd *cobra.Command, question string) error {
	if !stdinIsTerminal(cmd.InOrStdin()) {
		return &failure{code: exitUsage, msg: fmt.Sprintf("'%s' asks before it acts, and there is no terminal to ask on", cmd.CommandPath()),
			hint: "pass --yes to go ahead without asking"}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s [y/N] ", question)
	line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(cmd.ErrOrStderr())
		return errNotConfirmed
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return errNotConfirmed
}
