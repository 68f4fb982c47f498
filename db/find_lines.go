package db

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"

	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/index"

	bolt "go.etcd.io/bbolt"
)

// lineReader reads whole lines of one document through its line index, in
// ascending line order: from the nearest line checkpoint or from where the
// previous line ended, whichever is later, chunk by chunk, each chunk
// checked against its SHA-256 before any of its bytes is used.
//
// Reading forward only, it never needs a chunk it has left, so it keeps
// one: a document's listed lines decompress and hash each chunk at most
// once, with one chunk-sized buffer. (It used to keep up to 16 chunks, read the
// lines in result order and walk each from its checkpoint: 1 MiB of
// buffers per document listed, whose first touches were page faults.)
type lineReader struct {
	a   *Archive
	tx  *bolt.Tx
	d   *Document
	l   *index.LineLocator
	buf []byte // the checked chunk cur, or nil
	cur int    // the chunk in buf, -1 for none
	// next and nextAt: the first line not read yet and its start offset,
	// once a line was read (next > 0).
	next   int
	nextAt uint64
	// join collects a line that crosses chunks.
	join []byte
}

// chunkBufs holds chunk buffers between the documents a find lists: each
// new one costs a process its page faults.
var chunkBufs = sync.Pool{New: func() any { b := make([]byte, 0, ChunkSize); return &b }}

func newLineReader(a *Archive, tx *bolt.Tx, d *Document, l *index.LineLocator) *lineReader {
	return &lineReader{a: a, tx: tx, d: d, l: l, buf: (*chunkBufs.Get().(*[]byte))[:0], cur: -1}
}

// release gives the reader's chunk buffer back: its lines were copied out
// (find.Match.Text is a string).
func (r *lineReader) release() {
	if r.buf != nil {
		b := r.buf[:0]
		chunkBufs.Put(&b)
	}
	r.buf, r.cur = nil, -1
}

// chunk returns chunk i, decompressed and checked.
func (r *lineReader) chunk(i int) ([]byte, error) {
	if i == r.cur {
		return r.buf, nil
	}
	r.cur = -1 // until the new bytes are checked
	c, err := r.a.appendChunks(r.tx, r.d, r.buf[:0], i, i)
	if err != nil {
		return nil, err
	}
	r.buf = c
	if sha256.Sum256(c) != r.l.ChunkDigest(i) {
		return nil, fmt.Errorf("document %s (%s): %w: chunk %d does not hash to its digest", r.d.Label(), r.d.SHA256, ErrCorrupt, i)
	}
	r.cur = i
	return c, nil
}

// scan returns the offset of the first LF at or after from (or the source
// size) and, when keep is set, the bytes from..end: a slice of the checked
// chunk when the line lies in one chunk (valid until the next read), else
// a joined copy.
func (r *lineReader) scan(from uint64, keep bool) (end uint64, text []byte, err error) {
	size, cs := r.l.SourceSize, uint64(r.d.ChunkSize)
	r.join = r.join[:0]
	joined := false
	for pos := from; pos < size; {
		c, err := r.chunk(int(pos / cs))
		if err != nil {
			return 0, nil, err
		}
		at := pos % cs
		if at >= uint64(len(c)) {
			return 0, nil, fmt.Errorf("document %s (%s): %w: chunk %d holds %d bytes, offset %d is past them", r.d.Label(), r.d.SHA256, ErrCorrupt, pos/cs, len(c), at)
		}
		rest := c[at:]
		i := bytes.IndexByte(rest, '\n')
		if i >= 0 {
			rest = rest[:i]
		}
		switch {
		case !keep:
		case i >= 0 && !joined:
			text = rest
		default:
			r.join = append(r.join, rest...)
			joined = true
		}
		if i >= 0 {
			end = pos + uint64(i)
			break
		}
		pos += uint64(len(rest))
		end = pos
	}
	if from >= size {
		end = size
	}
	if joined || (keep && text == nil) {
		text = r.join
	}
	return end, text, nil
}

// line returns line n (1-based) as a find match without its score, and
// its bytes (valid until the next read). Lines must be asked for in
// ascending order.
func (r *lineReader) line(n int) (find.Match, []byte, error) {
	if n < 1 || n > r.l.NumLines {
		return find.Match{}, nil, fmt.Errorf("document %s (%s): %w: line %d outside the document's %d lines", r.d.Label(), r.d.SHA256, ErrCorrupt, n, r.l.NumLines)
	}
	if r.next > 0 && n < r.next {
		return find.Match{}, nil, fmt.Errorf("line %d read after line %d", n, r.next-1) // a caller's bug
	}
	at, start := r.l.Checkpoint(n)
	if r.next > at {
		at, start = r.next, r.nextAt
	}
	for ; at < n; at++ {
		end, _, err := r.scan(start, false)
		if err != nil {
			return find.Match{}, nil, err
		}
		if end >= r.l.SourceSize {
			return find.Match{}, nil, fmt.Errorf("document %s (%s): %w: line %d missing (the source ends at line %d)", r.d.Label(), r.d.SHA256, ErrCorrupt, n, at)
		}
		start = end + 1
	}
	end, text, err := r.scan(start, true)
	if err != nil {
		return find.Match{}, nil, err
	}
	if end < r.l.SourceSize { // else no line follows: the record would be damaged
		r.next, r.nextAt = n+1, end+1
	}
	if len(text) > 0 && text[len(text)-1] == '\r' {
		text = text[:len(text)-1]
	}
	return find.Match{
		Line:      n,
		ByteStart: start,
		ByteEnd:   start + uint64(len(text)),
		SpanHash:  sha256.Sum256(text),
		Text:      string(text),
	}, text, nil
}

// lineOrder returns the indexes of top by ascending line number.
func lineOrder(top []index.LineScore) []int {
	order := make([]int, len(top))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return top[x].Line - top[y].Line })
	return order
}
