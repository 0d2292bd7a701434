package demo

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/stickhq/stick/stick"
)

// The files the agents share in the workspace.
const (
	// notesFile is the agents' work: each turn appends one line.
	notesFile = "notes.txt"
	// markerFile is the critical-section file: a holder creates it with
	// O_EXCL before it works and removes it after, so two holders at once
	// would collide on it, whatever the database says.
	markerFile = "holder.lock"
)

// workspace is the directory the agents share, a git top level so that
// their room is created there.
type workspace string

func (w workspace) path(name string) string { return filepath.Join(string(w), name) }

// marker is what the critical-section file says while agent works on turn.
func marker(agent string, turn int64) string { return fmt.Sprintf("%s turn %d", agent, turn) }

// enter creates the critical-section file; it fails when it exists.
func (w workspace) enter(agent string, turn int64) error {
	f, err := os.OpenFile(w.path(markerFile), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrExist) {
		b, _ := os.ReadFile(w.path(markerFile))
		return fmt.Errorf("turn %d: %s exists, %q is in its critical section too", turn, markerFile, strings.TrimSpace(string(b)))
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, marker(agent, turn))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// exit removes the critical-section file after checking it is still ours.
func (w workspace) exit(agent string, turn int64) error {
	b, err := os.ReadFile(w.path(markerFile))
	if err != nil {
		return fmt.Errorf("turn %d: %s vanished during the turn: %w", turn, markerFile, err)
	}
	if got := strings.TrimSpace(string(b)); got != marker(agent, turn) {
		return fmt.Errorf("turn %d: %s says %q, not %q", turn, markerFile, got, marker(agent, turn))
	}
	return os.Remove(w.path(markerFile))
}

// clearStale removes the critical-section file the revoked holder dead
// left during turn and returns what it said ("" when there was none). A
// file of anyone else is an error: it would mean two holders.
func (w workspace) clearStale(dead string, turn int64) (string, error) {
	b, err := os.ReadFile(w.path(markerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	got := strings.TrimSpace(string(b))
	if got != marker(dead, turn) {
		return "", fmt.Errorf("after the takeover of turn %d, %s says %q, not %q", turn+1, markerFile, got, marker(dead, turn))
	}
	return got, os.Remove(w.path(markerFile))
}

// readLines returns the lines of notes.txt (none when it does not exist yet).
func (w workspace) readLines() ([]string, error) {
	f, err := os.Open(w.path(notesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}

// lines counts the lines of notes.txt.
func (w workspace) lines() (int, error) {
	l, err := w.readLines()
	return len(l), err
}

// appendLine appends one line to notes.txt.
func (w workspace) appendLine(text string) error {
	f, err := os.OpenFile(w.path(notesFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// check reads back the lines a handoff from author points at and says what
// they hold, or what is wrong with them.
func (w workspace) check(h stick.Handoff, author string) (checked, problem string) {
	if len(h.Artifacts) == 0 {
		return "", "the handoff names no artifact"
	}
	lines, err := w.readLines()
	if err != nil {
		return "", err.Error()
	}
	var read []string
	for _, a := range h.Artifacts {
		if a.Path != notesFile || len(a.Lines) != 2 {
			return "", fmt.Sprintf("unexpected artifact %s %v", a.Path, a.Lines)
		}
		for n := a.Lines[0]; n <= a.Lines[1]; n++ {
			if n < 1 || n > len(lines) {
				return "", fmt.Sprintf("%s has %d lines, the handoff points at line %d", notesFile, len(lines), n)
			}
			if want := fmt.Sprintf("%d. %s ", n, author); !strings.HasPrefix(lines[n-1], want) {
				return "", fmt.Sprintf("%s:%d is %q, not a line of %s", notesFile, n, lines[n-1], author)
			}
			read = append(read, lines[n-1])
		}
	}
	return strings.Join(read, "\n"), ""
}
