package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/casper-chronicle/chronicle/engine"

	"github.com/klauspost/compress/s2"
)

// The line index of one document (see the package documentation): which
// lines every token of the document is on, so that find can score every
// line of a document without reading its source.
//
// A token is a maximal run of bytes outside the CONTRACT 11 separator set. A
// find term holds no separator either, so every occurrence of a term lies
// inside one token of its line: a line contains the term exactly when one
// of its tokens does. Scoring a document is then a substring search over
// its dictionary of distinct tokens (about a third of the source on Arabic
// text, a tenth on English) and a union of the matching tokens' line
// lists. The source is read only for the few lines a result lists, chunk
// by chunk, each chunk checked against its SHA-256 kept here.
//
// The sorted dictionary is cut into blocks of about DictBlock bytes (whole
// tokens), each compressed and checksummed on its own beside the postings
// of its tokens, and each with a Bloom filter of its tokens' code-point
// grams in the header (lines_grams.go). A query tests every block's filter
// with each term's grams and decodes, checks and searches only the blocks
// that may hold a term: a rare word passes few of the blocks, where
// version 1 decoded and searched the whole dictionary of every candidate,
// and checksummed its whole record.
//
// Record layout, version 2 (uvarint unless noted):
//
//	"CLX2"                           magic
//	crc32c (u32 LE)                  of the header size and the header
//	headerSize                       bytes of the header
//	header:
//	  sourceSize, chunkSize, lines   lines = number of physical lines
//	  tokens, blocks                 distinct tokens, dictionary blocks
//	  probes                         bits set per gram in the filters
//	  locatorSize, crc32c (u32 LE)   of the locator
//	  per block: tokens, rawSize,    its tokens; its dictionary decoded and
//	    dictSize, postingsSize,      stored; its postings; its filter;
//	    filterSize, crc32c (u32 LE)  the checksum of its dictionary and
//	                                 postings
//	  filters                        per block, filterSize bytes: a Bloom
//	                                 filter of its tokens' grams
//	locator:
//	  chunk digests                  32 bytes each, ceil(sourceSize/chunkSize)
//	  checkpoints                    start offset of line 1+k·LineCheckpoint,
//	                                 k = 0.., as deltas
//	per block:
//	  dict                           S2 block of its tokens, sorted, each
//	                                 followed by LF
//	  postings                       posting offset of its token
//	                                 g·TokenGroup, g ≥ 1, as deltas; then
//	                                 per token: 2·line+1 for a token on
//	                                 one line, else 2·byte length, then
//	                                 its line numbers as deltas
//	                                 (ascending, ≥ 1)
//
// What is checked when: ParseLines checks the magic, the header's checksum,
// every header field and that the sections fill the record exactly;
// Locator checks the locator's checksum; a block's checksum, decoded size
// and final LF are checked when a query first needs the block, its line
// numbers as they are decoded. Damage in a block no query reads fails no
// query (its filter kept it unread, and the filters are checked), and
// check, which rebuilds every record and compares bytes, reports it.
//
// Version 1 ("CLX1", one S2 block for the whole dictionary, one CRC-32C
// over the whole record, no filters) is still read: archives keep
// answering until the schema 11 upgrade rebuilds their line indexes.
const (
	linesMagic   = "CLX2"
	linesMagicV1 = "CLX1"
)

// DictBlock is the raw size the dictionary is cut at (a longer token is a
// block of its own): small enough that a query decodes little beyond what
// it matches, large enough that the blocks still compress. A block whose
// filter passes a term is decoded whole, and a common word's tokens are
// spread over the dictionary's sort order (invalid, isInvalid,
// ErrInvalid), so the blocks a query decodes are many and mostly
// unrelated bytes: smaller blocks decode far less of them, for slightly
// larger records, and 2 KiB blocks were no faster than 4 KiB on Arabic
// (the figures of 16 KiB against 4 KiB are in cmd/benchreal/PERFORMANCE.md).
const DictBlock = 4 << 10

// legacyDictBlock is the block size of the records written before
// DictBlock was 4 KiB (schema 13 archives until reindexed). Their records
// are as exact as the new ones: CheckLines accepts either build.
const legacyDictBlock = 16 << 10

// The filters' density. Bits per distinct gram and probes per gram set the
// false positive rate of a one-gram test (about 5.6% at 6 bits and 4
// probes); a term of n ≥ 3 characters has n−2 trigrams, all of which must
// pass. Denser filters (8 bits and 5 probes) made the records larger and
// measured no faster, sparser ones (4 bits and 3 probes) no faster either
// (cmd/benchreal/PERFORMANCE.md).
const (
	filterBitsPerGram = 6
	filterProbes      = 4
	maxProbes         = 16
	maxFilter         = 1 << 28 // bytes: probes compute in 64 bits
)

