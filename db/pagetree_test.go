package db_test

import (
	"context"
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

// chunksBranchArchive is an archive of 60 documents, whose chunks bucket's
// root is a branch page; it returns the archive's path, that page's number
// and the file's bytes.
func chunksBranchArchive(t *testing.T) (path string, root uint64, raw []byte) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "a.db")
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

	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket([]byte("chunks")).Root())
		return nil
	}))
	require.NoError(t, b.Close())
	raw, err = os.ReadFile(path)
	require.NoError(t, err)
	p := raw[root*pageSize:]
	require.True(t, binary.LittleEndian.Uint16(p[8:]) == 0x01 && binary.LittleEndian.Uint16(p[10:]) >= 2, "the chunks bucket's root is a branch page")
	return path, root, raw
}

const pageSize = 4096

// checkProblems runs check on the archive at path, which must return
// within 20 s.
func checkProblems(t *testing.T, path string) []db.Problem {
	t.Helper()
	a := openArchive(t, path, db.Options{ReadOnly: true})
	done := make(chan []db.Problem, 1)
	go func() {
		probs, err := a.Check(context.Background())
		require.NoError(t, err)
		done <- probs
	}()
	select {
	case probs := <-done:
		return probs
	case <-time.After(20 * time.Second):
		t.Fatal("check did not return")
		return nil
	}
}

// TestCheckPageLoop: a branch page whose child is itself sends a bbolt
// cursor into a loop that ends only when memory does; check proves every
// tree finite from the pages first and reports the loop at once.
func TestCheckPageLoop(t *testing.T) {
	t.Parallel()
	path, root, raw := chunksBranchArchive(t)
	binary.LittleEndian.PutUint64(raw[root*pageSize+16+8:], root) // its first child: itself
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	probs := checkProblems(t, path)
	require.Len(t, probs, 1)
	require.True(t, strings.Contains(probs[0].Detail, "is reached twice (a loop or a shared page)"), "%v", probs)
	require.Contains(t, probs[0].Detail, "page structure is damaged")
}

// TestCheckBranchKeyOutsidePage: a flipped high byte of a branch element's
// key offset points bbolt outside the file's mapping. Reads may or may not
// fault there (that depends on the process's address space, and at the
// first element the comparison does not change the child bbolt descends
// to: the damage harness saw every receipt rightly verify over such a
// flip); check, which reads the pages itself, bounds every element and
// reports it.
func TestCheckBranchKeyOutsidePage(t *testing.T) {
	t.Parallel()
	path, root, raw := chunksBranchArchive(t)
	raw[root*pageSize+16+2] ^= 0x80 // element 0's pos, bits 16-23: 8 MiB on
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	probs := checkProblems(t, path)
	require.Len(t, probs, 1)
	require.Contains(t, probs[0].Detail, fmt.Sprintf("page %d: element 0 lies outside the page", root))
	require.Contains(t, probs[0].Detail, "page structure is damaged")
}
