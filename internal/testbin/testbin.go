// Package testbin builds the repository's commands for the end-to-end
// tests that run them as processes: one place for the `go build` each of
// those test packages used to spell out. It is imported by tests only.
package testbin

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
)

// modulePath is the module the commands live in, under cmd/.
const modulePath = "github.com/casper-chronicle/chronicle"

// Build builds the commands named (directories of cmd/: "chronicle",
// "casper-chronicle", "chronicle-mcp") into dir, each under its own name,
// and returns their paths in the order given. It runs from any directory
// of the module (the packages are named by import path). The error of a
// failed build carries the compiler's output.
func Build(dir string, names ...string) ([]string, error) {
	paths := make([]string, len(names))
	for i, name := range names {
		paths[i] = filepath.Join(dir, name)
		if out, err := exec.Command("go", "build", "-o", paths[i], modulePath+"/cmd/"+name).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building %s: %v\n%s", name, err, out)
		}
	}
	return paths, nil
}

// Once builds one command on first use, for the tests of a package that
// need a binary the others do not (they then do not pay for its build).
type Once struct {
	once sync.Once
	path string
	err  error
}

// Build builds command name into dir on its first call and returns the
// binary's path, or the first call's error, on every call.
func (o *Once) Build(dir, name string) (string, error) {
	o.once.Do(func() {
		var paths []string
		if paths, o.err = Build(dir, name); o.err == nil {
			o.path = paths[0]
		}
	})
	return o.path, o.err
}
