//go:build !unix

package bench

import (
	"os"
	"time"
)

// selfCPU is the processor time this process has used, in clock ticks.
func selfCPU() time.Duration { return cpuOf([]int{os.Getpid()}) }
