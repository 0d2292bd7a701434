//go:build !unix

package store

// fileLock is a no-op where flock is not available: writers of different
// processes then queue through SQLite's busy handler alone.
type fileLock struct{ path string }

func openFileLock(path string) (*fileLock, error) { return &fileLock{path: path}, nil }

func (l *fileLock) tryLock() (bool, error) { return true, nil }

func (l *fileLock) lock() error { return nil }

func (l *fileLock) unlock() {}

func (l *fileLock) close() error { return nil }
