// Package pagedamage damages copies of archive files the way a disk or a
// bad copy can, for the tests that show what each front-end makes of a
// damaged archive (db, the Go API, the MCP server). It is imported by
// tests only.
package pagedamage

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// ZeroRoot writes a copy of the archive at path, with the root page of
// bucket zeroed, into a new temporary directory of t, and returns the
// copy's path. bbolt panics when a read reaches that page ("Page expected
// to be: N, but self identifies as 0"); opening the copy still works, as
// long as bucket is not one Open reads.
func ZeroRoot(t testing.TB, path, bucket string) string {
	t.Helper()
	damaged, _ := damageRoot(t, path, bucket, func(page []byte, _ uint64) { clear(page) })
	return damaged
}

// LoopRoot is ZeroRoot with every child of bucket's root, a branch page,
// made the root itself: a search through the bucket recurses without end
// (until the stack watch, or the runtime, ends the process). It returns
// the copy's path and the root's page number.
func LoopRoot(t testing.TB, path, bucket string) (string, uint64) {
	t.Helper()
	return damageRoot(t, path, bucket, func(page []byte, root uint64) {
		require.Equal(t, uint16(0x01), binary.LittleEndian.Uint16(page[8:]), "the root of %s is a branch page", bucket)
		n := int(binary.LittleEndian.Uint16(page[10:]))
		require.GreaterOrEqual(t, n, 2, "the root of %s has children", bucket)
		for i := range n { // branch elements after the 16-byte header: pos u32, ksize u32, child u64
			binary.LittleEndian.PutUint64(page[16+16*i+8:], root)
		}
	})
}

// damageRoot writes a copy of the archive at path with damage done to the
// root page of bucket (given the page's bytes and number) into a new
// temporary directory of t, and returns the copy's path and the page's
// number.
func damageRoot(t testing.TB, path, bucket string, damage func(page []byte, root uint64)) (string, uint64) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	tx, err := b.Begin(false)
	require.NoError(t, err)
	root, size := uint64(tx.Bucket([]byte(bucket)).Root()), uint64(b.Info().PageSize)
	require.NoError(t, tx.Rollback())
	require.NoError(t, b.Close())
	require.NotZero(t, root, "bucket %s is inline: it has no page of its own", bucket)

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	damage(raw[root*size:(root+1)*size], root)
	damaged := filepath.Join(t.TempDir(), "damaged.db")
	require.NoError(t, os.WriteFile(damaged, raw, 0o600))
	return damaged, root
}
