package bench

import (
	"os"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// meter measures the wall time of a scenario's measured part and the
// processor time that this process and the given children used in it.
// The children must still run when stop is called.
type meter struct {
	wall time.Time
	pids []int
	cpu  time.Duration
}

func startMeter(cs ...*child) meter {
	m := meter{pids: []int{os.Getpid()}}
	for _, c := range cs {
		m.pids = append(m.pids, c.pid())
	}
	m.cpu = cpuOf(m.pids)
	m.wall = time.Now()
	return m
}

// stop fills r's throughput (count operations per second) and CPU, and
// returns the wall time.
func (m meter) stop(r *Result, count int) time.Duration {
	wall := time.Since(m.wall)
	cpu := cpuOf(m.pids) - m.cpu
	r.Throughput = float64(count) / wall.Seconds()
	r.CPU = 100 * cpu.Seconds() / wall.Seconds()
	return wall
}

// cpuOf sums the user and system time of the processes; one that cannot
// be read counts as zero.
func cpuOf(pids []int) time.Duration {
	var total float64
	for _, pid := range pids {
		p, err := process.NewProcess(int32(pid))
		if err != nil {
			continue
		}
		if t, err := p.Times(); err == nil {
			total += t.User + t.System
		}
	}
	return time.Duration(total * float64(time.Second))
}

// rss returns the resident set size of a process in bytes, and its peak
// where the system reports one (Linux: VmHWM), else the current size.
func rss(pid int) (now, peak uint64, err error) {
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		return 0, 0, err
	}
	mi, err := p.MemoryInfo()
	if err != nil {
		return 0, 0, err
	}
	return mi.RSS, max(mi.RSS, peakRSS(pid)), nil
}
