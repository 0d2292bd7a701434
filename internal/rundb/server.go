package rundb

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/internal/storeurl"
)

// Server is a PostgreSQL server on which a run makes a database of its
// own for each measurement, named by the database URL the user gave; its
// user must be allowed to create databases.
type Server struct {
	admin string // the user's URL: the database connected to for CREATE and DROP
	n     atomic.Int64
}

// adminTimeout bounds one CREATE or DROP DATABASE, with its connection.
const adminTimeout = time.Minute

// Connect checks that dbURL names a PostgreSQL server that can be reached
// and whose user may create databases. Its errors never hold the URL's
// password.
func Connect(ctx context.Context, dbURL string) (*Server, error) {
	if err := storeurl.Check(dbURL); err != nil {
		return nil, err
	}
	if _, err := url.Parse(dbURL); err != nil {
		return nil, fmt.Errorf("the database URL %s is not a URL", storeurl.Redact(dbURL))
	}
	s := &Server{admin: dbURL}
	var may bool
	err := s.do(ctx, func(conn *pgx.Conn) error {
		return conn.QueryRow(ctx, "SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&may)
	})
	if err != nil {
		return nil, err
	}
	if !may {
		return nil, fmt.Errorf("each measurement runs on an empty database of its own, which it creates on the server of %s and drops "+
			"afterwards, but that URL's user may not create databases: grant it the privilege (ALTER ROLE ... CREATEDB) or give the URL of a user who has it",
			storeurl.Redact(dbURL))
	}
	return s, nil
}

// Fresh creates an empty database named after prefix, this process and a
// counter, and returns the DB of it with dir as its data directory, and
// a function that drops the database.
func (s *Server) Fresh(ctx context.Context, prefix, dir string) (DB, func() error, error) {
	name := fmt.Sprintf("%s_%d_%d_%d", prefix, os.Getpid(), time.Now().Unix(), s.n.Add(1))
	if err := s.exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
		return DB{}, nil, fmt.Errorf("create the database %s: %w", name, err)
	}
	u, _ := url.Parse(s.admin) // parsed by Connect
	u.Path = "/" + name
	u.RawPath = ""
	drop := func() error {
		// FORCE (PostgreSQL 13 and later) ends sessions a killed process
		// left behind.
		err := s.exec(context.Background(), `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`)
		if err != nil && strings.Contains(err.Error(), "syntax error") {
			err = s.exec(context.Background(), `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize())
		}
		if err != nil {
			return fmt.Errorf("drop the database %s: %w", name, err)
		}
		return nil
	}
	return DB{Dir: dir, URL: u.String()}, drop, nil
}

// String is the server's URL with its password hidden.
func (s *Server) String() string { return storeurl.Redact(s.admin) }

// exec runs one statement on the user's database.
func (s *Server) exec(ctx context.Context, sql string) error {
	return s.do(ctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, sql)
		return err
	})
}

// do runs fn on a new connection to the user's database; its errors hold
// no password.
func (s *Server) do(ctx context.Context, fn func(*pgx.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, adminTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		return fmt.Errorf("connect to %s: %s", storeurl.Redact(s.admin), scrub(err.Error(), s.admin))
	}
	defer conn.Close(context.Background())
	if err := fn(conn); err != nil {
		return fmt.Errorf("%s: %s", storeurl.Redact(s.admin), scrub(err.Error(), s.admin))
	}
	return nil
}

// scrub removes dbURL's password from msg.
func scrub(msg, dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil || u.User == nil {
		return msg
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		return strings.ReplaceAll(msg, pw, "xxxxx")
	}
	return msg
}
