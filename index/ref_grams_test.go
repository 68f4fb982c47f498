package index

// A frozen copy of the gram counting as it was before the ingest work of
// issue 13 (grams_count.go at 7b99ebe): the differential tests compare the
// current code with it, and the benchmarks run both in one binary.

import (
	"bytes"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/engine/find"
)

// Counting a text's grams and the lines holding each (see terms.go).

// refLineCount is how many lines of a text hold a gram; last is the 1-based
// number of the line that was counted last (0: none yet).
type refLineCount struct{ count, last uint32 }

// refGramCounts holds, for every distinct 1-, 2- and 3-byte gram of a text,
// the number of lines (runs of bytes ending at LF, the LF included) in which
// the gram starts. A gram without LF lies in the line where it starts, so
// for such grams this is exactly the number of lines containing them; terms
// never contain LF or CR, so it bounds the number of lines a term can match.
//
// 1- and 2-byte grams use direct tables; trigrams an open-addressing hash
// table sized to the distinct trigrams present, so the cost follows the
// text, never the 2^24 possible trigrams.
type refGramCounts struct {
	uni [256]refLineCount
	bi  []refLineCount // 65536 entries
	tri refTriTable
	cp  refTriTable // hashed code-point trigrams (gram kind 4), see cpGrams
}

// refTriTable maps a trigram to its line count with linear probing.
type refTriTable struct {
	slots []refTriSlot
	n     int
	shift uint
}

type refTriSlot struct {
	key uint32 // trigram + 1; 0 marks an empty slot
	refLineCount
}

func refNewTriTable(bits uint) refTriTable {
	return refTriTable{slots: make([]refTriSlot, 1<<bits), shift: 32 - bits}
}

// hit counts trigram tri as seen on line.
func (t *refTriTable) hit(tri, line uint32) {
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

func (t *refTriTable) grow() {
	old := t.slots
	bits := 33 - t.shift
	*t = refTriTable{slots: make([]refTriSlot, 1<<bits), n: t.n, shift: 32 - bits}
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

// refGramTables recycles the counting tables (half a megabyte of bigram
// counts and the trigram tables) from one document to the next.
var refGramTables sync.Pool

// refMaxPooledSlots: larger trigram tables (from unusual documents) are not
// kept.
const refMaxPooledSlots = 1 << 18

func refNewGramCounts() *refGramCounts {
	if g, ok := refGramTables.Get().(*refGramCounts); ok {
		return g
	}
	return &refGramCounts{bi: make([]refLineCount, 1<<16), tri: refNewTriTable(12), cp: refNewTriTable(6)}
}

// release clears g and returns it to the pool; g must not be used again.
func (g *refGramCounts) release() {
	g.uni = [256]refLineCount{}
	clear(g.bi)
	for _, t := range []*refTriTable{&g.tri, &g.cp} {
		if len(t.slots) > refMaxPooledSlots {
			return
		}
		clear(t.slots)
		t.n = 0
	}
	refGramTables.Put(g)
}

// refCountGrams counts the lines holding each gram of src.
func refCountGrams(src []byte) *refGramCounts {
	g := refNewGramCounts()
	n := len(src)
	line := uint32(1)
	wide := false // src holds a byte ≥ 0x80: it may have code-point trigrams
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
			wide = wide || c >= 0x80
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
			wide = wide || src[p] >= 0x80
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
	if wide {
		g.countCodePoints(src)
	}
	return g
}

// refEachCPGramIn is eachCPGram over the characters of b[from:to], from a
// character boundary; offsets are b's.
func refEachCPGramIn(b []byte, from, to int, fn func(at int, h uint32)) {
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

// countCodePoints adds the code-point trigrams of src to g.cp, each counted
// on the line where it starts. A trigram holds a byte ≥ 0x80, so only the
// stretches of text within two characters of one are walked: most English
// or code has a few, and its ASCII runs are skipped with a byte scan.
func (g *refGramCounts) countCodePoints(src []byte) {
	line, lineEnd := uint32(1), -1
	if k := bytes.IndexByte(src, '\n'); k >= 0 {
		lineEnd = k
	}
	hit := func(at int, h uint32) {
		for lineEnd >= 0 && at > lineEnd {
			line++
			if k := bytes.IndexByte(src[lineEnd+1:], '\n'); k >= 0 {
				lineEnd += 1 + k
			} else {
				lineEnd = -1
			}
		}
		g.cp.hit(h, line)
	}
	i := 0
	for i < len(src) && src[i]&0xC0 == 0x80 {
		i++ // as eachCPGram: from the first character boundary
	}
	for i < len(src) {
		q := i
		for q < len(src) && src[q] < 0x80 {
			q++
		}
		if q == len(src) {
			return
		}
		// src[i:q] is ASCII, so the two bytes before q are characters; the
		// stretch ends after two ASCII characters following its last wide
		// byte (or at the end).
		from := max(i, q-2)
		end, ascii := q, 0
		for end < len(src) && ascii < 2 {
			if src[end] < 0x80 {
				ascii++
			} else {
				ascii = 0
			}
			end++
		}
		refEachCPGramIn(src, from, end, hit)
		if end == len(src) {
			return
		}
		// The next stretch may start with the last two ASCII characters:
		// a trigram needs three, so none is walked twice.
		i = end - 2
	}
}

// each calls fn for every gram with its line count, by kind then gram (the
// order of their keys).
func (g *refGramCounts) each(fn func(n int, gram, lines uint32) error) error {
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
	keys = keys[:0]
	for _, s := range g.cp.slots {
		if s.key != 0 {
			keys = append(keys, s.key-1)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn(kindCP, k, g.cp.lines(k)); err != nil {
			return err
		}
	}
	return nil
}

// lines returns the line count of trigram tri (0 when absent).
func (t *refTriTable) lines(tri uint32) uint32 {
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
