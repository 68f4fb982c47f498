package db

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/casper-chronicle/chronicle/engine/archivelog"
	bolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/tlog"
)

// buildLog writes the log of an archive kept before there was one
// (schema 18) from what it holds: each document in import order (its
// document leaf under its first name, a name leaf for each other name,
// then its original receipts in their import order), then the kept
// receipts by number, then the claims checks by key. A document whose
// record cannot be read gets no leaves (check reports the record, and the
// log's missing leaf).
//
// The tree is computed in memory and its entries put in key order: one
// transaction puts them all, and bbolt splits a node only at commit, so
// entries appended leaf by leaf (a leaf, its hashes and its subject, in
// three key ranges) moved a growing node's entries on every put: 7 min 50
// s for the 200,000 leaves of 100,000 documents.
func buildLog(tx *bolt.Tx) error {
	if tx.Bucket(bucketLog) != nil {
		if err := tx.DeleteBucket(bucketLog); err != nil {
			return err
		}
	}
	b, err := createLog(tx)
	if err != nil {
		return err
	}
	lb := &logBuild{}
	if err := lb.gather(tx); err != nil {
		return err
	}
	if err := putSorted(b, lb.entries); err != nil {
		return err
	}
	return b.SetSequence(lb.n)
}

// logBuild is a log computed in memory.
type logBuild struct {
	n       uint64
	hashes  []tlog.Hash // by stored hash index, which StoredHashes fills densely
	entries []keyValue
}

// ReadHashes is tlog.HashReader over the hashes computed so far.
func (lb *logBuild) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x < 0 || x >= int64(len(lb.hashes)) {
			return nil, fmt.Errorf("log build: hash %d not computed", x)
		}
		out[i] = lb.hashes[x]
	}
	return out, nil
}

// add appends leaf l, found by locator (see appendLeaf).
func (lb *logBuild) add(l *archivelog.Leaf, locator []byte) error {
	entries, hashes, err := leafEntries(lb.n, l, locator, lb)
	if err != nil {
		return err
	}
	lb.entries = append(lb.entries, entries...)
	lb.hashes = append(lb.hashes, hashes...)
	lb.n++
	return nil
}

// gather computes the leaves of what tx holds (see buildLog).
func (lb *logBuild) gather(tx *bolt.Tx) error {
	originals := tx.Bucket(bucketOriginals)
	for seq := uint64(1); seq <= maxSeq(tx); seq++ {
		d, err := docBySeq(tx, seq)
		if err != nil {
			continue
		}
		names := d.Names
		first := ""
		if len(names) > 0 {
			first, names = names[0], names[1:]
		}
		if err := lb.add(&archivelog.Leaf{Kind: archivelog.KindDocument, SHA256: d.SHA256, Size: d.SourceSize, Name: first}, docLocator(d.Seq)); err != nil {
			return err
		}
		for _, n := range names {
			if err := lb.add(&archivelog.Leaf{Kind: archivelog.KindName, SHA256: d.SHA256, Name: n}, nil); err != nil {
				return err
			}
		}
		var kept []Original
		c := originals.Cursor()
		for k, v := c.Seek(d.SHA256[:]); k != nil && bytes.HasPrefix(k, d.SHA256[:]); k, v = c.Next() {
			var o Original
			if json.Unmarshal(v, &o) == nil {
				kept = append(kept, o)
			}
		}
		slices.SortFunc(kept, func(x, y Original) int { return cmp.Compare(x.Seq, y.Seq) })
		for i := range kept {
			l := &archivelog.Leaf{Kind: archivelog.KindOriginal, SHA256: d.SHA256, Receipt: kept[i].ID(), Name: kept[i].Name}
			if err := lb.add(l, nil); err != nil {
				return err
			}
		}
	}
	w, err := walkReceipts(tx)
	if err != nil {
		return err
	}
	slices.SortFunc(w.order, func(x, y keyValue) int { return bytes.Compare(x.key, y.key) })
	for _, e := range w.order {
		// e: number (u64 BE) → the receipt's key, owner ‖ SHA-256 of its bytes.
		num := binary.BigEndian.Uint64(e.key)
		l := &archivelog.Leaf{Kind: archivelog.KindReceipt, Number: num, SHA256: Digest(e.value[32:64])}
		if err := lb.add(l, receiptLocator(num)); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketClaims).ForEach(func(k, v []byte) error {
		c, err := decodeCheck(k, v)
		if err != nil {
			return nil // check reports it
		}
		return lb.add(&archivelog.Leaf{Kind: archivelog.KindClaims, Namespace: c.Namespace, RunID: c.RunID, SHA256: c.FileSHA256}, claimsLocator(c.FileSHA256))
	})
}
