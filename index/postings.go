package index

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/bits"
)

// Posting blocks (schema 13). The postings of a group are kept in blocks:
// all grams of one kind that share every byte but the last are one bbolt
// value, under the block key
//
//	group (u32 BE) ‖ kind ‖ prefix     prefix: the gram's bytes but its last
//	                                   (none for unigrams and the start
//	                                   entry, one byte for bigrams, two for
//	                                   trigrams and code-point grams)
//
// and the value is
//
//	link                the suffix (kind ‖ prefix) of the next block key of
//	                    the group, a single 0 byte for the group's last block
//	entries             ascending by last byte, each:
//	  last (u8)         the gram's last byte (0 in the start entry)
//	  docs (u8)         how many of the group's documents hold the gram
//	  which             docs ≤ 7: their bit numbers, ascending, one byte
//	                    each; else the 64-bit bitmap (u64 LE)
//	  countsSize        uvarint, bytes of the counts (and follow masks)
//	  counts            for each document in ascending bit order, the number
//	                    of its lines holding the gram (uvarint)
//	  follows           trigram entries (kind 3) written since schema 21: for
//	                    each document in ascending bit order, its follow
//	                    mask (u8; see FollowBit); absent in others (an entry
//	                    ends after its counts or after one byte per document)
//	seal (u64 LE)       CRC-32C and CRC-32 (IEEE) of key ‖ every byte before it
//
// One value per gram (schema 12) cost a bbolt element (16 bytes), an 8-byte
// key, a link and a seal for a posting of 9–10 bytes on average, and a
// batch fold wrote a key per gram of its group, all held as bbolt nodes
// until the commit. Blocks cut the keys many times over (figures in
// cmd/benchreal/PERFORMANCE.md), and the short form of `which` stores a
// gram of one document in one byte instead of eight.
//
// The seal is two 32-bit CRCs of different polynomials, both computed by
// the CPU's own instructions: a query checks every block it reads, and a
// common prefix's block holds a few kilobytes. countsSize lets a lookup
// step over an entry without decoding its counts.
//
// The chain and the seals are as before: a reader checks the seal of every
// block it uses and proves a block key absent by the chain (the key before
// the place where it would be must be of the same group and name, as its
// next, the key found after that place); a gram absent from a block it
// belongs to is absent, since the block's bytes are sealed.
const sealLen = 8

func sealOf(k, body []byte) uint64 {
	c := crc32.Update(crc32.Update(0, castagnoli, k), castagnoli, body)
	i := crc32.Update(crc32.Update(0, crc32.IEEETable, k), crc32.IEEETable, body)
	return uint64(c)<<32 | uint64(i)
}

// shortDocs is the most documents an entry names by bit number.
const shortDocs = 7

// prefixLen is the number of gram bytes in a block key of kind n.
func prefixLen(n byte) int { return max(gramBytes(n)-1, 0) }

// validBlockKey reports whether k is a block key.
func validBlockKey(k []byte) bool {
	return len(k) >= 5 && k[4] <= maxKind && len(k) == 5+prefixLen(k[4])
}

// blockOf splits gram key k (group ‖ n ‖ gram) into its block key and its
// last byte. The start key is its own block, with last byte 0.
func blockOf(k []byte) (block []byte, last byte) {
	if k[4] == kindStart {
		return k, 0
	}
	return k[:len(k)-1], k[len(k)-1]
}

// endLink is the link of a group's last block.
var endLink = []byte{0}

// openBlock checks block value v of key k against its seal and splits it
// into its link and its entries.
func openBlock(k, v []byte) (link, entries []byte, ok bool) {
	if len(v) < 1+sealLen {
		return nil, nil, false
	}
	n := len(v) - sealLen
	if binary.LittleEndian.Uint64(v[n:]) != sealOf(k, v[:n]) {
		return nil, nil, false
	}
	start := len(k) == 5 && k[4] == kindStart
	if v[0] > maxKind && (!start || v[0] != packedLink[0]) {
		return nil, nil, false
	}
	ln := 1 + prefixLen(v[0])
	if v[0] == kindStart || v[0] == packedLink[0] {
		ln = 1 // the end link (no start entry follows another key), or a packed group's
	}
	if ln > n {
		return nil, nil, false
	}
	return v[:ln], v[ln:n], true
}

// rawEntry is one entry of a block: its counts still encoded.
type rawEntry struct {
	last   byte
	bitmap uint64
	counts []byte
}

// nextEntry parses the entry at the start of p: its documents and the
// bounds of its counts (not the counts themselves).
func nextEntry(p []byte) (e rawEntry, rest []byte, ok bool) {
	if len(p) < 2 {
		return e, nil, false
	}
	e.last = p[0]
	docs := int(p[1])
	p = p[2:]
	switch {
	case docs > GroupSize:
		return e, nil, false
	case docs <= shortDocs:
		if len(p) < docs {
			return e, nil, false
		}
		prev := -1
		for _, b := range p[:docs] {
			if int(b) <= prev || b >= GroupSize {
				return e, nil, false
			}
			e.bitmap |= 1 << b
			prev = int(b)
		}
		p = p[docs:]
	default:
		if len(p) < 8 {
			return e, nil, false
		}
		e.bitmap = binary.LittleEndian.Uint64(p)
		if bits.OnesCount64(e.bitmap) != docs {
			return e, nil, false
		}
		p = p[8:]
	}
	size, n := binary.Uvarint(p)
	if n <= 0 || size > uint64(len(p)-n) {
		return e, nil, false
	}
	p = p[n:]
	e.counts, rest = p[:size], p[size:]
	return e, rest, true
}

