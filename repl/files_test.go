//go:build unix

// The REPL history's file rules: modes under a umask and FIFOs are Unix's.

package repl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHistoryPrivate: the REPL's history holds the questions asked: the
// file is 0600 and its directory 0700, also when an older history was
// left wider, and a history over the limit is trimmed without ever being
// rewritten through a wider file. Not parallel: it sets the process
// umask, which tmux and chronicle inherit.
func TestHistoryPrivate(t *testing.T) {
	w := newWorkspace(t)
	out, code := w.run("ingest samples\n")
	require.Equal(t, 0, code, out)
	orig := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(orig) })
	dir := filepath.Join(w.dir, "config", "chronicle")
	hist := filepath.Join(dir, "history")
	perm := func(path string) os.FileMode {
		t.Helper()
		st, err := os.Stat(path)
		require.NoError(t, err)
		return st.Mode().Perm()
	}

	tm := newTerm(t, w)
	tm.start(200, 50)
	tm.waitPrompt(prompt2, "")
	tm.Type("docs")
	tm.Keys("Enter")
	tm.waitFor("the listing", func(s string) bool { return strings.Contains(s, "NAMES") && lastLine(s)+" " == prompt2 })
	tm.Keys("C-d")
	tm.waitExit()
	require.Equal(t, "docs\n", string(readFile(t, hist)))
	require.Equal(t, os.FileMode(0o600), perm(hist))
	require.Equal(t, os.FileMode(0o700), perm(dir))

	// Left wider by an older Chronicle, and over the limit: tightened and
	// trimmed to the last historyLimit lines.
	var long strings.Builder
	for i := range historyLimit + 5 {
		fmt.Fprintf(&long, "show samples/alice-bob-en.txt %d\n", i)
	}
	require.NoError(t, os.WriteFile(hist, []byte(long.String()), 0o644))
	require.NoError(t, os.Chmod(hist, 0o644))
	require.NoError(t, os.Chmod(dir, 0o755))
	tm.start(200, 50)
	tm.waitPrompt(prompt2, "")
	tm.Keys("Up")
	tm.waitPrompt(prompt2, fmt.Sprintf("show samples/alice-bob-en.txt %d", historyLimit+4))
	tm.Keys("C-u")
	tm.Keys("C-d")
	tm.waitExit()
	require.Equal(t, os.FileMode(0o600), perm(hist))
	require.Equal(t, os.FileMode(0o700), perm(dir))
	got := strings.Split(strings.TrimSuffix(string(readFile(t, hist)), "\n"), "\n")
	require.Len(t, got, historyLimit)
	require.Equal(t, "show samples/alice-bob-en.txt 5", got[0])
}

// TestHistoryNotRegular: a FIFO where the history belongs fails at once
// (the REPL then runs without history and says why) instead of blocking
// readline's read of it.
func TestHistoryNotRegular(t *testing.T) {
	w := newWorkspace(t)
	dir := filepath.Join(w.dir, "config", "chronicle")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "history"), 0o600))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(w.dir, "config"))
	_, err := historyPath()
	require.ErrorContains(t, err, "history is a FIFO, not a regular file")
}
