package harness

import (
	"strings"
)

// Status is the outcome of one install or uninstall for one harness.
type Status string

// The outcomes of an install or uninstall, of the MCP server or of the skill.
const (
	// StatusInstalled: the server or skill was added.
	StatusInstalled Status = "installed"
	// StatusAlreadyInstalled: it was there already, as it would have been written; nothing changed.
	StatusAlreadyInstalled Status = "already_installed"
	// StatusReplaced: another registration (command) or skill text was there and was replaced.
	StatusReplaced Status = "replaced"
	// StatusWouldInstall: a dry run found that it would be added.
	StatusWouldInstall Status = "would_install"
	// StatusWouldReplace: a dry run found that it would be replaced.
	StatusWouldReplace Status = "would_replace"
	// StatusUninstalled: the server or skill was removed.
	StatusUninstalled Status = "uninstalled"
	// StatusNotInstalled: there was nothing to remove.
	StatusNotInstalled Status = "not_installed"
	// StatusWouldUninstall: a dry run found that it would be removed.
	StatusWouldUninstall Status = "would_uninstall"
	// StatusSkipped: the harness is not installed on this machine; nothing was looked at or created.
	StatusSkipped Status = "skipped"
	// StatusUnsupported: the harness reads no skills.
	StatusUnsupported Status = "unsupported"
	// StatusFailed: a harness command or a file operation failed; Error says why.
	StatusFailed Status = "failed"
)

// dryRunOf turns a change into what a dry run reports for it.
func dryRunOf(s Status) Status {
	switch s {
	case StatusInstalled:
		return StatusWouldInstall
	case StatusReplaced:
		return StatusWouldReplace
	case StatusUninstalled:
		return StatusWouldUninstall
	}
	return s
}

// Result is what an install or uninstall did (or, in a dry run, would do)
// for one harness.
type Result struct {
	// Harness is the harness's name.
	Harness string `json:"harness"`
	// Part is what of stick the result is about, when not the MCP server
	// or the skill: GuardPart for Claude Code's stop guard.
	Part string `json:"part,omitempty"`
	// Status is the outcome.
	Status Status `json:"status"`
	// Detail says more: the command line registered, or why a harness was skipped.
	Detail string `json:"detail,omitempty"`
	// Previous is the command line that was registered before a replace.
	Previous string `json:"previous,omitempty"`
	// Commands are the harness commands run (or, in a dry run, that would
	// run), the binary's base name first.
	Commands [][]string `json:"commands,omitempty"`
	// Path is the file written or removed (or that would be).
	Path string `json:"path,omitempty"`
	// Error says what failed when Status is failed.
	Error string `json:"error,omitempty"`
	// Fix says what to do about a failure before running the command again.
	Fix string `json:"fix,omitempty"`
}

// Failed reports whether the operation failed.
func (r Result) Failed() bool { return r.Status == StatusFailed }

// Words is the status in words, for people: "already installed",
// "would install", "does not read skills", ...
func (r Result) Words() string {
	if r.Status == StatusUnsupported {
		return "does not read skills"
	}
	return strings.ReplaceAll(string(r.Status), "_", " ")
}

// Explain is what a person reads after the status: the commands run, the
// file written, the command line found, or why nothing happened.
func (r Result) Explain() string {
	switch {
	case r.Status == StatusFailed:
		return r.Error
	case len(r.Commands) > 0:
		lines := make([]string, len(r.Commands))
		for i, c := range r.Commands {
			lines[i] = ShellJoin(c)
		}
		return strings.Join(lines, "; ")
	case r.Path != "":
		return r.Path
	}
	return r.Detail
}

// ShellJoin quotes argv for a POSIX shell, so a printed command can be
// pasted and run.
func ShellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=@%+,", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
