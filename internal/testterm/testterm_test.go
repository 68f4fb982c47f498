package testterm_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/internal/testterm"

	"github.com/stretchr/testify/require"
)

// TestTerm: a shell on the terminal gets the environment and the typed
// lines, its screen and history are read back, Poll waits for output and
// WaitGone for the end of the session.
func TestTerm(t *testing.T) {
	_, err := exec.LookPath("tmux")
	require.NoError(t, err, "testterm drives tmux (.ci/run installs it)")
	dir := t.TempDir()
	tm := testterm.New(t, dir, append(os.Environ(), "LANG=C", "TESTTERM_WORD=kept"))
	tm.Start(60, 10, "sh")
	tm.Type(`echo "$LANG $TESTTERM_WORD $(pwd)"`)
	tm.Keys("Enter")
	want := "C.UTF-8 kept " + dir
	// The expanded line only (the typed one holds the variables): when the
	// keys come before sh's prompt, the output follows the prompt on its
	// line ("# C.UTF-8 kept …").
	s := tm.Poll("the echo", 10*time.Second, tm.Screen, func(s string) bool { return strings.Contains(s, want) })
	require.Contains(t, s, want)
	// A line of its own, or after the prompt, as on the screen.
	require.Contains(t, strings.Join(tm.History(), "\n"), want)
	tm.Type("exit")
	tm.Keys("Enter")
	tm.WaitGone("the shell", 10*time.Second)
	_, err = tm.Tmux("has-session", "-t", testterm.Session)
	require.Error(t, err, "the session is gone")
}
