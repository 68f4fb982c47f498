//go:build unix

package platform_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/casper-chronicle/chronicle/platform"

	"github.com/stretchr/testify/require"
)

// A finished child's peak resident set is there, in KiB: a Go test binary
// takes more than 1 MiB and far less than 1 GiB.
func TestChildMaxRSS(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, cmd.Run())
	kib, ok := platform.ChildMaxRSS(cmd.ProcessState)
	require.True(t, ok)
	require.Greater(t, kib, int64(1<<10))
	require.Less(t, kib, int64(1<<20))
}
