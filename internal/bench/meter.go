package bench

import (
	"os"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// meter measures the wall time of a scenario's measured part and the
// processor time that this process and its children used in it: the
// children of the given pids, which must still run when stop is called,
// and those started and reaped meanwhile, added with addReaped.
type meter struct {
	wall   time.Time
	pids   []int
	self   time.Duration
	kids   time.Duration
	reaped time.Duration
	// childrenOnly leaves this process out (it only watches).
	childrenOnly bool
}

func startMeter(pids ...int) *meter {
	m := &meter{pids: pids}
	m.self, m.kids = selfCPU(), cpuOf(m.pids)
	m.wall = time.Now()
	return m
}

// addReaped counts the processor time of a child that has exited and was
// reaped, from its resource usage st (nil counts nothing).
func (m *meter) addReaped(st *os.ProcessState) {
	if st != nil {
		m.reaped += st.UserTime() + st.SystemTime()
	}
}

// stop fills r's throughput (count operations per second) and CPU, and
// returns the wall time.
func (m *meter) stop(r *Result, count int) time.Duration {
	wall := time.Since(m.wall)
	cpu := cpuOf(m.pids) - m.kids + m.reaped
	if !m.childrenOnly {
		cpu += selfCPU() - m.self
	}
	r.Throughput = float64(count) / wall.Seconds()
	r.CPU = 100 * cpu.Seconds() / wall.Seconds()
	return wall
}

// cpuOf sums the user and system time of running processes, in the
// system's clock ticks (10 ms on Linux); one that cannot be read counts
// as zero.
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
