package db

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"reflect"

	bolt "go.etcd.io/bbolt"
)

// The write guard (issue 24). bbolt does not checksum its pages: a write
// descends the pages on the path to each key it puts, copies them into
// memory and writes them back at commit, so a damaged page on that path is
// written out again, as a well-formed page holding the damage (check then
// finds less, or nothing, to report), and a damaged freelist hands out
// pages still in use. Every write transaction therefore checks, before it
// commits, the pages it is about to write back, read from the file: a
// damaged one rolls the transaction back with the one line a read of a
// damaged archive gives, so nothing changes.
//
// Which pages those are is bbolt's own record: each bucket of the
// transaction keeps the pages it read for writing (its node cache, keyed
// by page number). bbolt does not export it, so it is read by reflection;
// should a bbolt upgrade rename it, every write checks the whole file
// instead (slow, never unsafe), and TestWriteGuardSeesTouchedPages fails.

// ErrWriteRefused: a write found pages it would rewrite damaged and
// changed nothing. A batch (ingest, import) stops at it: every later write
// would be refused too. It comes inside a *DamageError (PageUnreadable),
// so it is also ErrDamaged and ErrCorrupt.
var ErrWriteRefused = errors.New("write refused: the archive is damaged")

// refusedWrite is a write refused on a damaged archive: the one line a
// read of a damaged page gives (PageUnreadable), wrapping ErrWriteRefused;
// found, what the guard found, is for tests and debugging (check reports
// it).
func refusedWrite(path, found string) *DamageError {
	return &DamageError{Path: path, Kind: PageUnreadable, Err: ErrWriteRefused, found: found}
}

// update is bbolt's Update with the write guard: fn's changes commit only
// if the pages they rewrite check.
func (a *Archive) update(fn func(tx *bolt.Tx) error) error {
	return a.bolt.Update(func(tx *bolt.Tx) error {
		if err := fn(tx); err != nil {
			if a.batch != nil {
				a.batch.sums.Discard()
			}
			return err
		}
		// The summary writes the batch's folds deferred (termbatch.go).
		if a.batch != nil {
			if err := a.batch.sums.Flush(tx); err != nil {
				return indexDamage(tx, err)
			}
		}
		if err := a.signLog(tx); err != nil {
			return err
		}
		return a.guardWrite(tx, false)
	})
}

// updateWhole is update for a transaction that reads whole buckets to
// rewrite or drop them (reindex, an upgrade): bbolt frees the pages of a
// dropped bucket by walking it unchecked, so every tree of the file is
// checked first, at the cost of reading it.
func (a *Archive) updateWhole(fn func(tx *bolt.Tx) error) error {
	return a.bolt.Update(func(tx *bolt.Tx) error {
		if err := a.guardWrite(tx, true); err != nil {
			return err
		}
		return fn(tx)
	})
}