// LineCheckpoint is the spacing of the line start offsets kept per
// document: reading line n scans at most this many lines from the
// checkpoint before it.
const LineCheckpoint = 32

// TokenGroup is the spacing of the posting offsets kept per dictionary
// block.
const TokenGroup = 64

// ErrLineIndex: a line index record is damaged or inconsistent.
var ErrLineIndex = errors.New("damaged line index")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Lines is a parsed line index record. It aliases the record; its blocks
// are decoded by the LineScorer that needs them.
type Lines struct {
	SourceSize uint64
	ChunkSize  int
	NumLines   int
	tokens     int
	probes     int
	blocks     []dictBlock
	// Version 2: the locator, checked and parsed by Locator.
	locator    []byte
	locatorCRC uint32
	// Version 1: the parsed locator and the decompressed dictionary (the
	// one block, already checked with the record).
	v1   *LineLocator
	dict []byte
	// sizes is ParseLinesReusing's scratch: each block's section sizes.
	sizes []uint64
}

// dictBlock is one dictionary block of a record.
type dictBlock struct {
	first, tokens int    // its tokens' ordinals: first..first+tokens-1
	rawSize       int    // decoded size
	dict          []byte // S2 (version 2), or decoded (version 1)
	postings      []byte // group offsets then postings (version 2), or postings (version 1)
	groups        []uint32
	crc           uint32 // of dict ‖ postings (version 2)
	filter        []byte
}

// recordReader decodes the record's fields; the first error sticks.
type recordReader struct {
	b   []byte
	off int
	err error
}

func (r *recordReader) uvarint(what string, max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = fmt.Errorf("%w: %s at byte %d is not a valid varint", ErrLineIndex, what, r.off)
		return 0
	}
	if v > max {
		r.err = fmt.Errorf("%w: %s at byte %d is %d, above %d", ErrLineIndex, what, r.off, v, max)
		return 0
	}
	r.off += n
	return v
}

func (r *recordReader) u32(what string) uint32 {
	if b := r.bytes(what, 4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *recordReader) bytes(what string, n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.err = fmt.Errorf("%w: %s at byte %d needs %d bytes, %d left", ErrLineIndex, what, r.off, n, len(r.b)-r.off)
		return nil
	}
	out := r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return out
}

// maxSource bounds the sizes a record may declare: no archived source is
// larger, and the bound keeps every allocation a damaged record can ask
// for small.
const maxSource = engine.MaxSourceSize

// ParseLines checks a line index record's magic, header checksum and
// header fields, and that its sections fill it exactly, and returns it
// parsed. The rest is checked when it is used (see the record layout):
// Locator checks the locator, a LineScorer each block it reads. dictBuf is
// reused for the dictionary of a version 1 record when it is large enough.
func ParseLines(rec, dictBuf []byte) (*Lines, error) {
	return ParseLinesReusing(rec, &Lines{dict: dictBuf})
}

