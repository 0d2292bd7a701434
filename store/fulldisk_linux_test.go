//go:build linux

package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
	"golang.org/x/sys/unix"
)

func init() {
	testproc.Register(fullDiskHelper, runFullDiskHelper)
}

// fullDiskHelper names the helper that runs fullDiskScenario on a small
// tmpfs it mounts in its own mount namespace.
const fullDiskHelper = "full-disk"

// fullDiskReport is what fullDiskScenario saw; the helper prints it as
// JSON for TestFullDisk to check.
type fullDiskReport struct {
	Setup string `json:"setup,omitempty"` // why the tmpfs could not be mounted
	Err   string `json:"err,omitempty"`   // a step that should not fail did
	// A first open on the full disk, what a reader makes of what it left,
	// and the open once space is freed.
	OpenNew, ReaderNew, OpenNewFreed outcome
	// Notes written before the disk filled, the two writes that did not
	// fit, the notes read back meanwhile, a write once space is freed and
	// the notes read back then.
	Before     []string
	Note, Join outcome
	During     []string
	// Opening the database a store keeps open, as a second process does,
	// while the disk is full.
	OpenShared outcome
	After      outcome
	Final      []string
	// Opening the closed database while the disk is full again (SQLite
	// must create its -shm file), the files it changed, and a reader once
	// space is freed.
	OpenFull, ReaderFull outcome
	Changed              []string
	Reopened             outcome
}

// TestFullDisk fills a 1 MiB tmpfs, mounted in a helper's private mount
// namespace (so it never outlives the helper and nothing else sees it):
// as root directly, otherwise inside a new user namespace, where an
// unprivileged user may mount a tmpfs. Opening a new database there fails
// with data_dir_unusable "the disk holding ... is full"; a store that was
// working gets the same error from a real write (AppendNote, JoinPath),
// keeps every earlier note and writes again once space is freed; a second
// open of the database it keeps open fails the same way; opening
// the closed database on the full disk fails the same way, for readers
// too, and changes no file.
func TestFullDisk(t *testing.T) {
	mnt := t.TempDir()
	var rep fullDiskReport
	runIsolated(t, inMountNamespace, &rep, fullDiskHelper, mnt, testkit.Repo(t))
	if rep.Setup != "" {
		t.Skipf("cannot mount a tmpfs to fill %s: %s", inMountNamespace, rep.Setup)
	}
	if rep.Err != "" {
		t.Fatal(rep.Err)
	}
	newDir, data := filepath.Join(mnt, "new"), filepath.Join(mnt, "data")
	full := want{code: stick.CodeDataDir, msg: "is full", hint: "free some space"}
	for _, c := range []struct {
		what string
		dir  string
		got  outcome
		want want
	}{
		{"a first open on the full disk", newDir, rep.OpenNew, full},
		{"a reader of what that open left", newDir, rep.ReaderNew, want{code: stick.CodeRoomNotFound, msg: "is empty", hint: "stick join"}},
		{"the first open once space is freed", newDir, rep.OpenNewFreed, want{}},
		{"a note on the full disk", data, rep.Note, full},
		{"a join on the full disk", data, rep.Join, full},
		{"opening the database a store keeps open on the full disk", data, rep.OpenShared, full},
		{"a note once space is freed", data, rep.After, want{}},
		{"opening the closed database on the full disk", data, rep.OpenFull, full},
		{"a reader of the closed database on the full disk", data, rep.ReaderFull, full},
		{"a reader once space is freed", data, rep.Reopened, want{notes: rep.Final}},
	} {
		t.Run(c.what, func(t *testing.T) { c.want.check(t, c.dir, c.got) })
	}
	if !slices.Equal(rep.Before, seededNotes) || !slices.Equal(rep.During, rep.Before) {
		t.Errorf("notes before the disk filled %q, while it was full %q; want %q", rep.Before, rep.During, seededNotes)
	}
	if want := append(slices.Clone(seededNotes), "after"); !slices.Equal(rep.Final, want) {
		t.Errorf("notes once space was freed %q, want %q", rep.Final, want)
	}
	if len(rep.Changed) > 0 {
		t.Errorf("opens that failed on the full disk changed %q", rep.Changed)
	}
}

