package storeurl

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// Liveness returns how a Service on st judges members' processes: on a
// PostgreSQL store (or a Later opening one), by their marks in the
// database (postgres.Marks), with fallback for the processes of this host
// and those without marks; ok is false for any other store, whose
// Service keeps its own liveness. A hub gives it to liveness.WithFallback.
func Liveness(st stick.Store, fallback stick.Liveness) (l stick.Liveness, ok bool) {
	switch st := st.(type) {
	case *postgres.Store:
		return st.Liveness(fallback), true
	case *Later:
		return &laterMarks{l: st, fallback: fallback}, true
	}
	return nil, false
}

// laterMarks is the liveness of a Later: the store's marks once it is
// open, fallback until then (nothing judges a member before the open: a
// transaction waits for it) and when the open failed.
type laterMarks struct {
	l        *Later
	fallback stick.Liveness
	once     sync.Once
	live     stick.Liveness
}

var _ stick.GraceLiveness = (*laterMarks)(nil)

func (m *laterMarks) get() stick.Liveness {
	select {
	case <-m.l.done:
	default:
		return m.fallback
	}
	m.once.Do(func() {
		m.live = m.fallback
		if st, ok := m.l.st.(*postgres.Store); ok && m.l.err == nil {
			m.live = st.Liveness(m.fallback)
		}
	})
	return m.live
}

// Check implements stick.Liveness.
func (m *laterMarks) Check(p stick.Process) procid.Status { return m.get().Check(p) }

// CheckWithin implements stick.GraceLiveness.
func (m *laterMarks) CheckWithin(p stick.Process, grace time.Duration) procid.Status {
	l := m.get()
	if g, ok := l.(stick.GraceLiveness); ok {
		return g.CheckWithin(p, grace)
	}
	return l.Check(p)
}

// Watch implements stick.ExitWatcher.
func (m *laterMarks) Watch(ctx context.Context, p stick.Process) (<-chan struct{}, bool) {
	return m.WatchWithin(ctx, p, stick.DefaultPolicy.ProxyGrace)
}

// WatchWithin implements stick.GraceLiveness.
func (m *laterMarks) WatchWithin(ctx context.Context, p stick.Process, grace time.Duration) (<-chan struct{}, bool) {
	switch l := m.get().(type) {
	case stick.GraceLiveness:
		return l.WatchWithin(ctx, p, grace)
	case stick.ExitWatcher:
		return l.Watch(ctx, p)
	}
	return nil, false
}

// holdWait bounds how long Hold waits for its mark to be taken.
const holdWait = 30 * time.Second

// Hold marks p (postgres.Store.Mark) once the store is open, without
// starting the open, and keeps the mark while the store stays open: a
// process that stands for p on a database server ('stick mcp' for its
// harness) proves p alive to the other hosts while it runs, and gone the
// moment it dies. At Close the mark is released if p still runs, and
// kept as proof of its end otherwise. A mark that cannot be taken is told
// to report; p is then judged by its leases on other hosts. On a store
// that is not PostgreSQL's Hold does nothing.
func (l *Later) Hold(p stick.Process, report func(error)) {
	go func() {
		<-l.done
		st, ok := l.st.(*postgres.Store)
		if !ok || l.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), holdWait)
		defer cancel()
		if _, err := st.Mark(ctx, p); err != nil && report != nil {
			report(fmt.Errorf("cannot mark %s in the database, so other hosts judge it by its leases: %w", p, err))
		}
	}()
}

// Marker returns what a hub on st marks the sessions of its liveness
// streams with (liveness.WithMarker): on a PostgreSQL store (or a Later
// opening one), postgres.Store.Vouch, so that the hubs on one database
// know each other's streams; ok is false for any other store, whose hub
// judges its sessions alone.
func Marker(st stick.Store) (m *Vouchers, ok bool) {
	switch st := st.(type) {
	case *postgres.Store:
		return &Vouchers{get: func(context.Context) (*postgres.Store, error) { return st, nil }}, true
	case *Later:
		return &Vouchers{get: st.postgres}, true
	}
	return nil, false
}

// Vouchers marks the sessions a hub stands for in its database.
type Vouchers struct {
	get func(context.Context) (*postgres.Store, error)
}

// Mark implements liveness.Marker: postgres.Store.Vouch, once the store
// is open (without starting the open). It fails when ctx ends first,
// when the open failed, and on a store that is not PostgreSQL's.
func (v *Vouchers) Mark(ctx context.Context, p stick.Process) (end func(gone bool), err error) {
	st, err := v.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.Vouch(ctx, p)
}

// postgres returns the store once it is open, when it is PostgreSQL's.
func (l *Later) postgres(ctx context.Context) (*postgres.Store, error) {
	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if l.err != nil {
		return nil, l.err
	}
	st, ok := l.st.(*postgres.Store)
	if !ok {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "the store is not a database server's: it holds no marks")
	}
	return st, nil
}
