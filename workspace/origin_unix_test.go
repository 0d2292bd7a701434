//go:build unix

package workspace

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO in place of the config file is not read, so keying never waits
// for a writer that never comes.
func TestKeyFIFOConfig(t *testing.T) {
	dir := filepath.Join(tempBase(t), "fifo")
	mkdirs(t, dir, ".git")
	if err := syscall.Mkfifo(filepath.Join(dir, ".git", "config"), 0o644); err != nil {
		t.Skip(err)
	}
	writeFile(t, dir, "go.mod", "module x\n")
	wantLocalKey(t, "config is a fifo", Local{HostID: "h1"}, dir)
}
