//go:build linux

package procid

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// readProc reads the facts for pid from /proc/<pid>/stat.
//
// Linux reads /proc itself rather than through gopsutil, for three reasons
// that matter to exact liveness: gopsutil recomputes boot time from
// /proc/uptime on every call inside containers (so one process can show
// drifting start times), it reports a process whose main thread exited while
// other threads run as a zombie, and it cannot tell a foreign pid namespace.
// The start time is computed like gopsutil's Process.CreateTime: the
// kernel's boot time (btime in /proc/stat, whole seconds) plus the start
// offset in clock ticks since boot, in milliseconds.
func readProc(pid int) (procFacts, error) {
	if err := checkProcfs(); err != nil {
		return procFacts{}, err
	}
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ESRCH) {
			return procFacts{}, probeAbsent(pid, err)
		}
		return procFacts{}, fmt.Errorf("read process facts: %w", err)
	}
	st, err := parseStat(data)
	if err != nil {
		return procFacts{}, fmt.Errorf("parse %s: %w", path, err)
	}
	btime, err := bootTimeSeconds()
	if err != nil {
		return procFacts{}, err
	}
	hz := clockTicks()
	if st.ticks > (1<<62)/1000 {
		return procFacts{}, fmt.Errorf("parse %s: start time %d out of range", path, st.ticks)
	}
	return procFacts{
		startMillis: btime*1000 + int64(st.ticks*1000/hz),
		// A zombie whose other threads still run is a live process whose
		// main thread exited; only a zombie without threads has exited.
		exited: st.state == 'X' || st.state == 'x' || (st.state == 'Z' && st.threads <= 1),
		ppid:   st.ppid,
		name:   st.name,
	}, nil
}

// checkProcfs verifies that /proc shows this process's own pid namespace.
// After unshare(CLONE_NEWPID) without remounting /proc it shows the outer
// one, and /proc/<pid> would describe an unrelated process.
func checkProcfs() error {
	self, err := os.Readlink("/proc/self")
	if err != nil {
		return err
	}
	if pid := os.Getpid(); self != strconv.Itoa(pid) {
		return fmt.Errorf("/proc belongs to another pid namespace (/proc/self is %q, pid is %d)", self, pid)
	}
	return nil
}

// probeAbsent tells "no such process" apart from "hidden from us" (procfs
// mounted with hidepid) after /proc/<pid> was not found: only kill(pid, 0)
// failing with ESRCH proves the pid is free.
func probeAbsent(pid int, readErr error) error {
	err := unix.Kill(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return ErrNoProcess
	}
	return fmt.Errorf("pid exists but procfs does not show it: %w", readErr)
}

// stat holds the fields of /proc/<pid>/stat that liveness and lineage need.
type stat struct {
	name    string
	state   byte
	ppid    int
	threads int64
	ticks   uint64
}

// parseStat extracts the command name (field 2), the state (field 3), the
// parent pid (field 4), the number of threads (field 20) and the start time
// in clock ticks since boot (field 22) from the content of /proc/<pid>/stat.
// The command name is in parentheses and may itself contain spaces and
// parentheses, so the other fields are counted from the last ')'.
func parseStat(data []byte) (stat, error) {
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 0 || end < open || end+2 > len(data) {
		return stat{}, errors.New("no command name")
	}
	fields := bytes.Fields(data[end+2:])
	const (
		first        = 3 // proc(5) numbers fields from 1; fields starts at 3
		stateField   = 3 - first
		ppidField    = 4 - first
		threadsField = 20 - first
		startField   = 22 - first
	)
	if len(fields) <= startField || len(fields[stateField]) != 1 {
		return stat{}, errors.New("too few fields")
	}
	st := stat{name: string(data[open+1 : end]), state: fields[stateField][0]}
	var err error
	if st.ppid, err = strconv.Atoi(string(fields[ppidField])); err != nil {
		return stat{}, fmt.Errorf("ppid: %w", err)
	}
	if st.threads, err = strconv.ParseInt(string(fields[threadsField]), 10, 64); err != nil {
		return stat{}, fmt.Errorf("num_threads: %w", err)
	}
	if st.ticks, err = strconv.ParseUint(string(fields[startField]), 10, 64); err != nil {
		return stat{}, fmt.Errorf("starttime: %w", err)
	}
	return st, nil
}

// bootTimeSeconds returns the kernel's boot time (btime in /proc/stat) in
// seconds since the epoch. It is read on every call rather than cached, so
// that all processes on the host derive start times from the same value.
func bootTimeSeconds() (int64, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, fmt.Errorf("read boot time: %w", err)
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			v, err := strconv.ParseInt(string(bytes.TrimSpace(rest)), 10, 64)
			if err != nil || v <= 0 || v > (1<<62)/1000 {
				return 0, fmt.Errorf("read boot time: bad btime %q", bytes.TrimSpace(rest))
			}
			return v, nil
		}
	}
	return 0, errors.New("read boot time: no btime in /proc/stat")
}

// atClkTck is the auxiliary vector key for the clock tick rate (USER_HZ).
const atClkTck = 17

// clockTicks returns USER_HZ, the unit of start times in /proc: the value
// the kernel passes in the auxiliary vector, else 100 (its value on every
// architecture Go supports).
var clockTicks = sync.OnceValue(func() uint64 {
	if auxv, err := unix.Auxv(); err == nil {
		for _, kv := range auxv {
			if kv[0] == atClkTck && kv[1] > 0 {
				return uint64(kv[1])
			}
		}
	}
	return 100
})
