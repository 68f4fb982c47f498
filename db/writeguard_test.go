package db_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// pointInto returns raw (the file of the archive at path) with the
// children of bucket's root page pointed at the first leaf of bucket
// into: every child, or only the last. bbolt reads such a page without a
// word (it is marked as the page asked for, of the right kind), and a
// write would put its keys among the other bucket's.
func pointInto(t *testing.T, path string, raw []byte, bucket, into string, all bool) []byte {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	var root, leaf uint64
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		root, leaf = uint64(tx.Bucket([]byte(bucket)).Root()), uint64(tx.Bucket([]byte(into)).Root())
		return nil
	}))
	require.NoError(t, b.Close())
	out := append([]byte(nil), raw...)
	for binary.LittleEndian.Uint16(out[leaf*pageSize+8:]) == 0x01 {
		leaf = binary.LittleEndian.Uint64(out[leaf*pageSize+16+8:])
	}
	p := out[root*pageSize:]
	require.Equal(t, uint16(0x01), binary.LittleEndian.Uint16(p[8:]), "%s's root is a branch page", bucket)
	n := int(binary.LittleEndian.Uint16(p[10:]))
	for i := range n {
		if all || i == n-1 {
			binary.LittleEndian.PutUint64(p[16+i*16+8:], leaf)
		}
	}
	return out
}

// disorderLeaf returns raw with the first key of bucket's root page, a
// leaf, made larger than the keys after it (its top byte flipped).
func disorderLeaf(t *testing.T, path string, raw []byte, bucket string) []byte {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	var root uint64
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket([]byte(bucket)).Root())
		return nil
	}))
	require.NoError(t, b.Close())
	out := append([]byte(nil), raw...)
	p := out[root*pageSize:]
	require.Equal(t, uint16(0x02), binary.LittleEndian.Uint16(p[8:]), "%s's root is a leaf page", bucket)
	require.GreaterOrEqual(t, binary.LittleEndian.Uint16(p[10:]), uint16(2))
	p[16+binary.LittleEndian.Uint32(p[16+4:])] ^= 0x80
	return out
}

// TestWriteGuard: every write on pages so damaged is refused with
// ErrWriteRefused (and ErrCorrupt) and leaves the file as it was.
func TestWriteGuard(t *testing.T) {
	t.Parallel()
	path, _, pristine := chunksBranchArchive(t)
	other := []byte("A new document: Erin lent Frank 9 SAR.\n")
	for _, tc := range []struct {
		name         string
		bucket, into string
		all          bool
		write        func(a *db.Archive) error
	}{
		{"ingest a new document", "docs", "chunks", true, func(a *db.Archive) error {
			_, err := a.Ingest(other, 1700000000, "new")
			return err
		}},
		{"ingest a known document under a new name", "names", "", false, func(a *db.Archive) error {
			_, err := a.Ingest(batchDocs(60)[3], 1700000000, "alias")
			return err
		}},
		{"keep a receipt", "receipts", "chunks", true, func(a *db.Archive) error {
			d, err := a.Resolve("d5")
			require.NoError(t, err)
			return a.KeepReceipt(&db.Receipt{Kind: db.KindQuery, Document: d.SHA256, Store: d.StoreSHA256, Result: d.StoreSHA256, Question: "Did Alice repay Bob?"})
		}},
		{"reindex", "grams", "docs", false, func(a *db.Archive) error {
			_, err := a.Reindex(context.Background())
			return err
		}},
		{"ingest in a batch (its postings fold later)", "grams", "docs", false, func(a *db.Archive) error {
			a.BeginBatch()
			_, err := a.Ingest(other, 1700000000, "new")
			if ferr := a.EndBatch(); err == nil {
				err = ferr
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var damaged []byte
			if tc.into == "" {
				damaged = disorderLeaf(t, path, pristine, tc.bucket)
			} else {
				damaged = pointInto(t, path, pristine, tc.bucket, tc.into, tc.all)
			}
			copyPath := filepath.Join(t.TempDir(), "a.db")
			require.NoError(t, os.WriteFile(copyPath, damaged, 0o600))
			a := openArchive(t, copyPath)
			err := tc.write(a)
			require.ErrorIs(t, err, db.ErrWriteRefused)
			require.ErrorIs(t, err, db.ErrCorrupt)
			require.Regexp(t, `page \d+`, db.RefusalDetail(err), "the guard found the page")
			require.Equal(t, fmt.Sprintf("archive %s is damaged: a page could not be read; `chronicle check` lists the problems it can find", copyPath), err.Error())
			require.NoError(t, a.Close())
			after, err := os.ReadFile(copyPath)
			require.NoError(t, err)
			require.Equal(t, sha256.Sum256(damaged), sha256.Sum256(after), "the archive changed")
		})
	}
}
