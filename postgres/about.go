package postgres

import (
	"context"
	"time"
)

// About is what 'stick doctor' reports of a PostgreSQL store: where it is,
// what serves it, and who uses it now.
type About struct {
	// Where names the database and its host, never the password.
	Where string
	// ServerVersion is the server's version, such as "15.8".
	ServerVersion string
	// Schema is the database's schema version.
	Schema int
	// Processes counts the stick processes connected to the database now
	// (their listening connections), this one included.
	Processes int
	// WriterFor is how long the transaction holding the write lock has
	// run, zero when none holds it; WriterApp and WriterClient say whose it
	// is (application_name and client address, empty over a Unix socket).
	WriterFor               time.Duration
	WriterApp, WriterClient string
	WriterPID               int
}

// About reads what 'stick doctor' reports, in one read-only round trip.
func (s *Store) About(ctx context.Context) (About, error) {
	a := About{Where: s.where}
	var writerMillis *float64
	var writerApp, writerClient *string
	var writerPID *int32
	err := s.pool.QueryRow(ctx, `SELECT current_setting('server_version'),
			(SELECT version FROM schema_version),
			(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1),
			w.millis, w.application_name, w.client_addr, w.pid
		FROM (SELECT 1) one
		LEFT JOIN (SELECT extract(epoch FROM clock_timestamp() - a.xact_start) * 1000 AS millis, a.application_name,
				host(a.client_addr) AS client_addr, a.pid
			FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
				AND l.objsubid = 1 AND ((l.classid::bigint << 32) | l.objid::bigint) = $2
			LIMIT 1) w ON true`,
		ListenerAppName, int64(writeLockKey)).Scan(&a.ServerVersion, &a.Schema, &a.Processes, &writerMillis, &writerApp, &writerClient, &writerPID)
	if err != nil {
		return About{}, s.mapErr(err)
	}
	if writerMillis != nil {
		a.WriterFor = time.Duration(*writerMillis * float64(time.Millisecond))
	}
	if writerApp != nil {
		a.WriterApp = *writerApp
	}
	if writerClient != nil {
		a.WriterClient = *writerClient
	}
	if writerPID != nil {
		a.WriterPID = int(*writerPID)
	}
	return a, nil
}
