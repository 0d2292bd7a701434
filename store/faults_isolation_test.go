package store_test

import (
	"path/filepath"
	"testing"

	"github.com/stickhq/stick/internal/testkit"
)

// isolation is a way to run a helper process so that a fault can be made
// that the test process itself cannot make or suffer.
type isolation int

const (
	// asUnprivileged runs the helper in a new user namespace as a user
	// other than root who owns the test's files, without capabilities, so
	// permission bits bind even when the tests run as root.
	asUnprivileged isolation = iota
	// inMountNamespace runs the helper in a private mount namespace (in a
	// new user namespace when the tests do not run as root), so it may
	// mount, and its mounts never outlive it or show outside it.
	inMountNamespace
)

func (i isolation) String() string {
	if i == asUnprivileged {
		return "as an unprivileged user in a new user namespace"
	}
	return "in a private mount namespace"
}

// runner opens dir with opener under a fault.
type runner func(t *testing.T, opener, dir string) outcome

// inProcess opens in the test process.
func inProcess(_ *testing.T, opener, dir string) outcome { return attempt(opener, dir) }

// unprivileged opens as a user whom permission bits bind: in the test
// process when they bind it, else (root, or CAP_DAC_OVERRIDE) in a helper
// run asUnprivileged.
func unprivileged(t *testing.T, opener, dir string) outcome {
	if testkit.PermissionBitsBind() {
		return attempt(opener, dir)
	}
	t.Logf("permission bits do not bind this process (root): opening %s", asUnprivileged)
	return openInHelper(t, asUnprivileged, opener, dir, "")
}

// readOnlyMount opens in a helper in whose mount namespace the path rel
// inside dir ("" for dir itself) is a read-only bind mount: a read-only
// filesystem, which binds root too.
func readOnlyMount(rel string) runner {
	return func(t *testing.T, opener, dir string) outcome {
		return openInHelper(t, inMountNamespace, opener, dir, filepath.Join(dir, rel))
	}
}

// openHelper names the helper that prints the outcome of one open.
const openHelper = "open-under-fault"

// openInHelper runs openHelper isolated by iso, with roPath (if not "")
// mounted read-only, and skips the test when the fault cannot be made.
func openInHelper(t *testing.T, iso isolation, opener, dir, roPath string) outcome {
	t.Helper()
	args := []string{opener, dir}
	if roPath != "" {
		args = append(args, roPath)
	}
	var out outcome
	runIsolated(t, iso, &out, openHelper, args...)
	if out.Setup != "" {
		t.Skipf("cannot make the fault %s: %s", iso, out.Setup)
	}
	return out
}
