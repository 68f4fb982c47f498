package db

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

// The page tree walk of check. bbolt follows page numbers wherever they
// point: a damaged branch page whose child is itself or an ancestor sends
// every cursor that descends through it into a loop that only ends when
// memory does (the damage harness found one in `check`). Before any cursor
// walks a bucket, check reads the pages themselves, from the file, and
// proves the tree of every bucket finite: each page read once, its number
// and type as recorded, every child inside the file, and each child's
// first key the key its branch page gives it. The write guard
// (writeguard.go) and Findable read the same pages the same way, but only
// those a write rewrites or a lookup descends (paths, span, descend).
//
// The layout is bbolt's (version 2 files, go.etcd.io/bbolt v1.4): a
// 16-byte page header (id u64, flags u16, count u16, overflow u32); branch
// elements (pos u32, ksize u32, child u64); leaf elements (flags u32, pos
// u32, ksize u32, vsize u32), key and value at pos from the element; a
// bucket value starts with its root page (u64, 0 for an inline bucket,
// whose page follows) and sequence (u64). All integers little-endian.
const (
	pageHeaderSize  = 16
	pageElementSize = 16
	pageBranch      = 0x01
	pageLeaf        = 0x02
	leafBucketFlag  = 0x01
	bucketHeader    = 16
	maxTreeDepth    = 64
)

// pageTree walks the page trees of every bucket of the file at path, as of
// tx, and returns the first inconsistency found ("" if none).
func pageTree(path string, tx *bolt.Tx) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	w, root, err := newPageWalker(f, tx)
	if err != nil {
		return err.Error()
	}
	if err := w.walk(root, 0, nil); err != nil {
		return err.Error()
	}
	return ""
}

// newPageWalker reads f's meta page of record as of tx: the walker, with
// the file's page count, and the root bucket's page.
func newPageWalker(f *os.File, tx *bolt.Tx) (*pageWalker, uint64, error) {
	w := &pageWalker{f: f, pageSize: int64(tx.DB().Info().PageSize), seen: map[uint64]bool{}}
	root, hwm, err := w.meta(snapshotTxid(tx))
	w.hwm = hwm
	return w, root, err
}

// page reads and parses page id, depth pages below its tree's root, with
// the key range [lo, hi) its parent gives it.
func (w *pageWalker) page(id uint64, lo, hi []byte, depth int) (*parsedPage, error) {
	if depth > maxTreeDepth {
		return nil, fmt.Errorf("page %d: the tree is deeper than %d pages", id, maxTreeDepth)
	}
	raw, err := w.read(id)
	if err != nil {
		return nil, err
	}
	return parsePage(id, raw, lo, hi)
}

type pageWalker struct {
	f        *os.File
	pageSize int64
	hwm      uint64 // pages 0..hwm-1 exist
	seen     map[uint64]bool
}

// meta returns the root page and the page count of the meta page of
// transaction txid (bbolt checked both meta pages' checksums at open).
func (w *pageWalker) meta(txid uint64) (root, hwm uint64, err error) {
	for id := int64(0); id < 2; id++ {
		b := make([]byte, 128)
		if _, err := w.f.ReadAt(b, id*w.pageSize); err != nil {
			return 0, 0, fmt.Errorf("meta page %d: %v", id, err)
		}
		m := b[pageHeaderSize:]
		// magic, version, pageSize, flags, root bucket (root, sequence),
		// freelist, pgid, txid, checksum
		if binary.LittleEndian.Uint64(m[48:]) == txid {
			return binary.LittleEndian.Uint64(m[16:]), binary.LittleEndian.Uint64(m[40:]), nil
		}
	}
	return 0, 0, fmt.Errorf("no meta page of transaction %d", txid)
}

