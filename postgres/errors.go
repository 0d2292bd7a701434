package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stickhq/stick/stick"
)

// mapErr turns a database error into a coded *stick.Error: db_busy for a
// lock or statement that timed out or a transaction the server gave up,
// db_unavailable when the server cannot be reached or dropped the
// connection, internal for the rest. A coded error and the context's own
// errors pass as they are.
func (s *Store) mapErr(err error) error {
	if err == nil {
		return nil
	}
	var se *stick.Error
	if errors.As(err, &se) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "55P03" || pe.Code == "57014" || pe.Code == "40001" || pe.Code == "40P01":
			return stick.Errorf(stick.CodeDBBusy, "the %s stayed locked by other connections", s.where).Wrap(err).
				With("sqlstate", pe.Code).
				WithHint("retry; if it persists, look for a session holding a transaction open (pg_stat_activity)")
		case strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") || strings.HasPrefix(pe.Code, "53"):
			return s.unavailable(err)
		case strings.HasPrefix(pe.Code, "28") || pe.Code == "3D000" || pe.Code == "42501":
			return stick.Errorf(stick.CodeDBUnavailable, "cannot use the %s: %s", s.where, pe.Message).Wrap(err).
				With("sqlstate", pe.Code).
				WithHint("check the database URL: its user, password and database name, and the user's privileges")
		}
		return stick.Errorf(stick.CodeInternal, "%s", s.where).Wrap(err)
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "closed pool") || strings.Contains(err.Error(), "conn closed") {
		return s.unavailable(err)
	}
	return stick.Errorf(stick.CodeInternal, "%s", s.where).Wrap(err)
}

func (s *Store) unavailable(err error) *stick.Error {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return stick.Errorf(stick.CodeDBUnavailable, "cannot connect to the %s: %s", s.where, innermost(err)).Wrap(err).
			WithHint("check that the server runs and is reachable at the URL's host and port; retry once it is")
	}
	return stick.Errorf(stick.CodeDBUnavailable, "lost the connection to the %s", s.where).Wrap(err).
		WithHint("check that the server runs and is reachable; retry once it is")
}

// innermost returns the message of the deepest error err wraps, the cause
// a person can act on ("connection refused", "i/o timeout"); of several
// attempts (TLS, then without), the last one's.
func innermost(err error) string {
	for {
		var next error
		switch e := err.(type) {
		case interface{ Unwrap() []error }:
			if errs := e.Unwrap(); len(errs) > 0 {
				next = errs[len(errs)-1]
			}
		default:
			next = errors.Unwrap(err)
		}
		if next == nil {
			return strings.Join(strings.Fields(err.Error()), " ")
		}
		err = next
	}
}
