package procid_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
)

// safety bounds waits that would otherwise hang a broken test; it is never
// what a test asserts.
const safety = 10 * time.Second

func TestMain(m *testing.M) {
	testproc.Register("block", func([]string) int {
		fmt.Println("ready")
		for {
			time.Sleep(time.Hour)
		}
	})
	testproc.Register("parent-name", parentName)
	testproc.Main(m)
}

// startBlocked starts a helper that runs until killed and returns it with
// its identity, read once it is up.
func startBlocked(t *testing.T) (*testproc.Proc, procid.Identity) {
	t.Helper()
	p := testproc.Start(t, "block")
	if line, err := p.ReadLine(safety); err != nil || line != "ready" {
		t.Fatalf("helper: ReadLine = %q, %v; want ready", line, err)
	}
	id, err := procid.Of(p.PID())
	if err != nil {
		t.Fatal(err)
	}
	return p, id
}

// goneIdentity returns the identity of a child that was killed and reaped.
func goneIdentity(t *testing.T) procid.Identity {
	t.Helper()
	p, id := startBlocked(t)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	return id
}
