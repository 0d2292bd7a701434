package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"time"

	"github.com/stickhq/stick/internal/atomicfile"
	"github.com/stickhq/stick/internal/filelock"
	"github.com/stickhq/stick/internal/ownerfs"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// Holder states in the local record.
const (
	holderWaiting = "waiting"
	holderHolding = "holding"
)

// holder is the local record of one guardian process: the room and
// identity it waits or holds for, the lease once it holds, the guardian's
// exact process and the anchor (harness or shell) it must not outlive.
// 'stick release' finds the lease here, so nobody copies ids by hand.
type holder struct {
	RoomID   string          `json:"room_id"`
	Path     string          `json:"path"`
	AgentID  string          `json:"agent_id"`
	State    string          `json:"state"`
	Lease    stick.Lease     `json:"lease"`
	Guardian procid.Identity `json:"guardian"`
	Anchor   procid.Identity `json:"anchor"`
	Since    time.Time       `json:"since"`
}

// holderFile is the on-disk form of the local records.
type holderFile struct {
	Version int      `json:"version"`
	Holders []holder `json:"holders"`
}

// localDir is where the CLI keeps its local state: beside the database.
func localDir() (string, error) {
	dir, err := store.DataDir()
	if err != nil {
		return "", stick.Errorf(stick.CodeDataDir, "cannot resolve the data directory: %v", err).
			WithHint("set %s to a local directory", store.DataDirEnv)
	}
	return filepath.Join(dir, "cli"), nil
}

// ensureLocalDir creates the CLI's directory dir in the data directory, both
// owner-only, and refuses either when another user owns it or may write in
// it, or dir is a link: whoever could plant files there could make stick
// overwrite the user's own.
func ensureLocalDir(dir string) error {
	data := filepath.Dir(dir)
	if err := store.EnsureDataDir(data); err != nil {
		hint := fmt.Sprintf("make %s a writable directory, or set %s to one", data, store.DataDirEnv)
		if errors.Is(err, store.ErrDataDirUnsafe) {
			hint = store.PrivateHint(data)
		}
		return stick.Errorf(stick.CodeDataDir, "cannot use the data directory: %v", err).Wrap(err).With("path", data).WithHint("%s", hint)
	}
	if err := ownerfs.Subdir(dir); err != nil {
		return stick.Errorf(stick.CodeDataDir, "cannot use %s: %v", dir, err).Wrap(err).With("path", dir).WithHint("%s", store.PrivateHint(dir))
	}
	return nil
}

