//go:build unix

package childproc_test

import (
	"fmt"
	"strconv"
	"syscall"
	"testing"

	"github.com/stickhq/stick/internal/childproc"
	"github.com/stickhq/stick/internal/reexec"
)

func init() {
	reexec.Register("pgrp", func([]string) int {
		fmt.Println(syscall.Getpgrp())
		return 0
	})
}

// OwnGroup puts the child in a process group of its own; without it, the
// child stays in this process's group.
func TestOwnGroup(t *testing.T) {
	for _, own := range []bool{false, true} {
		p := start(t, childproc.Options{OwnGroup: own}, "pgrp")
		line, err := p.Next(t.Context(), safety)
		if err != nil {
			t.Fatal(err)
		}
		want := syscall.Getpgrp()
		if own {
			want = p.PID()
		}
		if line != strconv.Itoa(want) {
			t.Errorf("OwnGroup %v: the child's group is %s, want %d", own, line, want)
		}
	}
}
