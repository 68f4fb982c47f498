package benchtool

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// Cores is the number of processors this process may use (nproc, which
// honours the CPU affinity a shared machine may set; runtime.NumCPU where
// nproc is missing).
func Cores() int {
	if out, err := exec.Command("nproc").Output(); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
			return n
		}
	}
	return runtime.NumCPU()
}

// CPUModel is the first "model name" of /proc/cpuinfo (Linux), else
// "unknown CPU".
func CPUModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// GoVersion is what `go version` prints: the toolchain that built the
// binaries measured (make builds them with the go on PATH).
func GoVersion() string {
	out, _ := exec.Command("go", "version").Output()
	return strings.TrimSpace(string(out))
}

// LoadAvg is the 1-minute load average (Linux), to show how busy the
// machine was: the benchmarks' figures are wall times.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "unknown"
	}
	return f[0]
}
