package repl

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"github.com/casper-chronicle/chronicle/engine/extract"
	"github.com/casper-chronicle/chronicle/platform"
)

// handOffIngest runs a one-command `chronicle ingest` in the
// chronicle-extract beside this binary, which is chronicle with the HTML
// and mail parsers linked in, and reports whether it did (err is then the
// command's outcome, when it could not replace this process).
//
// Why: this binary leaves the parsers out, so that every command starts
// without their libraries' initialisation (about a millisecond); its
// ingest would send each mail and page to a chronicle-extract worker, and
// the round trips, copies and the worker's own collector made a batch of
// them 15-25 % slower than parsing in process. Ingest is the one command
// that parses in bulk, so it runs where the parsers are: on Unix the
// process becomes chronicle-extract (exec: same process, terminal,
// signals and exit code); on Windows it runs it as a child. In a session
// or a script (CommandLine nil), or without chronicle-extract, ingest
// runs here and parses through workers.
func handOffIngest(x *invocation) (bool, error) {
	if x.env.CommandLine == nil || extract.ParsersLinked() {
		return false, nil
	}
	self, err := os.Executable()
	if err != nil {
		return false, nil
	}
	name := extract.WorkerName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	full := filepath.Join(filepath.Dir(self), name)
	if fi, err := os.Stat(full); err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	err = platform.Replace(full, append([]string{full}, x.env.CommandLine...), os.Environ())
	if errors.Is(err, errors.ErrUnsupported) { // Windows: run it as a child
		return true, runBeside(x, name, "ingest", x.env.CommandLine...)
	}
	return false, nil // exec failed: ingest here (on success it never returns)
}
