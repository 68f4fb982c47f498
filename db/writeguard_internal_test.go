package db

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestWriteGuardSeesTouchedPages: the write guard finds the pages a write
// rewrites in bbolt's node caches, read by reflection (writeguard.go). A
// bbolt that renames them makes every write check the whole file: correct
// but slow, and this test says so.
func TestWriteGuardSeesTouchedPages(t *testing.T) {
	a, err := Open(filepath.Join(t.TempDir(), "a.db"), Options{})
	require.NoError(t, err)
	defer a.Close()
	for i := range 300 { // enough names for a branch page above the leaves
		_, err := a.Ingest([]byte("Alice paid Bob 5 SAR.\n"), 1700000000, "name-"+string(rune('a'+i%26))+"-"+string(rune('a'+i/26)))
		require.NoError(t, err)
	}
	require.ErrorIs(t, a.bolt.Update(func(tx *bolt.Tx) error {
		require.NoError(t, tx.Bucket(bucketNames).Put([]byte("name-x"), make([]byte, 32)))
		pages, ok := touchedPages(tx)
		require.True(t, ok, "bbolt's node caches are not where the guard looks")
		root := uint64(tx.Bucket(bucketNames).Root())
		require.NotZero(t, root)
		require.True(t, pages[string(bucketNames)][root], "the names root page is among the pages the put rewrites: %v", pages)
		require.Len(t, pages[string(bucketNames)], 2, "the root and one leaf: %v", pages)
		require.NotContains(t, pages, string(bucketDocs), "an untouched bucket")
		return errRollback
	}), errRollback)
}

// errRollback ends the test's transaction without a commit.
var errRollback = errors.New("rolled back")

// RefusalDetail is what the write guard found, for db_test: "" when err is
// not its refusal.
func RefusalDetail(err error) string {
	var d *DamageError
	if errors.As(err, &d) {
		return d.found
	}
	return ""
}
