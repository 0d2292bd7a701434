package postgres_test

import (
	"context"
	"testing"

	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/stick/storetest"
)

func TestMain(m *testing.M) { testproc.Main(m, pgtest.Start()) }

// TestConformance runs the conformance suite of stick.Store on a fresh
// database per test; each further handle is another Store on it, as
// another process or host would open it.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{Open: func(t *testing.T) func() stick.Store {
		u := pgtest.URL(t)
		return func() stick.Store {
			st, err := postgres.Open(context.Background(), u, postgres.Options{})
			if err != nil {
				t.Fatalf("open the store: %v", err)
			}
			return st
		}
	}})
}