// findEntry returns the entry of last byte last among entries (a checked
// block's), found false when the block has none. ok is false for entries
// that do not parse or are out of order.
func findEntry(entries []byte, last byte) (e rawEntry, found, ok bool) {
	prev := -1
	for len(entries) > 0 {
		var ok bool
		if e, entries, ok = nextEntry(entries); !ok || int(e.last) <= prev {
			return e, false, false
		}
		if e.last >= last {
			return e, e.last == last, true
		}
		prev = int(e.last)
	}
	return rawEntry{}, false, true
}

// decodeCounts returns the counts of e, one per set bit, and its follow
// masks (nil when it has none), ok false unless they fill its count bytes
// exactly.
func decodeCounts(e rawEntry) ([]uint32, []uint8, bool) {
	out := make([]uint32, 0, bits.OnesCount64(e.bitmap))
	rest, ok := eachCount(e, func(c uint32) { out = append(out, c) })
	var follows []uint8 // nil when the entry keeps none
	if len(rest) > 0 {
		follows = append(follows, rest...)
	}
	return out, follows, ok
}

// validCounts is decodeCounts without the counts: a lookup checks the
// count bytes of every posting whose counts it uses, without allocating.
func validCounts(e rawEntry) bool {
	_, ok := eachCount(e, func(uint32) {})
	return ok
}

// eachCount calls fn with each count of e and returns the follow masks
// after them (empty when e has none); it reports whether there are a
// count per set bit, then nothing or a follow mask per set bit.
func eachCount(e rawEntry, fn func(uint32)) (follows []byte, ok bool) {
	p := e.counts
	docs := bits.OnesCount64(e.bitmap)
	for range docs {
		c, n := binary.Uvarint(p)
		if n <= 0 || c > math.MaxUint32 {
			return nil, false
		}
		fn(uint32(c))
		p = p[n:]
	}
	return p, len(p) == 0 || len(p) == docs
}

// entry is a decoded block entry.
type entry struct {
	last byte
	Posting
}

// decodeBlock checks block value v of key k of the group postings and
// decodes all of it.
func decodeBlock(k, v []byte) (link []byte, es []entry, ok bool) {
	return decodeLevelBlock(k, v, true)
}

// decodeLevelBlock is decodeBlock for either level: uncounted entries (the
// group summaries, supers.go) must have no count bytes.
func decodeLevelBlock(k, v []byte, counted bool) (link []byte, es []entry, ok bool) {
	link, body, ok := openBlock(k, v)
	if !ok {
		return nil, nil, false
	}
	prev := -1
	for len(body) > 0 {
		var e rawEntry
		if e, body, ok = nextEntry(body); !ok || int(e.last) <= prev {
			return nil, nil, false
		}
		var (
			counts  []uint32
			follows []uint8
		)
		if counted {
			counts, follows, ok = decodeCounts(e)
		} else {
			ok = len(e.counts) == 0
		}
		if !ok {
			return nil, nil, false
		}
		prev = int(e.last)
		es = append(es, entry{e.last, Posting{Bitmap: e.bitmap, Counts: counts, Follows: follows}})
	}
	return link, es, true
}

// encodeBlock is the sealed value of the block of key k with link and
// entries es (ascending by last byte).
func encodeBlock(dst, k, link []byte, es []entry) []byte {
	if len(link) == 0 {
		link = endLink
	}
	v := append(dst, link...)
	for _, e := range es {
		v = appendEntry(v, e)
	}
	return binary.LittleEndian.AppendUint64(v, sealOf(k, v[len(dst):]))
}

func appendEntry(v []byte, e entry) []byte {
	docs := bits.OnesCount64(e.Bitmap)
	v = append(v, e.last, byte(docs))
	if docs <= shortDocs {
		for w := e.Bitmap; w != 0; w &= w - 1 {
			v = append(v, byte(bits.TrailingZeros64(w)))
		}
	} else {
		v = binary.LittleEndian.AppendUint64(v, e.Bitmap)
	}
	follows := e.follows()
	size := len(follows)
	for _, c := range e.Counts {
		size += uvarintLen(uint64(c))
	}
	v = binary.AppendUvarint(v, uint64(size))
	for _, c := range e.Counts {
		v = binary.AppendUvarint(v, uint64(c))
	}
	return append(v, follows...)
}

// follows is e's follow masks as written: one per document, or none
// (a posting whose masks do not match its documents is written without
// them, which rules nothing out).
func (e *entry) follows() []uint8 {
	if len(e.Follows) != len(e.Counts) {
		return nil
	}
	return e.Follows
}
