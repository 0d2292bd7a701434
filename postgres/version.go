package postgres

import (
	"fmt"

	"github.com/stickhq/stick/stick"
)

// MinServerVersion is the oldest PostgreSQL a Store runs on, as
// server_version_num counts (13.0): unaccent, which search folds
// diacritics with, is a trusted extension from 13 on, so a database's
// owner may create it without a superuser.
const MinServerVersion = 130000

// checkServer refuses a server older than MinServerVersion; num is its
// server_version_num.
func (s *Store) checkServer(num int) error {
	if num >= MinServerVersion {
		return nil
	}
	version := fmt.Sprintf("%d.%d", num/10000, num%10000) // 10 and newer: major, minor
	if num < 100000 {
		version = fmt.Sprintf("%d.%d.%d", num/10000, num%10000/100, num%100)
	}
	return stick.Errorf(stick.CodeDBUnavailable, "the %s runs PostgreSQL %s, older than %d, the oldest stick runs on",
		s.where, version, MinServerVersion/10000).
		With("server_version_num", num).
		WithHint("upgrade the server, or give a database on a server of PostgreSQL %d or newer", MinServerVersion/10000)
}

// serverVersionNum reads the server's version as a number.
const serverVersionNum = "SELECT current_setting('server_version_num')::int"
