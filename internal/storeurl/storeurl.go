package storeurl

import (
	"context"
	"net/url"
	"strings"

	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/stick"
)

// Env is the environment variable that names the database when no
// --database flag does.
const Env = "STICK_DATABASE_URL"

// IsPostgres reports whether u is a PostgreSQL URL: its scheme is
// postgres or postgresql.
func IsPostgres(u string) bool {
	scheme, _, ok := strings.Cut(u, "://")
	return ok && (strings.EqualFold(scheme, "postgres") || strings.EqualFold(scheme, "postgresql"))
}

// Check returns nil for a URL Open can open, and invalid_argument for
// any other, without connecting.
func Check(u string) error {
	if IsPostgres(u) {
		return nil
	}
	return stick.Errorf(stick.CodeInvalidArgument, "the database URL %q is not a PostgreSQL URL", Redact(u)).
		With("field", "database").
		WithHint("give a URL such as postgres://user@host:5432/stick (or $%s); leave it out to use this host's SQLite database", Env)
}

// Open opens the PostgreSQL store of u, bringing its schema up to date;
// a URL of another kind is invalid_argument. Its errors never hold the
// URL's password.
func Open(ctx context.Context, u string) (*postgres.Store, error) {
	if err := Check(u); err != nil {
		return nil, err
	}
	st, err := postgres.Open(ctx, u, postgres.Options{})
	if err != nil {
		return nil, scrub(err, u)
	}
	return st, nil
}

// HasPassword reports whether u holds a password, in its user part or as
// its password parameter.
func HasPassword(u string) bool { return password(u) != "" }

// password returns u's password, from its user part or its password
// parameter, or "".
func password(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	if p.User != nil {
		if pw, ok := p.User.Password(); ok && pw != "" {
			return pw
		}
	}
	return p.Query().Get("password")
}

// Redact returns u with its password, if any, replaced by xxxxx.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		if i := strings.LastIndex(u, "@"); i >= 0 {
			if j := strings.Index(u, "://"); j >= 0 && j < i {
				return u[:j+3] + "xxxxx" + u[i:]
			}
		}
		return u
	}
	if p.Query().Get("password") != "" {
		q := p.Query()
		q.Set("password", "xxxxx")
		p.RawQuery = q.Encode()
	}
	return p.Redacted()
}

// scrub removes u's password from a coded error's message and hint, the
// text every frontend prints.
func scrub(err error, u string) error {
	pw := password(u)
	if pw == "" {
		return err
	}
	e := stick.AsError(err)
	if !strings.Contains(e.Message, pw) && !strings.Contains(e.Hint, pw) && (e.Err == nil || !strings.Contains(e.Err.Error(), pw)) {
		return err
	}
	out := stick.Errorf(e.Code, "%s", strings.ReplaceAll(e.Message, pw, "xxxxx")).WithHint("%s", strings.ReplaceAll(e.Hint, pw, "xxxxx"))
	for k, v := range e.Details {
		out = out.With(k, v)
	}
	return out
}