// ParseLinesReusing is ParseLines into l, overwriting it and reusing its
// buffers (the block table, the dictionary of a version 1 record): a
// scorer parses one record per candidate, and a fresh block table per
// candidate is fresh pages, a page fault each, in a process that never
// collects. It returns l.
func ParseLinesReusing(rec []byte, l *Lines) (*Lines, error) {
	if len(rec) >= 4 && string(rec[:4]) == linesMagicV1 {
		v1, err := parseLinesV1(rec, l.dict)
		if err != nil {
			return nil, err
		}
		*l = *v1
		return l, nil
	}
	*l = Lines{blocks: l.blocks[:0], dict: l.dict, sizes: l.sizes[:0]}
	if len(rec) < 8 || string(rec[:4]) != linesMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrLineIndex)
	}
	r := &recordReader{b: rec, off: 8}
	size := r.uvarint("header size", uint64(len(rec)))
	if r.err == nil && size > uint64(len(rec)-r.off) {
		r.err = fmt.Errorf("%w: the header needs %d bytes, %d left", ErrLineIndex, size, len(rec)-r.off)
	}
	if r.err != nil {
		return nil, r.err
	}
	end := r.off + int(size)
	if crc32.Checksum(rec[8:end], castagnoli) != binary.LittleEndian.Uint32(rec[4:8]) {
		return nil, fmt.Errorf("%w: header checksum mismatch", ErrLineIndex)
	}
	r.b = rec[:end]
	if err := r.sizes(l); err != nil {
		return nil, err
	}
	// Distinct tokens are disjoint runs of the source: at most a token per
	// byte, and their bytes add up to at most the source's.
	l.tokens = int(r.uvarint("token count", l.SourceSize))
	nBlocks := r.uvarint("block count", uint64(l.tokens))
	l.probes = int(r.uvarint("filter probes", maxProbes))
	locSize := r.uvarint("locator size", uint64(len(rec)))
	l.locatorCRC = r.u32("locator checksum")
	if r.err != nil {
		return nil, r.err
	}
	// A block entry takes at least 9 bytes: the count cannot ask for more
	// entries than the header holds.
	if (nBlocks == 0) != (l.tokens == 0) || l.probes == 0 || nBlocks > uint64(end-r.off)/9 {
		return nil, fmt.Errorf("%w: %d blocks of %d tokens (%d filter probes) in a header of %d bytes", ErrLineIndex, nBlocks, l.tokens, l.probes, size)
	}
	l.blocks = slices.Grow(l.blocks, int(nBlocks))[:nBlocks]
	clear(l.blocks)
	l.sizes = slices.Grow(l.sizes, 3*int(nBlocks))[:3*nBlocks]
	dictSizes := l.sizes // dict, postings, filter
	first := 0
	for i := range l.blocks {
		b := &l.blocks[i]
		b.first = first
		b.tokens = int(r.uvarint("block token count", uint64(l.tokens-first)))
		b.rawSize = int(r.uvarint("block size", l.SourceSize+uint64(b.tokens)))
		dictSizes[3*i] = r.uvarint("block dictionary size", uint64(len(rec)))
		dictSizes[3*i+1] = r.uvarint("block postings size", uint64(len(rec)))
		dictSizes[3*i+2] = r.uvarint("block filter size", maxFilter)
		b.crc = r.u32("block checksum")
		if r.err != nil {
			return nil, r.err
		}
		// Every token is at least one byte and its LF.
		if b.tokens == 0 || b.rawSize < 2*b.tokens {
			return nil, fmt.Errorf("%w: block %d holds %d tokens in %d bytes", ErrLineIndex, i, b.tokens, b.rawSize)
		}
		first += b.tokens
	}
	if first != l.tokens {
		return nil, fmt.Errorf("%w: the blocks hold %d tokens, the header says %d", ErrLineIndex, first, l.tokens)
	}
	for i := range l.blocks {
		l.blocks[i].filter = r.bytes("block filter", dictSizes[3*i+2])
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.off != end {
		return nil, fmt.Errorf("%w: %d trailing header bytes", ErrLineIndex, end-r.off)
	}
	// The locator is parsed only when it is needed, but its size must hold
	// the digests and a byte per checkpoint: the line count sizes a
	// scorer's arrays.
	chunks := (l.SourceSize + uint64(l.ChunkSize) - 1) / uint64(l.ChunkSize)
	if need := 32*chunks + uint64(l.NumLines+LineCheckpoint-1)/LineCheckpoint; locSize < need {
		return nil, fmt.Errorf("%w: a locator of %d bytes cannot hold %d chunks and %d lines", ErrLineIndex, locSize, chunks, l.NumLines)
	}
	r.b = rec
	l.locator = r.bytes("locator", locSize)
	for i := range l.blocks {
		l.blocks[i].dict = r.bytes("block dictionary", dictSizes[3*i])
		l.blocks[i].postings = r.bytes("block postings", dictSizes[3*i+1])
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(rec) {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrLineIndex, len(rec)-r.off)
	}
	return l, nil
}

// sizes reads the source size, chunk size and line count.
func (r *recordReader) sizes(l *Lines) error {
	l.SourceSize = r.uvarint("source size", maxSource)
	l.ChunkSize = int(r.uvarint("chunk size", maxSource))
	l.NumLines = int(r.uvarint("line count", l.SourceSize))
	if r.err == nil && (l.ChunkSize == 0 || (l.SourceSize == 0) != (l.NumLines == 0)) {
		return fmt.Errorf("%w: chunk size %d, %d lines for %d bytes", ErrLineIndex, l.ChunkSize, l.NumLines, l.SourceSize)
	}
	return r.err
}

// locator reads the chunk digests and line checkpoints of l.
func (r *recordReader) locator(l *LineLocator) error {
	chunks := (l.SourceSize + uint64(l.ChunkSize) - 1) / uint64(l.ChunkSize)
	l.digests = r.bytes("chunk digests", chunks*32)
	nCheck := (l.NumLines + LineCheckpoint - 1) / LineCheckpoint
	if r.err == nil && uint64(nCheck) > uint64(len(r.b)-r.off) {
		return fmt.Errorf("%w: %d lines cannot fit the record", ErrLineIndex, l.NumLines)
	}
	l.checkpoints = make([]uint64, 0, nCheck)
	at := uint64(0)
	for k := 0; k < nCheck && r.err == nil; k++ {
		d := r.uvarint("checkpoint", l.SourceSize)
		if at += d; r.err == nil && (at >= l.SourceSize || (k > 0 && d == 0)) {
			r.err = fmt.Errorf("%w: checkpoint %d at offset %d is out of order or outside the source", ErrLineIndex, k, at)
		}
		l.checkpoints = append(l.checkpoints, at)
	}
	return r.err
}

