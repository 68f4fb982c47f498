package db

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"

	"github.com/casper-chronicle/chronicle/engine/receipt"

	bolt "go.etcd.io/bbolt"
)

// Reasons an archive receipt is INVALID.
var (
	ErrReceiptStore  = errors.New("the archive's store differs from the receipt's store_sha256")
	ErrReceiptResult = errors.New("replaying the question gives a different result")
)

// Verify checks an archive receipt against the archive: the document must be
// present, its canonical store must rebuild to the receipt's store digest
// and load with full replay, and the replayed result must hash to the
// receipt's result digest.
func (a *Archive) Verify(r *Receipt, replay receipt.Replayer) (receipt.Outcome, error) {
	d, err := a.Document(r.Document)
	if err != nil {
		return receipt.Invalid, err
	}
	storeBytes, store, err := a.Rebuild(d)
	if err != nil {
		return receipt.Invalid, err
	}
	if d.StoreSHA256 != r.Store {
		return receipt.Invalid, ErrReceiptStore
	}
	if r.Kind == KindDerive { // the result is re-derived, not replayed
		return a.verifyDerive(r)
	}
	// Archive receipt kinds carry the same names as the original's.
	result, err := receipt.Recompute(receipt.Kind(r.Kind), storeBytes, store, r.Question, replay)
	if err != nil {
		return receipt.Invalid, err
	}
	if Digest(sha256.Sum256(result)) != r.Result {
		return receipt.Invalid, ErrReceiptResult
	}
	return receipt.Valid, nil
}

// Findable reports whether the archive can still reach document doc the
// ways commands do: each of its names and source paths through the names
// bucket, its number through the sequence bucket, its line index record.
// A receipt replays from the document's own bytes (Verify), so it is
// rightly VALID when one of these is damaged; but the archive is damaged
// all the same, and Findable says how (an error wrapping ErrCorrupt), so
// that verify can say so beside the verdict. It reads a handful of keys.
func (a *Archive) Findable(doc Digest) (err error) {
	defer func() {
		// A damaged page can make bbolt panic on a lookup; it is that
		// lookup's answer here.
		if r := recover(); r != nil {
			err = fmt.Errorf("document %s: %w: a page on the way to it could not be read", doc, ErrCorrupt)
		}
	}()
	return a.bolt.View(func(tx *bolt.Tx) error {
		// The pages of every lookup below first: bbolt's own lookups do
		// not bound the elements they read.
		if err := a.lookupPages(tx, doc); err != nil {
			return err
		}
		raw := tx.Bucket(bucketDocs).Get(doc[:])
		if raw == nil {
			return fmt.Errorf("document %s: %w: its record cannot be found by its digest", doc, ErrCorrupt)
		}
		d, err := decodeDocument(doc[:], raw)
		if err != nil {
			return err
		}
		nb := tx.Bucket(bucketNames)
		for _, n := range d.Names {
			if !bytes.Equal(nb.Get([]byte(n)), doc[:]) {
				return fmt.Errorf("document %s (%s): %w: its name %q no longer leads to it", d.Label(), doc, ErrCorrupt, n)
			}
		}
		for _, abs := range d.Sources {
			if !bytes.Equal(nb.Get(pathKey(abs)), doc[:]) {
				return fmt.Errorf("document %s (%s): %w: its source path %q no longer leads to it", d.Label(), doc, ErrCorrupt, abs)
			}
		}
		if !bytes.Equal(tx.Bucket(bucketSeqs).Get(seqKey(d.Seq)), doc[:]) {
			return fmt.Errorf("document %s (%s): %w: its number #%d no longer leads to it", d.Label(), doc, ErrCorrupt, d.Seq)
		}
		if lb := tx.Bucket([]byte("lines")); lb != nil && lb.Get(seqKey(d.Seq)) == nil {
			return fmt.Errorf("document %s (%s): %w: its line index record cannot be found", d.Label(), doc, ErrCorrupt)
		}
		return nil
	})
}

// lookupPages checks the pages Findable's lookups of doc descend (see
// pageWalker.descend): the root bucket, then the record, and from the
// record (read through the checked pages) its names, source paths, number
// and line index record.
func (a *Archive) lookupPages(tx *bolt.Tx, doc Digest) error {
	f, err := os.Open(a.path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, root, err := newPageWalker(f, tx)
	if err == nil {
		err = w.walkRoot(root)
	}
	if err != nil {
		return fmt.Errorf("document %s: %w: the archive's root page: %v", doc, ErrCorrupt, err)
	}
	look := func(bucket []byte, key []byte, what string) error {
		b := tx.Bucket(bucket)
		if b == nil || b.Root() == 0 { // missing (Get says so) or inline: in the root page, checked
			return nil
		}
		w.seen = map[uint64]bool{} // each lookup reads the pages from the root again
		if err := w.descend(uint64(b.Root()), key); err != nil {
			return fmt.Errorf("document %s: %w: the pages on the way to %s are damaged (%v)", doc, ErrCorrupt, what, err)
		}
		return nil
	}
	if err := look(bucketDocs, doc[:], "its record"); err != nil {
		return err
	}
	raw := tx.Bucket(bucketDocs).Get(doc[:])
	if raw == nil {
		return nil // Findable says so
	}
	d, err := decodeDocument(doc[:], raw)
	if err != nil {
		return err
	}
	for _, n := range d.Names {
		if err := look(bucketNames, []byte(n), fmt.Sprintf("its name %q", n)); err != nil {
			return err
		}
	}
	for _, abs := range d.Sources {
		if err := look(bucketNames, pathKey(abs), fmt.Sprintf("its source path %q", abs)); err != nil {
			return err
		}
	}
	if err := look(bucketSeqs, seqKey(d.Seq), fmt.Sprintf("its number #%d", d.Seq)); err != nil {
		return err
	}
	return look([]byte("lines"), seqKey(d.Seq), "its line index record")
}
