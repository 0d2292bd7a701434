package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stickhq/stick/internal/atomicfile"
	"github.com/stickhq/stick/internal/shellwords"
)

// GuardPart is the Part of a Result about the stop guard.
const GuardPart = "stop guard"

// The stop guard is a Stop hook stick merges into Claude Code's user
// settings (~/.claude/settings.json, or $CLAUDE_CONFIG_DIR/settings.json):
//
//	"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "<stick> hook stop"}]}]}
//
// keeping every other key, hook and byte of the file. stick's entry is the
// group whose only hook runs "<a stick binary> hook stop"; uninstall removes
// exactly those groups, and the "Stop" array and "hooks" object when they
// are left empty. A settings file left with nothing in it ("{}", as install
// creates one) is removed: Claude Code reads no file as it reads that.
const guardNewFile = "{\n}\n"

// HasGuard reports whether the harness takes a stop guard: Claude Code.
func (h *Harness) HasGuard() bool { return h.Name == "claude-code" }

// guardCommand is the hook's command line, as the shell Claude Code runs it
// through reads it.
func guardCommand(opts Options) string {
	argv := []string{opts.Command, "hook", "stop"}
	if opts.Database != "" {
		argv = append(argv, "--database="+opts.Database)
	}
	return ShellJoin(argv)
}

// claudeSettings is the path of Claude Code's user settings.
func claudeSettings() (string, error) {
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", fmt.Errorf("CLAUDE_CONFIG_DIR %q is not an absolute path: set it to one, or unset it", dir)
		}
		return filepath.Join(dir, "settings.json"), nil
	}
	return homeDir(".claude", "settings.json")()
}

// InstallGuard merges the stop guard into Claude Code's settings. The same
// entry again changes nothing; an entry of stick with another command is
// replaced.
func (h *Harness) InstallGuard(opts Options) Result {
	want := guardCommand(opts)
	res := Result{Harness: h.Name, Part: GuardPart, Detail: want}
	path, err := claudeSettings()
	if err != nil {
		return failed(res, err)
	}
	res.Path = path
	src, err := os.ReadFile(path)
	isNew := errors.Is(err, fs.ErrNotExist)
	if isNew {
		src = []byte(guardNewFile)
	} else if err != nil {
		return failed(res, err)
	}
	ours, err := guardEntries(src)
	if err != nil {
		return failed(res, &configError{path: path, err: err})
	}
	if len(ours) == 1 && ours[0].command == want {
		res.Status = StatusAlreadyInstalled
		return res
	}
	out := src
	res.Status = StatusInstalled
	if len(ours) > 0 {
		res.Status, res.Previous = StatusReplaced, ours[0].command
		if out, err = removeGuard(out); err != nil {
			return failed(res, &configError{path: path, doing: "cannot change the stop guard in", err: err})
		}
	}
	if out, err = addGuard(out, want); err != nil {
		return failed(res, &configError{path: path, doing: "cannot add the stop guard to", err: err})
	}
	if opts.DryRun {
		res.Status = dryRunOf(res.Status)
		return res
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return failed(res, err)
	}
	if err := atomicfile.WriteFile(path, out, mode); err != nil {
		return failed(res, err)
	}
	return res
}

// UninstallGuard removes stick's stop guard from Claude Code's settings.
func (h *Harness) UninstallGuard(opts Options) Result {
	res := Result{Harness: h.Name, Part: GuardPart, Status: StatusNotInstalled}
	path, err := claudeSettings()
	if err != nil {
		return failed(res, err)
	}
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return res
	} else if err != nil {
		return failed(res, err)
	}
	ours, err := guardEntries(src)
	if err != nil {
		return failed(res, &configError{path: path, err: err})
	}
	if len(ours) == 0 {
		return res
	}
	out, err := removeGuard(src)
	if err != nil {
		return failed(res, &configError{path: path, doing: "cannot remove the stop guard from", err: err})
	}
	res.Status, res.Path, res.Previous = StatusUninstalled, path, ours[0].command
	if opts.DryRun {
		res.Status = StatusWouldUninstall
		return res
	}
	if isEmptyObject(out) {
		if err := os.Remove(path); err != nil {
			return failed(res, err)
		}
		return res
	}
	if err := atomicfile.WriteFile(path, out, 0o644); err != nil {
		return failed(res, err)
	}
	return res
}

// guardEntry is one group of the Stop array that is stick's: its place in
// the array, its offsets in the document, and its command.
type guardEntry struct {
	start, end int
	command    string
}

