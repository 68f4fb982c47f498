package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/testbin"

	"github.com/stretchr/testify/require"
)

// binary is the real casper-chronicle built once for the package's tests.
var binary string

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, map[string]*string{"casper-chronicle": &binary}))
}

// result is what one run of the binary produced.
type result struct {
	code           int
	stdout, stderr string
}

// runIn runs the binary in dir with imported_at fixed to the golden clock.
func runIn(t testing.TB, dir string, args ...string) result {
	t.Helper()
	return runEnv(t, dir, []string{"SOURCE_DATE_EPOCH=1750000000"}, args...)
}

// runEnv runs the binary in dir with extra environment variables.
func runEnv(t testing.TB, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return runCmd(t, cmd)
}

// runCmd runs cmd to its end with stdout and stderr captured.
func runCmd(t testing.TB, cmd *exec.Cmd) result {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code, err := testbin.ExitCode(cmd.Run())
	require.NoError(t, err, "running %q", cmd.Args)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// snapshot returns every regular file of dir by name.
func snapshot(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = data
	}
	return files
}

// writeFiles creates files in dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
}
