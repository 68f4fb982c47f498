package db_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/internal/pagedamage"

	"github.com/stretchr/testify/require"
)

// requireDamage requires err to be the DamageError of kind naming the
// archive at path, whose line is want.
func requireDamage(t *testing.T, err error, path string, kind db.Damage, want string) *db.DamageError {
	t.Helper()
	var d *db.DamageError
	require.True(t, errors.As(err, &d), "want a *db.DamageError, got %T: %v", err, err)
	require.Equal(t, path, d.Path)
	require.Equal(t, kind, d.Kind)
	require.Equal(t, want, err.Error())
	return d
}

// withDamage writes raw, changed by damage, to a new file and returns its
// path.
func withDamage(t *testing.T, raw []byte, damage func(b []byte) []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "damaged.db")
	require.NoError(t, os.WriteFile(path, damage(append([]byte(nil), raw...)), 0o600))
	return path
}

// TestOpenDamage: Open classifies what bbolt refuses, and what db finds
// itself, as a DamageError of its kind naming the archive, in read-only
// and read-write opens alike, and the sentinels callers branch on still
// match.
func TestOpenDamage(t *testing.T) {
	t.Parallel()
	path, _, raw := chunksBranchArchive(t)
	// The pages the last commit uses (the file runs on, grown ahead): the
	// high-water mark of the header page with the later txid (FORMAT.md).
	last := raw[:pageSize]
	if binary.LittleEndian.Uint64(raw[pageSize+64:]) > binary.LittleEndian.Uint64(raw[64:]) {
		last = raw[pageSize:]
	}
	used := int(binary.LittleEndian.Uint64(last[56:])) * pageSize
	freelist := int(binary.LittleEndian.Uint64(last[48:])) * pageSize
	require.Less(t, freelist, used)
	for _, tc := range []struct {
		name   string
		damage func(b []byte) []byte
		kind   db.Damage
		is     error
		want   string // %s: the archive
	}{
		{"too short for its header pages", func(b []byte) []byte { return b[:5000] }, db.TooShort, db.ErrNotArchive,
			"archive %s: not a Chronicle archive, or a damaged one (the file is too short to hold its header pages); if it is an archive, restore it from a copy"},
		{"truncated inside its pages", func(b []byte) []byte { return b[:used-3*pageSize] }, db.Truncated, db.ErrCorrupt,
			fmt.Sprintf("archive %%s: archive corruption: the file is truncated (%d bytes, its pages need %d); restore it from a copy", used-3*pageSize, used)},
		// bbolt reads the freelist page while it opens: cut before it,
		// the read through the mapping was a SIGBUS no recover catches.
		{"truncated before its freelist page", func(b []byte) []byte { return b[:freelist] }, db.Truncated, db.ErrCorrupt,
			fmt.Sprintf("archive %%s: archive corruption: the file is truncated (%d bytes, its pages need %d); restore it from a copy", freelist, used)},
		{"both header pages damaged", func(b []byte) []byte {
			b[16] ^= 0xff // the magic of page 0
			b[pageSize+16] ^= 0xff
			return b
		}, db.HeaderInvalid, db.ErrNotArchive,
			"archive %s: not a Chronicle archive, or a damaged one (its header pages do not check); if it is an archive, restore it from a copy"},
		{"one header page damaged", func(b []byte) []byte {
			b[pageSize+16+40] ^= 0x01 // the txid of page 1, under its checksum
			return b
		}, db.HeaderDamaged, db.ErrCorrupt,
			"archive %s: archive corruption: header page 1 is damaged, so the file may show an earlier state; restore it from a copy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			damaged := withDamage(t, raw, tc.damage)
			for _, readOnly := range []bool{true, false} {
				a, err := db.Open(damaged, db.Options{ReadOnly: readOnly})
				require.Nil(t, a)
				requireDamage(t, err, damaged, tc.kind, fmt.Sprintf(tc.want, damaged))
				require.ErrorIs(t, err, db.ErrDamaged)
				require.ErrorIs(t, err, tc.is)
			}
		})
	}
	require.Equal(t, raw, readFile(t, path), "the undamaged archive is untouched")
}

// TestReadDamage: a damaged page under a read is a DamageError, never a
// panic: on db's workers (find) naming the document, and on the
// caller's goroutine through Guard, naming the archive.
func TestReadDamage(t *testing.T) {
	t.Parallel()
	path, _, _ := chunksBranchArchive(t)
	for _, tc := range []struct {
		name, bucket string
		read         func(a *db.Archive) error
		where        string
		want         string // %s: the archive
	}{
		{"a worker: find", "lines", func(a *db.Archive) error {
			q, err := find.NewQuery("Alice")
			require.NoError(t, err)
			hits, err := a.Find(q, 0)
			require.Nil(t, hits)
			return err
		}, "document #1", "archive %s: document #1: archive corruption: a page could not be read; `chronicle check` lists the problems it can find"},
		{"the caller's goroutine: Guard", "chunks", func(a *db.Archive) error {
			d, err := a.Resolve("d5")
			require.NoError(t, err)
			return db.Guard(a.Path(), func() error {
				_, _, err := a.Rebuild(d)
				return err
			})
		}, "", "archive %s is damaged: a page could not be read; `chronicle check` lists the problems it can find"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			damaged := pagedamage.ZeroRoot(t, path, tc.bucket)
			err := tc.read(openArchive(t, damaged, db.Options{ReadOnly: true}))
			d := requireDamage(t, err, damaged, db.PageUnreadable, fmt.Sprintf(tc.want, damaged))
			require.Equal(t, tc.where, d.Where)
			require.ErrorContains(t, d.Err, "Page expected", "the panic is the cause")
			require.ErrorIs(t, err, db.ErrDamaged)
			require.ErrorIs(t, err, db.ErrCorrupt)
		})
	}
}
