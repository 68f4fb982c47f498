package db

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// bucketOrder lists the documents by size and by event count (schema 16),
// so that `docs --sort size` and `--sort events` read one page of entries
// instead of every record: kind (one byte, orderSize or orderEvents) ‖
// the complement of the value (u64 BE, so the largest sorts first) ‖ the
// sequence number (u64 BE, so ties keep import order) → the document's
// SHA-256. Every document has one entry of each kind, written with its
// record; a document's size and event count never change.
var bucketOrder = []byte("docorder")

// Kinds of bucketOrder entries.
const (
	orderSize   byte = 's'
	orderEvents byte = 'e'
)

// orderKinds are the orders the bucket keeps, with the value each ranks
// a document by.
var orderKinds = []struct {
	kind  byte
	what  string
	value func(*Document) uint64
}{
	{orderSize, "size", func(d *Document) uint64 { return uint64(d.SourceSize) }},
	{orderEvents, "event count", func(d *Document) uint64 { return uint64(d.EventCount) }},
}

// derivedBucket is one of the buckets schema 16 derives from the records
// and receipts (docorder, receiptcounts, receiptorder); a missing one is
// damage that `chronicle reindex` repairs, never a nil bucket.
func derivedBucket(tx *bolt.Tx, name []byte) (*bolt.Bucket, error) {
	if b := tx.Bucket(name); b != nil {
		return b, nil
	}
	return nil, fmt.Errorf("%w: the %s bucket is missing (run `chronicle reindex`, which writes it again)", ErrCorrupt, name)
}

// recreateBucket empties (or creates) a derived bucket before it is
// written again from what it derives from.
func recreateBucket(tx *bolt.Tx, name []byte) (*bolt.Bucket, error) {
	if tx.Bucket(name) != nil {
		if err := tx.DeleteBucket(name); err != nil {
			return nil, err
		}
	}
	return tx.CreateBucket(name)
}

// orderKey is the key of a document's entry of kind k ranked by value.
func orderKey(k byte, value, seq uint64) []byte {
	key := append(make([]byte, 0, 17), k)
	key = binary.BigEndian.AppendUint64(key, ^value)
	return binary.BigEndian.AppendUint64(key, seq)
}

// putOrder writes d's entries.
func putOrder(tx *bolt.Tx, d *Document) error {
	b, err := derivedBucket(tx, bucketOrder)
	if err != nil {
		return err
	}
	for _, o := range orderKinds {
		if err := b.Put(orderKey(o.kind, o.value(d), d.Seq), d.SHA256[:]); err != nil {
			return err
		}
	}
	return nil
}

// rebuildOrder writes the bucket again from the document records (schema
// 16's upgrade; a reindex, which rewrites the sequence entries too). A
// record that cannot be read gets no entries: check reports it.
func rebuildOrder(tx *bolt.Tx) error {
	b, err := recreateBucket(tx, bucketOrder)
	if err != nil {
		return err
	}
	var entries []keyValue
	if err := tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		d, err := decodeDocument(k, v)
		if err != nil {
			return nil
		}
		for _, o := range orderKinds {
			entries = append(entries, keyValue{orderKey(o.kind, o.value(d), d.Seq), d.SHA256[:]})
		}
		return nil
	}); err != nil {
		return err
	}
	return putSorted(b, entries)
}

// keyValue is one entry to put.
type keyValue struct{ key, value []byte }

// putSorted puts the entries into an empty bucket in key order: bbolt
// splits a node only when the transaction commits, so entries put in any
// other order move a growing node's entries on every put (a minute for
// the 200,000 entries of 100,000 documents, against a fraction of a
// second in order), and in order each lands at the end.
func putSorted(b *bolt.Bucket, entries []keyValue) error {
	slices.SortFunc(entries, func(x, y keyValue) int { return bytes.Compare(x.key, y.key) })
	b.FillPercent = 0.9
	for _, e := range entries {
		if err := b.Put(e.key, e.value); err != nil {
			return err
		}
	}
	return nil
}

// listByOrder emits the documents in the order of kind, from the entry
// after the document after (the start without one): one cursor step and
// one record per document listed. Each entry must point at a document
// whose record ranks it there, and a whole listing must list every
// document issued; a lost entry in a page after the first is found by
// `check`.
func listByOrder(tx *bolt.Tx, kind byte, after *Document, emit func(*Document) (bool, error)) error {
	o := orderKinds[0]
	for _, k := range orderKinds {
		if k.kind == kind {
			o = k
		}
	}
	b, err := derivedBucket(tx, bucketOrder)
	if err != nil {
		return err
	}
	c := b.Cursor()
	var k, v []byte
	if after != nil {
		from := orderKey(kind, o.value(after), after.Seq)
		if k, v = c.Seek(from); bytes.Equal(k, from) {
			k, v = c.Next()
		}
	} else {
		k, v = c.Seek([]byte{kind})
	}
	listed := uint64(0)
	for ; k != nil && k[0] == kind; k, v = c.Next() {
		listed++
		d, err := listedDoc(tx, v, fmt.Sprintf("%s order entry %x", o.what, k))
		if err != nil {
			return err
		}
		if !bytes.Equal(k, orderKey(kind, o.value(d), d.Seq)) {
			return fmt.Errorf("document %s (%s): %w: its %s order entry %x does not match its record (#%d, %d) (run `chronicle reindex`)",
				d.Label(), d.SHA256, ErrCorrupt, o.what, k, d.Seq, o.value(d))
		}
		if stop, err := emit(d); stop || err != nil {
			return err
		}
	}
	// A whole listing counts the entries: one per document issued.
	if last := maxSeq(tx); after == nil && listed != last {
		return fmt.Errorf("%w: the %s order lists %d documents of the %d issued (run `chronicle reindex`)", ErrCorrupt, o.what, listed, last)
	}
	return nil
}

// checkOrder is check's comparison of the order entries with the
// records: each document has its entries, each entry is a document's.
func checkOrder(tx *bolt.Tx, docs []*Document) []Problem {
	b, err := derivedBucket(tx, bucketOrder)
	if err != nil {
		return []Problem{{Detail: err.Error()}}
	}
	var problems []Problem
	want := map[string]*Document{}
	for _, d := range docs {
		for _, o := range orderKinds {
			key := orderKey(o.kind, o.value(d), d.Seq)
			want[string(key)] = d
			if !bytes.Equal(b.Get(key), d.SHA256[:]) {
				problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("its %s order entry is missing or points elsewhere (`chronicle reindex` rebuilds it)", o.what)})
			}
		}
	}
	_ = b.ForEach(func(k, _ []byte) error {
		if want[string(k)] == nil {
			problems = append(problems, Problem{Detail: fmt.Sprintf("order entry %x belongs to no document (`chronicle reindex` rebuilds the order)", k)})
		}
		return nil
	})
	return problems
}
