package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/repl/mcpserver"
)

func main() {
	// The server owns its process: a looping page tree ends it with the
	// archive's one line on stderr, not the runtime's stack dump
	// (db/stackwatch.go).
	db.WatchStack()
	db.KeepDecodedRecords() // it answers request after request
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("chronicle-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("db", "", "archive file (required; `chronicle mcp` resolves it)")
	wait := fs.Duration("wait", db.LockTimeout, "how long to wait for another process's lock")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *path == "" || fs.NArg() > 0 || *wait < 0 {
		fmt.Fprintln(stderr, "usage: chronicle-mcp --db PATH [--wait DURATION] (started by `chronicle mcp`)")
		return 2
	}
	if err := mcpserver.New(mcpserver.Options{DBPath: *path, Wait: time.Duration(*wait)}).Run(context.Background()); err != nil {
		fmt.Fprintf(stderr, "chronicle mcp: %v\n", err)
		return 1
	}
	return 0
}
