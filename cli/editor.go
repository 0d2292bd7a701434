package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
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
		words, err := shellWords(v)
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

// shellWords splits s into words as a POSIX shell does, without expanding
// anything: blanks separate words; single quotes keep everything; double
// quotes keep everything but a backslash before $ ` " \ or a newline; a
// backslash outside quotes keeps the next character.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					w.WriteByte(s[i])
				}
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("has an unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			closed := false
			for i++; i < len(s); i++ {
				if s[i] == '"' {
					closed = true
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				w.WriteByte(s[i])
			}
			if !closed {
				return nil, errors.New("has an unterminated double quote")
			}
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, errors.New("names no command")
	}
	return words, nil
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
