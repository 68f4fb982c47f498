// Package pagedamage damages copies of archive files the way a disk or a
// bad copy can, for the tests that show what each front-end makes of a
// damaged archive (db, the Go API, the MCP server). It is imported by
// tests only.
package pagedamage

import (
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
	clear(raw[root*size : (root+1)*size])
	damaged := filepath.Join(t.TempDir(), "damaged.db")
	require.NoError(t, os.WriteFile(damaged, raw, 0o600))
	return damaged
}
