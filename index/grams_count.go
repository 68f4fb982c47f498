package index

import (
	"bytes"
	"math/bits"
	"sync"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/engine/find"
)

// Counting a text's grams and the lines holding each (see terms.go).

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
	// biSeen marks the bigrams counted (a bit each): each and release
	// visit those alone. Walking and clearing the 512 KiB table whole for
	// every document was a tenth of the CPU of ingesting small ones.
	biSeen [1 << 10]uint64
	tri    triTable
	cp     triTable // hashed code-point trigrams (gram kind 4), see cpGrams
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
	// follow: the bytes that follow the trigram somewhere in the text, a
	// bit each, byte&7 (FollowBit): the follow mask of its posting.
	follow uint8
}

func newTriTable(bits uint) triTable {
	return triTable{slots: make([]triSlot, 1<<bits), shift: 32 - bits}
}

// hit counts trigram tri as seen on line and returns its slot.
func (t *triTable) hit(tri, line uint32) *triSlot {
	key := tri + 1
	mask := uint32(len(t.slots) - 1)
	for h := (key * 0x9E3779B1) >> t.shift; ; h = (h + 1) & mask {
		s := &t.slots[h]
		if s.key == key {
			if s.last != line {
				s.last = line
				s.count++
			}
			return s
		}
		if s.key == 0 {
			s.key, s.count, s.last = key, 1, line
			if t.n++; t.n*2 > len(t.slots) {
				t.grow()
				return t.slot(key)
			}
			return s
		}
	}
}

