//go:build !linux

package procid

import (
	"errors"
	"fmt"
	"slices"

	"github.com/shirou/gopsutil/v4/process"
)

// readProc reads the facts for pid through gopsutil: the creation time the
// kernel recorded (sysctl kinfo_proc on macOS and the BSDs, GetProcessTimes
// on Windows) and whether the process has exited but still holds its pid.
// Linux has its own reader, see proc_linux.go.
func readProc(pid int) (procFacts, error) {
	if pid > 1<<31-1 {
		return procFacts{}, ErrNoProcess
	}
	p, err := process.NewProcess(int32(pid))
	if errors.Is(err, process.ErrorProcessNotRunning) {
		return procFacts{}, ErrNoProcess
	}
	if err != nil {
		return procFacts{}, fmt.Errorf("read process facts: %w", err)
	}
	created, err := p.CreateTime()
	if err != nil {
		return procFacts{}, fmt.Errorf("read process start time: %w", err)
	}
	facts := procFacts{startMillis: created}
	if ppid, err := p.Ppid(); err == nil {
		facts.ppid = int(ppid)
	}
	if name, err := p.Name(); err == nil {
		facts.name = name
	}
	if st, err := p.Status(); err == nil {
		facts.exited = slices.Contains(st, process.Zombie)
	}
	return facts, nil
}