// parseLinesV1 checks and parses a version 1 record: its CRC covers the
// whole record, and its one dictionary block is decoded here.
func parseLinesV1(rec, dictBuf []byte) (*Lines, error) {
	if len(rec) < 8 {
		return nil, fmt.Errorf("%w: bad magic", ErrLineIndex)
	}
	if crc32.Checksum(rec[8:], castagnoli) != binary.LittleEndian.Uint32(rec[4:8]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrLineIndex)
	}
	r := &recordReader{b: rec, off: 8}
	l := &Lines{probes: 1}
	if err := r.sizes(l); err != nil {
		return nil, err
	}
	loc := &LineLocator{SourceSize: l.SourceSize, ChunkSize: l.ChunkSize, NumLines: l.NumLines}
	if err := r.locator(loc); err != nil {
		return nil, err
	}
	l.v1 = loc
	l.tokens = int(r.uvarint("token count", uint64(len(rec))))
	dictRaw := r.uvarint("dictionary size", l.SourceSize+1)
	enc := r.bytes("dictionary", r.uvarint("dictionary block size", uint64(len(rec))))
	if r.err != nil {
		return nil, r.err
	}
	if n, err := s2.DecodedLen(enc); err != nil || uint64(n) != dictRaw {
		return nil, fmt.Errorf("%w: dictionary block does not decode to %d bytes", ErrLineIndex, dictRaw)
	}
	dict, err := s2.Decode(dictBuf[:cap(dictBuf)], enc)
	if err != nil {
		return nil, fmt.Errorf("%w: dictionary: %v", ErrLineIndex, err)
	}
	// Token searches stop at the LF after a match, so the last token must
	// have one. Counting the tokens here would read the whole dictionary
	// once more on every query: posting refuses an ordinal past the count.
	if len(dict) > 0 && dict[len(dict)-1] != '\n' {
		return nil, fmt.Errorf("%w: the dictionary's last token has no LF", ErrLineIndex)
	}
	l.dict = dict
	nGroups := (l.tokens + TokenGroup - 1) / TokenGroup
	groups := make([]uint32, 0, nGroups)
	off := uint64(0)
	for range nGroups {
		off += r.uvarint("group offset", uint64(len(rec)))
		groups = append(groups, uint32(min(off, 1<<32-1)))
	}
	postings := r.bytes("postings", r.uvarint("postings size", uint64(len(rec))))
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(rec) {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrLineIndex, len(rec)-r.off)
	}
	for g, o := range groups {
		if uint64(o) > uint64(len(postings)) || (g > 0 && o < groups[g-1]) {
			return nil, fmt.Errorf("%w: group offset %d outside the postings", ErrLineIndex, g)
		}
	}
	l.blocks = []dictBlock{{tokens: l.tokens, rawSize: len(dict), dict: dict, postings: postings, groups: groups}}
	return l, nil
}

// LineLocator is the part of a line index that finds lines in the source:
// its size and chunking, the chunk digests and the line checkpoints.
type LineLocator struct {
	SourceSize  uint64
	ChunkSize   int
	NumLines    int
	digests     []byte   // 32 bytes per chunk
	checkpoints []uint64 // start offset of line 1+k·LineCheckpoint
}

// Locator checks and returns the record's locator, as a copy that does not
// alias the record (it outlives the transaction that read the record).
func (l *Lines) Locator() (*LineLocator, error) {
	if l.v1 != nil {
		c := *l.v1
		c.digests = bytes.Clone(c.digests)
		return &c, nil
	}
	if crc32.Checksum(l.locator, castagnoli) != l.locatorCRC {
		return nil, fmt.Errorf("%w: locator checksum mismatch", ErrLineIndex)
	}
	loc := &LineLocator{SourceSize: l.SourceSize, ChunkSize: l.ChunkSize, NumLines: l.NumLines}
	r := &recordReader{b: l.locator}
	if err := r.locator(loc); err != nil {
		return nil, err
	}
	if r.off != len(l.locator) {
		return nil, fmt.Errorf("%w: %d trailing locator bytes", ErrLineIndex, len(l.locator)-r.off)
	}
	loc.digests = bytes.Clone(loc.digests)
	return loc, nil
}

// Chunks returns the number of source chunks.
func (l *LineLocator) Chunks() int { return len(l.digests) / 32 }

// ChunkDigest returns the SHA-256 of source chunk i.
func (l *LineLocator) ChunkDigest(i int) (d [32]byte) {
	copy(d[:], l.digests[32*i:])
	return d
}

// Checkpoint returns the nearest kept line at or before line n (1-based)
// and its start offset.
func (l *LineLocator) Checkpoint(n int) (line int, offset uint64) {
	k := (n - 1) / LineCheckpoint
	return 1 + k*LineCheckpoint, l.checkpoints[k]
}
