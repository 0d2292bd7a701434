package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// How names the evidence a workspace root was chosen by.
type How string

// The ways a root is chosen, in the order Root tries them.
const (
	// HowGit: the root is the git top level above the path.
	HowGit How = "git"
	// HowMarker: the root is the nearest directory holding a marker file.
	HowMarker How = "marker"
	// HowPath: no git work tree and no marker file: the path itself.
	HowPath How = "path"
)

// Candidate is a directory that had the evidence of a root (a .git entry or
// a marker file) but was passed over, because no room may be made there.
type Candidate struct {
	Dir    string `json:"dir"`
	How    How    `json:"how"`
	Marker string `json:"marker,omitempty"`
	// Why says why Dir is no root, e.g. "it is your home directory".
	Why string `json:"why"`
}

// Choice is how the workspace root of a directory was chosen.
type Choice struct {
	// Root is the preferred workspace root.
	Root string `json:"root"`
	// How is the evidence Root was chosen by.
	How How `json:"how"`
	// Marker is the marker file found in Root when How is HowMarker.
	Marker string `json:"marker,omitempty"`
	// Passed lists the directories above the path that had a .git entry or
	// a marker file but can be no root, nearest first.
	Passed []Candidate `json:"passed,omitempty"`
	// Refused is set when no room may be created at Root by joining a path:
	// Root is the filesystem root, the home directory, or a top-level
	// directory (one whose parent is the filesystem root) that is neither a
	// git top level nor holds a marker file. It says why, e.g. "/etc is a
	// top-level system directory".
	Refused string `json:"refused,omitempty"`
}

// Explain says in a few lines how the root was chosen, for people: what was
// found where, what was passed over and why, and whether a room may be
// created at the root.
func (c Choice) Explain() string {
	var b strings.Builder
	switch c.How {
	case HowGit:
		fmt.Fprintf(&b, "git top level found at %s", c.Root)
	case HowMarker:
		fmt.Fprintf(&b, "no git work tree; marker %s found at %s", c.Marker, c.Root)
	default:
		fmt.Fprintf(&b, "no git work tree and no marker file (%s): the path itself, %s", strings.Join(markers[:], ", "), c.Root)
	}
	for _, p := range c.Passed {
		what := "a git top level"
		if p.How == HowMarker {
			what = "marker " + p.Marker
		}
		fmt.Fprintf(&b, "\npassed over %s at %s: %s", what, p.Dir, p.Why)
	}
	if c.Refused != "" {
		fmt.Fprintf(&b, "\nrefused: %s; joining here creates no room", c.Refused)
	}
	return b.String()
}

// choose picks the root of dir, a clean, absolute, existing directory: the
// nearest git top level, else the nearest directory holding a marker, else
// dir itself; directories that may hold no room (see unfit) are passed over.
func choose(dir string) Choice {
	home := homeDir()
	var c Choice
	for _, how := range []How{HowGit, HowMarker} {
		for cur := dir; ; {
			found, marker := false, ""
			if how == HowGit {
				found = hasGitEntry(cur)
			} else {
				marker, found = markerIn(cur)
			}
			if found {
				why := unfit(cur, home, true)
				if why == "" {
					c.Root, c.How, c.Marker = cur, how, marker
					return c
				}
				c.Passed = append(c.Passed, Candidate{Dir: cur, How: how, Marker: marker, Why: why})
			}
			parent := filepath.Dir(cur)
			if parent == cur {
				break
			}
			cur = parent
		}
	}
	c.Root, c.How = dir, HowPath
	if why := unfit(dir, home, false); why != "" {
		c.Refused = dir + " " + strings.TrimPrefix(why, "it ")
	}
	return c
}

// Refusal says why no room may be created at dir, a canonical directory, by
// joining a path ("/etc is a top-level system directory"), or returns ""
// when one may. The filesystem root and the home directory are always
// refused; a top-level directory only when it is not a project (no .git
// entry, no marker file), so containers that keep a project in /app or
// /workspace still work.
func Refusal(dir string) string {
	dir = filepath.Clean(dir)
	_, marked := markerIn(dir)
	if why := unfit(dir, homeDir(), hasGitEntry(dir) || marked); why != "" {
		return dir + " " + strings.TrimPrefix(why, "it ")
	}
	return ""
}

// unfit says why dir can be no workspace root ("it is your home
// directory"), or returns "". project says dir is a git top level or holds
// a marker file, which makes a top-level directory fit.
func unfit(dir, home string, project bool) string {
	parent := filepath.Dir(dir)
	switch {
	case parent == dir:
		return "it is the filesystem root"
	case home != "" && dir == home:
		return "it is your home directory"
	case !project && filepath.Dir(parent) == parent:
		return "it is a top-level system directory"
	}
	return ""
}

// homeDir returns the canonical home directory, or "" when there is none.
func homeDir() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	canon, err := Canonical(home)
	if err != nil {
		return ""
	}
	return canon
}

// markerIn returns the first of the Markers dir holds as something other
// than a directory.
func markerIn(dir string) (string, bool) {
	for _, name := range markers {
		info, err := os.Stat(filepath.Join(dir, name))
		if err == nil && !info.IsDir() {
			return name, true
		}
	}
	return "", false
}