// walk reads page id and the trees below it; first, when not nil, is the
// key its branch page gives it, which must be its first key (parsePage).
func (w *pageWalker) walk(id uint64, depth int, first []byte) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("page %d: the tree is deeper than %d pages", id, maxTreeDepth)
	}
	p, err := w.read(id)
	if err != nil {
		return err
	}
	if first != nil {
		if _, err := parsePage(id, p, first, nil); err != nil {
			return err
		}
	}
	return w.elements(id, p, depth)
}

// read reads page id (and its overflow pages) once, checking that it lies
// inside the file and is marked as the page it is.
func (w *pageWalker) read(id uint64) ([]byte, error) {
	switch {
	case id < 2 || id >= w.hwm:
		return nil, fmt.Errorf("a page refers to page %d, outside pages 2..%d", id, w.hwm-1)
	case w.seen[id]:
		return nil, fmt.Errorf("page %d is reached twice (a loop or a shared page)", id)
	}
	w.seen[id] = true
	// One read for a page without overflow (most of them), a second for
	// the overflow pages of one.
	p := make([]byte, w.pageSize)
	if _, err := w.f.ReadAt(p, int64(id)*w.pageSize); err != nil {
		return nil, fmt.Errorf("page %d: %v", id, err)
	}
	if got := binary.LittleEndian.Uint64(p); got != id {
		return nil, fmt.Errorf("page %d is marked as page %d", id, got)
	}
	overflow := uint64(binary.LittleEndian.Uint32(p[12:]))
	if id+overflow >= w.hwm {
		return nil, fmt.Errorf("page %d overflows past the end of the file", id)
	}
	for o := uint64(1); o <= overflow; o++ {
		if w.seen[id+o] {
			return nil, fmt.Errorf("page %d is reached twice (a loop or a shared page)", id+o)
		}
		w.seen[id+o] = true
	}
	if overflow > 0 {
		p = append(p, make([]byte, int64(overflow)*w.pageSize)...)
		if _, err := w.f.ReadAt(p[w.pageSize:], int64(id+1)*w.pageSize); err != nil {
			return nil, fmt.Errorf("page %d: %v", id, err)
		}
	}
	return p, nil
}

// elements checks the elements of page p (read from page id, or an inline
// bucket's page when id is 0) and walks what they refer to.
func (w *pageWalker) elements(id uint64, p []byte, depth int) error {
	if len(p) < pageHeaderSize {
		return fmt.Errorf("page %d is truncated", id)
	}
	flags := binary.LittleEndian.Uint16(p[8:])
	count := int(binary.LittleEndian.Uint16(p[10:]))
	if pageHeaderSize+count*pageElementSize > len(p) {
		return fmt.Errorf("page %d holds more elements than fit", id)
	}
	for i := range count {
		at := pageHeaderSize + i*pageElementSize
		e := p[at : at+pageElementSize]
		switch flags {
		case pageBranch:
			pos, ksize := int(binary.LittleEndian.Uint32(e)), int(binary.LittleEndian.Uint32(e[4:]))
			if at+pos+ksize > len(p) {
				return fmt.Errorf("page %d: element %d lies outside the page", id, i)
			}
			if err := w.walk(binary.LittleEndian.Uint64(e[8:]), depth+1, p[at+pos:at+pos+ksize]); err != nil {
				return err
			}
		case pageLeaf:
			eflags := binary.LittleEndian.Uint32(e)
			pos, ksize, vsize := int(binary.LittleEndian.Uint32(e[4:])), int(binary.LittleEndian.Uint32(e[8:])), int(binary.LittleEndian.Uint32(e[12:]))
			if pos < 0 || ksize < 0 || vsize < 0 || at+pos+ksize+vsize > len(p) {
				return fmt.Errorf("page %d: element %d lies outside the page", id, i)
			}
			if eflags&leafBucketFlag == 0 {
				continue
			}
			v := p[at+pos+ksize : at+pos+ksize+vsize]
			if len(v) < bucketHeader {
				return fmt.Errorf("page %d: element %d is a bucket without its header", id, i)
			}
			if root := binary.LittleEndian.Uint64(v); root != 0 {
				if err := w.walk(root, depth+1, nil); err != nil {
					return err
				}
			} else if err := w.elements(0, v[bucketHeader:], depth+1); err != nil {
				return err
			}
		default:
			return fmt.Errorf("page %d is neither a branch nor a leaf page (flags %#x)", id, flags)
		}
	}
	return nil
}

