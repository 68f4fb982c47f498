package testbin

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
