package storeurl_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stickhq/stick/internal/storeurl"
	"github.com/stickhq/stick/stick"
)

// postgres:// and postgresql:// URLs are PostgreSQL's; anything else is
// refused as invalid_argument, its password hidden.
func TestCheck(t *testing.T) {
	for _, u := range []string{"postgres://ana@db/stick", "postgresql://db/stick", "POSTGRES://db/stick"} {
		if err := storeurl.Check(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"", "/var/lib/stick", "mysql://ana:s3cret@db/stick", "sqlite:rooms.sqlite"} {
		err := storeurl.Check(u)
		if stick.ErrorCode(err) != stick.CodeInvalidArgument || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: %v; want invalid_argument without the password", u, err)
		}
	}
}

// A server that cannot be reached is db_unavailable, and neither the
// message nor the hint holds the URL's password.
func TestOpenHidesThePassword(t *testing.T) {
	_, err := storeurl.Open(context.Background(), "postgres://ana:s3cret-pw@127.0.0.1:1/stick?connect_timeout=2")
	e := stick.AsError(err)
	if e.Code != stick.CodeDBUnavailable || strings.Contains(e.Message+e.Hint+err.Error(), "s3cret-pw") {
		t.Fatalf("%v (hint %q); want db_unavailable without the password", err, e.Hint)
	}
	if got := storeurl.Redact("postgres://ana:s3cret-pw@db/stick"); strings.Contains(got, "s3cret-pw") || !strings.Contains(got, "ana") {
		t.Fatalf("Redact: %s", got)
	}
}

// A password in the user part or in the password parameter is found, and
// Redact hides either.
func TestPasswords(t *testing.T) {
	for u, has := range map[string]bool{
		"postgres://ana:s3cret-pw@db/stick":                 true,
		"postgres://ana@db/stick?password=s3cret-pw":        true,
		"postgres://ana@db/stick?sslmode=require":           false,
		"postgres://ana:@db/stick":                          false,
		"postgres://db/stick?host=/run/postgresql&user=ana": false,
	} {
		if storeurl.HasPassword(u) != has {
			t.Errorf("HasPassword(%s) = %v", u, !has)
		}
		if got := storeurl.Redact(u); strings.Contains(got, "s3cret-pw") {
			t.Errorf("Redact(%s) = %s", u, got)
		}
	}
}
