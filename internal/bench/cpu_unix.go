//go:build unix

package bench

import (
	"syscall"
	"time"
)

// selfCPU is the processor time this process has used, to the microsecond.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
