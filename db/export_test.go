package db

import (
	"github.com/casper-chronicle/chronicle/index"
	bolt "go.etcd.io/bbolt"
)

// BoundsForTest returns the term index's candidates with their ranking
// bounds, as Find computes them.
func (a *Archive) BoundsForTest(terms [][]byte) ([]index.Bound, error) {
	var out []index.Bound
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		out, err = index.Bounds(tx, maxSeq(tx), terms)
		return err
	})
	return out, err
}

// AbandonBatchForTest forgets the grams a batch holds, as a process that
// dies before EndBatch does.
func (a *Archive) AbandonBatchForTest() { a.batch = nil }

// UnindexedForTest lists the documents not folded into the term postings.
func (a *Archive) UnindexedForTest() ([]uint64, error) {
	var out []uint64
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		out, err = index.Unindexed(tx, maxSeq(tx))
		return err
	})
	return out, err
}

// GramsDumpForTest is every key and value of the term index.
func (a *Archive) GramsDumpForTest() (map[string]string, error) {
	m := map[string]string{}
	err := a.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("grams")).ForEach(func(k, v []byte) error {
			m[string(k)] = string(v)
			return nil
		})
	})
	return m, err
}

// SetChunkSizeForTest makes a write new documents in chunks of n bytes, as
// an archive written before ChunkSize changed did.
func (a *Archive) SetChunkSizeForTest(n int) { a.chunkSize = n }

// Sizes FORMAT.md states (format_doc_test.go).
const (
	ReceiptSealLenForTest = receiptSealLen
	TotalsLenForTest      = totalsLen
	RecordTailForTest     = recordTail
)

// SplitBoundsForTest sets the fewest super-groups whose bounds Find
// computes on several cores (1: always), and returns a function that
// puts the default back.
func SplitBoundsForTest(supers uint64) (restore func()) {
	old := splitBoundsSupers
	splitBoundsSupers = supers
	return func() { splitBoundsSupers = old }
}
