package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBuild builds two commands by name from this package's directory
// and runs them; Once builds one once and reports the first error again.
func TestBuild(t *testing.T) {
	dir := t.TempDir()
	paths, err := Build(dir, "chronicle", "casper-chronicle")
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, "chronicle"), filepath.Join(dir, "casper-chronicle")}, paths)
	out, err := exec.Command(paths[0], "--version").Output()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(out), "chronicle "), "%q", out)
	out, _ = exec.Command(paths[1], "--help").CombinedOutput()
	require.Contains(t, string(out), "casper-chronicle")

	var bad Once
	_, err = bad.Build(dir, "no-such-command")
	require.ErrorContains(t, err, "building no-such-command")
	_, again := bad.Build(dir, "chronicle")
	require.Equal(t, err, again, "the first build's outcome stands")
}

// TestExitCode: nil is 0, an exit is its code, a failure to start is an
// error.
func TestExitCode(t *testing.T) {
	code, err := ExitCode(exec.Command("sh", "-c", "exit 0").Run())
	require.NoError(t, err)
	require.Equal(t, 0, code)
	code, err = ExitCode(exec.Command("sh", "-c", "exit 3").Run())
	require.NoError(t, err)
	require.Equal(t, 3, code)
	_, err = ExitCode(exec.Command(filepath.Join(t.TempDir(), "missing")).Run())
	require.Error(t, err)
}

// TestWaitWithin: an exit within the limit is Wait's outcome; a process
// still running at the limit is killed and reported.
func TestWaitWithin(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 4")
	require.NoError(t, cmd.Start())
	code, err := ExitCode(WaitWithin(cmd, 10*time.Second))
	require.NoError(t, err)
	require.Equal(t, 4, code)

	cmd = exec.Command("sleep", "30")
	require.NoError(t, cmd.Start())
	start := time.Now()
	require.EqualError(t, WaitWithin(cmd, 100*time.Millisecond), "sleep did not end within 100ms")
	require.Less(t, time.Since(start), 10*time.Second)
	require.NotNil(t, cmd.ProcessState, "the killed process was waited for")
}

// TestEnviron: the variables named are left out, the others kept.
func TestEnviron(t *testing.T) {
	t.Setenv("TESTBIN_DROP", "x")
	t.Setenv("TESTBIN_KEEP", "y")
	env := Environ("TESTBIN_DROP", "TESTBIN_OTHER")
	require.Contains(t, env, "TESTBIN_KEEP=y")
	for _, kv := range env {
		require.False(t, strings.HasPrefix(kv, "TESTBIN_DROP="), kv)
	}
	require.Len(t, env, len(os.Environ())-1)
}
