package postgres

// ListenerListens returns how many connections s's listener has listened
// on: 1 after Open, one more after each reconnect, counted once the
// reconnect woke the waiters.
func (s *Store) ListenerListens() int64 { return s.listen.listens.Load() }

// CheckServer is checkServer, for a server version no test can start.
func CheckServer(num int) error {
	return (&Store{where: "PostgreSQL database \"t\" on h"}).checkServer(num)
}

// MigrationsThrough returns the migrations that make schema version v.
func MigrationsThrough(v int) []string { return migrations[:v-baseVersion+1] }
