package repl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
	bolterr "go.etcd.io/bbolt/errors"
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
	tm.typ("docs")
	tm.keys("Enter")
	tm.waitFor("the listing", func(s string) bool { return strings.Contains(s, "NAMES") && lastLine(s)+" " == prompt2 })
	tm.keys("C-d")
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
	tm.keys("Up")
	tm.waitPrompt(prompt2, fmt.Sprintf("show samples/alice-bob-en.txt %d", historyLimit+4))
	tm.keys("C-u")
	tm.keys("C-d")
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

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// TestDamageMessages: a panic while reading a damaged archive, and errors
// that carry a recovered panic or bbolt's own words, become one clean
// line: the archive, what was wrong, the next step; never Go runtime or
// bbolt text.
func TestDamageMessages(t *testing.T) {
	t.Parallel()
	const path = "/data/evidence.db"
	internals := []string{"runtime error", "nil pointer", "assertion failed", "Page expected", "invalid database",
		"file size too small", "checksum error", "version mismatch", "self identifies"}
	clean := func(t *testing.T, msg string) {
		t.Helper()
		for _, s := range internals {
			require.NotContains(t, msg, s)
		}
		require.Contains(t, msg, path)
		require.NotContains(t, msg, "\n")
	}

	var nilMap map[string]*int
	nilDeref := func() (r any) {
		defer func() { r = recover() }()
		_ = *nilMap["x"]
		return nil
	}()
	require.Contains(t, fmt.Sprint(nilDeref), "nil pointer dereference", "a real runtime panic")
	for _, tc := range []struct {
		cmd  string
		r    any
		want string
	}{
		{"docs", nilDeref, "archive /data/evidence.db is damaged: a page could not be read; `chronicle check` lists the problems it can find"},
		{"show", "assertion failed: Page expected to be: 35, but self identifies as 0", "archive /data/evidence.db is damaged: a page could not be read; `chronicle check` lists the problems it can find"},
		{"check", nilDeref, "archive /data/evidence.db is damaged: a page could not be read; its page structure is broken; restore it from a copy"},
	} {
		err := panicError(path, tc.cmd, tc.r)
		require.Equal(t, tc.want, err.Error())
		clean(t, err.Error())
		require.Equal(t, err, cleanError(path, err), "a clean error stays as it is")
	}

	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a worker's recovered panic", fmt.Errorf("document #2: %w: reading it failed: %v", db.ErrCorrupt, "assertion failed: Page expected to be: 56, but self identifies as 0"),
			"archive /data/evidence.db: document #2: archive corruption: a page could not be read; `chronicle check` lists the problems it can find"},
		{"bbolt: too small", fmt.Errorf("archive %s: %w", path, errors.New("file size too small 4123")),
			"archive /data/evidence.db: not a Chronicle archive, or a damaged one (the file is too short to hold its header pages); if it is an archive, restore it from a copy"},
		{"bbolt: invalid, as %v", fmt.Errorf("archive %s: %w: %v", path, db.ErrNotArchive, bolterr.ErrInvalid),
			"archive /data/evidence.db: not a Chronicle archive, or a damaged one (its header pages do not check); if it is an archive, restore it from a copy"},
		{"bbolt: checksum, wrapped", fmt.Errorf("archive %s: %w", path, bolterr.ErrChecksum),
			"archive /data/evidence.db: not a Chronicle archive, or a damaged one (its header pages do not check); if it is an archive, restore it from a copy"},
		{"runtime text", fmt.Errorf("entity: %v", "runtime error: index out of range [3] with length 2"),
			"archive /data/evidence.db: a command failed unexpectedly; `chronicle check` lists the problems it can find"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cleanError(path, tc.err)
			require.Equal(t, tc.want, got.Error())
			clean(t, got.Error())
			require.ErrorIs(t, got, tc.err, "the cause stays reachable")
		})
	}

	// Chronicle's own errors pass unchanged.
	for _, err := range []error{
		fmt.Errorf("archive %s: %w: its record does not match its digest", path, db.ErrCorrupt),
		errors.New(`"x": no such document`),
		nil,
	} {
		require.Equal(t, err, cleanError(path, err))
	}
}
