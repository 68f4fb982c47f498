package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/casper-chronicle/chronicle/repl"
)

func main() {
	os.Exit(run())
}

// run is the command; with CHRONICLE_MEMSTATS set it samples the process's
// memory and writes the figures at exit (doc.go).
func run() int {
	if path := os.Getenv(cpuprofileEnv); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "chronicle: %s: %v\n", cpuprofileEnv, err)
			return 1
		}
		defer stop()
	}
	statsPath := os.Getenv(memstatsEnv)
	if statsPath == "" {
		return repl.Main(os.Args[1:])
	}
	sampler := startMemSampler()
	code := repl.Main(os.Args[1:])
	if err := sampler.write(statsPath); err != nil {
		fmt.Fprintf(os.Stderr, "chronicle: %s: %v\n", memstatsEnv, err)
	}
	return code
}

// cpuprofileEnv names the file a CPU profile of the whole command is
// written to (doc.go).
const cpuprofileEnv = "CHRONICLE_CPUPROFILE"

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
			fmt.Fprintf(os.Stderr, "chronicle: %s: %v\n", cpuprofileEnv, err)
		}
	}, nil
}
