package index

import "bytes"

// termFinder finds a term in a dictionary block, as bytes.Index does.
//
// bytes.Index looks for the term's first byte and compares from there,
// falling back to a brute-force compare at every position when that byte
// is frequent. A term in Arabic script begins with a UTF-8 lead byte
// (0xD8 or 0xD9) that about every other byte of an Arabic dictionary block
// is: bytes.Index then compares at every position, and searching blocks
// was a large share of a rare Arabic term's find. Such a term is instead
// anchored on its rarest byte by a fixed ranking (its least frequent
// letter's second byte): IndexByte skips to that byte's next occurrence
// and the term is compared around it, which measured faster than
// bytes.Index on every Arabic term tried.
//
// Terms that begin with an ASCII byte keep bytes.Index: on sorted English
// tokens a letter anchor can be in every token of a block (the block of
// tokens beginning with it), and it measured no faster overall. When the
// anchor too proves frequent, the search falls back to bytes.Index.
type termFinder struct {
	term   []byte
	anchor int // offset of the byte IndexByte looks for, or -1: bytes.Index
}

func newTermFinder(term []byte) termFinder {
	f := termFinder{term: term, anchor: -1}
	if len(term) < 2 || term[0] < 0xC0 {
		return f
	}
	f.anchor = 0
	for i := range term {
		if byteRank[term[i]] < byteRank[term[f.anchor]] {
			f.anchor = i
		}
	}
	return f
}

// index returns the offset of the first occurrence of the term in d, or -1.
func (f *termFinder) index(d []byte) int {
	if f.anchor < 0 {
		return bytes.Index(d, f.term)
	}
	k, n, c := f.anchor, len(f.term), f.term[f.anchor]
	fails := 0
	for p := k; p < len(d); p++ {
		o := bytes.IndexByte(d[p:], c)
		if o < 0 {
			return -1
		}
		p += o
		s := p - k // p ≥ k: the search starts at d[k:]
		if s+n <= len(d) && bytes.Equal(d[s:s+n], f.term) {
			return s
		}
		// A false hit costs a call; once they come more often than one
		// per 16 bytes, a compare at every position is cheaper.
		if fails++; fails > (p+16)/16 {
			if i := bytes.Index(d[s+1:], f.term); i >= 0 {
				return s + 1 + i
			}
			return -1
		}
	}
	return -1
}

// byteRank ranks bytes by how often they occur in text, rarest lowest: a
// guess that only ever costs speed. UTF-8 lead bytes of two-byte letters
// (Arabic's 0xD8 and 0xD9 above all) rank highest; the second bytes of
// Arabic letters rank by the letters' frequency in Arabic text; ASCII
// letters by their frequency in English, capitals below lower case.
var byteRank = func() (r [256]uint8) {
	for i := range r {
		r[i] = 100
	}
	for i := 0xC0; i < 0x100; i++ {
		r[i] = 250
	}
	r[0xD8], r[0xD9] = 255, 255
	for i, c := range "etaoinsrhldcumfpgwybvkxjqz" {
		r[c] = uint8(200 - 6*i)
		r[c-'a'+'A'] = uint8(120 - 3*i)
	}
	// ا ل ي م و ن ر ت ب ه ع د س ف ك ق ح ج ش ص ط ض ز خ ث ذ غ ظ, by their
	// second bytes (after 0xD8 or 0xD9).
	for i, c := range []byte{0xA7, 0x84, 0x8A, 0x85, 0x88, 0x86, 0xB1, 0xAA, 0xA8, 0x87, 0xB9, 0xAF, 0xB3, 0x81, 0x83, 0x82, 0xAD, 0xAC, 0xB4, 0xB5, 0xB7, 0xB6, 0xB2, 0xAE, 0xAB, 0xB0, 0xBA, 0xB8} {
		r[c] = uint8(220 - 7*i)
	}
	return r
}()