// stopGroup is the part of a Stop hook group stick looks at.
type stopGroup struct {
	Matcher *string `json:"matcher"`
	Hooks   []struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	} `json:"hooks"`
}

// isGuard reports whether a Stop group is stick's: one command hook that
// runs "<stick> hook stop", with no matcher or an empty one.
func isGuard(raw []byte) (string, bool) {
	var g stopGroup
	if json.Unmarshal(raw, &g) != nil || len(g.Hooks) != 1 || g.Hooks[0].Type != "command" || (g.Matcher != nil && *g.Matcher != "") {
		return "", false
	}
	argv, err := shellwords.Split(g.Hooks[0].Command)
	if err != nil || len(argv) < 3 || filepath.Base(argv[0]) != "stick" || argv[1] != "hook" || argv[2] != "stop" {
		return "", false
	}
	return g.Hooks[0].Command, true
}

// stopArray finds the "hooks"."Stop" array of a settings document: its
// elements' offsets, and whether it exists. A "hooks" that is not an
// object, or a "Stop" that is not an array, is an error.
func stopArray(src []byte) (d *doc, elems [][2]int, found bool, err error) {
	if d, err = parseDoc(src); err != nil {
		return nil, nil, false, err
	}
	if raw, ok, err := getJSON(src, "hooks"); err != nil {
		return nil, nil, false, err
	} else if ok && (len(raw) == 0 || raw[0] != '{') {
		return nil, nil, false, errors.New(`"hooks" is not an object`)
	}
	o, depth, err := d.walk([]string{"hooks", "Stop"})
	if err != nil || depth < 1 {
		return d, nil, false, err
	}
	i := o.find("Stop")
	if i < 0 {
		return d, nil, false, nil
	}
	m := o.members[i]
	if d.clean[m.valStart] != '[' {
		return nil, nil, false, errors.New(`"hooks"."Stop" is not an array`)
	}
	dec := json.NewDecoder(bytes.NewReader(d.clean[m.valStart:m.valEnd]))
	if _, err := dec.Token(); err != nil {
		return nil, nil, false, err
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, false, err
		}
		end := m.valStart + int(dec.InputOffset())
		elems = append(elems, [2]int{end - len(raw), end})
	}
	return d, elems, true, nil
}

// guardEntries returns stick's groups in the Stop array of src.
func guardEntries(src []byte) ([]guardEntry, error) {
	d, elems, _, err := stopArray(src)
	if err != nil {
		return nil, err
	}
	var out []guardEntry
	for _, e := range elems {
		if cmd, ok := isGuard(d.clean[e[0]:e[1]]); ok {
			out = append(out, guardEntry{start: e[0], end: e[1], command: cmd})
		}
	}
	return out, nil
}

// guardGroup is the group install writes.
func guardGroup(command string) fields {
	return fields{{"matcher", ""}, {"hooks", []fields{{{"type", "command"}, {"command", command}}}}}
}

// addGuard appends stick's group to the Stop array, creating it (and
// "hooks") when missing.
func addGuard(src []byte, command string) ([]byte, error) {
	d, elems, found, err := stopArray(src)
	if err != nil {
		return nil, err
	}
	if !found || len(elems) == 0 {
		return setJSON(src, []fields{guardGroup(command)}, "hooks", "Stop")
	}
	last := elems[len(elems)-1]
	indent := lineIndent(d.src, last[0])
	l := layout{multiline: true, unit: d.indentUnit(), nl: "\n"}
	if bytes.Contains(d.src, []byte("\r\n")) {
		l.nl = "\r\n"
	}
	sep := ", "
	if !onlySpaceBefore(d.src, last[0]) {
		indent = ""
	} else {
		sep = "," + l.nl + indent
	}
	return splice(d.src, last[1], last[1], sep+format(guardGroup(command), indent, l)), nil
}

// removeGuard removes every group of stick's from the Stop array, then the
// array and the "hooks" object when they are left empty.
func removeGuard(src []byte) ([]byte, error) {
	for {
		d, elems, _, err := stopArray(src)
		if err != nil {
			return nil, err
		}
		at := -1
		for i, e := range elems {
			if _, ok := isGuard(d.clean[e[0]:e[1]]); ok {
				at = i
			}
		}
		if at < 0 {
			break
		}
		if len(elems) == 1 {
			if src, _, err = deleteJSON(src, "hooks", "Stop"); err != nil {
				return nil, err
			}
			break
		}
		if at > 0 {
			src = splice(src, elems[at-1][1], elems[at][1], "")
		} else {
			src = splice(src, elems[0][0], elems[1][0], "")
		}
	}
	return deleteEmpty(src, "hooks")
}
