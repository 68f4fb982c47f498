package db_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/casper-chronicle/chronicle/db"
)

// TestReceiptsFrom: pages of kept receipts in issue order, document and
// archive-wide receipts interleaved as they were issued, each page read
// alone; a gap in the order fails the page that should hold it.
func TestReceiptsFrom(t *testing.T) {
	path := newPath(t)
	a := openArchive(t, path)
	var want []string
	for i := range 7 {
		res, err := a.Ingest(fmt.Appendf(nil, "Alice owns Book%d.\n", i), goldenTime, fmt.Sprintf("d%d.txt", i))
		require.NoError(t, err)
		want = append(want, "INGEST "+res.Doc.SHA256.String())
		if i%3 == 2 {
			hits, r, err := a.IssueEntity("Alice")
			require.NoError(t, err)
			require.Len(t, hits, i+1)
			require.NoError(t, a.KeepSetReceipt(r))
			want = append(want, "ENTITY "+r.ID().String())
		}
	}
	var got []string
	for from := uint64(1); ; from += 4 {
		page, more, err := a.ReceiptsFrom(from, 4)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page), 4)
		for _, kr := range page {
			if kr.Doc != nil {
				got = append(got, string(kr.Doc.Kind)+" "+kr.Doc.Document.String())
			} else {
				got = append(got, string(kr.Set.Kind)+" "+kr.Set.ID().String())
			}
		}
		if !more {
			break
		}
	}
	require.Equal(t, want, got)
	page, more, err := a.ReceiptsFrom(uint64(len(want))+1, 4)
	require.NoError(t, err)
	require.Empty(t, page)
	require.False(t, more)
	require.NoError(t, a.Close())

	// Number 5 lost from the order: the pages that should hold it fail,
	// the one before it does not, and check names it.
	editBolt(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("receiptorder")).Delete([]byte{0, 0, 0, 0, 0, 0, 0, 5})
	})
	a = openArchive(t, path)
	_, _, err = a.ReceiptsFrom(1, 4)
	require.NoError(t, err)
	for _, from := range []uint64{1, 5} {
		_, _, err = a.ReceiptsFrom(from, 10)
		require.ErrorIs(t, err, db.ErrCorrupt)
		require.Contains(t, err.Error(), "lacks receipt number 5")
	}
	require.Contains(t, fmt.Sprint(problemsOf(t, a)), "kept receipt number 5 is missing from the issue order")
}