// parsedPage is one page's elements, bounds-checked: its keys in order,
// and for a branch page the child of each key, for a leaf page the bucket
// values (nil for a plain value).
type parsedPage struct {
	branch   bool
	keys     [][]byte
	children []uint64
	buckets  [][]byte
}

// parse reads the elements of page p (page id) without walking what they
// refer to: every element must lie inside the page, and the keys must
// ascend strictly within [lo, hi) (nil: unbounded), starting at lo: bbolt
// writes a branch page's key of a child as the child's first key (a page
// whose first key differs is not the child bbolt wrote there, such as a
// page of another tree; checked on every page of archives written by
// ingest, name moves, reindex and receipts).
func parsePage(id uint64, p, lo, hi []byte) (*parsedPage, error) {
	if len(p) < pageHeaderSize {
		return nil, fmt.Errorf("page %d is truncated", id)
	}
	flags := binary.LittleEndian.Uint16(p[8:])
	count := int(binary.LittleEndian.Uint16(p[10:]))
	if flags != pageBranch && flags != pageLeaf {
		return nil, fmt.Errorf("page %d is neither a branch nor a leaf page (flags %#x)", id, flags)
	}
	if pageHeaderSize+count*pageElementSize > len(p) {
		return nil, fmt.Errorf("page %d holds more elements than fit", id)
	}
	pp := &parsedPage{branch: flags == pageBranch}
	for i := range count {
		at := pageHeaderSize + i*pageElementSize
		e := p[at : at+pageElementSize]
		var key []byte
		if pp.branch {
			pos, ksize := int(binary.LittleEndian.Uint32(e)), int(binary.LittleEndian.Uint32(e[4:]))
			if pos < 0 || ksize < 0 || at+pos+ksize > len(p) {
				return nil, fmt.Errorf("page %d: element %d lies outside the page", id, i)
			}
			key = p[at+pos : at+pos+ksize]
			pp.children = append(pp.children, binary.LittleEndian.Uint64(e[8:]))
		} else {
			eflags := binary.LittleEndian.Uint32(e)
			pos, ksize, vsize := int(binary.LittleEndian.Uint32(e[4:])), int(binary.LittleEndian.Uint32(e[8:])), int(binary.LittleEndian.Uint32(e[12:]))
			if pos < 0 || ksize < 0 || vsize < 0 || at+pos+ksize+vsize > len(p) {
				return nil, fmt.Errorf("page %d: element %d lies outside the page", id, i)
			}
			key = p[at+pos : at+pos+ksize]
			var bucket []byte
			if eflags&leafBucketFlag != 0 {
				if bucket = p[at+pos+ksize : at+pos+ksize+vsize]; len(bucket) < bucketHeader {
					return nil, fmt.Errorf("page %d: element %d is a bucket without its header", id, i)
				}
			}
			pp.buckets = append(pp.buckets, bucket)
		}
		switch {
		case i == 0 && lo != nil && !bytes.Equal(key, lo):
			return nil, fmt.Errorf("page %d: its first key is not the key its branch page gives it (a page of another tree?)", id)
		case i > 0 && bytes.Compare(pp.keys[i-1], key) >= 0:
			return nil, fmt.Errorf("page %d: key %d is out of order", id, i)
		case lo != nil && bytes.Compare(key, lo) < 0, hi != nil && bytes.Compare(key, hi) >= 0:
			return nil, fmt.Errorf("page %d: key %d lies outside the range its branch page gives it", id, i)
		}
		pp.keys = append(pp.keys, key)
	}
	return pp, nil
}