// slot returns the slot of key, which the table holds.
func (t *triTable) slot(key uint32) *triSlot {
	mask := uint32(len(t.slots) - 1)
	h := (key * 0x9E3779B1) >> t.shift
	for t.slots[h].key != key {
		h = (h + 1) & mask
	}
	return &t.slots[h]
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

// gramTables recycles the counting tables (half a megabyte of bigram
// counts and the trigram tables) from one document to the next.
var gramTables sync.Pool

// maxPooledSlots: larger trigram tables (from unusual documents) are not
// kept.
const maxPooledSlots = 1 << 18

func newGramCounts() *gramCounts {
	if g, ok := gramTables.Get().(*gramCounts); ok {
		return g
	}
	return &gramCounts{bi: make([]lineCount, 1<<16), tri: newTriTable(12), cp: newTriTable(6)}
}

// release clears g and returns it to the pool; g must not be used again.
func (g *gramCounts) release() {
	g.uni = [256]lineCount{}
	g.eachSeenBigram(func(b uint32) { g.bi[b] = lineCount{} })
	g.biSeen = [1 << 10]uint64{}
	for _, t := range []*triTable{&g.tri, &g.cp} {
		if len(t.slots) > maxPooledSlots {
			return
		}
		clear(t.slots)
		t.n = 0
	}
	gramTables.Put(g)
}

// countGrams counts the lines holding each gram of src.
func countGrams(src []byte) *gramCounts {
	g := newGramCounts()
	if g.countBytes(src) >= utf8.RuneSelf {
		g.countCodePoints(src)
	}
	return g
}

// seen counts c, a line count last counted on line last, for line: once
// per line, without a branch (which line comes first is unpredictable).
func seen(c *lineCount, line uint32) {
	d := c.last ^ line
	c.count += (d | -d) >> 31 // 1 when last != line
	c.last = line
}

// isLF is 1 for an LF, else 0.
func isLF(c byte) uint32 {
	if c == '\n' {
		return 1
	}
	return 0
}

// sepBytes is 1 for the CONTRACT 11 separators, else 0.
var sepBytes = func() (t [256]uint8) {
	for c := range 256 {
		if find.IsSeparator(byte(c)) {
			t[c] = 1
		}
	}
	return t
}()

// countBytes counts the 1- and 2-byte grams of src and its 3-byte grams
// without a separator, each on the line where it starts (a line's LF is its last byte), in one pass without
// cutting lines (real text has short lines: dictionaries, code); it
// returns the bitwise or of src's bytes (≥ 0x80: src may hold code-point
// trigrams).
func (g *gramCounts) countBytes(src []byte) (or byte) {
	n := len(src)
	line := uint32(1)
	p := 0
	// Grams of all three lengths start at p < n-2.
	slots, shift := g.tri.slots, g.tri.shift
	for ; p < n-2; p++ {
		c, c1 := src[p], src[p+1]
		or |= c
		seen(&g.uni[c], line)
		b := uint32(c)<<8 | uint32(c1)
		seen(&g.bi[b], line)
		g.biSeen[b>>6] |= 1 << (b & 63)
		line += isLF(c) // c is counted on its line above; LF, a separator, starts no trigram counted below
		// A trigram holding a separator is never looked up (indexedGram):
		// not counting it skips the probe at about two positions in five
		// of English text.
		c2 := src[p+2]
		if sepBytes[c]|sepBytes[c1]|sepBytes[c2] != 0 {
			continue
		}
		// The trigram's home slot is checked inline; collisions,
		// insertions and growth go through hit.
		key := (uint32(c)<<16 | uint32(c1)<<8 | uint32(c2)) + 1
		var follow uint8 // none after the last trigram of the text
		if p+3 < n {
			follow = FollowBit(src[p+3])
		}
		if t := &slots[(key*0x9E3779B1)>>shift]; t.key == key {
			seen(&t.lineCount, line)
			t.follow |= follow
		} else {
			g.tri.hit(key-1, line).follow |= follow
			slots, shift = g.tri.slots, g.tri.shift
		}
	}
	for ; p < n; p++ { // the last two bytes: no trigram starts there
		or |= src[p]
		seen(&g.uni[src[p]], line)
		if p+1 < n {
			b := uint32(src[p])<<8 | uint32(src[p+1])
			seen(&g.bi[b], line)
			g.biSeen[b>>6] |= 1 << (b & 63)
		}
		line += isLF(src[p])
	}
	return or
}

// countCodePoints adds the code-point trigrams of src (eachCPGram) to g.cp,
// each counted on the line where it starts. The walk is eachCPGramIn's,
// with the line counted as LFs go by (LF is a separator: no trigram holds
// one). A trigram holds a byte ≥ 0x80, so once the last two characters
// are ASCII, the ASCII run ahead is skipped up to two bytes before the
// next wide byte, its LFs counted by a byte scan: most English or code has
// few wide characters.
func (g *gramCounts) countCodePoints(src []byte) {
	n := len(src)
	p := 0
	for p < n && src[p]&0xC0 == 0x80 {
		p++ // from the first character boundary
	}
	line := uint32(1)
	// The last three characters: their offsets and values. sepEnd: the
	// end of the last separator, so a trigram starting before it holds
	// one; wideAt: the last character with a byte ≥ 0x80.
	var at0, at1, at2 int
	var v0, v1, v2 uint32
	have, sepEnd, wideAt := 0, p, -1
	for p < n {
		c := src[p]
		v, size := uint32(c), 1
		if c < utf8.RuneSelf {
			if noWidePending(have, wideAt, at1, at2) {
				q := p
				for q < n && src[q] < utf8.RuneSelf {
					q++
				}
				if q == n {
					return
				}
				if to := q - 2; to > p {
					line += uint32(bytes.Count(src[p:to], lf))
					have, sepEnd, wideAt, p = 0, to, -1, to
					c = src[p]
					v = uint32(c)
				}
			}
			if find.IsSeparator(c) {
				sepEnd = p + 1
				line += isLF(c)
			}
		} else if c >= 0xC2 && c <= 0xDF && p+1 < n && src[p+1]&0xC0 == 0x80 {
			// charValue's first case inline: Arabic, Latin accents.
			v, size = uint32(c&0x1F)<<6|uint32(src[p+1]&0x3F), 2
			wideAt = p
		} else {
			if !utf8.FullRune(src[p:]) {
				return
			}
			v, size = charValue(src[p:])
			wideAt = p
		}
		at0, at1, at2 = at1, at2, p
		v0, v1, v2 = v1, v2, v
		have++
		p += size
		if have >= 3 && at0 >= sepEnd && wideAt >= at0 {
			g.cp.hitHome(cpHash(v0, v1, v2), line)
		}
	}
}

var lf = []byte{'\n'}

// noWidePending reports whether none of the last two characters walked
// (of have, the last at at2, the one before at at1) is the wide one at
// wideAt: no trigram still to be completed holds a wide character.
func noWidePending(have, wideAt, at1, at2 int) bool {
	switch have {
	case 0:
		return true
	case 1:
		return wideAt < at2
	}
	return wideAt < at1
}

// hitHome is hit with the home slot checked inline.
func (t *triTable) hitHome(tri, line uint32) {
	key := tri + 1
	if s := &t.slots[(key*0x9E3779B1)>>t.shift]; s.key == key {
		seen(&s.lineCount, line)
		return
	}
	t.hit(tri, line)
}

// Gram kinds: the first byte of a gram key after the group. Kinds 1-3 are
// byte n-grams, the gram itself; kind 4 is a code-point trigram hashed to 24
// bits (cpHash).
const (
	kindStart = 0 // a group's start entry
	kindCP    = 4
	maxKind   = kindCP
)

// gramBytes is the number of gram bytes in a key of kind n.
func gramBytes(n byte) int { return int(min(n, 3)) }

// validGramKey reports whether k is a start or gram key.
func validGramKey(k []byte) bool {
	return len(k) >= 5 && k[4] <= maxKind && len(k) == 5+gramBytes(k[4])
}

// Code-point trigrams (kind 4). Byte trigrams rule out almost nothing in
// scripts written with 2-byte characters: Arabic letters share two lead
// bytes, so a byte trigram is a letter and a half and nearly every document
// holds nearly all of them. Three whole characters do discriminate. The
// term index therefore also records every run of three UTF-8 characters
// that holds a byte ≥ 0x80 and no CONTRACT 11 separator (a term never holds a
// separator; runs of three ASCII characters are the byte trigrams already),
// hashed to 24 bits. A hash collision only merges two grams' postings: a
// document may become a candidate without holding the term, never the
// reverse.
//
// Characters are delimited as utf8.DecodeRune delimits them, one byte for
// an invalid sequence. Every byte that is not a continuation byte starts a
// character wherever the walk begins, so a term's characters (from its
// first non-continuation byte) are the document's characters at the place
// where the term occurs.

// cpHash hashes the values of three characters (charValue) to 24 bits.
func cpHash(v0, v1, v2 uint32) uint32 {
	h := v0*0x9E3779B1 ^ v1*0x85EBCA77 ^ v2*0xC2B2AE3D
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	return h & 0xFFFFFF
}

// charValue decodes the character starting at b[0] (b not empty, and
// holding the whole character: utf8.FullRune) as utf8.DecodeRune delimits
// it: its code point and length, or 0x110000 + the byte for a byte of an
// invalid sequence (one byte long), so no two characters share a value.
func charValue(b []byte) (uint32, int) {
	c := b[0]
	switch {
	case c < utf8.RuneSelf:
		return uint32(c), 1
	case c >= 0xC2 && c <= 0xDF && len(b) > 1 && b[1]&0xC0 == 0x80: // 2 bytes: Arabic, Latin-1
		return uint32(c&0x1F)<<6 | uint32(b[1]&0x3F), 2
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		return 0x110000 + uint32(c), 1
	}
	return uint32(r), n
}

// eachCPGram calls fn with the start offset and hash of every code-point
// trigram of b that holds a byte ≥ 0x80 and no separator, starting from
// b's first character boundary. Trigrams must lie wholly inside b, and
// the walk stops at a character b cuts short (a term's last bytes may be the
// start of a longer character in the document).
func eachCPGram(b []byte, fn func(at int, h uint32)) {
	p := 0
	for p < len(b) && b[p]&0xC0 == 0x80 {
		p++
	}
	eachCPGramIn(b, p, len(b), fn)
}

// eachCPGramIn is eachCPGram over the characters of b[from:to], from a
// character boundary; offsets are b's.
func eachCPGramIn(b []byte, from, to int, fn func(at int, h uint32)) {
	// The last three characters: their offsets and values. sepEnd: the
	// end of the last separator, so a trigram starting before it holds
	// one; wideAt: the last character with a byte ≥ 0x80.
	var at0, at1, at2 int
	var v0, v1, v2 uint32
	have, sepEnd, wideAt := 0, from, -1
	for p := from; p < to; {
		c := b[p]
		v, n := uint32(c), 1
		if c < utf8.RuneSelf {
			if find.IsSeparator(c) {
				sepEnd = p + 1
			}
		} else {
			if !utf8.FullRune(b[p:to]) {
				return
			}
			v, n = charValue(b[p:to])
			wideAt = p
		}
		at0, at1, at2 = at1, at2, p
		v0, v1, v2 = v1, v2, v
		have++
		p += n
		if have >= 3 && at0 >= sepEnd && wideAt >= at0 {
			fn(at0, cpHash(v0, v1, v2))
		}
	}
}

// each calls fn for every gram with its line count, by kind then gram (the
// order of their keys).
func (g *gramCounts) each(fn func(n int, gram, lines uint32, follow uint8) error) error {
	for c, u := range g.uni {
		if u.count > 0 {
			if err := fn(1, uint32(c), u.count, 0); err != nil {
				return err
			}
		}
	}
	var err error
	g.eachSeenBigram(func(b uint32) {
		if u := g.bi[b]; u.count > 0 && err == nil {
			err = fn(2, b, u.count, 0)
		}
	})
	if err != nil {
		return err
	}
	// Trigrams by gram: (gram, line count) pairs radix-sorted by gram,
	// read from the slots in one pass (no probe per gram).
	size := max(g.tri.n, g.cp.n)
	pairs, tmp := make([]uint64, 0, size), make([]uint64, size)
	for _, t := range []struct {
		kind  int
		table *triTable
	}{{3, &g.tri}, {kindCP, &g.cp}} {
		// The follow mask rides in the pair's top byte, above the gram.
		pairs = pairs[:0]
		for _, s := range t.table.slots {
			if s.key != 0 {
				pairs = append(pairs, uint64(s.follow)<<56|uint64(s.key-1)<<32|uint64(s.count))
			}
		}
		sorted := sortGramPairs(pairs, tmp)
		for _, p := range sorted {
			if err := fn(t.kind, uint32(p>>32)&0xFFFFFF, uint32(p), uint8(p>>56)); err != nil {
				return err
			}
		}
	}
	return nil
}

// eachSeenBigram calls fn with every bigram biSeen marks, ascending.
func (g *gramCounts) eachSeenBigram(fn func(b uint32)) {
	for w, word := range g.biSeen {
		for ; word != 0; word &= word - 1 {
			fn(uint32(w)<<6 | uint32(bits.TrailingZeros64(word)))
		}
	}
}

// sortGramPairs sorts pairs of a 24-bit gram (bits 32 to 55) and a count
// (the low 32 bits) by gram (the top byte rides along), with tmp (as long as pairs) as scratch: an
// LSD radix sort of the gram's three bytes, where a comparison sort of
// tens of thousands of grams per document was a tenth of counting them.
// It returns the sorted slice, which is tmp's array (three passes).
func sortGramPairs(pairs, tmp []uint64) []uint64 {
	tmp = tmp[:len(pairs)]
	for shift := uint(32); shift < 56; shift += 8 {
		var count [256]int
		for _, p := range pairs {
			count[byte(p>>shift)]++
		}
		at := 0
		for i, c := range count {
			count[i] = at
			at += c
		}
		for _, p := range pairs {
			b := byte(p >> shift)
			tmp[count[b]] = p
			count[b]++
		}
		pairs, tmp = tmp, pairs
	}
	return pairs
}

// FollowBit is the bit of the follow mask (a trigram posting's, and a
// term's requirement) that byte b sets: b&7 spreads the letters a-z three
// or four to a bit. A document holding a term holds each of its trigrams
// followed by the term's next byte, so its mask for that trigram has that
// byte's bit: a query rules out, without reading the document, those
// holding every trigram of a term but never in a row (issue 28).
func FollowBit(b byte) uint8 { return 1 << (b & 7) }
