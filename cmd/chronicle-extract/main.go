package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/casper-chronicle/chronicle/cmd/internal/climain"
	"github.com/casper-chronicle/chronicle/engine/extract"
	_ "github.com/casper-chronicle/chronicle/engine/extract/parsers" // registers the parsers
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == extract.WorkerFlag {
		// A worker's live heap is one original at a time, a few MB: at
		// the default GOGC it collects every few MB of allocation, which
		// made parsing pages here 40 % slower than in a chronicle whose
		// heap holds a batch. Collect at 5x the live heap, and more
		// often again near 1 GiB, for the rare huge original.
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(1 << 30)
		if err := extract.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "chronicle-extract:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(climain.Run(os.Args[1:]))
}
