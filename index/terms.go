package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// GroupSize is the number of documents sharing one posting bitmap.
const GroupSize = 64

// Page fill of the index buckets (bbolt's Bucket.FillPercent, set on every
// write): full pages where keys only grow, a little room where keys land
// near the end of a range. The gram postings keep bbolt's default: every
// document rewrites its group's postings, and fuller pages measured worse.
const (
	fillAppend       = 1.0
	fillMostlyAppend = 0.9
)

var (
	bucketGrams    = []byte("grams")
	bucketEntities = []byte("entities")
	bucketSpans    = []byte("spans")
)

// Buckets lists the buckets the index owns.
var Buckets = [][]byte{bucketGrams, bucketEntities, bucketSpans, bucketLines, bucketEntityCounts}

// CreateBuckets creates the index buckets if they are missing.
func CreateBuckets(tx *bolt.Tx) error {
	for _, b := range Buckets {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

// DropBuckets deletes the index (reindex rebuilds it).
func DropBuckets(tx *bolt.Tx) error {
	for _, b := range Buckets {
		if tx.Bucket(b) != nil {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
	}
	return CreateBuckets(tx)
}

// lineCount is how many lines of a text hold a gram; last is the 1-based
// number of the line that was counted last (0: none yet).
type lineCount struct{ count, last uint32 }

// gramCounts holds, for every distinct 1-, 2- and 3-byte gram of a text,
// the number of lines (runs of bytes ending at LF, the LF included) in which
// the gram starts. A gram without LF lies in the line where it starts, so
// for such grams this is exactly the number of lines containing them; terms
// never contain LF or CR, so it bounds the number of lines a term can match.
//
// 1- and 2-byte grams use direct tables; trigrams an open-addressing hash
// table sized to the distinct trigrams present, so the cost follows the
// text, never the 2^24 possible trigrams.
type gramCounts struct {
	uni [256]lineCount
	bi  []lineCount // 65536 entries
	tri triTable
}

// triTable maps a trigram to its line count with linear probing.
type triTable struct {
	slots []triSlot
	n     int
	shift uint
}

type triSlot struct {
	key uint32 // trigram + 1; 0 marks an empty slot
	lineCount
}

func newTriTable(bits uint) triTable {
	return triTable{slots: make([]triSlot, 1<<bits), shift: 32 - bits}
}

// hit counts trigram tri as seen on line.
func (t *triTable) hit(tri, line uint32) {
	key := tri + 1
	mask := uint32(len(t.slots) - 1)
	for h := (key * 0x9E3779B1) >> t.shift; ; h = (h + 1) & mask {
		s := &t.slots[h]
		if s.key == key {
			if s.last != line {
				s.last = line
				s.count++
			}
			return
		}
		if s.key == 0 {
			s.key, s.count, s.last = key, 1, line
			if t.n++; t.n*2 > len(t.slots) {
				t.grow()
			}
			return
		}
	}
}

func (t *triTable) grow() {
	old := t.slots
	bits := 33 - t.shift
	*t = triTable{slots: make([]triSlot, 1<<bits), n: t.n, shift: 32 - bits}
	mask := uint32(len(t.slots) - 1)
	for _, s := range old {
		if s.key == 0 {
			continue
		}
		h := (s.key * 0x9E3779B1) >> t.shift
		for t.slots[h].key != 0 {
			h = (h + 1) & mask
		}
		t.slots[h] = s
	}
}

// countGrams counts the lines holding each gram of src.
func countGrams(src []byte) *gramCounts {
	g := &gramCounts{bi: make([]lineCount, 1<<16), tri: newTriTable(12)}
	n := len(src)
	line := uint32(1)
	for s := 0; s < n; line++ {
		// The line is src[s:e], its LF included: every gram starting in it
		// counts for it.
		e := n
		if k := bytes.IndexByte(src[s:], '\n'); k >= 0 {
			e = s + k + 1
		}
		p := s
		// Grams of all three lengths start at p < n-2.
		slots, shift := g.tri.slots, g.tri.shift
		for full := min(e, n-2); p < full; p++ {
			c := src[p]
			if u := &g.uni[c]; u.last != line {
				u.last, u.count = line, u.count+1
			}
			c1 := src[p+1]
			if b := &g.bi[uint32(c)<<8|uint32(c1)]; b.last != line {
				b.last, b.count = line, b.count+1
			}
			// The trigram's home slot is checked inline; collisions,
			// insertions and growth go through hit.
			key := (uint32(c)<<16 | uint32(c1)<<8 | uint32(src[p+2])) + 1
			if t := &slots[(key*0x9E3779B1)>>shift]; t.key == key {
				if t.last != line {
					t.last, t.count = line, t.count+1
				}
			} else {
				g.tri.hit(key-1, line)
				slots, shift = g.tri.slots, g.tri.shift
			}
		}
		for ; p < e; p++ {
			if u := &g.uni[src[p]]; u.last != line {
				u.last, u.count = line, u.count+1
			}
			if p+1 < n {
				if b := &g.bi[uint32(src[p])<<8|uint32(src[p+1])]; b.last != line {
					b.last, b.count = line, b.count+1
				}
			}
			if p+2 < n {
				g.tri.hit(uint32(src[p])<<16|uint32(src[p+1])<<8|uint32(src[p+2]), line)
			}
		}
		s = e
	}
	return g
}

// each calls fn for every gram with its line count, by length then gram.
func (g *gramCounts) each(fn func(n int, gram, lines uint32) error) error {
	for c, u := range g.uni {
		if u.count > 0 {
			if err := fn(1, uint32(c), u.count); err != nil {
				return err
			}
		}
	}
	for b, u := range g.bi {
		if u.count > 0 {
			if err := fn(2, uint32(b), u.count); err != nil {
				return err
			}
		}
	}
	keys := make([]uint32, 0, g.tri.n)
	for _, s := range g.tri.slots {
		if s.key != 0 {
			keys = append(keys, s.key-1)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn(3, k, g.tri.lines(k)); err != nil {
			return err
		}
	}
	return nil
}

// lines returns the line count of trigram tri (0 when absent).
func (t *triTable) lines(tri uint32) uint32 {
	key := tri + 1
	mask := uint32(len(t.slots) - 1)
	for h := (key * 0x9E3779B1) >> t.shift; ; h = (h + 1) & mask {
		switch t.slots[h].key {
		case key:
			return t.slots[h].count
		case 0:
			return 0
		}
	}
}

// gramKey is group ‖ n ‖ gram (n bytes).
func gramKey(group uint32, n int, gram uint32) []byte {
	k := make([]byte, 5+n)
	binary.BigEndian.PutUint32(k, group)
	k[4] = byte(n)
	for i := n - 1; i >= 0; i-- {
		k[5+i] = byte(gram)
		gram >>= 8
	}
	return k
}

func groupOf(seq uint64) (uint32, uint64) {
	return uint32(seq / GroupSize), 1 << (seq % GroupSize)
}

// A posting is the value of a gram key: the bitmap of the group's documents
// holding the gram (u64 LE, bit seq%64), then for each set bit in ascending
// order the number of lines of that document holding the gram (uvarint).

// DecodePosting splits a posting into its bitmap and its line counts, one
// per set bit in ascending bit order. ok is false for a malformed value.
func DecodePosting(v []byte) (bitmap uint64, counts []uint32, ok bool) {
	if len(v) < 8 {
		return 0, nil, false
	}
	bitmap = binary.LittleEndian.Uint64(v)
	p := v[8:]
	counts = make([]uint32, 0, bits.OnesCount64(bitmap))
	for range bits.OnesCount64(bitmap) {
		c, n := binary.Uvarint(p)
		if n <= 0 || c > math.MaxUint32 {
			return bitmap, nil, false
		}
		counts = append(counts, uint32(c))
		p = p[n:]
	}
	return bitmap, counts, len(p) == 0
}

// EncodePosting is the inverse of DecodePosting; counts has one entry per
// set bit of bitmap.
func EncodePosting(bitmap uint64, counts []uint32) []byte {
	v := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+2*len(counts)), bitmap)
	for _, c := range counts {
		v = binary.AppendUvarint(v, uint64(c))
	}
	return v
}

// postingCount returns the line count stored for bit in posting v, and
// whether the bit is set and its count readable.
func postingCount(v []byte, bit uint64) (uint32, bool) {
	if len(v) < 8 {
		return 0, false
	}
	bm := binary.LittleEndian.Uint64(v)
	if bm&bit == 0 {
		return 0, false
	}
	p := v[8:]
	for range bits.OnesCount64(bm & (bit - 1)) {
		_, n := binary.Uvarint(p)
		if n <= 0 {
			return 0, false
		}
		p = p[n:]
	}
	c, n := binary.Uvarint(p)
	if n <= 0 || c > math.MaxUint32 {
		return 0, false
	}
	return uint32(c), true
}

// withCount returns posting v with bit set and its count set to lines. A
// malformed v is replaced (check reports the documents it loses).
func withCount(v []byte, bit uint64, lines uint32) []byte {
	if len(v) < 8 {
		return EncodePosting(bit, []uint32{lines})
	}
	bm := binary.LittleEndian.Uint64(v)
	p := v[8:]
	off := 0
	for range bits.OnesCount64(bm & (bit - 1)) {
		_, n := binary.Uvarint(p[off:])
		if n <= 0 {
			return EncodePosting(bit, []uint32{lines})
		}
		off += n
	}
	rest := off
	if bm&bit != 0 {
		_, n := binary.Uvarint(p[off:])
		if n <= 0 {
			return EncodePosting(bit, []uint32{lines})
		}
		rest += n
	}
	// bbolt keeps the value slice until commit: each Put needs its own.
	out := make([]byte, 0, len(v)+binary.MaxVarintLen32)
	out = binary.LittleEndian.AppendUint64(out, bm|bit)
	out = append(out, p[:off]...)
	out = binary.AppendUvarint(out, uint64(lines))
	return append(out, p[rest:]...)
}

// AddTerms records every gram of src, with its line count, for document
// seq.
func AddTerms(tx *bolt.Tx, seq uint64, src []byte) error {
	return CountGrams(src).Add(tx, seq)
}

// Grams is the gram line counts of one text, computed before (and outside)
// the write transaction that records them.
type Grams struct{ counts *gramCounts }

// CountGrams counts the grams of src.
func CountGrams(src []byte) *Grams { return &Grams{countGrams(src)} }

// Add records the counted grams for document seq.
func (g *Grams) Add(tx *bolt.Tx, seq uint64) error {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	group, bit := groupOf(seq)
	return g.counts.each(func(n int, gram, lines uint32) error {
		k := gramKey(group, n, gram)
		return b.Put(k, withCount(b.Get(k), bit, lines))
	})
}

// termGrams returns the grams that every document containing term holds:
// its trigrams, or the term itself when it is shorter than three bytes.
func termGrams(term []byte) [][2]uint32 {
	if len(term) < 3 {
		var g uint32
		for _, c := range term {
			g = g<<8 | uint32(c)
		}
		return [][2]uint32{{uint32(len(term)), g}}
	}
	seen := map[uint32]bool{}
	var out [][2]uint32
	for i := 0; i+2 < len(term); i++ {
		t := uint32(term[i])<<16 | uint32(term[i+1])<<8 | uint32(term[i+2])
		if !seen[t] {
			seen[t] = true
			out = append(out, [2]uint32{3, t})
		}
	}
	return out
}

// Bound is a candidate document with upper bounds of its find ranking key:
// no line of it matches more than Terms terms (counted with repetition),
// and at most Lines of its lines match at all.
type Bound struct {
	Seq   uint64
	Terms int
	Lines uint64
}

// Candidates returns, in ascending order, the sequence numbers (1..maxSeq)
// of the documents that may contain at least one of the terms. Every
// document whose bytes contain a term is returned; others may be too.
func Candidates(tx *bolt.Tx, maxSeq uint64, terms [][]byte) ([]uint64, error) {
	bounds, err := Bounds(tx, maxSeq, terms)
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, b := range bounds {
		out = append(out, b.Seq)
	}
	return out, nil
}

// Bounds returns the candidates of Candidates, in ascending order, each with
// upper bounds of its find result: Terms is the number of terms (with
// repetition) all of whose grams the document holds, which bounds every
// line's score; Lines is the sum over the distinct terms of the smallest
// line count of the term's grams, capped by the document's number of lines,
// which bounds total_matching_lines.
func Bounds(tx *bolt.Tx, maxSeq uint64, terms [][]byte) ([]Bound, error) {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return nil, fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	type weighted struct {
		grams  [][2]uint32
		weight int
	}
	var distinct []weighted
	seen := map[string]int{}
	for _, t := range terms {
		if i, ok := seen[string(t)]; ok {
			distinct[i].weight++
			continue
		}
		seen[string(t)] = len(distinct)
		distinct = append(distinct, weighted{termGrams(t), 1})
	}
	var out []Bound
	for group := uint32(0); uint64(group)*GroupSize <= maxSeq; group++ {
		var any uint64
		var ubTerms [GroupSize]int
		var ubLines [GroupSize]uint64
		for _, d := range distinct {
			all := ^uint64(0)
			var mins [GroupSize]uint32
			for gi, g := range d.grams {
				v := b.Get(gramKey(group, int(g[0]), g[1]))
				if len(v) < 8 {
					all = 0
					break
				}
				bm := binary.LittleEndian.Uint64(v)
				if all &= bm; all == 0 {
					break
				}
				p := v[8:]
				for w := bm; w != 0; w &= w - 1 {
					bit := bits.TrailingZeros64(w)
					c, n := binary.Uvarint(p)
					if n <= 0 || c > math.MaxUint32 {
						// An unreadable count bounds nothing: a damaged
						// index may cost time, never a result.
						c, n = math.MaxUint32, len(p)
					}
					p = p[n:]
					if all&(1<<bit) != 0 && (gi == 0 || uint32(c) < mins[bit]) {
						mins[bit] = uint32(c)
					}
				}
			}
			any |= all
			for w := all; w != 0; w &= w - 1 {
				bit := bits.TrailingZeros64(w)
				ubTerms[bit] += d.weight
				ubLines[bit] += uint64(mins[bit])
			}
		}
		if any == 0 {
			continue
		}
		// A document has at most one line more than it has LF bytes, and
		// the LF unigram's line count is its number of LF bytes.
		lf := b.Get(gramKey(group, 1, '\n'))
		for w := any; w != 0; w &= w - 1 {
			bit := bits.TrailingZeros64(w)
			seq := uint64(group)*GroupSize + uint64(bit)
			if seq < 1 || seq > maxSeq {
				continue
			}
			lines := ubLines[bit]
			if len(lf) < 8 || binary.LittleEndian.Uint64(lf)&(1<<bit) == 0 {
				lines = min(lines, 1)
			} else if c, ok := postingCount(lf, 1<<bit); ok {
				lines = min(lines, uint64(c)+1)
			}
			out = append(out, Bound{Seq: seq, Terms: ubTerms[bit], Lines: lines})
		}
	}
	return out, nil
}

// CheckTerms compares the postings with the grams of src: missing counts
// grams whose bit for document seq is missing, miscounted those whose line
// count differs from the document's (a count below the truth could drop the
// document from a limited find).
func CheckTerms(tx *bolt.Tx, seq uint64, src []byte) (missing, miscounted int, err error) {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return 0, 0, fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	group, bit := groupOf(seq)
	err = countGrams(src).each(func(n int, gram, lines uint32) error {
		v := b.Get(gramKey(group, n, gram))
		if len(v) < 8 || binary.LittleEndian.Uint64(v)&bit == 0 {
			missing++
		} else if c, ok := postingCount(v, bit); !ok || c != lines {
			miscounted++
		}
		return nil
	})
	return missing, miscounted, err
}

// StrayTermBits counts set bits for sequence numbers that are not known
// (bits of documents that do not exist), and malformed postings (one each).
func StrayTermBits(tx *bolt.Tx, known func(seq uint64) bool) (int, error) {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return 0, fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	stray := 0
	err := b.ForEach(func(k, v []byte) error {
		word, _, ok := DecodePosting(v)
		if len(k) < 6 || len(k) > 8 || int(k[4]) != len(k)-5 || !ok {
			stray++
			return nil
		}
		group := uint64(binary.BigEndian.Uint32(k))
		for word != 0 {
			bit := bits.TrailingZeros64(word)
			word &= word - 1
			if !known(group*GroupSize + uint64(bit)) {
				stray++
			}
		}
		return nil
	})
	return stray, err
}
