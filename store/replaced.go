package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/stickhq/stick/stick"
)

// fileSet is what the database file and its -wal and -shm files were when
// this store first wrote through them.
type fileSet [3]os.FileInfo

// dbFiles names the database file and the two files SQLite keeps beside it.
func (s *Store) dbFiles() [3]string { return [3]string{s.path, s.path + "-wal", s.path + "-shm"} }

// statFiles returns the files now at the database's paths, or false when
// one is missing.
func (s *Store) statFiles() (fileSet, bool) {
	var fs fileSet
	for i, p := range s.dbFiles() {
		fi, err := os.Stat(p)
		if err != nil {
			return fs, false
		}
		fs[i] = fi
	}
	return fs, true
}

// replaced reports a database file, -wal or -shm that was deleted or
// replaced since this store opened them (or first wrote, if they were not
// all there at the open): while a store has the database open SQLite keeps
// all three, so one that is gone or new means someone removed them (a
// cleanup script, an rm), and writing on would go to files no new process
// sees, reading on would show a room no new process sees. Every write and
// read then fails with data_dir_unusable, and the watcher's fallback poll
// wakes waiters so that their next read says so.
//
// It costs one stat, of the database's directory: removing, renaming or
// creating an entry in a directory moves its modification time, so while
// the directory is the one whose three files the last full check found in
// place, with the modification time it had then, the files are still
// those. The full check (three more stats) runs when the directory changed,
// and while its modification time is too recent to tell (see dirGrain).
func (s *Store) replaced() error {
	files := s.files.Load()
	if files == nil {
		return nil
	}
	start := time.Now()
	dir, dirErr := os.Stat(filepath.Dir(s.path))
	if m := s.dirMark.Load(); dirErr == nil && m != nil && m.holds(dir) {
		return nil
	}
	now, ok := s.statFiles()
	for i, p := range s.dbFiles() {
		if !ok || !os.SameFile(files[i], now[i]) {
			return stick.Errorf(stick.CodeDataDir, "%s was deleted or replaced while this process had the database open; nothing more is written", p).
				With("path", p).
				WithHint("stop every stick process using %s (agents' 'stick mcp' servers, holders) and start them again; the latest writes are in the files those processes still have open, and reach %s when the last of them exits", s.path, s.path)
		}
	}
	if dirErr == nil {
		s.dirMark.Store(&dirMark{dir: dir, checked: start})
	}
	return nil
}

// dirGrain bounds how coarse a file system's clock may be: a directory
// changed within it of a full check could show the same modification time
// before and after the change, so a full check vouches only for
// modification times older than this when it began.
const dirGrain = 50 * time.Millisecond

// dirMark is the database's directory as the last full check that found
// the files in place saw it, and when that check began.
type dirMark struct {
	dir     os.FileInfo
	checked time.Time
}

// holds reports whether dir, the directory as it is now, is unchanged since
// the check of m: the same directory, modified at the same time, and that
// time older than the check by more than dirGrain.
func (m *dirMark) holds(dir os.FileInfo) bool {
	return os.SameFile(m.dir, dir) && dir.ModTime().Equal(m.dir.ModTime()) &&
		m.checked.Sub(dir.ModTime()) > dirGrain
}

// noteFiles records the files this store uses, once all three exist: at
// the open, or else at its first write.
func (s *Store) noteFiles() {
	if s.files.Load() != nil {
		return
	}
	if fs, ok := s.statFiles(); ok {
		s.files.CompareAndSwap(nil, &fs)
	}
}

// filesGone is replaced as a yes or no, for the watcher's fallback poll.
func (s *Store) filesGone() bool { return s.replaced() != nil }

// noted is where a Store keeps the files it uses (see noteFiles); it is
// read by every read and write and by the watcher, so it is atomic.
type noted = atomic.Pointer[fileSet]

// deletedUnderOthers refuses to open a database whose -wal file is missing
// while another process has the database open: SQLite keeps the -wal file
// as long as any connection is open, so it was deleted under that process
// (with the -shm file, or the database would be malformed), and opening
// would show the database without every write still in that process's
// unlinked -wal, and write a second history beside it. A process that is
// closing deletes the -wal file just before it lets go of the database, so
// the check is made again a moment later before it refuses. It can tell only
// where the system lists file locks (Linux).
func deletedUnderOthers(path string) error {
	var pid int
	for _, pause := range []time.Duration{0, 20 * time.Millisecond, 100 * time.Millisecond} {
		time.Sleep(pause)
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			return nil
		}
		if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if pid = otherOpener(path); pid == 0 {
			return nil
		}
	}
	return stick.Errorf(stick.CodeDataDir, "%s-wal was deleted while process %d (and maybe others) had %s open; opening it now would show the database without their latest writes", path, pid, path).
		With("path", path).With("pid", pid).
		WithHint("stop every stick process using %s (agents' 'stick mcp' servers, holders; 'stick doctor' names them) and start them again; their latest writes reach %s when the last of them exits", path, path)
}