// runFullDiskHelper mounts a 1 MiB tmpfs on args[0], runs fullDiskScenario
// on it with the workspace args[1], unmounts it and prints the report.
func runFullDiskHelper(args []string) int {
	mnt, repo := args[0], args[1]
	var rep fullDiskReport
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		rep.Setup = fmt.Sprintf("making mounts private: %v", err)
		return printJSON(rep)
	}
	if err := unix.Mount("tmpfs", mnt, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=1m,mode=0700"); err != nil {
		rep.Setup = fmt.Sprintf("mount -t tmpfs -o size=1m tmpfs %s: %v", mnt, err)
		return printJSON(rep)
	}
	defer unix.Unmount(mnt, unix.MNT_DETACH)
	if err := fullDiskScenario(&rep, mnt, repo); err != nil {
		rep.Err = err.Error()
	}
	return printJSON(rep)
}

// fullDiskScenario runs the steps TestFullDisk checks on the empty
// filesystem at mnt, recording what each came to in rep. It returns an
// error only when a step that must work did not.
func fullDiskScenario(rep *fullDiskReport, mnt, repo string) error {
	newDir, data := filepath.Join(mnt, "new"), filepath.Join(mnt, "data")
	free, err := fill(mnt)
	if err != nil {
		return err
	}
	rep.OpenNew = attempt(openDir, newDir)
	rep.ReaderNew = attempt(openReader, newDir)
	free()
	rep.OpenNewFreed = attempt(openDir, newDir)

	st, err := store.OpenDir(data, store.Options{})
	if err != nil {
		return fmt.Errorf("open on the empty tmpfs: %w", err)
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		return err
	}
	ctx := context.Background()
	ana := stick.Caller{AgentID: "human:ana", Kind: stick.KindOneShot}
	j, err := svc.JoinPath(ctx, ana, stick.JoinRequest{Path: repo})
	if err != nil {
		return fmt.Errorf("join on the empty tmpfs: %w", err)
	}
	for _, n := range seededNotes {
		if _, err := svc.AppendNote(ctx, ana, j.RoomID, n); err != nil {
			return fmt.Errorf("note on the empty tmpfs: %w", err)
		}
	}
	if rep.Before, err = readNotes(st); err != nil {
		return err
	}

	if free, err = fill(mnt); err != nil {
		return err
	}
	_, err = svc.AppendNote(ctx, ana, j.RoomID, strings.Repeat("x", stick.MaxNoteLen/2))
	rep.Note = describe(err)
	_, err = svc.JoinPath(ctx, stick.Caller{AgentID: "human:bo", Kind: stick.KindOneShot}, stick.JoinRequest{Path: repo})
	rep.Join = describe(err)
	if rep.During, err = readNotes(st); err != nil {
		return fmt.Errorf("reading while the disk is full: %w", err)
	}
	rep.OpenShared = attempt(openDir, data)
	free()
	_, err = svc.AppendNote(ctx, ana, j.RoomID, "after")
	rep.After = describe(err)
	if rep.Final, err = readNotes(st); err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}

	before, err := hashFiles(data)
	if err != nil {
		return err
	}
	if free, err = fill(mnt); err != nil {
		return err
	}
	rep.OpenFull = attempt(openDir, data)
	rep.ReaderFull = attempt(openReader, data)
	after, err := hashFiles(data)
	if err != nil {
		return err
	}
	for p, h := range before {
		if after[p] != h {
			rep.Changed = append(rep.Changed, p)
		}
	}
	free()
	rep.Reopened = attempt(openReader, data)
	return nil
}

// fill writes a file on the filesystem at dir until it has no space left,
// and returns the function that removes it.
func fill(dir string) (free func(), err error) {
	f, err := os.CreateTemp(dir, "filler")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err = f.Write(buf); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		os.Remove(f.Name())
		return nil, fmt.Errorf("filling %s: %w", dir, err)
	}
	return func() { os.Remove(f.Name()) }, nil
}
