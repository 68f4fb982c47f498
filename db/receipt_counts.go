package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// bucketReceiptCounts counts the kept receipts of each owner document
// (schema 16): the document digest (32) → count (u64 BE) ‖ seal (the
// first 8 bytes of the SHA-256 of key ‖ count). One document's receipts
// are then listed from its key prefix of the receipts bucket alone, and a
// lost entry still fails the listing: the count says how many there must
// be (the whole bucket's numbering says the same for a listing of all).
var bucketReceiptCounts = []byte("receiptcounts")

// sealCount is the value of a count entry.
func sealCount(key []byte, n uint64) []byte {
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 16), n)
	h := sha256.New()
	h.Write(key)
	h.Write(v)
	return h.Sum(v)[:16]
}

// receiptCount reads the count of owner's receipts (0 without an entry).
func receiptCount(tx *bolt.Tx, owner []byte) (uint64, error) {
	b, err := derivedBucket(tx, bucketReceiptCounts)
	if err != nil {
		return 0, err
	}
	v := b.Get(owner)
	if v == nil {
		return 0, nil
	}
	n := uint64(0)
	if len(v) == 16 {
		n = binary.BigEndian.Uint64(v[:8])
	}
	if !bytes.Equal(v, sealCount(owner, n)) {
		return 0, fmt.Errorf("the count of document %x…'s receipts does not match its seal", owner[:min(len(owner), 6)])
	}
	return n, nil
}

// addReceiptCount counts one more receipt of owner.
func addReceiptCount(tx *bolt.Tx, owner []byte) error {
	n, err := receiptCount(tx, owner)
	if errors.Is(err, ErrCorrupt) {
		return err
	} else if err != nil {
		return fmt.Errorf("%w: %v (run `chronicle check`)", ErrCorrupt, err)
	}
	return tx.Bucket(bucketReceiptCounts).Put(owner, sealCount(owner, n+1))
}

// rebuildReceiptCounts counts every owner's kept receipts by their keys
// (schema 16's upgrade); a damaged entry is counted, so that listing it
// fails on the entry itself.
func rebuildReceiptCounts(tx *bolt.Tx) error {
	counts, err := recreateBucket(tx, bucketReceiptCounts)
	if err != nil {
		return err
	}
	n := map[string]uint64{}
	if err := tx.Bucket(bucketReceipts).ForEach(func(k, _ []byte) error {
		if len(k) >= 32 {
			n[string(k[:32])]++
		}
		return nil
	}); err != nil {
		return err
	}
	entries := make([]keyValue, 0, len(n))
	for owner, c := range n {
		entries = append(entries, keyValue{[]byte(owner), sealCount([]byte(owner), c)})
	}
	return putSorted(counts, entries)
}

// checkReceiptCounts is check's comparison of the counts with the
// receipts: each owner's count must be the number of its entries.
func checkReceiptCounts(tx *bolt.Tx) []Problem {
	n := map[string]uint64{}
	_ = tx.Bucket(bucketReceipts).ForEach(func(k, _ []byte) error {
		if len(k) >= 32 {
			n[string(k[:32])]++
		}
		return nil
	})
	counts, err := derivedBucket(tx, bucketReceiptCounts)
	if err != nil {
		return []Problem{{Detail: err.Error()}}
	}
	var problems []Problem
	_ = counts.ForEach(func(k, _ []byte) error {
		c, err := receiptCount(tx, k)
		switch {
		case err != nil:
			problems = append(problems, Problem{Detail: err.Error()})
		case c != n[string(k)]:
			problems = append(problems, Problem{Detail: fmt.Sprintf("document %x… has %d kept receipts but its count says %d", k[:min(len(k), 6)], n[string(k)], c)})
		}
		delete(n, string(k))
		return nil
	})
	for owner, c := range n {
		problems = append(problems, Problem{Detail: fmt.Sprintf("document %x… has %d kept receipts and no count of them", []byte(owner)[:6], c)})
	}
	return problems
}
