package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/casper-chronicle/chronicle/db"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

var (
	binFlag   = flag.String("bin", "bin", "directory of chronicle, chronicle-serve, benchreal and benchscale (make build)")
	docsFlag  = flag.Int("docs", 100000, "documents of the archive of small documents (benchscale's pool; 0 skips it)")
	realFlag  = flag.Bool("real", true, "also measure bench-real's English archive at its full size")
	runsFlag  = flag.Int("runs", 20, "timed requests per page (one untimed warm-up before them)")
	workFlag  = flag.String("work", filepath.Join(os.TempDir(), "chronicle-bench-serve"), "work directory (archives cached here)")
	realWork  = flag.String("real-work", filepath.Join(os.TempDir(), "chronicle-bench-real"), "bench-real's work directory (its run-en-N/archive.db is reused)")
	scaleWork = flag.String("scale-work", filepath.Join(os.TempDir(), "chronicle-bench-scale"), "benchscale's work directory (its document pool is reused)")
	noInstall = flag.Bool("no-install", false, "do not let benchreal and benchscale apt-get what their corpora read")
)

// The targets (28).
const (
	pageTarget = 50 * time.Millisecond // p95 server time of every page
	apiTarget  = 2 * time.Millisecond  // API median over the CLI's in-process median
)

func main() {
	flag.Parse()
	// The in-process runs stand for a REPL session, which keeps decoded
	// records as the server does.
	db.KeepDecodedRecords()
	failed, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchserve:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchserve: "+format+"\n", args...)
}

// run measures each archive and prints the report; failed tells whether
// a request failed or an API answer differed from the CLI's.
func run() (failed bool, err error) {
	start := time.Now()
	if *runsFlag < 1 {
		return false, fmt.Errorf("-runs %d: at least one run is needed", *runsFlag)
	}
	if !*realFlag && *docsFlag <= 0 {
		return false, errors.New("nothing to measure: -real=false and -docs 0")
	}
	bin, err := filepath.Abs(*binFlag)
	if err != nil {
		return false, fmt.Errorf("-bin %s: %w", *binFlag, err)
	}
	chron := exe(bin, "chronicle")
	for _, name := range []string{"chronicle", "chronicle-serve"} {
		if _, err := os.Stat(exe(bin, name)); err != nil {
			return false, fmt.Errorf("%s is missing: run `make build` first (or give -bin DIR)", exe(bin, name))
		}
	}
	if err := os.MkdirAll(*workFlag, 0o755); err != nil {
		return false, fmt.Errorf("create work directory: %w", err)
	}
	var archives []*archive
	if *realFlag {
		a, err := realArchive(bin)
		if err != nil {
			return false, fmt.Errorf("bench-real archive: %w", err)
		}
		archives = append(archives, a)
	}
	if *docsFlag > 0 {
		a, err := scaleArchive(bin, *docsFlag)
		if err != nil {
			return false, fmt.Errorf("%d-document archive: %w", *docsFlag, err)
		}
		archives = append(archives, a)
	}
	printHeader(os.Stdout, chron)
	for _, a := range archives {
		res, err := benchArchive(chron, a)
		if err != nil {
			return false, fmt.Errorf("%s: %w", a.label, err)
		}
		printArchive(os.Stdout, res)
		failed = failed || res.failed()
	}
	fmt.Printf("\nload average at the end %s; total run time %s\n", loadNow(), time.Since(start).Round(time.Second))
	return failed, nil
}

// exe is the path of a command built into bin.
func exe(bin, name string) string {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(bin, name)
}
