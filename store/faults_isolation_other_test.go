//go:build !linux

package store_test

import "testing"

// runIsolated skips: user and mount namespaces, which the isolations need,
// are Linux's.
func runIsolated(t *testing.T, iso isolation, _ any, name string, _ ...string) {
	t.Helper()
	t.Skipf("cannot run helper %s %s: namespaces are Linux-only", name, iso)
}
