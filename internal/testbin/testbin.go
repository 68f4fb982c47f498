// Package testbin builds the repository's commands for the end-to-end
// tests that run them as processes: one place for the `go build` each of
// those test packages used to spell out, and the TestMain that builds
// them once for a package. It is imported by tests only.
package testbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// modulePath is the module the commands live in, under cmd/.
const modulePath = "github.com/casper-chronicle/chronicle"

// Build builds the commands named (directories of cmd/: "chronicle",
// "casper-chronicle", "chronicle-mcp") into dir, each under its own name,
// and returns their paths in the order given. It runs from any directory
// of the module (the packages are named by import path). The error of a
// failed build carries the compiler's output.
//
// The commands are built by one `go build -o DIR/`, which compiles and
// links them in parallel.
func Build(dir string, names ...string) ([]string, error) {
	paths := make([]string, len(names))
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for i, name := range names {
		paths[i] = filepath.Join(dir, name)
		if runtime.GOOS == "windows" {
			paths[i] += ".exe"
		}
		args = append(args, modulePath+"/cmd/"+name)
	}
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building %s: %v\n%s", strings.Join(names, ", "), err, out)
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

// Main is the body of a TestMain whose package runs commands as
// processes: it builds each command named by bins's keys into a new
// temporary directory (commands that run one another, as `chronicle mcp`
// runs chronicle-mcp, find each other there), sets each key's variable to
// its path, runs the tests and removes the directory. It returns the exit
// code for os.Exit; a failed build is reported on stderr and is 1.
//
// The tests sign with the fixed test key (UseTestKey): what they write
// is signed by the same key on every machine, and no test creates a key
// in the user's own config directory.
func Main(m *testing.M, bins map[string]*string) int {
	dir, err := os.MkdirTemp("", "chronicle-testbin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := UseTestKey(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var names []string
	for name := range bins {
		names = append(names, name)
	}
	paths, err := Build(dir, names...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i, name := range names {
		*bins[name] = paths[i]
	}
	return m.Run()
}

// ExitCode is the exit code of a command whose Run or Wait returned err:
// 0 for nil, the process's code for an *exec.ExitError; any other error
// (the command could not start, or its I/O failed) is returned.
func ExitCode(err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	return -1, err
}

// Environ is the process's environment without the variables named: the
// ones a test sets itself for the command it runs.
func Environ(drop ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !slices.Contains(drop, name) {
			env = append(env, kv)
		}
	}
	return env
}

// WaitWithin waits for the started cmd to end, limit at most: past it the
// process is killed and the error says it did not end. Otherwise it is
// Wait's error (an *exec.ExitError for a non-zero exit).
func WaitWithin(cmd *exec.Cmd, limit time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s did not end within %v", filepath.Base(cmd.Path), limit)
	}
}

// TestKeyFile is the fixed Ed25519 test key (an unencrypted OpenSSH
// private key, testdata/keys/test_ed25519 at the repository's root);
// TestKeyFingerprint is its fingerprint, as `chronicle verify` prints it.
const (
	TestKeyFile        = "testdata/keys/test_ed25519"
	TestKeyFingerprint = "SHA256:N459XhJOrBX/lWhyLA75C0VX27HM8JccrxBOxzw0iVA"
)

// KeyEnv is the variable that names the signing key (db/keys.Env).
const KeyEnv = "CHRONICLE_KEY"

// RepoRoot is the repository's root directory, found from this file's.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// UseTestKey copies the test key into dir, mode 0600 (git keeps no
// modes, and a key others may read is refused), and names it in
// $CHRONICLE_KEY for this process and the commands it runs.
func UseTestKey(dir string) error {
	data, err := os.ReadFile(filepath.Join(RepoRoot(), TestKeyFile))
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "test_ed25519")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil { // whatever the umask
		return err
	}
	return os.Setenv(KeyEnv, path)
}

// SSHKeygen is the path of ssh-keygen, the verifier outside the code of
// signed receipts: with CI set its absence fails the test (.ci/run
// installs openssh-client), else the test is skipped.
func SSHKeygen(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("ssh-keygen")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("ssh-keygen is missing (install openssh-client)")
		}
		t.Skip("ssh-keygen is missing")
	}
	return path
}
