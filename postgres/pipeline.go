package postgres

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A transaction talks to the server in as few round trips as its reads
// allow, since an Update holds the write lock across them all. An
// Update's BEGIN, write lock and read of the last event's seq are one
// round trip before fn runs (fn runs holding the lock, whatever it does);
// a View's BEGIN goes with its first read. Writes, whose results the
// domain does not read, wait in a queue and go with the next read or
// with the COMMIT. The statements of one round trip are one pipeline, run
// in order, so a read sees every write queued before it; the first
// statement to fail makes the server skip the rest, the COMMIT too, and
// its error is the transaction's, mapped as any other.

// maxQueued bounds the statements a transaction queues: a bulk write
// sends them once this many wait.
const maxQueued = 256

// stmt is a statement queued in a transaction.
type stmt struct {
	sql  string
	args []any
	// exec checks a write's command tag; row scans a one-row answer,
	// rows a read's rows. At most one is set; none for a write that
	// needs no check.
	exec func(pgconn.CommandTag) error
	row  func(pgx.Row) error
	rows func(pgx.Rows) error
}

// read reads st's result from br.
func (st stmt) read(br pgx.BatchResults) error {
	switch {
	case st.row != nil:
		return st.row(br.QueryRow())
	case st.rows != nil:
		rows, err := br.Query()
		if err != nil {
			return err
		}
		err = st.rows(rows)
		rows.Close()
		if err != nil {
			return err
		}
		return rows.Err()
	}
	tag, err := br.Exec()
	if err == nil && st.exec != nil {
		err = st.exec(tag)
	}
	return err
}

// later queues a write whose result check, when not nil, judges; it is
// sent with the transaction's next read or its commit.
func (t *tx) later(check func(pgconn.CommandTag) error, q string, args ...any) error {
	t.queue = append(t.queue, stmt{sql: q, args: args, exec: check})
	if len(t.queue) >= maxQueued {
		_, err := t.roundTrip("", nil)
		return err
	}
	return nil
}

// query runs q after the statements queued before it, in one round trip.
func (t *tx) query(q string, args ...any) (pgx.Rows, error) {
	return t.roundTrip(q, args)
}

// queryRow is query for a one-row answer; its Scan fails with
// pgx.ErrNoRows when there is none.
func (t *tx) queryRow(q string, args ...any) pgx.Row {
	rows, err := t.query(q, args...)
	return oneRow{rows: rows, err: err}
}

// roundTrip sends the queued statements and then q, when not "", in one
// pipeline, reads the queued ones' results and returns q's rows. A
// transaction whose BEGIN is among them and fails on a connection the
// server dropped (a restart, pg_terminate_backend) tries again on the
// next pooled connection, up to the pool's size and one new connection:
// nothing of it ran.
func (t *tx) roundTrip(q string, args []any) (pgx.Rows, error) {
	for try := int32(0); ; try++ {
		rows, err := t.send(q, args)
		if err == nil || t.begun || try >= t.s.pool.Config().MaxConns || t.ctx.Err() != nil || !lostConnection(err) {
			return rows, err
		}
		t.conn.Release()
		if t.conn, err = t.s.pool.Acquire(t.ctx); err != nil {
			t.conn = nil
			return nil, err
		}
	}
}

// send is one try of roundTrip. When the BEGIN it carries fails, the
// queue is kept for the next try.
func (t *tx) send(q string, args []any) (pgx.Rows, error) {
	if len(t.queue) == 0 {
		if q == "" {
			return nil, nil
		}
		return t.conn.Query(t.ctx, q, args...)
	}
	queue := t.queue
	b := &pgx.Batch{}
	for _, st := range queue {
		b.Queue(st.sql, st.args...)
	}
	if q != "" {
		b.Queue(q, args...)
	}
	br := t.conn.SendBatch(t.ctx, b)
	for i, st := range queue {
		if err := st.read(br); err != nil {
			_ = br.Close()
			if t.begun {
				t.queue = nil
			}
			return nil, err
		}
		if i == 0 {
			t.begun = true
		}
	}
	t.queue = nil
	if q == "" {
		return nil, br.Close()
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// errCommitRolledBack is a COMMIT the server answered with ROLLBACK.
var errCommitRolledBack = errors.New("the commit rolled the transaction back")

// commit sends the queued writes and COMMIT in one round trip. A
// transaction that never reached the server has nothing to commit.
func (t *tx) commit() error {
	if !t.begun && len(t.queue) == t.opening {
		t.queue = nil
		return nil
	}
	t.queue = append(t.queue, stmt{sql: "COMMIT", exec: func(tag pgconn.CommandTag) error {
		if tag.String() != "COMMIT" {
			return fmt.Errorf("%w (%s)", errCommitRolledBack, tag)
		}
		return nil
	}})
	_, err := t.roundTrip("", nil)
	return err
}

// batchRows are the rows of a pipeline's last statement: the pipeline
// ends (its results are closed) once they are read or closed.
type batchRows struct {
	pgx.Rows
	br   pgx.BatchResults
	done bool
	err  error
}

func (r *batchRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.end()
	return false
}

func (r *batchRows) Close() {
	r.Rows.Close()
	r.end()
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

func (r *batchRows) end() {
	if !r.done {
		r.done = true
		r.err = r.br.Close()
	}
}

// oneRow is the first row of rows, as pgx.Row.
type oneRow struct {
	rows pgx.Rows
	err  error
}

func (r oneRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}