// readHolders reads the local records without locking: writers replace the
// file atomically, so a reader sees one whole version. A missing file is no
// records.
func readHolders(dir string) ([]holder, error) {
	data, err := ownerfs.ReadFile(filepath.Join(dir, "holders.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, stick.Errorf(stick.CodeDataDir, "cannot read the holder records: %v", err)
	}
	var f holderFile
	if err := json.Unmarshal(data, &f); err != nil || f.Version != 1 {
		if err == nil {
			err = fmt.Errorf("version %d, this stick reads version 1", f.Version)
		}
		return nil, stick.Errorf(stick.CodeDataDir, "the holder records %s are damaged: %v", filepath.Join(dir, "holders.json"), err).
			WithHint("run 'stick doctor', which rewrites them (holders still running keep the stick; release them with 'stick takeover' if needed)")
	}
	return f.Holders, nil
}

// updateHolders changes the local records under an exclusive lock: it reads
// them, drops records whose guardian is proven gone (so a killed guardian
// never leaves a record behind for long), lets fn change the rest, and
// writes the result atomically (temporary file, fsync, rename). It waits at
// most holdersLockWait for the lock, and no longer than ctx lasts.
func updateHolders(ctx context.Context, dir string, fn func([]holder) ([]holder, error)) error {
	if err := ensureLocalDir(dir); err != nil {
		return err
	}
	lock, err := filelock.Open(filepath.Join(dir, "holders.lock"))
	if err != nil {
		return stick.Errorf(stick.CodeDataDir, "cannot lock the holder records: %v", err)
	}
	defer lock.Close()
	if err := lock.LockWithin(ctx, holdersLockWait); err != nil {
		return holdersLockErr(lock.Path(), err)
	}
	defer lock.Unlock()
	hs, err := readHolders(dir)
	if err != nil {
		hs = nil // a damaged file is replaced: its guardians are found gone or re-recorded
	}
	live := hs[:0]
	for _, h := range hs {
		if procid.Check(h.Guardian) != procid.Gone {
			live = append(live, h)
		}
	}
	out, err := fn(live)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(holderFile{Version: 1, Holders: out}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WritePrivate(filepath.Join(dir, "holders.json"), append(data, '\n')); err != nil {
		return stick.Errorf(stick.CodeDataDir, "cannot write the holder records: %v", err)
	}
	return nil
}

// findHolder returns the live record of agent in room, if any, preferring
// one that holds the stick over one that waits.
func findHolder(hs []holder, roomID, agent string) (holder, bool) {
	var found *holder
	for i, h := range hs {
		if h.RoomID == roomID && h.AgentID == agent && procid.Check(h.Guardian) != procid.Gone {
			if found == nil || (found.State != holderHolding && h.State == holderHolding) {
				found = &hs[i]
			}
		}
	}
	if found == nil {
		return holder{}, false
	}
	return *found, true
}

// addHolder records a new guardian, unless another live guardian already
// waits or holds for the same identity in the same room: two would race
// for one turn, and the loser would wait forever.
func addHolder(ctx context.Context, dir string, h holder) error {
	return updateHolders(ctx, dir, func(hs []holder) ([]holder, error) {
		if o, ok := findHolder(hs, h.RoomID, h.AgentID); ok && !o.Guardian.Same(h.Guardian) {
			what := "waits for"
			if o.State == holderHolding {
				what = "holds"
			}
			return nil, stick.Errorf(stick.CodeInvalidArgument, "%s already %s the stick in %s through holder pid %d", h.AgentID, what, h.Path, o.Guardian.PID).
				WithHint("use that one ('stick release' when done), or stop its wait with Ctrl-C where it runs")
		}
		return append(hs, h), nil
	})
}

// dropHolder removes the record of the guardian g.
// It runs while a command ends, even one a signal ended, so only the
// deadline bounds its wait.
func dropHolder(dir string, g procid.Identity) error {
	return updateHolders(context.Background(), dir, func(hs []holder) ([]holder, error) {
		out := hs[:0]
		for _, h := range hs {
			if !h.Guardian.Same(g) {
				out = append(out, h)
			}
		}
		return out, nil
	})
}

// putHolder records h, replacing the record of the same guardian.
func putHolder(dir string, h holder) error {
	return updateHolders(context.Background(), dir, func(hs []holder) ([]holder, error) {
		out := hs[:0]
		for _, o := range hs {
			if !o.Guardian.Same(h.Guardian) {
				out = append(out, o)
			}
		}
		return append(out, h), nil
	})
}

// holdersLockWait is how long a command waits for another stick process
// to finish changing the holder records. Each change takes milliseconds, so
// a lock held longer belongs to a process that is stuck or stopped.
var holdersLockWait = 5 * time.Second

// holdersLockErr is the error of a failed wait for the holder records'
// lock: db_busy naming the process that holds it, when known.
func holdersLockErr(path string, err error) error {
	if !errors.Is(err, filelock.ErrTimeout) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return stick.Errorf(stick.CodeDataDir, "cannot lock the holder records: %v", err)
	}
	by := "another process"
	if pid := filelock.Holder(path); pid > 0 {
		by = "process " + strconv.Itoa(pid)
	}
	return stick.Errorf(stick.CodeDBBusy, "%s held the lock on the holder records %s for more than %s", by, path, render.Duration(holdersLockWait)).
		With("path", path).WithHint("retry; if it persists, stop %s (a stuck or stopped stick command)", by)
}
