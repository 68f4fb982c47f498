package main

import (
	"fmt"
	"os"

	"github.com/casper-chronicle/chronicle/repl"
)

func main() {
	os.Exit(run())
}

// run is the command; with CHRONICLE_MEMSTATS set it samples the process's
// memory and writes the figures at exit (doc.go).
func run() int {
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
