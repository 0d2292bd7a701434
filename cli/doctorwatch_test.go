package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/stickhq/stick/store"
)

// TestDoctorFileWatching: doctor says whether waiters can watch files, and
// warns, with the fix, when they cannot or the user's inotify instances
// are nearly all taken.
func TestDoctorFileWatching(t *testing.T) {
	_, checks := doctor(t)
	if len(checks["file watching"]) != 1 {
		t.Fatalf("doctor has no file watching check: %+v", checks)
	}
	for _, tc := range []struct {
		r      store.WatchReport
		status string
		msg    string
	}{
		{store.WatchReport{Used: 3, Limit: 128}, checkOK, "3 of 128 inotify instances"},
		{store.WatchReport{Used: 120, Limit: 128}, checkWarn, "nearly out"},
		{store.WatchReport{Err: errors.New("too many open files"), Used: 128, Limit: 128}, checkWarn, "poll"},
		{store.WatchReport{}, checkOK, "file events"},
	} {
		c := watchCheck(tc.r)
		if c.Status != tc.status || !strings.Contains(c.Message, tc.msg) {
			t.Errorf("%+v: got %+v, want %s with %q", tc.r, c, tc.status, tc.msg)
		}
		if c.Status == checkWarn && !strings.Contains(c.Fix, "max_user_instances") {
			t.Errorf("%+v: the fix %q says not how", tc.r, c.Fix)
		}
	}
}
