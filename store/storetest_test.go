package store

import (
	"testing"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/stick/storetest"
)

// TestConformance runs the conformance suite of stick.Store on a SQLite
// file per test; each further handle is another Store opened on the same
// file, as another process would open it.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{Open: sqliteOpener(Options{})})
}

// TestConformanceWithoutFTS runs the suite on a store whose SQLite has no
// FTS5: it has no full-text search, and says so with search_unavailable.
func TestConformanceWithoutFTS(t *testing.T) {
	storetest.Run(t, storetest.Harness{Open: sqliteOpener(Options{noFTS: true}), NoSearch: true})
}

// sqliteOpener makes a new database file per test, in t.TempDir, and
// opens each handle on it with opts.
func sqliteOpener(opts Options) storetest.Opener {
	return func(t *testing.T) func() stick.Store {
		dir := t.TempDir()
		return func() stick.Store {
			st, err := OpenDir(dir, opts)
			if err != nil {
				t.Fatalf("open the store in %s: %v", dir, err)
			}
			return st
		}
	}
}
