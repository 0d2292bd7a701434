package store

import (
	"context"
	"strconv"
)

// SetMaxPageCount sets PRAGMA max_page_count on the connection that runs
// every write of s and returns the limit now in force, which SQLite never
// sets below the database's current size. Set to 1, the next write that
// needs a new page fails with SQLITE_FULL, as on a full disk, without
// filling one. An n of 0 changes nothing, and so reads the limit.
func SetMaxPageCount(s *Store, n int64) (int64, error) {
	release, err := s.acquireWriter(context.Background())
	if err != nil {
		return 0, err
	}
	defer release()
	return pragmaInt(s.wconn, "PRAGMA max_page_count = "+strconv.FormatInt(n, 10))
}