// paths checks the pages of the tree at root that a write descends:
// those in touched, with their ancestors, and, when touched holds
// mergesSiblings, the siblings of each (a commit that rebalances merges a
// page with one), each read from the file
// and parsed with the key range its parent gives it. A page of touched the
// walk does not reach is damage too: bbolt reached it through pages that
// do not lead there.
func (w *pageWalker) paths(root uint64, touched map[uint64]bool) error {
	if err := w.path(root, touched, nil, nil, 0); err != nil {
		return err
	}
	for id := range touched {
		if id != mergesSiblings && !w.seen[id] {
			return fmt.Errorf("page %d is not reached from its bucket's root page %d", id, root)
		}
	}
	return nil
}

func (w *pageWalker) path(id uint64, touched map[uint64]bool, lo, hi []byte, depth int) error {
	pp, err := w.page(id, lo, hi, depth)
	if err != nil || !pp.branch {
		return err
	}
	// The child range of element i: its key up to the next one's.
	bounds := func(i int) ([]byte, []byte) {
		if i+1 < len(pp.keys) {
			return pp.keys[i], pp.keys[i+1]
		}
		return pp.keys[i], hi
	}
	for i, child := range pp.children {
		near := touched[mergesSiblings] && (i > 0 && touched[pp.children[i-1]] || i+1 < len(pp.children) && touched[pp.children[i+1]])
		switch {
		case touched[child]:
			clo, chi := bounds(i)
			if err := w.path(child, touched, clo, chi, depth+1); err != nil {
				return err
			}
		case near && !w.seen[child]:
			// A sibling: the page itself, not the tree below it.
			clo, chi := bounds(i)
			sib, err := w.read(child)
			if err != nil {
				return err
			}
			if _, err := parsePage(child, sib, clo, chi); err != nil {
				return err
			}
		}
	}
	return nil
}

// descend checks the pages a lookup of key in the tree at root reads, as
// bbolt descends them (at a branch page, the last child whose key is not
// after key, else the first), each read from the file and parsed with the
// key range its parent gives it. A damaged element can point a lookup
// outside its page, where what bbolt reads depends on the process's
// memory; this reads only inside the pages.
func (w *pageWalker) descend(root uint64, key []byte) error {
	id, lo, hi := root, []byte(nil), []byte(nil)
	for depth := 0; ; depth++ {
		pp, err := w.page(id, lo, hi, depth)
		if err != nil || !pp.branch {
			return err
		}
		if len(pp.children) == 0 {
			return fmt.Errorf("page %d is a branch page without children", id)
		}
		i := 0
		for i+1 < len(pp.keys) && bytes.Compare(pp.keys[i+1], key) <= 0 {
			i++
		}
		lo = pp.keys[i]
		if i+1 < len(pp.keys) {
			hi = pp.keys[i+1]
		}
		id = pp.children[i]
	}
}

// span checks the pages of the tree at root that hold keys in [lo, hi)
// (hi nil: unbounded), with the branch pages above them, as descend checks
// one key's path: the pages a write of keys in the range rewrites.
func (w *pageWalker) span(root uint64, lo, hi []byte) error {
	var walk func(id uint64, plo, phi []byte, depth int) error
	walk = func(id uint64, plo, phi []byte, depth int) error {
		pp, err := w.page(id, plo, phi, depth)
		if err != nil || !pp.branch {
			return err
		}
		for i, child := range pp.children {
			clo, chi := pp.keys[i], phi
			if i+1 < len(pp.keys) {
				chi = pp.keys[i+1]
			}
			// The child holds keys from its key (the first child: from
			// any key) up to the next one's.
			startsBefore := i == 0 || hi == nil || bytes.Compare(clo, hi) < 0
			endsAfter := chi == nil || bytes.Compare(chi, lo) > 0
			if startsBefore && endsAfter {
				if err := walk(child, clo, chi, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(root, nil, nil, 0)
}
