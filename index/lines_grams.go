package index

import "unicode/utf8"

// Gram filters of the line index's dictionary blocks (CLX2, see
// BuildLines).
//
// A token is read as a sequence of units: each valid UTF-8 encoding is one
// unit (its code point), every other byte is a unit of its own (a value
// above the code points), exactly as utf8.DecodeRune walks it from the
// token's first byte. A block's filter holds every unigram and every
// trigram of units of its tokens.
//
// A find term is arbitrary bytes and may start or end inside a character,
// so its grams are only those it is sure to share with any token holding
// it. Its first byte that is not a UTF-8 continuation byte (10xxxxxx) is a
// unit boundary in the token too: no unit of the token can hold such a
// byte past its first, and invalid bytes are units of one byte. From
// there, every unit that utf8.FullRune says the term's own bytes decide
// decodes to the same unit in the token; only a character cut by the
// term's end is undecided (it may continue in the token), and only leading
// continuation bytes are skipped. So the term's decided units are
// consecutive units of the token, and every gram of them is in the filter
// of the token's block: a block whose filter lacks one of them cannot hold
// the term. A term with no decided unit (say, half of a character) has no
// gram and searches every block. A filter can only say "maybe": false
// positives cost a block decode, never an answer.
//
// Bigrams are left out: on the 158 MB Arabic corpus they would add a third
// to the filters, and the two-letter terms people type (في, من, ال) are in
// more than nine blocks in ten anyway; a two-unit term is tested by its two
// unigrams instead.

// unitInvalid marks a unit that is a byte outside any valid encoding: its
// value is unitInvalid + the byte, above every code point.
const unitInvalid = utf8.MaxRune + 1

// unitBits is the width of a unit value (unitInvalid + 0xFF < 1<<21).
const unitBits = 21

// nextUnit decodes the unit at the start of b (len(b) > 0).
func nextUnit(b []byte) (unit uint32, size int) {
	c := b[0]
	if c < utf8.RuneSelf {
		return uint32(c), 1
	}
	// Two-byte characters (Arabic, Latin accents) without the general
	// decoder: C2..DF then a continuation byte is always valid.
	if c >= 0xC2 && c <= 0xDF && len(b) > 1 && b[1]&0xC0 == 0x80 {
		return uint32(c&0x1F)<<6 | uint32(b[1]&0x3F), 2
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		return unitInvalid + uint32(b[0]), 1
	}
	return uint32(r), n
}

// The keys of grams: a trigram packs its three units; a unigram has the
// top bit set, which no trigram has.
func unigramKey(u uint32) uint64 { return uint64(u) | 1<<63 }
func trigramKey(a, b, c uint32) uint64 {
	return uint64(a) | uint64(b)<<unitBits | uint64(c)<<(2*unitBits)
}

// gramHash mixes a gram key (the splitmix64 finalizer): fixed, so that a
// record's filters are a function of its source alone (check compares
// rebuilt bytes).
func gramHash(k uint64) uint64 {
	k ^= k >> 30
	k *= 0xbf58476d1ce4e5b9
	k ^= k >> 27
	k *= 0x94d049bb133111eb
	return k ^ k>>31
}

// addToken adds the hashes of every unigram and trigram of tok to s.
func (s *gramSet) addToken(tok []byte) {
	var a, b uint32
	for i, n := 0, 0; i < len(tok); n++ {
		// nextUnit, its two common cases inline.
		var u uint32
		size := 1
		if c := tok[i]; c < utf8.RuneSelf {
			u = uint32(c)
		} else if c >= 0xC2 && c <= 0xDF && i+1 < len(tok) && tok[i+1]&0xC0 == 0x80 {
			u, size = uint32(c&0x1F)<<6|uint32(tok[i+1]&0x3F), 2
		} else {
			u, size = nextUnit(tok[i:])
		}
		i += size
		// A block has a few dozen distinct characters among thousands:
		// those below 2048 (ASCII, Latin, Arabic) are kept in a bitmap
		// and hashed once.
		if u >= 2048 {
			s.add(gramHash(unigramKey(u)))
		} else if w, bit := u/64, uint64(1)<<(u%64); s.low[w]&bit == 0 {
			s.low[w] |= bit
			s.add(gramHash(unigramKey(u)))
		}
		if n >= 2 {
			// Most of a block's trigrams repeat: one already in its home
			// slot is found inline.
			h := gramHash(trigramKey(a, b, u))
			if len(s.slots) == 0 || s.slots[h&uint64(len(s.slots)-1)] != h || h == 0 {
				s.add(h)
			}
		}
		a, b = b, u
	}
}

