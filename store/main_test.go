package store_test

import (
	"testing"

	"github.com/stickhq/stick/internal/testproc"
)

// TestMain lets tests re-run this binary as a helper process (see
// internal/testproc): the fault tests open stores in a child that runs
// without privileges or in a mount namespace of its own. Helpers register
// themselves in init functions.
func TestMain(m *testing.M) {
	testproc.Main(m)
}
