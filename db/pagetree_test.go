package db_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestCheckPageLoop: a branch page whose child is itself sends a bbolt
// cursor into a loop that ends only when memory does; check proves every
// tree finite from the pages first and reports the loop at once.
func TestCheckPageLoop(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.db")
	a, err := db.Open(path, db.Options{})
	require.NoError(t, err)
	for i, src := range batchDocs(60) {
		_, err := a.Ingest(src, 1700000000, fmt.Sprintf("d%d", i))
		require.NoError(t, err)
	}
	require.NoError(t, a.Close())
	a = openArchive(t, path, db.Options{ReadOnly: true})
	require.Empty(t, problemsOf(t, a))
	require.NoError(t, a.Close())

	// The root of the chunks bucket is a branch page (60 documents).
	var root uint64
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket([]byte("chunks")).Root())
		return nil
	}))
	require.NoError(t, b.Close())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	const pageSize = 4096
	p := raw[root*pageSize:]
	looped := binary.LittleEndian.Uint16(p[8:]) == 0x01 && binary.LittleEndian.Uint16(p[10:]) >= 2
	binary.LittleEndian.PutUint64(p[16+8:], root) // its first child: itself
	require.True(t, looped, "the archive has a branch page")
	require.NoError(t, os.WriteFile(path, raw, 0o600))

	a = openArchive(t, path, db.Options{ReadOnly: true})
	done := make(chan []db.Problem, 1)
	go func() {
		probs, err := a.Check()
		require.NoError(t, err)
		done <- probs
	}()
	select {
	case probs := <-done:
		require.Len(t, probs, 1)
		require.True(t, strings.Contains(probs[0].Detail, "is reached twice (a loop or a shared page)"), "%v", probs)
		require.Contains(t, probs[0].Detail, "page structure is damaged")
	case <-time.After(20 * time.Second):
		t.Fatal("check did not return on a page loop")
	}
}
