package testbin

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBuild builds a command by name from this package's directory and
// runs it; Once builds it once and reports the first error again.
func TestBuild(t *testing.T) {
	dir := t.TempDir()
	paths, err := Build(dir, "chronicle")
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, "chronicle")}, paths)
	out, err := exec.Command(paths[0], "--version").Output()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(out), "chronicle "), "%q", out)

	var bad Once
	_, err = bad.Build(dir, "no-such-command")
	require.ErrorContains(t, err, "building no-such-command")
	_, again := bad.Build(dir, "chronicle")
	require.Equal(t, err, again, "the first build's outcome stands")
}
