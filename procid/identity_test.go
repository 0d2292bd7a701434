package procid_test

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/procid"
)

func TestSelf(t *testing.T) {
	id, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	if id.PID != os.Getpid() {
		t.Errorf("PID = %d, want %d", id.PID, os.Getpid())
	}
	if id.IsZero() {
		t.Fatalf("Self() = %v is zero", id)
	}
	if id.StartedAt.Location() != time.UTC || !id.StartedAt.Equal(id.StartedAt.Truncate(time.Millisecond)) {
		t.Errorf("StartedAt = %v, want UTC truncated to milliseconds", id.StartedAt)
	}
	// A sanity bound on units, not on timing: the test started recently.
	if age := time.Since(id.StartedAt); age < -time.Minute || age > time.Hour {
		t.Errorf("StartedAt = %v is %v ago; start time computed in the wrong unit?", id.StartedAt, age)
	}
	if runtime.GOOS == "linux" && (id.HostID == "" || id.BootID == "") {
		t.Errorf("HostID = %q, BootID = %q; want both set on Linux", id.HostID, id.BootID)
	}
	host, boot, err := procid.Host()
	if err != nil {
		t.Fatal(err)
	}
	if host != id.HostID || boot != id.BootID {
		t.Errorf("Host() = %q, %q; Self() has %q, %q", host, boot, id.HostID, id.BootID)
	}
}

// TestOfStable checks that reading the start time again gives exactly the
// same value: Check relies on equality.
func TestOfStable(t *testing.T) {
	self, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	_, child := startBlocked(t)
	for i := 0; i < 500; i++ {
		for _, want := range []procid.Identity{self, child} {
			got, err := procid.Of(want.PID)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("call %d: Of(%d) = %v, want %v", i, want.PID, got, want)
			}
		}
	}
	if !child.StartedAt.After(self.StartedAt) && !child.StartedAt.Equal(self.StartedAt) {
		t.Errorf("child started %v, before its parent (%v)", child.StartedAt, self.StartedAt)
	}
}

func TestParent(t *testing.T) {
	id, err := procid.Parent()
	if err != nil {
		t.Fatal(err)
	}
	if id.PID != os.Getppid() {
		t.Errorf("PID = %d, want %d", id.PID, os.Getppid())
	}
	if got := procid.Check(id); got != procid.Alive {
		t.Errorf("Check(Parent()) = %v, want alive", got)
	}
}

func TestOfAbsent(t *testing.T) {
	id := goneIdentity(t)
	got, err := procid.Of(id.PID)
	if err == nil {
		// The pid was reused at once; then it must be another process.
		if got.StartedAt.Equal(id.StartedAt) {
			t.Fatalf("Of(%d) after reaping = %v, the same process", id.PID, got)
		}
		t.Skipf("pid %d reused immediately", id.PID)
	}
	if !errors.Is(err, procid.ErrNoProcess) {
		t.Errorf("Of(%d) after reaping: err = %v, want ErrNoProcess", id.PID, err)
	}
}

func TestOfInvalid(t *testing.T) {
	for _, pid := range []int{0, -1, -1 << 40} {
		if _, err := procid.Of(pid); err == nil || errors.Is(err, procid.ErrNoProcess) {
			t.Errorf("Of(%d): err = %v, want an invalid-pid error", pid, err)
		}
	}
}

func TestIsZero(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		id   procid.Identity
		want bool
	}{
		{procid.Identity{}, true},
		{procid.Identity{PID: 1}, true},
		{procid.Identity{StartedAt: now}, true},
		{procid.Identity{PID: 1, StartedAt: now}, false},
	} {
		if got := tc.id.IsZero(); got != tc.want {
			t.Errorf("%#v.IsZero() = %v, want %v", tc.id, got, tc.want)
		}
	}
}

func TestString(t *testing.T) {
	id := procid.Identity{
		HostID:    "0123456789abcdef",
		PID:       123,
		StartedAt: time.Date(2026, 11, 22, 18, 0, 0, 123e6, time.UTC),
	}
	if got, want := id.String(), "pid 123 started 2026-11-22T18:00:00.123Z on 01234567"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	id.StartedAt = time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC)
	if got := id.String(); !strings.Contains(got, "18:00:00.000Z") {
		t.Errorf("String() = %q, want milliseconds shown", got)
	}
	if got := (procid.Identity{}).String(); got != "pid 0 (start unknown) on unknown host" {
		t.Errorf("zero String() = %q", got)
	}
}

func TestStatusString(t *testing.T) {
	for st, want := range map[procid.Status]string{
		procid.Unknown: "unknown",
		procid.Alive:   "alive",
		procid.Gone:    "gone",
		7:              "Status(7)",
	} {
		if got := st.String(); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", int(st), got, want)
		}
	}
}

func TestSameComparesInstants(t *testing.T) {
	id, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	local := id
	local.StartedAt = id.StartedAt.In(time.FixedZone("elsewhere", 3600))
	if !id.Same(local) {
		t.Fatal("the same start time in another zone is another process")
	}
	other := id
	other.StartedAt = id.StartedAt.Add(time.Millisecond)
	if id.Same(other) {
		t.Fatal("another start time is the same process")
	}
}
