package store

import (
	"context"
	"time"

	"github.com/stickhq/stick/stick"
)

// acquireWriter queues this caller behind every other stick writer: first
// behind the writers of this process, then behind those of other processes
// through an OS file lock next to the database. Waiting writers sleep in the
// kernel and wake the moment the lock is free, so a busy room cannot starve a
// process the way SQLite's own busy handler (which sleeps up to 100 ms
// between tries) can. It returns the function that releases both.
//
// It fails with ctx's error when ctx ends, and with db_busy when the lock is
// not had within the busy timeout.
func (s *Store) acquireWriter(ctx context.Context) (func(), error) {
	start := time.Now()
	timer := time.NewTimer(s.opts.BusyTimeout)
	defer timer.Stop()
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, s.busy(time.Since(start), nil)
	}
	release := func() {
		s.lock.Unlock()
		<-s.writer
	}
	if ok, err := s.lock.TryLock(); err != nil || ok {
		if err != nil {
			<-s.writer
			return nil, stick.Errorf(stick.CodeInternal, "cannot lock %s", s.lock.Path()).Wrap(err)
		}
		return release, nil
	}
	got := make(chan error, 1)
	go func() { got <- s.lock.Lock() }()
	select {
	case err := <-got:
		if err != nil {
			<-s.writer
			return nil, stick.Errorf(stick.CodeInternal, "cannot lock %s", s.lock.Path()).Wrap(err)
		}
		return release, nil
	case <-ctx.Done():
		s.abandon(got)
		return nil, ctx.Err()
	case <-timer.C:
		s.abandon(got)
		return nil, s.busy(time.Since(start), nil)
	}
}

// abandon lets a lock request that nobody waits for any more finish in the
// background: the lock is dropped as soon as it is had, and only then may the
// next writer of this process proceed (the file lock belongs to the process,
// so the next writer must not take it while this request is pending).
func (s *Store) abandon(got <-chan error) {
	go func() {
		if <-got == nil {
			s.lock.Unlock()
		}
		<-s.writer
	}()
}

// busy is the db_busy error after waiting d for the write lock.
func (s *Store) busy(d time.Duration, cause error) error {
	return stick.Errorf(stick.CodeDBBusy, "waited %s for other processes to finish writing %s", d.Round(time.Millisecond), s.path).
		Wrap(cause).With("path", s.path).With("waited_ms", d.Milliseconds()).
		WithHint("retry; if it persists, look for a process stuck holding %s or %s", s.path, s.lock.Path())
}
