package store

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// TestWatchFailureWarnsOnce: when no file watcher can be had, a store still
// opens and polls, and the process says so on stderr once, however many
// stores fall back.
func TestWatchFailureWarnsOnce(t *testing.T) {
	saved := fsHub
	fsHub = &hub{paths: make(map[string]map[*fsSub]bool), testFail: true}
	t.Cleanup(func() { fsHub = saved })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	for range 3 {
		st, err := OpenDir(t.TempDir(), Options{})
		if err != nil {
			os.Stderr = stderr
			t.Fatal(err)
		}
		if st.watch.mode() != "poll" {
			t.Errorf("mode %q, want poll", st.watch.mode())
		}
		if st.Rung("room_1", "a") != nil {
			t.Error("a bell is watched without a file watcher")
		}
		st.Close()
	}
	os.Stderr = stderr
	w.Close()
	var out bytes.Buffer
	_, _ = io.Copy(&out, r)
	if n := strings.Count(out.String(), "cannot watch files"); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "max_user_instances") {
		t.Errorf("the warning says not how to fix it:\n%s", out.String())
	}
}
