package db

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/casper-chronicle/chronicle/index"

	bolt "go.etcd.io/bbolt"
)

// A batch (BeginBatch … EndBatch) defers the term postings of the
// documents it ingests. Writing a document's grams rewrites every posting
// of its group of 64 documents that the document shares, so one document
// at a time rewrites a group's postings up to 64 times; folding the grams
// of many documents into their group in one pass writes each posting once
// per fold. The grams wait in memory (8 bytes each) and are folded inside
// the commit of the document that fills the batch or its group, and by
// EndBatch.
//
// A document whose grams are not folded yet is still found: until its
// group's start entry marks it indexed, the term index returns it as a
// candidate for every query (index.Bounds), and find scores it from its
// line index. Grams a batch could not fold (the process died) are folded by
// the next write open of the archive (foldLeftovers), from the stored
// documents.
type termBatch struct {
	docs    []*index.DocGrams
	entries int
	// checked: the groups whose postings pages the batch has checked
	// (checkGroupPages).
	checked       map[uint64]bool
	checkedSupers map[uint64]bool
	// sums: the summary writes of the folds of the current write
	// transaction, written once before it commits (update): a batch's
	// groups share their super-group's summary blocks.
	sums index.SummaryBatch
}

// Fold thresholds of a batch: a fold rewrites the group's postings once,
// and the waiting grams cost 8 bytes each, so the batch is bounded in both
// documents and grams.
const (
	foldDocs    = 64
	foldEntries = 1 << 21
)

// BeginBatch starts a batch: the term postings of the documents ingested
// or imported until EndBatch are written together (see termBatch). Reads
// stay exact meanwhile.
func (a *Archive) BeginBatch() {
	if a.batch == nil {
		a.batch = &termBatch{}
	}
}

// EndBatch folds the grams the batch still holds into the term index, in
// one write transaction, and ends the batch.
func (a *Archive) EndBatch() error {
	b := a.batch
	a.batch = nil
	if b == nil || len(b.docs) == 0 {
		return nil
	}
	if a.bolt == nil { // released between documents
		if err := a.reacquire(false); err != nil {
			return fmt.Errorf("adding %d documents to the term index (the next write adds them): %w", len(b.docs), err)
		}
		defer a.Release()
	}
	err := a.update(func(tx *bolt.Tx) error { return index.FoldTerms(tx, b.docs) })
	if err != nil {
		return fmt.Errorf("archive %s: adding %d documents to the term index (the next write adds them): %w", a.path, len(b.docs), err)
	}
	return nil
}

// addGrams records the grams of new document seq in tx: at once outside a
// batch; in a batch they wait, and the batch is folded in tx when it is
// full or seq completes its group. The returned function updates the batch
// and must be called only once tx has committed (a rolled-back document
// leaves the batch as it was).
func (a *Archive) addGrams(tx *bolt.Tx, seq uint64, d *index.DocGrams) (committed func(), err error) {
	d.Seq = seq
	b := a.batch
	if b == nil {
		return func() {}, indexDamage(tx, index.FoldTerms(tx, []*index.DocGrams{d}))
	}
	// The fold rewrites the group's postings pages after this document
	// has committed: damage there must refuse this document, not the fold.
	if err := a.checkGroupPages(tx, b, seq/index.GroupSize); err != nil {
		return nil, err
	}
	docs := append(b.docs[:len(b.docs):len(b.docs)], d)
	if len(docs) >= foldDocs || b.entries+d.Len() >= foldEntries || seq%index.GroupSize == index.GroupSize-1 {
		if err := index.FoldTermsDeferred(tx, docs, &b.sums); err != nil {
			return nil, indexDamage(tx, err)
		}
		return func() { b.docs, b.entries = nil, 0 }, nil
	}
	return func() { b.docs, b.entries = docs, b.entries+d.Len() }, nil
}

