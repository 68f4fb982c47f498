package db

import (
	"encoding/binary"
	"fmt"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
)

// bucketReceiptOrder lists the kept receipts in issue order (schema 16):
// the receipt's number (u64 BE, 1..the receipts bucket's sequence) → its
// key in the receipts bucket (64). The numbers are dense, so a page of
// receipts read from it checks itself as the sequence entries of the
// documents do: each number of the page is there, points at an entry
// sealed with that number, and the walk stops at the last issued.
var bucketReceiptOrder = []byte("receiptorder")

// putReceiptOrder records that receipt number seq is kept under key.
func putReceiptOrder(tx *bolt.Tx, seq uint64, key []byte) error {
	b, err := derivedBucket(tx, bucketReceiptOrder)
	if err != nil {
		return err
	}
	return b.Put(seqKey(seq), key)
}

// KeptReceipt is one kept receipt: its number (its place in issue order)
// and either a document's receipt or an archive-wide one.
type KeptReceipt struct {
	Seq uint64
	Doc *Receipt
	Set *SetReceipt
}

// ReceiptsFrom lists at most limit kept receipts in issue order, from
// number from (1 is the first), reading only those (bucketReceiptOrder),
// and reports whether more follow. Each is checked as a whole listing
// checks it (its seal, its key, its number), and the numbers must follow
// each other without a gap up to the last issued.
func (a *Archive) ReceiptsFrom(from uint64, limit int) (out []KeptReceipt, more bool, err error) {
	from = max(from, 1)
	err = a.bolt.View(func(tx *bolt.Tx) (err error) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer a.recoverPage(func() string { return "the kept receipts" }, &err)
		receipts := tx.Bucket(bucketReceipts)
		last := receipts.Sequence()
		order, err := derivedBucket(tx, bucketReceiptOrder)
		if err != nil {
			return fmt.Errorf("archive %s: %w", a.path, err)
		}
		c := order.Cursor()
		next := from
		for k, v := c.Seek(seqKey(from)); next <= last; k, v = c.Next() {
			if len(out) == limit {
				more = true
				return nil
			}
			if k == nil || len(k) != 8 || binary.BigEndian.Uint64(k) != next {
				return a.receiptDamage(nil, fmt.Sprintf("the issue order lacks receipt number %d of %d (run `chronicle check`)", next, last))
			}
			entry := receipts.Get(v)
			if entry == nil {
				return a.receiptDamage(v, fmt.Sprintf("receipt number %d is not kept (lost entry)", next))
			}
			seq, data, err := openReceipt(v, entry)
			if err != nil {
				return a.receiptDamage(v, err.Error())
			}
			if seq != next {
				return a.receiptDamage(v, fmt.Sprintf("its number %d is not %d, the issue order's", seq, next))
			}
			kr, err := parseKept(v, seq, data)
			if err != nil {
				return a.receiptDamage(v, err.Error())
			}
			out = append(out, kr)
			next++
		}
		return nil
	})
	return out, more, err
}
