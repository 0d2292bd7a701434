package cli

import (
	"context"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/stickhq/stick/internal/storeurl"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// Wiring connects the commands to the store they act on. The program that
// runs them builds it and hands it to Execute (cmd/stick chooses
// LocalWiring), so which store stick runs on is decided in one place and
// no command opens a store of its own.
type Wiring struct {
	// Open opens the store for a command that may write, making it when
	// there is none yet.
	Open func() (stick.Store, error)
	// OpenIn opens, and makes when missing, the store of the data
	// directory dir instead of the default one ('stick serve --data-dir').
	OpenIn func(dir string) (stick.Store, error)
	// OpenReader opens the store for a command that only reads and must
	// not make it (the status line, the prompt); an error coded
	// room_not_found says there is no store yet.
	OpenReader func() (stick.Store, error)
	// OpenLater gives 'stick mcp' a store that opens in the background,
	// once started or at its first use, so that the server answers the
	// harness's initialize at once; report is told on w why an open
	// failed.
	OpenLater func(w io.Writer) LaterStore
	// Options are given to every Service the commands make (tests set a
	// clock through them).
	Options []stick.Option
	// Database is the URL of the PostgreSQL database the commands use,
	// its password redacted, or "" for this host's SQLite database.
	Database string
}

// A LaterStore is a store that opens in the background (see
// store.Background): Start begins the open, Ready waits for it and
// returns its error.
type LaterStore interface {
	stick.Store
	Start()
	Ready(ctx context.Context) error
}

// LocalWiring is the wiring of this host: the SQLite database in the data
// directory (store.DataDir), and opts for every Service.
func LocalWiring(opts ...stick.Option) Wiring {
	return Wiring{
		Open:   func() (stick.Store, error) { return storeOrNil(store.OpenDefault()) },
		OpenIn: func(dir string) (stick.Store, error) { return storeOrNil(store.OpenDir(dir, store.Options{})) },
		OpenReader: func() (stick.Store, error) {
			dir, err := store.DataDir()
			if err != nil {
				return nil, stick.Errorf(stick.CodeDataDir, "cannot resolve the data directory: %v", err)
			}
			return storeOrNil(store.OpenReader(dir))
		},
		OpenLater: func(w io.Writer) LaterStore {
			return store.OpenLater(func() (*store.Store, error) { return openReporting(w) })
		},
		Options: opts,
	}
}

// storeOrNil returns st as a stick.Store, or a nil interface with err: a
// nil *store.Store in an interface would not compare equal to nil.
func storeOrNil[S stick.Store](st S, err error) (stick.Store, error) {
	if err != nil {
		return nil, err
	}
	return st, nil
}

// wired is the wiring of the running Execute. A program runs one Execute
// at a time; tests that run several at once give them equal wirings.
var wired atomic.Pointer[Wiring]

// wiring returns the wiring Execute was given.
func wiring() Wiring {
	if w := wired.Load(); w != nil {
		return *w
	}
	return Wiring{}
}

// newService makes a Service over st with the liveness of its store (see
// storeLiveness), then the wiring's options, then opts.
func newService(st stick.Store, opts ...stick.Option) (*stick.Service, error) {
	var all []stick.Option
	if live, ok := storeurl.Liveness(st, procid.Checker{}); ok {
		all = append(all, stick.WithLiveness(live))
	}
	all = append(append(all, wiring().Options...), opts...)
	return stick.New(st, all...)
}

// storeLiveness is how processes are judged on st, besides the sessions
// a hub judges itself: by procid, and on a database server also by the
// marks of processes of other hosts (see storeurl.Liveness).
func storeLiveness(st stick.Store) stick.Liveness {
	if live, ok := storeurl.Liveness(st, procid.Checker{}); ok {
		return live
	}
	return procid.Checker{}
}

// openTimeout bounds the open of a database server's store: a server
// that does not answer is db_unavailable, not a hang.
const openTimeout = 30 * time.Second

// onDatabase returns w with every store opened from the database of dbURL
// (a postgres:// URL, see package storeurl) instead of this host's data
// directory; w's options are kept.
func (w Wiring) onDatabase(dbURL string) Wiring {
	open := func() (stick.Store, error) {
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		defer cancel()
		return storeOrNil(storeurl.Open(ctx, dbURL))
	}
	w.Open, w.OpenReader, w.Database = open, open, storeurl.Redact(dbURL)
	w.OpenIn = func(string) (stick.Store, error) {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "--data-dir and --database name two databases").
			With("field", "data-dir").WithHint("give one of them")
	}
	w.OpenLater = func(out io.Writer) LaterStore {
		return storeurl.OpenLater(func() (stick.Store, error) {
			st, err := open()
			return reported(out, st, err)
		})
	}
	return w
}

// useDatabase makes the running Execute's commands open the database
// dbURL names (--database, else $STICK_DATABASE_URL); with none they
// keep the wiring they were given.
func useDatabase(dbURL string) error {
	if dbURL == "" {
		dbURL = os.Getenv(storeurl.Env)
	}
	if dbURL == "" {
		return nil
	}
	if err := storeurl.Check(dbURL); err != nil {
		return err
	}
	w := wiring().onDatabase(dbURL)
	wired.Store(&w)
	return nil
}
