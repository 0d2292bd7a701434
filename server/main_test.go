package server_test

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/stickhq/stick/cli"
	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// The hubs of these tests are real 'stick serve' processes: the test
// binary run again as the stick command (cli.Execute), stopped by
// SIGINT and SIGTERM as cmd/stick is. The members that contend for one
// room from processes of their own run it again as "contend" (see
// contend_test.go). Hubs on PostgreSQL ('stick serve --database') use a
// throwaway cluster started at the first database a test asks for.
func TestMain(m *testing.M) {
	testproc.Register("stick", func(args []string) int {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return cli.Execute(ctx, cli.LocalWiring(), args, os.Stdin, os.Stdout, os.Stderr, "test")
	})
	testproc.Register("contend", contend)
	testproc.Main(m, pgtest.Start())
}

// tokenSpec is a token a test makes: its name and role.
type tokenSpec struct {
	name string
	role stick.AccessRole
}

// makeTokens makes the tokens of specs in the database of data directory
// data, as 'stick token create' does, and returns their secrets by name;
// env is what the hub must run with besides (nothing: the hub reads its
// tokens from its store).
func makeTokens(t *testing.T, data string, specs ...tokenSpec) (secrets map[string]string, env []string) {
	t.Helper()
	st, err := store.OpenDir(data, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	secrets = map[string]string{}
	for _, s := range specs {
		_, secret, err := svc.CreateToken(context.Background(), stick.TokenRequest{Name: s.name, Role: s.role})
		if err != nil {
			t.Fatalf("create token %q: %v", s.name, err)
		}
		secrets[s.name] = secret
	}
	return secrets, nil
}
