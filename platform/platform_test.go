package platform_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/casper-chronicle/chronicle/platform"

	"github.com/stretchr/testify/require"
)

// helperEnv turns the test binary into a helper process (runHelper, in
// lockholder_linux_test.go and helper_test.go).
const helperEnv = "PLATFORM_TEST_HELPER"

func TestMain(m *testing.M) {
	if what := os.Getenv(helperEnv); what != "" {
		os.Exit(runHelper(what))
	}
	os.Exit(m.Run())
}

// exited runs the test binary as a process that exits at once, and
// returns its PID, now free.
func exited(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

func TestProcessAlive(t *testing.T) {
	for _, tc := range []struct {
		name string
		pid  int
		want bool
	}{
		{"this process", os.Getpid(), true},
		{"its parent", os.Getppid(), true},
		{"a process that exited", exited(t), false},
		{"pid 0", 0, false},
		{"a negative pid", -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, platform.ProcessAlive(tc.pid))
		})
	}
}
