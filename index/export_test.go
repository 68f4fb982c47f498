package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

// Test hooks for the external tests.

// BuildLinesBlocks is BuildLines cutting the dictionary at blockSize bytes.
func BuildLinesBlocks(src []byte, chunkSize, blockSize int) []byte {
	return buildLines(src, chunkSize, blockSize)
}

// LinesBlocks returns the number of dictionary blocks of l.
func LinesBlocks(l *Lines) int { return len(l.blocks) }

// VerifyLines reads everything a query can read of l: its locator, and
// every block and every posting in it.
func VerifyLines(l *Lines) error {
	if _, err := l.Locator(); err != nil {
		return err
	}
	var s LineScorer
	for b := range l.blocks {
		v, err := s.open(l, b)
		if err != nil {
			return err
		}
		if n := bytes.Count(v.raw, []byte{'\n'}); n != v.tokens {
			return fmt.Errorf("%w: block %d holds %d tokens, %d declared", ErrLineIndex, b, n, v.tokens)
		}
		var cur postingCursor
		for ord := range v.tokens {
			body, one, err := v.posting(&cur, ord)
			if err != nil {
				return err
			}
			if one > uint64(l.NumLines) {
				return fmt.Errorf("%w: block %d: token %d on line %d", ErrLineIndex, b, ord, one)
			}
			for line := uint64(0); len(body) > 0; {
				d, k := binary.Uvarint(body)
				if line += d; k <= 0 || d == 0 || line > uint64(l.NumLines) {
					return fmt.Errorf("%w: block %d: posting of token %d", ErrLineIndex, b, ord)
				}
				body = body[k:]
			}
		}
		if v.tokens > 0 && cur.off != len(v.body) {
			return fmt.Errorf("%w: block %d: %d bytes after its last posting", ErrLineIndex, b, len(v.body)-cur.off)
		}
	}
	return nil
}

// BuildLinesV1 builds a version 1 record (lines_v1_test.go).
func BuildLinesV1(src []byte, chunkSize int) []byte { return buildLinesV1(src, chunkSize) }

// LinesBlockRanges returns the byte range of every dictionary block
// (dictionary and postings) in rec, parsed as l, and the range of its
// locator.
func LinesBlockRanges(rec []byte, l *Lines) (locator [2]int, blocks [][2]int) {
	end := len(rec)
	for i := len(l.blocks) - 1; i >= 0; i-- {
		n := len(l.blocks[i].dict) + len(l.blocks[i].postings)
		blocks = append([][2]int{{end - n, end}}, blocks...)
		end -= n
	}
	return [2]int{end - len(l.locator), end}, blocks
}

// ResealLines recomputes every checksum of a record that can be found, so
// that damage reaches the checks behind them (fuzzing, structural tests).
func ResealLines(rec []byte) []byte {
	if len(rec) < 8 {
		return rec
	}
	switch string(rec[:4]) {
	case linesMagicV1:
		binary.LittleEndian.PutUint32(rec[4:8], crc32.Checksum(rec[8:], castagnoli))
		return rec
	case linesMagic:
	default:
		return rec
	}
	r := &recordReader{b: rec, off: 8}
	size := r.uvarint("", uint64(len(rec)))
	if r.err != nil || size > uint64(len(rec)-r.off) {
		return rec
	}
	end := r.off + int(size)
	r.b = rec[:end]
	for range 4 { // sizes, lines, tokens
		r.uvarint("", math.MaxUint64)
	}
	nBlocks := r.uvarint("", math.MaxUint64)
	r.uvarint("", math.MaxUint64)
	locSize := r.uvarint("", math.MaxUint64)
	type entry struct {
		at         int
		dict, post uint64
	}
	entries := []entry{{at: r.off}}
	r.bytes("", 4)
	for i := uint64(0); i < nBlocks && r.err == nil && i < 1<<16; i++ {
		r.uvarint("", math.MaxUint64)
		r.uvarint("", math.MaxUint64)
		e := entry{dict: r.uvarint("", math.MaxUint64), post: r.uvarint("", math.MaxUint64)}
		r.uvarint("", math.MaxUint64)
		e.at = r.off
		r.bytes("", 4)
		if r.err == nil {
			entries = append(entries, e)
		}
	}
	off := uint64(end)
	entries[0].dict = locSize
	for _, e := range entries {
		n := e.dict + e.post
		if e.at+4 > end || n > uint64(len(rec))-off {
			break
		}
		binary.LittleEndian.PutUint32(rec[e.at:], crc32.Checksum(rec[off:off+n], castagnoli))
		off += n
	}
	binary.LittleEndian.PutUint32(rec[4:8], crc32.Checksum(rec[8:end], castagnoli))
	return rec
}
