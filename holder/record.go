package holder

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

// State says whether a holder waits for the stick or holds it.
type State string

// The states of a holder in its record.
const (
	Waiting State = "waiting"
	Holding State = "holding"
)

// Record is the local record of one holder process: the room and identity
// it waits or holds for, the lease once it holds, the holder's exact
// process and the anchor (harness or shell) it must not outlive. 'stick
// release' finds the lease here, so nobody copies ids by hand. The room is
// found by its id; Path, or Name for a named room (which has no path),
// says where it is.
type Record struct {
	RoomID   string          `json:"room_id"`
	Path     string          `json:"path"`
	Name     string          `json:"room_name,omitempty"`
	AgentID  string          `json:"agent_id"`
	State    State           `json:"state"`
	Lease    stick.Lease     `json:"lease"`
	Guardian procid.Identity `json:"guardian"`
	Anchor   procid.Identity `json:"anchor"`
	Since    time.Time       `json:"since"`
}

// Where names the record's room in a sentence: its path, or "the room
// named NAME" for a named room.
func (r Record) Where() string {
	if r.Name != "" {
		return "the room named " + r.Name
	}
	return r.Path
}

// file is the on-disk form of the local records, holders.json.
type file struct {
	Version int      `json:"version"`
	Holders []Record `json:"holders"`
}

// Dir is where the CLI keeps its local state, the records and the holders'
// log among it: the directory cli beside the database.
func Dir() (string, error) {
	dir, err := store.DataDir()
	if err != nil {
		return "", stick.Errorf(stick.CodeDataDir, "cannot resolve the data directory: %v", err).
			WithHint("set %s to a local directory", store.DataDirEnv)
	}
	return filepath.Join(dir, "cli"), nil
}

// ensureDir creates the CLI's directory dir in the data directory, both
// owner-only, and refuses either when another user owns it or may write in
// it, or dir is a link: whoever could plant files there could make stick
// overwrite the user's own.
func ensureDir(dir string) error {
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

// Read reads the records in dir without locking: writers replace the file
// atomically, so a reader sees one whole version. A missing file is no
// records; a damaged one is a data_dir_unusable error whose hint is
// 'stick doctor', which rewrites it ([Prune]).
func Read(dir string) ([]Record, error) {
	data, err := ownerfs.ReadFile(filepath.Join(dir, "holders.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, stick.Errorf(stick.CodeDataDir, "cannot read the holder records: %v", err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil || f.Version != 1 {
		if err == nil {
			err = fmt.Errorf("version %d, this stick reads version 1", f.Version)
		}
		return nil, stick.Errorf(stick.CodeDataDir, "the holder records %s are damaged: %v", filepath.Join(dir, "holders.json"), err).
			WithHint("run 'stick doctor', which rewrites them (holders still running keep the stick; release them with 'stick takeover' if needed)")
	}
	return f.Holders, nil
}

// update changes the records in dir under an exclusive lock: it reads them,
// drops records whose holder is proven gone (so a killed holder never
// leaves a record behind for long), lets fn change the rest, and writes
// the result atomically (temporary file, fsync, rename). It waits at most
// LockWait for the lock, and no longer than ctx lasts.
func update(ctx context.Context, dir string, fn func([]Record) ([]Record, error)) error {
	if err := ensureDir(dir); err != nil {
		return err
	}
	lock, err := filelock.Open(filepath.Join(dir, "holders.lock"))
	if err != nil {
		return stick.Errorf(stick.CodeDataDir, "cannot lock the holder records: %v", err)
	}
	defer lock.Close()
	if err := lock.LockWithin(ctx, LockWait); err != nil {
		return lockErr(lock.Path(), err)
	}
	defer lock.Unlock()
	hs, err := Read(dir)
	if err != nil {
		hs = nil // a damaged file is replaced: its holders are found gone or re-recorded
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
	data, err := json.MarshalIndent(file{Version: 1, Holders: out}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WritePrivate(filepath.Join(dir, "holders.json"), append(data, '\n')); err != nil {
		return stick.Errorf(stick.CodeDataDir, "cannot write the holder records: %v", err)
	}
	return nil
}

// Find returns the live record of agent in the room roomID among rs, if
// any, preferring one that holds the stick over one that waits.
func Find(rs []Record, roomID, agent string) (Record, bool) {
	var found *Record
	for i, h := range rs {
		if h.RoomID == roomID && h.AgentID == agent && procid.Check(h.Guardian) != procid.Gone {
			if found == nil || (found.State != Holding && h.State == Holding) {
				found = &rs[i]
			}
		}
	}
	if found == nil {
		return Record{}, false
	}
	return *found, true
}

// Add records a new holder in dir, unless another live holder already
// waits or holds for the same identity in the same room: two would race
// for one turn, and the loser would wait forever.
func Add(ctx context.Context, dir string, h Record) error {
	return update(ctx, dir, func(hs []Record) ([]Record, error) {
		if o, ok := Find(hs, h.RoomID, h.AgentID); ok && !o.Guardian.Same(h.Guardian) {
			what := "waits for"
			if o.State == Holding {
				what = "holds"
			}
			return nil, stick.Errorf(stick.CodeInvalidArgument, "%s already %s the stick in %s through holder pid %d", h.AgentID, what, h.Where(), o.Guardian.PID).
				WithHint("use that one ('stick release' when done), or stop its wait with Ctrl-C where it runs")
		}
		return append(hs, h), nil
	})
}

// Drop removes the record of the holder process g from dir. It runs while
// a command ends, even one a signal ended, so only the deadline bounds its
// wait.
func Drop(dir string, g procid.Identity) error {
	return update(context.Background(), dir, func(hs []Record) ([]Record, error) {
		out := hs[:0]
		for _, h := range hs {
			if !h.Guardian.Same(g) {
				out = append(out, h)
			}
		}
		return out, nil
	})
}

// Put records h in dir, replacing the record of the same holder process.
func Put(dir string, h Record) error {
	return update(context.Background(), dir, func(hs []Record) ([]Record, error) {
		out := hs[:0]
		for _, o := range hs {
			if !o.Guardian.Same(h.Guardian) {
				out = append(out, o)
			}
		}
		return append(out, h), nil
	})
}

// Prune rewrites the records in dir: it drops those of holders proven
// gone, and replaces a damaged file with the records of none.
func Prune(dir string) error {
	return update(context.Background(), dir, func(hs []Record) ([]Record, error) { return hs, nil })
}

// LockWait is how long a command waits for another stick process to finish
// changing the holder records. Each change takes milliseconds, so a lock
// held longer belongs to a process that is stuck or stopped.
const LockWait = 5 * time.Second

// lockErr is the error of a failed wait for the holder records' lock:
// db_busy naming the process that holds it, when known.
func lockErr(path string, err error) error {
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
	return stick.Errorf(stick.CodeDBBusy, "%s held the lock on the holder records %s for more than %s", by, path, render.Duration(LockWait)).
		With("path", path).WithHint("retry; if it persists, stop %s (a stuck or stopped stick command)", by)
}
