package store

import (
	"os"
	"path/filepath"
	"testing"
)

// inotifyInstances counts this process's inotify instances.
func inotifyInstances(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// TestOneInotifyInstancePerProcess: several stores, each with a waiter on
// commits and on bells, use one inotify instance together (they are
// limited per user, usually to 128), and none is left once all are closed.
func TestOneInotifyInstancePerProcess(t *testing.T) {
	before := inotifyInstances(t)
	var stores []*Store
	for range 4 {
		st, err := OpenDir(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, st)
		_ = st.Changed()
		if st.Rung("room_1", "a") == nil {
			t.Skip("bells cannot be watched here")
		}
		_ = st.Rung("room_1", "")
	}
	if stores[0].watch.mode() != "notify" {
		t.Skipf("filesystem notifications unavailable here (mode %q)", stores[0].watch.mode())
	}
	if got := inotifyInstances(t) - before; got != 1 {
		t.Errorf("4 stores with waiters use %d inotify instances, want 1", got)
	}
	for _, st := range stores {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := inotifyInstances(t) - before; got != 0 {
		t.Errorf("%d inotify instances left after closing every store", got)
	}
}
