package server_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/stickhq/stick/cli"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/server"
	"github.com/stickhq/stick/stick"
)

// The hubs of these tests are real 'stick serve' processes: the test
// binary run again as the stick command (cli.Execute), stopped by
// SIGINT and SIGTERM as cmd/stick is.
func TestMain(m *testing.M) {
	testproc.Register("stick", func(args []string) int {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		w := cli.LocalWiring()
		if raw := os.Getenv(tokensEnv); raw != "" {
			w = withTokens(w, raw)
		}
		return cli.Execute(ctx, w, args, os.Stdin, os.Stdout, os.Stderr, "test")
	})
	testproc.Main(m)
}

// tokenSpec is a token a test makes: its name and role.
type tokenSpec struct {
	name string
	role stick.AccessRole
}

// tokensEnv carries the tokens of a hub to its process (see makeTokens).
const tokensEnv = "STICK_TEST_HUB_TOKENS"

// makeTokens makes the tokens of specs for the hub of data directory data:
// it returns their secrets by name, and the environment the hub must run
// with to know them. It is the only place the tests make tokens: a hub
// whose store keeps tokens makes them with 'stick token create' instead,
// and this function alone changes.
func makeTokens(t *testing.T, data string, specs ...tokenSpec) (secrets map[string]string, env []string) {
	t.Helper()
	secrets = map[string]string{}
	byName := map[string]stick.Principal{}
	for i, s := range specs {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		secret := "stk_" + hex.EncodeToString(b)
		secrets[s.name] = secret
		byName[secret] = stick.Principal{TokenID: "tok_" + string(rune('a'+i)), Name: s.name, Role: s.role}
	}
	raw, err := json.Marshal(byName)
	if err != nil {
		t.Fatal(err)
	}
	return secrets, []string{tokensEnv + "=" + string(raw)}
}

// withTokens is the wiring of a hub that knows the tokens of raw (secret
// to principal, as makeTokens wrote them): a principal acts through the
// hub's service, a viewer through one whose store refuses every write.
func withTokens(w cli.Wiring, raw string) cli.Wiring {
	var byName map[string]stick.Principal
	if err := json.Unmarshal([]byte(raw), &byName); err != nil {
		panic(err)
	}
	w.Hub = func(st stick.Store, svc *stick.Service, cfg *server.Config) {
		cfg.Auth = secrets(byName)
		cfg.AnyCredential = func(context.Context) (bool, error) { return len(byName) > 0, nil }
		viewer, err := stick.New(readOnly{st})
		if err != nil {
			panic(err)
		}
		cfg.ServiceFor = func(p stick.Principal) *stick.Service {
			if p.Role == stick.AccessViewer {
				return viewer
			}
			return svc
		}
	}
	return w
}

// secrets authenticates the secrets of a map.
type secrets map[string]stick.Principal

func (s secrets) Authenticate(_ context.Context, secret string) (stick.Principal, error) {
	if p, ok := s[secret]; ok {
		return p, nil
	}
	return stick.Principal{}, stick.Errorf(stick.CodeUnauthenticated, "the token is not known")
}

// readOnly is a store that refuses every write with forbidden.
type readOnly struct{ stick.Store }

func (readOnly) Update(context.Context, func(stick.Tx) error) error {
	return stick.Errorf(stick.CodeForbidden, "a viewer's token may only read")
}
