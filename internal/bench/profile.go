package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
)

// ProfileEnv names the directory where every process of a scenario (this
// one and the children it starts in a role) writes its CPU, block and
// mutex profiles, one set per process, for 'go tool pprof' to merge: the
// way to see where a scenario's time goes, on the CPU and off it.
const ProfileEnv = "STICKBENCH_PROFILE"

// startProfiles starts the profiles of this process when ProfileEnv names
// a directory, and returns the function that writes them; name and the
// process id make the files' names.
func startProfiles(name string) func() {
	dir := os.Getenv(ProfileEnv)
	if dir == "" {
		return func() {}
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%d", name, os.Getpid()))
	f, err := os.Create(base + ".cpu")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: profile: %v\n", name, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		fmt.Fprintf(os.Stderr, "%s: profile: %v\n", name, err)
		return func() {}
	}
	runtime.SetBlockProfileRate(10_000) // one sample per 10 µs blocked
	runtime.SetMutexProfileFraction(10)
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		for _, p := range []string{"block", "mutex"} {
			if out, err := os.Create(base + "." + p); err == nil {
				_ = pprof.Lookup(p).WriteTo(out, 0)
				out.Close()
			}
		}
	}
}
