package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

var (
	tokenIDRE = regexp.MustCompile(`tok_[0-9a-f]{16}`)
	secretRE  = regexp.MustCompile(`stk_[0-9a-f]{64}`)
)

// tokenRun runs a token command and records it, its token ids and secrets
// shown as <token-N> and <secret-N> in the order they first appear.
func (tr *transcript) tokenRun(args ...string) (int, string) {
	s := tr.s
	s.t.Helper()
	code, out, errOut := s.run("", args...)
	for _, re := range []struct {
		re   *regexp.Regexp
		name string
	}{{tokenIDRE, "token"}, {secretRE, "secret"}} {
		for _, m := range re.re.FindAllString(out+errOut, -1) {
			if !strings.Contains(s.normalise(m), "<") {
				n := 1 + strings.Count(fmt.Sprint(s.subst), "<"+re.name+"-")
				s.name(m, fmt.Sprintf("<%s-%d>", re.name, n))
			}
		}
	}
	tr.record("", args, code, s.normalise(out), errOut)
	return code, out
}

// tokenTable is tokenRun for 'stick token list', whose whole output is a
// table: realigned after the ids are replaced.
func (tr *transcript) tokenTable(args ...string) {
	s := tr.s
	s.t.Helper()
	code, out, errOut := s.run("", args...)
	checkAligned(s.t, out)
	tr.record("", args, code, realign(s.normalise(out)), errOut)
}

func TestGoldenToken(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	tr.tokenRun("token", "list")
	tr.tokenRun("token", "create", "Alex's Team")
	tr.tokenRun("token", "create", "ci", "--role", "viewer", "--expires", "30d", "--room", "triage", "--key-prefix", "github.com/acme/")
	tr.tokenRun("token", "create", "ops", "--role", "operator", "--expires", "12h")
	tr.tokenRun("token", "create", "alex s team")
	tr.tokenRun("token", "create", "Ana", "--role", "admin")
	tr.tokenRun("token", "create", "Ana", "--expires", "soon")
	tr.tokenRun("token", "create", "Ana", "--expires", "0d")
	tr.tokenRun("token", "create", "Ana", "--room", "Not A Name")
	tr.tokenRun("token", "create", " ")
	tr.tokenRun("token", "create")
	s.clock.Advance(13 * time.Hour)
	tr.tokenRun("token", "revoke", "Alex's Team")
	tr.tokenRun("token", "revoke", "Alex's Team")
	tr.tokenRun("token", "revoke", "nobody")
	tr.tokenTable("token", "list")
	tr.tokenRun("token", "create", "alex s team", "--key-prefix", "github.com/acme/")
	tr.tokenRun("token")
	tr.check("token")
}

// 'stick token create --json' gives the secret in a field, once; it
// authenticates as the token's principal, and neither the list (text or
// JSON) nor the database file holds it or a hash of it.
func TestTokenSecretShownOnce(t *testing.T) {
	s := newScene(t)
	out := s.ok("token", "create", "Alex's Team", "--role", "operator", "--key-prefix", "github.com/acme/", "--json")
	var got tokenCreated
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !secretRE.MatchString(got.Secret) || got.Token.Name != "Alex's Team" || got.Token.Role != stick.AccessOperator ||
		strings.Join(got.Token.Rooms.KeyPrefixes, ",") != "github.com/acme/" || got.Token.State != stick.TokenActive {
		t.Fatalf("create --json: %+v", got)
	}
	p, err := s.svc.Authenticate(context.Background(), got.Secret)
	if err != nil || p.TokenID != got.Token.ID || p.Role != stick.AccessOperator {
		t.Fatalf("the secret printed does not authenticate: %+v %v", p, err)
	}
	text := s.ok("token", "create", "ci")
	secret := secretRE.FindString(text)
	if secret == "" || !strings.Contains(text, "will not be shown again") {
		t.Fatalf("create without --json:\n%s", text)
	}
	if _, err := s.svc.Authenticate(context.Background(), secret); err != nil {
		t.Fatalf("the secret printed as text does not authenticate: %v", err)
	}
	hash := stick.HashSecret(got.Secret)
	for _, args := range [][]string{{"token", "list"}, {"token", "list", "--json"}} {
		list := s.ok(args...)
		if strings.Contains(list, "stk_") || strings.Contains(list, fmt.Sprintf("%x", hash[:])) || strings.Contains(list, "hash") {
			t.Fatalf("%s shows a secret or a hash:\n%s", strings.Join(args, " "), list)
		}
		if !strings.Contains(list, got.Token.ID) {
			t.Fatalf("%s does not list %s:\n%s", strings.Join(args, " "), got.Token.ID, list)
		}
	}
	var listed []stick.Token
	if err := json.Unmarshal([]byte(s.ok("token", "list", "--json")), &listed); err != nil || len(listed) != 2 || listed[0].LastUsedAt.IsZero() {
		t.Fatalf("list --json: %+v %v (the first token was used)", listed, err)
	}
	db := filepath.Join(os.Getenv("TALKING_STICK_DATA_DIR"), store.DBFileName)
	for _, f := range []string{db, db + "-wal"} {
		b, err := os.ReadFile(f)
		if err == nil && (strings.Contains(string(b), got.Secret) || strings.Contains(string(b), secret)) {
			t.Fatalf("%s holds a secret", f)
		}
	}
	// A revoked token's secret stops working at once.
	s.ok("token", "revoke", got.Token.ID)
	if _, err := s.svc.Authenticate(context.Background(), got.Secret); stick.ErrorCode(err) != stick.CodeUnauthenticated {
		t.Fatalf("a revoked token still authenticates: %v", err)
	}
	var res stick.RevokeResult
	if err := json.Unmarshal([]byte(s.ok("token", "revoke", "ci", "--json")), &res); err != nil || res.Already || res.Token.Name != "ci" || res.Token.State != stick.TokenRevoked {
		t.Fatalf("revoke --json: %+v %v", res, err)
	}
}

// --expires takes days, weeks and Go durations; anything else, or a
// duration that is not positive, is a usage error naming the flag.
func TestParseExpiry(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "12h": 12 * time.Hour, "90m": 90 * time.Minute, "1h30m": 90 * time.Minute} {
		if got, err := parseExpiry(in); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "soon", "-1d", "0", "0d", "-5m", "1.5d", "99999999d", "30 d"} {
		_, err := parseExpiry(in)
		if e := stick.AsError(err); e == nil || e.Code != stick.CodeInvalidArgument || e.Details["field"] != "expires" {
			t.Errorf("%q: %v", in, err)
		}
	}
}
