package procid

import (
	"fmt"
	"os"
)

// Ancestor is one process on the way from a process up the process tree:
// its exact identity and its command name (as the OS reports it, e.g.
// "bash" or "node").
type Ancestor struct {
	Identity
	Name string
}

// maxLineage bounds a walk up the process tree (a cycle cannot happen, but
// a pid reused during the walk could make one appear).
const maxLineage = 64

// Ancestors returns the ancestors of the calling process, its parent first,
// up to but not including init (pid 1). It stops early, without an error,
// at a process it cannot read; the error is for the parent itself.
func Ancestors() ([]Ancestor, error) {
	self, err := readProc(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("procid: this process: %w", err)
	}
	var out []Ancestor
	for pid := self.ppid; pid > 1 && len(out) < maxLineage; {
		facts, err := readProc(pid)
		if err != nil {
			if len(out) == 0 {
				return nil, fmt.Errorf("procid: parent process (pid %d): %w", pid, err)
			}
			break
		}
		hostID, bootID, _ := Host()
		out = append(out, Ancestor{
			Identity: Identity{HostID: hostID, BootID: bootID, PID: pid, StartedAt: startMillis(facts.startMillis)},
			Name:     facts.name,
		})
		pid = facts.ppid
	}
	return out, nil
}
