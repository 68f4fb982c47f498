package db

import (
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
// and type as recorded, every child inside the file.
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
	w := &pageWalker{f: f, pageSize: int64(tx.DB().Info().PageSize), seen: map[uint64]bool{}}
	root, hwm, err := w.meta(uint64(tx.ID()))
	if err != nil {
		return err.Error()
	}
	w.hwm = hwm
	if err := w.walk(root, 0); err != nil {
		return err.Error()
	}
	return ""
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

// walk reads page id and the trees below it.
func (w *pageWalker) walk(id uint64, depth int) error {
	switch {
	case depth > maxTreeDepth:
		return fmt.Errorf("page %d: the tree is deeper than %d pages", id, maxTreeDepth)
	case id < 2 || id >= w.hwm:
		return fmt.Errorf("a page refers to page %d, outside pages 2..%d", id, w.hwm-1)
	case w.seen[id]:
		return fmt.Errorf("page %d is reached twice (a loop or a shared page)", id)
	}
	w.seen[id] = true
	head := make([]byte, pageHeaderSize)
	if _, err := w.f.ReadAt(head, int64(id)*w.pageSize); err != nil {
		return fmt.Errorf("page %d: %v", id, err)
	}
	if got := binary.LittleEndian.Uint64(head); got != id {
		return fmt.Errorf("page %d is marked as page %d", id, got)
	}
	overflow := uint64(binary.LittleEndian.Uint32(head[12:]))
	if id+overflow >= w.hwm {
		return fmt.Errorf("page %d overflows past the end of the file", id)
	}
	for o := uint64(1); o <= overflow; o++ {
		if w.seen[id+o] {
			return fmt.Errorf("page %d is reached twice (a loop or a shared page)", id+o)
		}
		w.seen[id+o] = true
	}
	p := make([]byte, int64(1+overflow)*w.pageSize)
	if _, err := w.f.ReadAt(p, int64(id)*w.pageSize); err != nil {
		return fmt.Errorf("page %d: %v", id, err)
	}
	return w.elements(id, p, depth)
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
			if err := w.walk(binary.LittleEndian.Uint64(e[8:]), depth+1); err != nil {
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
				if err := w.walk(root, depth+1); err != nil {
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
