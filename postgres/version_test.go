package postgres_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/stick"
)

// A server older than PostgreSQL 13 is refused with its version and what
// to do; 13 and newer are taken.
func TestOldServersAreRefused(t *testing.T) {
	err := postgres.CheckServer(120017)
	if stick.ErrorCode(err) != stick.CodeDBUnavailable || !strings.Contains(err.Error(), "runs PostgreSQL 12.17, older than 13") ||
		!strings.Contains(stick.AsError(err).Hint, "PostgreSQL 13 or newer") {
		t.Fatalf("PostgreSQL 12: %v (hint %q)", err, stick.AsError(err).Hint)
	}
	if err := postgres.CheckServer(90624); !strings.Contains(err.Error(), "runs PostgreSQL 9.6.24,") {
		t.Fatalf("PostgreSQL 9.6: %v", err)
	}
	for _, v := range []int{130000, 150018, 170002} {
		if err := postgres.CheckServer(v); err != nil {
			t.Fatalf("server_version_num %d: %v", v, err)
		}
	}
}
