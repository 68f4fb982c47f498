package main

import (
	"fmt"
	"io"
	"os"
)

// Exit codes of the original tool (CONTRACT 1).
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitUnsupported = 3
)

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run dispatches purely on the argument count and the first argument, as the
// original does; anything else is a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	prog := "casper-chronicle"
	if len(args) > 0 {
		prog = args[0]
	}
	c := &cli{stdout: stdout, stderr: stderr}
	switch {
	case len(args) == 3 && args[1] == "ingest":
		return c.ingest(args[2])
	case len(args) == 4 && args[1] == "query":
		return c.query(args[2], args[3])
	case len(args) == 4 && args[1] == "find":
		return c.find(args[2], args[3])
	case len(args) == 6 && args[1] == "claim":
		return c.claim(args[2], args[3], args[4], args[5])
	case len(args) == 3 && args[1] == "verify":
		return c.verify(args[2])
	case len(args) == 2 && args[1] == "--self-check":
		return c.selfCheck()
	case len(args) == 2 && args[1] == "--benchmark":
		return c.benchmark()
	}
	fmt.Fprintf(stderr, "usage:\n  %[1]s ingest FILE\n  %[1]s query STORE \"QUESTION\"\n  %[1]s find STORE \"TERMS\"\n"+
		"  %[1]s claim STORE SUBJECT PREDICATE OBJECT\n  %[1]s verify RECEIPT\n  %[1]s --self-check\n  %[1]s --benchmark\n", prog)
	return exitUsage
}

// cli carries the output streams of one invocation.
type cli struct {
	stdout, stderr io.Writer
}

// fail prints a one-line diagnostic on stderr (the original prints nothing,
// so stdout stays identical) and returns the exit code.
func (c *cli) fail(code int, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "casper-chronicle: "+format+"\n", args...)
	return code
}
