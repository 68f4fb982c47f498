package climain

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/casper-chronicle/chronicle/repl"
)

// Run is the chronicle command on args; with CHRONICLE_MEMSTATS set it samples the process's
// memory and writes the figures at exit (doc.go).
func Run(args []string) int {
	if path := os.Getenv(CPUProfileEnv); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "chronicle: %s: %v\n", CPUProfileEnv, err)
			return 1
		}
		defer stop()
	}
	statsPath := os.Getenv(MemstatsEnv)
	if statsPath == "" {
		return repl.Main(args)
	}
	sampler := startMemSampler()
	code := repl.Main(args)
	if err := sampler.write(statsPath); err != nil {
		fmt.Fprintf(os.Stderr, "chronicle: %s: %v\n", MemstatsEnv, err)
	}
	return code
}

// CPUProfileEnv names the file a CPU profile of the whole command is
// written to (doc.go).
const CPUProfileEnv = "CHRONICLE_CPUPROFILE"

// startCPUProfile starts profiling into path (created 0600); stop ends it.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "chronicle: %s: %v\n", CPUProfileEnv, err)
		}
	}, nil
}
