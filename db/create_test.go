//go:build unix

// Creation under a umask, on a tmpfs mount, with `true` as a dead process: Unix facilities.

package db_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// A new archive is private to its owner whatever the umask, and nothing
// but the archive is left in its directory.
func TestCreatePrivate(t *testing.T) {
	for _, umask := range []int{0o022, 0o002, 0} {
		t.Run(fmt.Sprintf("umask %03o", umask), func(t *testing.T) {
			old := syscall.Umask(umask)
			defer syscall.Umask(old)
			dir := t.TempDir()
			path := filepath.Join(dir, "chronicle.db")
			a := openArchive(t, path)
			require.NoError(t, a.Close())
			st, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, entries, 1, "only the archive: %v", entries)
		})
	}
}

// The temporary file of a creation whose process died is removed by the
// next creation; a live process's is left alone.
func TestCreateRemovesAbandonedTemporaries(t *testing.T) {
	dir := t.TempDir()
	// A process that has exited: its PID is free.
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	dead := filepath.Join(dir, fmt.Sprintf(".chronicle.db.creating-%d-123", cmd.Process.Pid))
	live := filepath.Join(dir, fmt.Sprintf(".chronicle.db.creating-%d-456", os.Getpid()))
	other := filepath.Join(dir, ".chronicle.db.creating-notapid")
	for _, f := range []string{dead, live, other} {
		require.NoError(t, os.WriteFile(f, nil, 0o600))
	}
	a := openArchive(t, filepath.Join(dir, "chronicle.db"))
	require.NoError(t, a.Close())
	require.NoFileExists(t, dead)
	require.FileExists(t, live)
	require.FileExists(t, other)
}

// A creation that cannot finish leaves no file at the archive's path:
// a missing directory, and a disk that is full (a 64 KiB tmpfs, when the
// tests run as root as CI does; elsewhere the mount is refused and the
// test says so).
func TestCreateFailsWithoutTrace(t *testing.T) {
	_, err := db.Open(filepath.Join(t.TempDir(), "missing", "chronicle.db"), db.Options{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "missing/chronicle.db")

	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root (CI runs as root)")
	}
	mount := func(t *testing.T, size string) string {
		dir := t.TempDir()
		out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
		require.NoError(t, err, "%s", out)
		t.Cleanup(func() { exec.Command("umount", dir).Run() })
		return dir
	}
	t.Run("no room for a new archive", func(t *testing.T) {
		dir := mount(t, "8k")
		path := filepath.Join(dir, "chronicle.db")
		a, err := db.Open(path, db.Options{})
		if err == nil {
			a.Close()
		}
		require.Error(t, err, "a new archive needs more than 8 KiB")
		require.NotContains(t, err.Error(), "runtime error")
		require.NoFileExists(t, path)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		require.Empty(t, names, "nothing left on the full disk: %s", strings.Join(names, ", "))
	})
	t.Run("no room for a document", func(t *testing.T) {
		dir := mount(t, "256k")
		path := filepath.Join(dir, "chronicle.db")
		a := openArchive(t, path)
		_, err := a.Ingest(readFile(t, "../testdata/samples/alice-bob-en.txt"), goldenTime, "small.txt")
		require.NoError(t, err)
		// 1 MiB of random printable lines: S2 cannot shrink it below the
		// disk's size.
		rng := rand.New(rand.NewPCG(1, 2))
		big := make([]byte, 1<<20)
		for i := range big {
			big[i] = byte(' ' + rng.IntN(95))
			if i%80 == 79 {
				big[i] = '\n'
			}
		}
		_, err = a.Ingest(big, goldenTime, "big.txt")
		require.Error(t, err, "the disk is full")
		require.NotContains(t, err.Error(), "runtime error")
		require.NoError(t, a.Close())
		// The archive is as it was before the failed document.
		a = openArchive(t, path, db.Options{ReadOnly: true})
		docs, err := a.Docs()
		require.NoError(t, err)
		require.Len(t, docs, 1)
		require.Empty(t, problemsOf(t, a))
		require.NoError(t, a.Close())
	})
}