// checkGroupPages checks, once per batch, the pages of the term postings
// of group (its keys start with the group number, u32 BE) that a fold
// will rewrite, and once per batch those of its super-group's summary:
// the write guard (writeguard.go) of a document whose grams wait in the
// batch, whose own transaction does not touch them.
func (a *Archive) checkGroupPages(tx *bolt.Tx, b *termBatch, group uint64) error {
	super := group / index.GroupSize
	if b.checked[group] && b.checkedSupers[super] {
		return nil
	}
	f, err := os.Open(a.path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, _, err := newPageWalker(f, tx)
	if err != nil {
		return refusedWrite(a.path, err.Error())
	}
	// A bucket still inline lives in the root bucket's page, which the
	// guard checks.
	if grams := tx.Bucket([]byte("grams")); !b.checked[group] && grams != nil && grams.Root() != 0 {
		lo, hi := unitRange(group)
		// The fold of a super-group's last group may pack it
		// (index/packs.go): it reads and rewrites all the super-group's
		// postings, and appends to the packs.
		packs := tx.Bucket([]byte("grampacks"))
		last := group%index.GroupSize == index.GroupSize-1
		if last {
			lo, _ = unitRange(super * index.GroupSize)
		}
		if err := w.span(uint64(grams.Root()), lo, hi); err != nil {
			return refusedWrite(a.path, fmt.Sprintf("bucket grams: %v", err))
		}
		if last && packs != nil && packs.Root() != 0 {
			lo, _ := unitRange(super)
			if err := w.span(uint64(packs.Root()), lo, nil); err != nil {
				return refusedWrite(a.path, fmt.Sprintf("bucket grampacks: %v", err))
			}
		}
	}
	// The fold also rewrites its super-group's summary (index/supers.go):
	// its keys through the folded mark, after every key (the super-group
	// is the last one, unless a repair runs).
	if sums := tx.Bucket([]byte("gramgroups")); !b.checkedSupers[super] && sums != nil && sums.Root() != 0 {
		lo, _ := unitRange(super)
		if err := w.span(uint64(sums.Root()), lo, nil); err != nil {
			return refusedWrite(a.path, fmt.Sprintf("bucket gramgroups: %v", err))
		}
	}
	if b.checked == nil {
		b.checked, b.checkedSupers = map[uint64]bool{}, map[uint64]bool{}
	}
	b.checked[group], b.checkedSupers[super] = true, true
	return nil
}

// unitRange is the key range of a term index unit (a group or a
// super-group): keys starting with its number, u32 BE.
func unitRange(unit uint64) (lo, hi []byte) {
	lo = binary.BigEndian.AppendUint32(nil, uint32(unit))
	if unit+1 <= math.MaxUint32 {
		hi = binary.BigEndian.AppendUint32(nil, uint32(unit+1))
	}
	return lo, hi
}

// foldLeftovers folds the grams of documents a batch left unfolded (its
// process ended first), reading them from the archive, a few documents per
// transaction. A damaged term index is left as it is: find and check report
// it and reindex rebuilds it; an unreadable document stays out (check
// reports it).
func (a *Archive) foldLeftovers() error {
	var seqs []uint64
	if err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		seqs, err = index.Unindexed(tx, maxSeq(tx))
		return err
	}); err != nil {
		if errors.Is(err, index.ErrDamaged) {
			return nil
		}
		return err
	}
	for len(seqs) > 0 {
		n := min(len(seqs), foldDocs)
		part := seqs[:n]
		seqs = seqs[n:]
		err := a.update(func(tx *bolt.Tx) error {
			var docs []*index.DocGrams
			for _, seq := range part {
				d, err := docBySeq(tx, seq)
				if err != nil {
					continue
				}
				s, err := a.loadIn(tx, d)
				if err != nil {
					continue
				}
				docs = append(docs, index.CountGrams(s.Source).Compact(seq))
			}
			return index.FoldTerms(tx, docs)
		})
		if errors.Is(err, index.ErrDamaged) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("archive %s: adding documents left by an interrupted ingest to the term index: %w", a.path, err)
		}
	}
	return nil
}

// packLeftovers packs the super-groups that are wholly folded but not
// packed yet (an archive upgraded to schema 19, or a fold whose packing
// failed), one per transaction (index.PackNext): packing reads and
// rewrites about 15 MB of postings per super-group. A damaged term index
// is left as it is (find and check report it, reindex rebuilds it).
func (a *Archive) packLeftovers() error {
	for {
		due := false
		if err := a.bolt.View(func(tx *bolt.Tx) error {
			var err error
			due, err = index.PackDue(tx)
			return err
		}); err != nil || !due {
			return nil // a damaged mark: find and check report it
		}
		packed := false
		err := a.update(func(tx *bolt.Tx) error {
			var err error
			packed, err = index.PackNext(tx)
			return err
		})
		if errors.Is(err, index.ErrDamaged) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("archive %s: packing the term index: %w", a.path, err)
		}
		if !packed {
			return nil
		}
	}
}
