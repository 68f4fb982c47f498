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

// TestDamageMessages: a panic while reading a damaged archive, and the
// damage db reports (a worker's recovered panic, bbolt's refusal of the
// header pages), are one clean line: the archive, what was wrong, the
// next step; never Go runtime or bbolt text. db makes the line
// (db.DamageError, db.Guard); the CLI maps its kind to the exit code and
// the JSON kind, and gives check its own next step.
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
		err := checkDamage(tc.cmd, db.Guard(path, func() error { panic(tc.r) }))
		require.Equal(t, tc.want, err.Error())
		clean(t, err.Error())
		code, kind := classify(err)
		require.Equal(t, ExitFailure, code)
		require.Equal(t, kindDamaged, kind)
	}

	for _, tc := range []struct {
		name string
		err  *db.DamageError
		kind string
		want string
	}{
		{"a worker's recovered panic", &db.DamageError{Path: path, Kind: db.PageUnreadable, Where: "document #2",
			Err: errors.New("assertion failed: Page expected to be: 56, but self identifies as 0")}, kindDamaged,
			"archive /data/evidence.db: document #2: archive corruption: a page could not be read; `chronicle check` lists the problems it can find"},
		{"bbolt: too small", &db.DamageError{Path: path, Kind: db.TooShort, Err: errors.New("file size too small 4123")}, kindNotArchive,
			"archive /data/evidence.db: not a Chronicle archive, or a damaged one (the file is too short to hold its header pages); if it is an archive, restore it from a copy"},
		{"bbolt: invalid", &db.DamageError{Path: path, Kind: db.HeaderInvalid, Err: bolterr.ErrInvalid}, kindNotArchive,
			"archive /data/evidence.db: not a Chronicle archive, or a damaged one (its header pages do not check); if it is an archive, restore it from a copy"},
		{"bbolt: checksum", &db.DamageError{Path: path, Kind: db.HeaderInvalid, Err: bolterr.ErrChecksum}, kindNotArchive,
			"archive /data/evidence.db: not a Chronicle archive, or a damaged one (its header pages do not check); if it is an archive, restore it from a copy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkDamage("docs", fmt.Errorf("docs: %w", tc.err))
			require.Equal(t, "docs: "+tc.want, err.Error())
			clean(t, err.Error())
			require.ErrorIs(t, err, tc.err.Err, "the cause stays reachable")
			code, kind := classify(err)
			require.Equal(t, ExitFailure, code)
			require.Equal(t, tc.kind, kind)
		})
	}

	// Chronicle's own damage errors keep their words and kind.
	own := fmt.Errorf("archive %s: %w: its record does not match its digest", path, db.ErrCorrupt)
	require.Equal(t, own, checkDamage("check", own))
	_, kind := classify(own)
	require.Equal(t, kindDamaged, kind)
}
