package db

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The two buckets schema 16 derives from the kept receipts,
// receiptcounts and receiptorder, are written again (the upgrade,
// reindex) and checked (check) from one walk of the receipts bucket.

// receiptWalk is what that walk gives: each owner's count of entries (by
// key, damaged ones too, so that listing them fails on the entry itself)
// and, by number, the key of each entry that opens (one that does not is
// left out, so a page that should hold it fails on the gap).
type receiptWalk struct {
	counts map[string]uint64
	order  []keyValue // seqKey(number) → key
}

func walkReceipts(tx *bolt.Tx) (*receiptWalk, error) {
	w := &receiptWalk{counts: map[string]uint64{}}
	err := tx.Bucket(bucketReceipts).ForEach(func(k, v []byte) error {
		if len(k) >= 32 {
			w.counts[string(k[:32])]++
		}
		if seq, _, err := openReceipt(k, v); err == nil {
			w.order = append(w.order, keyValue{seqKey(seq), bytes.Clone(k)})
		}
		return nil
	})
	return w, err
}

// rebuildReceiptIndexes writes receiptcounts and receiptorder again.
func rebuildReceiptIndexes(tx *bolt.Tx) error {
	w, err := walkReceipts(tx)
	if err != nil {
		return err
	}
	counts, err := recreateBucket(tx, bucketReceiptCounts)
	if err != nil {
		return err
	}
	entries := make([]keyValue, 0, len(w.counts))
	for owner, c := range w.counts {
		entries = append(entries, keyValue{[]byte(owner), sealCount([]byte(owner), c)})
	}
	if err := putSorted(counts, entries); err != nil {
		return err
	}
	order, err := recreateBucket(tx, bucketReceiptOrder)
	if err != nil {
		return err
	}
	return putSorted(order, w.order)
}

// checkReceiptIndexes is check's comparison of both buckets with the
// receipts: each owner's count is the number of its entries, and number
// n of the issue order is the key of the entry numbered n.
func checkReceiptIndexes(tx *bolt.Tx) []Problem {
	w, err := walkReceipts(tx)
	if err != nil {
		return []Problem{{Detail: err.Error()}}
	}
	var problems []Problem
	if counts, err := derivedBucket(tx, bucketReceiptCounts); err != nil {
		problems = append(problems, Problem{Detail: err.Error()})
	} else {
		_ = counts.ForEach(func(k, _ []byte) error {
			c, err := receiptCount(tx, k)
			switch {
			case err != nil:
				problems = append(problems, Problem{Detail: err.Error()})
			case c != w.counts[string(k)]:
				problems = append(problems, Problem{Detail: fmt.Sprintf("document %x… has %d kept receipts but its count says %d", k[:min(len(k), 6)], w.counts[string(k)], c)})
			}
			delete(w.counts, string(k))
			return nil
		})
		for owner, c := range w.counts {
			problems = append(problems, Problem{Detail: fmt.Sprintf("document %x… has %d kept receipts and no count of them", []byte(owner)[:6], c)})
		}
	}
	order, err := derivedBucket(tx, bucketReceiptOrder)
	if err != nil {
		return append(problems, Problem{Detail: err.Error()})
	}
	for _, e := range w.order {
		if !bytes.Equal(order.Get(e.key), e.value) {
			problems = append(problems, Problem{Detail: fmt.Sprintf("kept receipt number %d is missing from the issue order or another stands there (`chronicle reindex` rebuilds it)", binary.BigEndian.Uint64(e.key))})
		}
	}
	last := tx.Bucket(bucketReceipts).Sequence()
	_ = order.ForEach(func(k, _ []byte) error {
		if len(k) != 8 || binary.BigEndian.Uint64(k) < 1 || binary.BigEndian.Uint64(k) > last {
			problems = append(problems, Problem{Detail: fmt.Sprintf("issue order entry %x names no kept receipt (`chronicle reindex` rebuilds it)", k)})
		}
		return nil
	})
	return problems
}
