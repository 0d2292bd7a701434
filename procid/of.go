package procid

import (
	"errors"
	"fmt"
	"os"
)

// procFacts are the per-process facts the OS reports for one pid.
type procFacts struct {
	// startMillis is the start time in milliseconds since the Unix epoch.
	startMillis int64
	// exited is true when the process has terminated but still occupies
	// its pid (a zombie waiting to be reaped).
	exited bool
	// ppid is the parent's pid (0 when unknown) and name the command name.
	ppid int
	name string
}

// Self returns the identity of the calling process, for recording who
// holds a resource.
func Self() (Identity, error) {
	pid := os.Getpid()
	id, err := of(pid)
	if err != nil {
		return Identity{}, fmt.Errorf("procid: this process (pid %d): %w", pid, err)
	}
	return id, nil
}

// Parent returns the identity of the calling process's parent, e.g. the
// agent that launched a short-lived command on its behalf.
func Parent() (Identity, error) {
	pid := os.Getppid()
	id, err := of(pid)
	if err != nil {
		return Identity{}, fmt.Errorf("procid: parent process (pid %d): %w", pid, err)
	}
	return id, nil
}

// Of returns the identity of the process that holds pid now. It fails with
// an error wrapping [ErrNoProcess] when no such process exists. Host and
// boot ids are filled in when known and left empty otherwise.
func Of(pid int) (Identity, error) {
	id, err := of(pid)
	if err != nil {
		return Identity{}, fmt.Errorf("procid: pid %d: %w", pid, err)
	}
	return id, nil
}

// of is Of without the error prefix, so callers can add their own context.
func of(pid int) (Identity, error) {
	if pid <= 0 {
		return Identity{}, errors.New("invalid pid")
	}
	facts, err := readProc(pid)
	if err != nil {
		return Identity{}, err
	}
	hostID, bootID, _ := Host() // unknown host facts stay empty
	return Identity{
		HostID:    hostID,
		BootID:    bootID,
		PID:       pid,
		StartedAt: startMillis(facts.startMillis),
	}, nil
}
