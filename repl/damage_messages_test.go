package repl

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
	bolterr "go.etcd.io/bbolt/errors"
)

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
