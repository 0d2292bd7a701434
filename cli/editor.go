package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/stickhq/stick/internal/shellwords"
)

// defaultEditor says where the editor came from when no variable names one.
const defaultEditor = "the default, as neither $VISUAL nor $EDITOR is set"

// editorCommand returns the editor to run and where it came from ("from
// $VISUAL", "from $EDITOR" or defaultEditor): $VISUAL, else $EDITOR, else vi
// (notepad on Windows). The variable is split into words as a shell would
// split it (quotes and backslashes, no expansions), so EDITOR="code --wait"
// runs code with the argument --wait.
func editorCommand() (words []string, from string, err error) {
	for _, env := range []string{"VISUAL", "EDITOR"} {
		v := getenv(env)
		if strings.TrimSpace(v) == "" {
			continue
		}
		words, err := shellwords.Split(v)
		if err != nil {
			return nil, "", &failure{code: 1, msg: fmt.Sprintf("$%s (%s) %v", env, v, err),
				hint: fmt.Sprintf("set $%s to an editor command, for example %s=\"code --wait\" or %s=nano", env, env, env)}
		}
		return words, "from $" + env, nil
	}
	if runtime.GOOS == "windows" {
		return []string{"notepad"}, defaultEditor, nil
	}
	return []string{"vi"}, defaultEditor, nil
}

// runEditor runs the editor words (from says where they came from, as
// editorCommand does) on file with the given standard streams; again is the
// command that starts the edit over, for the hint of a failure. It is not
// tied to the command's context: an interrupt typed in the editor is the
// editor's to handle, and its exit status decides.
func runEditor(words []string, from, file, again string, stdin io.Reader, stdout, stderr io.Writer) error {
	c := exec.Command(words[0], append(words[1:], file)...)
	c.Stdin, c.Stdout, c.Stderr = stdin, stdout, stderr
	err := c.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit):
		return &failure{code: 1, msg: fmt.Sprintf("the editor %q (%s) ended with %v", strings.Join(words, " "), from, exit.ProcessState),
			hint: fmt.Sprintf("an edit is saved only when the editor exits successfully (in vi, :wq); run '%s' again", again)}
	}
	return &failure{code: 1, msg: fmt.Sprintf("cannot run the editor %q (%s): %v", strings.Join(words, " "), from, err),
		hint: "set $VISUAL or $EDITOR to an editor command on your PATH, for example EDITOR=nano or EDITOR=\"code --wait\""}
}

// editorFile writes content to a new private temporary file for the
// editor; its name says which room and version it holds.
func editorFile(roomID string, version int64, content string) (string, error) {
	f, err := os.CreateTemp("", fmt.Sprintf("stick-doc-%s-v%d-*.md", roomID, version))
	if err != nil {
		return "", &failure{code: 1, msg: fmt.Sprintf("cannot create a temporary file for the editor: %v", err),
			hint: "make $TMPDIR (or " + os.TempDir() + ") a writable directory"}
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", &failure{code: 1, msg: fmt.Sprintf("cannot write the temporary file %s for the editor: %v", f.Name(), err),
			hint: "free some space where $TMPDIR (or " + os.TempDir() + ") is, or point $TMPDIR elsewhere"}
	}
	return f.Name(), nil
}
