package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
	"github.com/casper-chronicle/chronicle/platform"
)

// proc is the outcome of one child process.
type proc struct {
	wall   time.Duration
	maxRSS int64 // KiB; 0 when the platform keeps none
	out    []byte
	errOut []byte
	code   int
}

// timeBin is GNU time, used for peak RSS where it exists: the rusage of a
// child forked by this (large, once the corpus is read) process counts
// this process's pages, since the kernel charges the pages present at the
// fork and exec to the child's peak.
var timeBin, _ = exec.LookPath("/usr/bin/time")

// runRSS runs like runProc, measuring the child's own peak RSS: under GNU
// time when it is there, else through this program started again as a
// small helper (peakRSS.Helper) for the same reason.
func runRSS(dir string, name string, args ...string) (proc, error) {
	f, err := os.CreateTemp("", "benchscale-rss")
	if err != nil {
		return proc{}, fmt.Errorf("peak RSS file: %w", err)
	}
	f.Close()
	defer os.Remove(f.Name())
	var p proc
	if timeBin != "" {
		p, err = runProcEnv(dir, nil, timeBin, append([]string{"-f", "%M", "-o", f.Name(), name}, args...)...)
	} else {
		self, serr := os.Executable()
		if serr != nil {
			return runProcEnv(dir, nil, name, args...)
		}
		argv, _ := json.Marshal(append([]string{name}, args...))
		p, err = runProcEnv(dir, []string{peakRSS.OfEnv + "=" + string(argv), peakRSS.FileEnv + "=" + f.Name()}, self)
	}
	if k, ok := peakRSS.ReadKiB(f.Name()); ok {
		p.maxRSS = k
	}
	return p, err
}

// peakRSS is the helper that measures a command's peak RSS (see
// benchtool.PeakRSS).
var peakRSS = benchtool.PeakRSS{Name: "benchscale", OfEnv: "BENCHSCALE_PEAK_RSS_OF", FileEnv: "BENCHSCALE_PEAK_RSS_FILE"}

// runProc runs name in dir and times it as a whole process. A non-zero
// exit is not an error (rg exits 1 when nothing matches); a command that
// cannot start is.
func runProc(dir string, name string, args ...string) (proc, error) {
	return runProcEnv(dir, nil, name, args...)
}

func runProcEnv(dir string, env []string, name string, args ...string) (proc, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	t := time.Now()
	err := cmd.Run()
	p := proc{wall: time.Since(t), out: out.Bytes(), errOut: stderr.Bytes()}
	if cmd.ProcessState == nil {
		return p, fmt.Errorf("run %s: %w", name, err)
	}
	p.code = cmd.ProcessState.ExitCode()
	if kib, ok := platform.ChildMaxRSS(cmd.ProcessState); ok {
		p.maxRSS = kib
	}
	return p, nil
}

// firstLine is the first line of a command's complaint, for messages.
func (p proc) firstLine() string {
	b := p.errOut
	if len(bytes.TrimSpace(b)) == 0 {
		b = p.out
	}
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}
