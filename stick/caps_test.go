package stick_test

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// A wait in seconds is checked against the cap before it becomes a
// duration: no value overflows into a wait that passes, and the refusal
// names the value given.
func TestWaitSeconds(t *testing.T) {
	for n, want := range map[int64]time.Duration{0: 0, 1: time.Second, 600: stick.MaxWaitLimit} {
		if d, err := stick.WaitSeconds(n); err != nil || d != want {
			t.Errorf("WaitSeconds(%d) = %v, %v; want %v", n, d, err, want)
		}
	}
	for _, n := range []int64{-1, 601, math.MaxInt64 / int64(time.Second) * 4, math.MaxInt64, math.MinInt64} {
		_, err := stick.WaitSeconds(n)
		se := wantCode(t, err, stick.CodeInvalidArgument)
		want := "wait_seconds must be between 0 and 600 seconds (10m0s), got " + strconv.FormatInt(n, 10) + " seconds"
		if se.Message != want || se.Details["field"] != "wait_seconds" {
			t.Errorf("WaitSeconds(%d): %+v", n, se)
		}
	}
}

// Sync refuses a wait over the cap with the words WaitSeconds uses.
func TestSyncWaitCap(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	_, err := e.svc.Sync(e.ctx, a, room, stick.SyncRequest{Wait: stick.MaxWaitLimit + time.Second})
	_, want := stick.WaitSeconds(int64((stick.MaxWaitLimit + time.Second) / time.Second))
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Message != stick.AsError(want).Message {
		t.Fatalf("sync over the cap: %q, want %q", se.Message, stick.AsError(want).Message)
	}
}