// guardWrite checks the meta pages, the root bucket's pages, the pages of
// every bucket tx is about to write back (or all of them, when whole) and
// the freelist, which must lie inside the file and name none of the pages
// checked.
func (a *Archive) guardWrite(tx *bolt.Tx, whole bool) error {
	refuse := func(found string) error { return refusedWrite(a.path, found) }
	if err := checkMetaPages(a.path, tx.DB().Info().PageSize); err != nil {
		return refuse(err.Error())
	}
	touched, ok := touchedPages(tx)
	if whole || !ok {
		if problem := pageTree(a.path, tx); problem != "" {
			return refuse(problem)
		}
		return nil
	}
	f, err := os.Open(a.path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, root, err := newPageWalker(f, tx)
	if err != nil {
		return refuse(err.Error())
	}
	// The root bucket (a page or two of bucket headers) is written back by
	// every commit that changes a bucket: all of it.
	if err := w.walkRoot(root); err != nil {
		return refuse(err.Error())
	}
	for name, pages := range touched {
		b := tx.Bucket([]byte(name))
		if b == nil || b.Root() == 0 { // new in tx, or inline: inside the root bucket's page
			continue
		}
		if err := w.paths(uint64(b.Root()), pages); err != nil {
			return refuse(fmt.Sprintf("bucket %s: %v", name, err))
		}
	}
	if err := w.freelist(a.freelistPage(f, tx)); err != nil {
		return refuse(err.Error())
	}
	return nil
}

// walkRoot checks the root bucket's tree and the inline buckets in it,
// not the trees of the buckets it heads.
func (w *pageWalker) walkRoot(root uint64) error {
	var walk func(id uint64, lo, hi []byte, depth int) error
	walk = func(id uint64, lo, hi []byte, depth int) error {
		pp, err := w.page(id, lo, hi, depth)
		if err != nil {
			return err
		}
		for i, child := range pp.children {
			chi := hi
			if i+1 < len(pp.keys) {
				chi = pp.keys[i+1]
			}
			if err := walk(child, pp.keys[i], chi, depth+1); err != nil {
				return err
			}
		}
		for _, v := range pp.buckets {
			if v == nil {
				continue
			}
			if r := binary.LittleEndian.Uint64(v); r == 0 {
				if _, err := parsePage(0, v[bucketHeader:], nil, nil); err != nil {
					return fmt.Errorf("an inline bucket in page %d: %v", id, err)
				}
			} else if r < 2 || r >= w.hwm {
				return fmt.Errorf("a bucket's root page %d lies outside pages 2..%d", r, w.hwm-1)
			}
		}
		return nil
	}
	return walk(root, nil, nil, 0)
}

// freelistPage is the page number of the freelist tx started from.
func (a *Archive) freelistPage(f *os.File, tx *bolt.Tx) uint64 {
	b := make([]byte, 128)
	for id := int64(0); id < 2; id++ {
		if _, err := f.ReadAt(b, id*int64(tx.DB().Info().PageSize)); err == nil {
			m := b[pageHeaderSize:]
			if binary.LittleEndian.Uint64(m[48:]) == snapshotTxid(tx) {
				return binary.LittleEndian.Uint64(m[32:])
			}
		}
	}
	return 0
}

// mergesSiblings, in a set of touched pages, says that the commit may
// merge a touched page with a sibling (page 0, a meta page, is never a
// bucket's).
const mergesSiblings = 0

// pageFreelist is bbolt's page flag of a freelist page.
const pageFreelist = 0x10

// freelist checks the freelist page id: marked as such, and every free
// page inside the file and none of the pages the walk read (a free page
// in use would be overwritten by the commit).
func (w *pageWalker) freelist(id uint64) error {
	if id == 0 || id == 0xFFFFFFFFFFFFFFFF { // bbolt's "no freelist page" (NoFreelistSync)
		return nil
	}
	seen := w.seen
	w.seen = map[uint64]bool{}
	p, err := w.read(id)
	w.seen = seen
	if err != nil {
		return fmt.Errorf("freelist: %v", err)
	}
	if flags := binary.LittleEndian.Uint16(p[8:]); flags != pageFreelist {
		return fmt.Errorf("freelist page %d is not a freelist page (flags %#x)", id, flags)
	}
	n, at := int(binary.LittleEndian.Uint16(p[10:])), pageHeaderSize
	if n == 0xFFFF { // the count overflows into the first element
		if len(p) < at+8 {
			return fmt.Errorf("freelist page %d is truncated", id)
		}
		n, at = int(binary.LittleEndian.Uint64(p[at:])), at+8
	}
	if n < 0 || at+8*n > len(p) {
		return fmt.Errorf("freelist page %d holds more page numbers than fit", id)
	}
	for i := range n {
		free := binary.LittleEndian.Uint64(p[at+8*i:])
		switch {
		case free < 2 || free >= w.hwm:
			return fmt.Errorf("freelist page %d frees page %d, outside pages 2..%d", id, free, w.hwm-1)
		case free == id || seen[free]:
			return fmt.Errorf("freelist page %d frees page %d, which is in use", id, free)
		}
	}
	return nil
}

// touchedPages returns, by bucket name, the pages bbolt read into tx's
// node caches to write back; ok false when the cache cannot be seen. A
// bucket whose nodes lost keys (unbalanced: the commit may merge them
// with a sibling page) also holds mergesSiblings.
func touchedPages(tx *bolt.Tx) (pages map[string]map[uint64]bool, ok bool) {
	defer func() {
		if recover() != nil { // a field of another kind: bbolt changed
			pages, ok = nil, false
		}
	}()
	root := reflect.ValueOf(tx).Elem().FieldByName("root")
	if !root.IsValid() {
		return nil, false
	}
	buckets := root.FieldByName("buckets")
	if !buckets.IsValid() || buckets.Kind() != reflect.Map {
		return nil, false
	}
	pages = map[string]map[uint64]bool{}
	for it := buckets.MapRange(); it.Next(); {
		b := it.Value()
		if b.IsNil() {
			continue
		}
		nodes := b.Elem().FieldByName("nodes")
		if !nodes.IsValid() || nodes.Kind() != reflect.Map {
			return nil, false
		}
		if nodes.Len() == 0 {
			continue
		}
		set := map[uint64]bool{}
		for it := nodes.MapRange(); it.Next(); {
			if id := it.Key().Uint(); id != 0 { // 0: an inline bucket's page
				set[id] = true
			}
			if n := it.Value(); !n.IsNil() && n.Elem().FieldByName("unbalanced").Bool() {
				set[mergesSiblings] = true
			}
		}
		if len(set) > 0 {
			pages[it.Key().String()] = set
		}
	}
	return pages, true
}

// snapshotTxid is the transaction whose meta page tx reads the file as:
// a write transaction carries the number of the commit it will make.
func snapshotTxid(tx *bolt.Tx) uint64 {
	if tx.Writable() {
		return uint64(tx.ID()) - 1
	}
	return uint64(tx.ID())
}