// termUnitGrams appends to dst the hashes of the grams every token holding
// term has (see above): the trigrams of its decided units, or their
// unigrams when there are fewer than three. It appends nothing when no
// unit is decided.
func termUnitGrams(term []byte, dst []uint64) []uint64 {
	i := 0
	for i < len(term) && term[i]&0xC0 == 0x80 {
		i++
	}
	var us [3]uint32
	n := 0
	start := len(dst)
	for i < len(term) && utf8.FullRune(term[i:]) {
		u, size := nextUnit(term[i:])
		i += size
		if n < 3 {
			us[n] = u
		} else {
			us[0], us[1], us[2] = us[1], us[2], u
		}
		n++
		if n >= 3 {
			dst = append(dst, gramHash(trigramKey(us[0], us[1], us[2])))
		}
	}
	if n > 0 && n < 3 {
		dst = dst[:start]
		for _, u := range us[:n] {
			dst = append(dst, gramHash(unigramKey(u)))
		}
	}
	return dst
}

// gramSet is a set of gram hashes (open addressing), reused block after
// block: a block's filter is sized by its distinct grams.
type gramSet struct {
	slots   []uint64 // 0 is an empty slot; the hash 0 is hasZero
	hasZero bool
	n       int
	low     [2048 / 64]uint64 // the unigrams below 2048 added
}

func (s *gramSet) reset() {
	clear(s.slots)
	s.hasZero = false
	s.n = 0
	s.low = [len(s.low)]uint64{}
}

func (s *gramSet) add(h uint64) {
	if h == 0 {
		if !s.hasZero {
			s.hasZero = true
			s.n++
		}
		return
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.n++
			return
		case h:
			return
		}
	}
}

func (s *gramSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(1024, 2*len(old)))
	mask := uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
}

// filter appends to dst a Bloom filter of the set: bitsPerGram bits per
// distinct gram (at least one byte), probes bits set per gram.
func (s *gramSet) filter(dst []byte, bitsPerGram, probes int) []byte {
	size := max(1, (s.n*bitsPerGram+7)/8)
	start := len(dst)
	dst = append(dst, make([]byte, size)...)
	f := dst[start:]
	if s.hasZero {
		filterSet(f, probes, 0)
	}
	for _, h := range s.slots {
		if h != 0 {
			filterSet(f, probes, h)
		}
	}
	return dst
}

// filterProbe returns the k-th bit of gram hash h in a filter of m bits
// (double hashing; the multiply-shift maps 32 bits onto [0, m), m below
// 1<<32: filters are at most maxFilter bytes).
func filterProbe(h uint64, k int, m uint64) uint64 {
	h1, h2 := uint32(h), uint32(h>>32)|1
	return uint64(h1+uint32(k)*h2) * m >> 32
}

func filterSet(f []byte, probes int, h uint64) {
	m := uint64(len(f)) * 8
	for k := range probes {
		b := filterProbe(h, k, m)
		f[b>>3] |= 1 << (b & 7)
	}
}

// filterMay reports whether a block whose filter is f may hold a token
// with every gram of grams. No filter, or no gram, says yes.
func filterMay(f []byte, probes int, grams []uint64) bool {
	if len(f) == 0 {
		return true
	}
	m := uint64(len(f)) * 8
	for _, h := range grams {
		for k := range probes {
			b := filterProbe(h, k, m)
			if f[b>>3]&(1<<(b&7)) == 0 {
				return false
			}
		}
	}
	return true
}
