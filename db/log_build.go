package db

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"slices"

	"github.com/casper-chronicle/chronicle/engine/archivelog"
	bolt "go.etcd.io/bbolt"
)

// buildLog writes the log of an archive kept before there was one
// (schema 18) from what it holds: each document in import order (its
// document leaf under its first name, a name leaf for each other name,
// then its original receipts in their import order), then the kept
// receipts by number, then the claims checks by key. A document whose
// record cannot be read gets no leaves (check reports the record, and the
// log's missing leaf).
func buildLog(tx *bolt.Tx) error {
	if tx.Bucket(bucketLog) != nil {
		if err := tx.DeleteBucket(bucketLog); err != nil {
			return err
		}
	}
	if _, err := createLog(tx); err != nil {
		return err
	}
	originals := tx.Bucket(bucketOriginals)
	for seq := uint64(1); seq <= maxSeq(tx); seq++ {
		d, err := docBySeq(tx, seq)
		if err != nil {
			continue
		}
		if err := logDocument(tx, d, true, d.Names); err != nil {
			return err
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
			if err := appendLeaf(tx, l); err != nil {
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
		l := &archivelog.Leaf{Kind: archivelog.KindReceipt, Number: binary.BigEndian.Uint64(e.key), SHA256: Digest(e.value[32:64])}
		if err := appendLeaf(tx, l); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketClaims).ForEach(func(k, v []byte) error {
		c, err := decodeCheck(k, v)
		if err != nil {
			return nil // check reports it
		}
		return appendLeaf(tx, &archivelog.Leaf{Kind: archivelog.KindClaims, Namespace: c.Namespace, RunID: c.RunID, SHA256: c.FileSHA256})
	})
}
