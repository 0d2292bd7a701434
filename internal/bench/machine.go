package bench

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/host"
)

// Machine names the machine a run measured, so that a table of figures
// says where they come from.
type Machine struct {
	// CPU is the processor's model name, empty when the system does not
	// say.
	CPU string `json:"cpu"`
	// CPUs is the number of logical processors.
	CPUs int `json:"logical_cpus"`
	// OS is the operating system and architecture, as in "linux/amd64".
	OS string `json:"os"`
	// Kernel is the kernel's release (uname -r), empty when unknown.
	Kernel string `json:"kernel,omitempty"`
	// Go is the Go release this program was built with.
	Go string `json:"go"`
}

// ThisMachine describes the machine this program runs on.
func ThisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		Go: strings.TrimPrefix(runtime.Version(), "go")}
	if infos, err := cpu.Info(); err == nil && len(infos) > 0 {
		m.CPU = strings.Join(strings.Fields(infos[0].ModelName), " ")
	}
	if k, err := host.KernelVersion(); err == nil {
		m.Kernel = k
	}
	return m
}

// String reads "2 × AMD EPYC 7B13, linux/amd64, kernel 6.8.0, Go 1.26.8".
func (m Machine) String() string {
	cpuName := m.CPU
	if cpuName == "" {
		cpuName = "processors"
	}
	s := fmt.Sprintf("%d × %s, %s", m.CPUs, cpuName, m.OS)
	if m.Kernel != "" {
		s += ", kernel " + m.Kernel
	}
	return s + ", Go " + m.Go
}
