package procid_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/procid"
)

// liveness is the interface other packages hold; Checker must satisfy it.
type liveness interface {
	Check(procid.Identity) procid.Status
}

var _ liveness = procid.Checker{}

func self(t *testing.T) procid.Identity {
	t.Helper()
	id, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestCheckSelf(t *testing.T) {
	id := self(t)
	if got := procid.Check(id); got != procid.Alive {
		t.Errorf("Check(Self()) = %v, want alive", got)
	}
	if got := (procid.Checker{}).Check(id); got != procid.Alive {
		t.Errorf("Checker.Check(Self()) = %v, want alive", got)
	}
}

func TestCheckStartTime(t *testing.T) {
	id := self(t)
	for _, tc := range []struct {
		shift time.Duration
		want  procid.Status
	}{
		{time.Millisecond, procid.Gone},
		{-time.Millisecond, procid.Gone},
		{10 * time.Millisecond, procid.Gone},
		{1500 * time.Millisecond, procid.Gone},
		// Whole seconds may be a wall-clock step on Linux: not proof.
		{time.Second, procid.Unknown},
		{-3 * time.Second, procid.Unknown},
		// Sub-millisecond differences do not count: times are compared at
		// millisecond precision.
		{time.Microsecond, procid.Alive},
	} {
		moved := id
		moved.StartedAt = id.StartedAt.Add(tc.shift)
		if got := procid.Check(moved); got != tc.want {
			t.Errorf("Check(start %+v) = %v, want %v", tc.shift, got, tc.want)
		}
	}
	local := id
	local.StartedAt = id.StartedAt.Local()
	if got := procid.Check(local); got != procid.Alive {
		t.Errorf("Check(start in local time) = %v, want alive", got)
	}
}

func TestCheckReapedChild(t *testing.T) {
	id := goneIdentity(t)
	if got := procid.Check(id); got != procid.Gone {
		t.Errorf("Check(reaped child %v) = %v, want gone", id, got)
	}
}

func TestCheckLiveChild(t *testing.T) {
	p, id := startBlocked(t)
	if got := procid.Check(id); got != procid.Alive {
		t.Errorf("Check(live child) = %v, want alive", got)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if got := procid.Check(id); got != procid.Gone {
		t.Errorf("Check(killed child) = %v, want gone", got)
	}
}

func TestCheckHostAndBoot(t *testing.T) {
	id := self(t)

	other := id
	other.HostID = "another-host"
	if got := procid.Check(other); got != procid.Unknown {
		t.Errorf("Check(other host) = %v, want unknown", got)
	}

	noHost := id
	noHost.HostID = ""
	if got := procid.Check(noHost); got != procid.Unknown {
		t.Errorf("Check(no host id) = %v, want unknown", got)
	}

	noBoot := id
	noBoot.BootID = ""
	if got := procid.Check(noBoot); got != procid.Alive {
		t.Errorf("Check(no boot id) = %v, want alive", got)
	}

	if id.BootID == "" {
		t.Skip("no boot id on this platform")
	}
	rebooted := id
	rebooted.BootID = "an-earlier-boot"
	if got := procid.Check(rebooted); got != procid.Gone {
		t.Errorf("Check(other boot) = %v, want gone", got)
	}
}

func TestCheckZeroAndInvalid(t *testing.T) {
	id := self(t)
	for _, tc := range []procid.Identity{
		{},
		{HostID: id.HostID, BootID: id.BootID, PID: id.PID},
		{HostID: id.HostID, BootID: id.BootID, StartedAt: id.StartedAt},
		{HostID: id.HostID, BootID: id.BootID, PID: -id.PID, StartedAt: id.StartedAt},
	} {
		if got := procid.Check(tc); got != procid.Unknown {
			t.Errorf("Check(%v) = %v, want unknown", tc, got)
		}
	}
}

// BenchmarkCheckAlive measures checking a live process again, as every
// read of a room checks its holder.
func BenchmarkCheckAlive(b *testing.B) {
	id, err := procid.Self()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if procid.Check(id) != procid.Alive {
			b.Fatal("self not alive")
		}
	}
}
