package find

import "bytes"

// pattern is a term prepared for fast substring search.
//
// bytes.Index looks for the term's first byte with a SIMD byte search and
// verifies each candidate. When that byte is common (the `t` of `transfer`,
// the 0xD8 lead byte of most Arabic letters) nearly every call stops after a
// few bytes, and the per-call cost dominates. A pattern instead searches for
// the byte of the term that is expected to be rarest in text, by a static
// frequency ranking, and verifies candidates around it. A run of failed
// candidates falls back to bytes.Index for the rest of the haystack, so the
// worst case stays that of the standard library.
type pattern struct {
	term []byte
	k    int  // offset of the rare byte within term
	rare byte // term[k]
}

func newPattern(term []byte) pattern {
	k := 0
	for i := 1; i < len(term); i++ {
		if byteRank[term[i]] < byteRank[term[k]] {
			k = i
		}
	}
	return pattern{term: term, k: k, rare: term[k]}
}

// index returns the offset of the first occurrence of p.term in s, or -1.
// The term is never empty.
func (p *pattern) index(s []byte) int {
	n := len(p.term)
	if n == 1 {
		return bytes.IndexByte(s, p.rare)
	}
	last := len(s) - n // last possible start
	fails := 0
	for i := 0; i <= last; {
		j := bytes.IndexByte(s[i+p.k:last+p.k+1], p.rare)
		if j < 0 {
			return -1
		}
		c := i + j
		if bytes.Equal(s[c:c+n], p.term) {
			return c
		}
		i = c + 1
		// Same budget as the standard library: about one false candidate
		// per eight bytes scanned.
		if fails++; fails > 4+i>>3 {
			if r := bytes.Index(s[i:], p.term); r >= 0 {
				return i + r
			}
			return -1
		}
	}
	return -1
}

// byteRank estimates how common each byte is in prose (higher is more
// common). Only the order matters: the rarest byte of a term is searched.
var byteRank = func() (r [256]uint8) {
	for c := range 256 {
		switch {
		case c >= 0x80 && c <= 0xBF: // UTF-8 continuation bytes
			r[c] = 130
		case c >= 0xC2 && c <= 0xF4: // UTF-8 lead bytes: one per letter of a script
			r[c] = 220
		case c >= '0' && c <= '9':
			r[c] = 120
		case c >= 'A' && c <= 'Z':
			r[c] = 100
		case c < 0x20 || c >= 0x7F:
			r[c] = 10
		default: // other ASCII punctuation
			r[c] = 90
		}
	}
	r[' '], r['\t'] = 255, 80
	// Lower-case letters by English letter frequency.
	for i, c := range []byte("etaoinshrdlcumwfgypbvkjxqz") {
		r[c] = uint8(250 - 5*i)
	}
	// Continuation bytes of the most frequent Arabic letters and marks:
	// alef, lam, yeh, meh, waw, noon, teh marbuta, reh, beh, heh.
	for _, c := range []byte{0xA7, 0x84, 0x8A, 0x85, 0x88, 0x86, 0xA9, 0xB1, 0xA8, 0x87} {
		r[c] = 180
	}
	return r
}()
