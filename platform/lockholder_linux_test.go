package platform_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/casper-chronicle/chronicle/platform"

	"github.com/stretchr/testify/require"
)

// runHelper "lock:PATH" takes an exclusive flock on PATH (as bbolt does),
// says so on stdout and holds it until stdin closes.
func runHelper(what string) int {
	path, ok := strings.CutPrefix(what, "lock:")
	if !ok {
		return 2
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil || syscall.Flock(int(f.Fd()), syscall.LOCK_EX) != nil {
		return 1
	}
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

// LockHolder names the process holding a file's flock, never this one,
// and nothing for a file nobody locks.
func TestLockHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "archive.db")
	require.NoError(t, os.WriteFile(path, []byte("x"), 0o600))
	require.Empty(t, platform.LockHolder(path), "nobody holds it")
	require.Empty(t, platform.LockHolder(filepath.Join(t.TempDir(), "missing")))

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=lock:"+path)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)
	require.Equal(t, fmt.Sprintf("process %d", cmd.Process.Pid), platform.LockHolder(path))

	// this process's own lock is not another's
	f, err := os.OpenFile(filepath.Join(filepath.Dir(path), "own.db"), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
	require.Empty(t, platform.LockHolder(f.Name()))
}
