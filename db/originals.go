package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/casper-chronicle/chronicle/engine/archivelog"
	"sort"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	bolt "go.etcd.io/bbolt"
)

// Original is an original V1/V2 receipt file kept in the archive beside the
// store it was imported with.
type Original struct {
	Seq      uint64 `json:"seq"`
	Name     string `json:"name"`     // the file it was imported from
	Document Digest `json:"document"` // the document of the store it came with
	Bytes    []byte `json:"receipt"`
}

// ID is the SHA-256 of the receipt bytes.
func (o *Original) ID() Digest { return sha256.Sum256(o.Bytes) }

// ImportResult says what ImportStore did.
type ImportResult struct {
	Doc *Document
	// Present: the store was already in the archive (same bytes).
	Present bool
	// Conflict: the document is present with a different store (another
	// version or import time); the archive keeps the one it has and the
	// receipts are not imported, since they could not verify against it.
	Conflict  bool
	Receipts  int      // original receipts newly kept
	Added     []string // names newly attached
	Moved     map[string]Digest
	Unchanged int // receipts already kept
}

// ImportStore keeps an existing canonical store (V1 or V2, already fully
// validated by the caller with engine.Load) exactly as it is, so that its
// version, magic and imported_at survive and Rebuild returns the same bytes,
// together with original receipt files found beside it. One write
// transaction.
func (a *Archive) ImportStore(s *engine.Store, storeBytes []byte, names []string, originals []Original) (*ImportResult, error) {
	res := &ImportResult{}
	storeSum := Digest(sha256.Sum256(storeBytes))
	var p *prepared // computed outside the write transaction when new
	exists := false
	if err := a.bolt.View(func(tx *bolt.Tx) error {
		exists = tx.Bucket(bucketDocs).Get(s.Document[:]) != nil
		return nil
	}); err != nil {
		return nil, err
	}
	if !exists {
		p = a.prepareStore(s, storeBytes)
	}
	committed := func() {}
	err := a.update(func(tx *bolt.Tx) error {
		var d *Document
		fresh := false // stored by this transaction
		if raw := tx.Bucket(bucketDocs).Get(s.Document[:]); raw != nil {
			var err error
			if d, err = decodeDocument(s.Document[:], raw); err != nil {
				return err
			}
			res.Present = d.StoreSHA256 == storeSum
			res.Conflict = !res.Present
		} else {
			if p == nil {
				p = a.prepareStore(s, storeBytes)
			}
			var err error
			if d, committed, err = a.putDocument(tx, p); err != nil {
				return err
			}
			fresh = true
		}
		if res.Conflict {
			// Nothing changes: no name may point at a store that is not
			// the one imported.
			res.Doc = d
			return nil
		}
		ir := &IngestResult{}
		if err := a.attachNames(tx, d, names, ir); err != nil {
			return err
		}
		if err := logDocument(tx, d, fresh, ir.Added); err != nil {
			return err
		}
		res.Doc, res.Added, res.Moved = d, ir.Added, ir.Moved
		b := tx.Bucket(bucketOriginals)
		for _, o := range originals {
			id := o.ID()
			key := append(append([]byte{}, d.SHA256[:]...), id[:]...)
			if b.Get(key) != nil {
				res.Unchanged++
				continue
			}
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			o.Seq, o.Document = seq, d.SHA256
			v, err := json.Marshal(&o)
			if err != nil {
				return err
			}
			if err := b.Put(key, v); err != nil {
				return err
			}
			if err := appendLeaf(tx, &archivelog.Leaf{Kind: archivelog.KindOriginal, SHA256: d.SHA256, Receipt: id, Name: o.Name}, nil); err != nil {
				return err
			}
			res.Receipts++
		}
		return addTotals(tx, Totals{Originals: int64(res.Receipts)})
	})
	if err != nil {
		return nil, err
	}
	committed()
	return res, nil
}

// Originals lists the original receipts kept in the archive (of one
// document when doc is non-nil), in import order.
func (a *Archive) Originals(doc *Digest) ([]*Original, error) {
	var out []*Original
	err := a.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketOriginals).Cursor()
		var prefix []byte
		if doc != nil {
			prefix = doc[:]
		}
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var o Original
			if err := json.Unmarshal(v, &o); err != nil || len(k) != 64 || o.ID() != Digest(k[32:]) {
				return fmt.Errorf("original receipt %x: %w", k, ErrCorrupt)
			}
			out = append(out, &o)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, err
}

// VerifyOriginal verifies an original V1/V2 receipt against the archive
// instead of the file system: the store is the archive's store whose SHA-256
// equals the receipt's store_sha256, and every other rule of CONTRACT 4 applies
// unchanged, so the outcome (VALID, INVALID, UNSUPPORTED) is the one the
// receipt gets on disk beside its store.
func (a *Archive) VerifyOriginal(data []byte, replay receipt.Replayer) (receipt.Outcome, error) {
	rec, err := receipt.Parse(data)
	if err != nil {
		return receipt.Invalid, err
	}
	docs, err := a.Docs()
	if err != nil {
		return receipt.Invalid, err
	}
	for _, d := range docs {
		if hex.EncodeToString(d.StoreSHA256[:]) != rec.StoreSHA256 {
			continue
		}
		storeBytes, _, err := a.Rebuild(d)
		if err != nil {
			return receipt.Invalid, err
		}
		return receipt.Verify(rec, storeBytes, replay)
	}
	return receipt.Invalid, fmt.Errorf("no store in the archive has SHA-256 %s", rec.StoreSHA256)
}
