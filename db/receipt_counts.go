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
