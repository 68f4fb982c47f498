package main

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/engine/find"
)

// docFreq counts, for each word, the documents holding it (document
// frequency), and the same for the ASCII letters. Words are find's tokens
// (runs between its separators) made only of ASCII letters, 3 to 24 bytes:
// the terms picked from it must mean the same bytes to chronicle, rg and
// FTS5, and need no quoting in any of them.
type docFreq struct {
	docs    int
	words   map[string]int
	letters [128]int
}

func newDocFreq() *docFreq { return &docFreq{words: map[string]int{}} }

// add counts one document.
func (f *docFreq) add(text []byte) {
	f.docs++
	seen := map[string]bool{}
	var letters [128]bool
	for i := 0; i < len(text); {
		if find.IsSeparator(text[i]) {
			i++
			continue
		}
		j := i
		word := true
		for j < len(text) && !find.IsSeparator(text[j]) {
			c := text[j]
			if c < 128 && asciiLetter(c) {
				letters[c] = true
			} else {
				word = false
			}
			j++
		}
		if word && j-i >= 3 && j-i <= 24 {
			w := text[i:j]
			if !seen[string(w)] { // no allocation: the map lookup converts in place
				seen[string(w)] = true
			}
		}
		i = j
	}
	for w := range seen {
		f.words[w]++
	}
	for c, ok := range letters {
		if ok {
			f.letters[c]++
		}
	}
}

func asciiLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// query is one benchmark query: its terms are joined with spaces for
// chronicle (which splits them again) and ORed for rg and FTS5, as find
// counts a line that holds any of them.
type query struct {
	class string
	terms []string
	df    int // documents holding the term as a word (the first term for one)
}

func (q query) text() string { return strings.Join(q.terms, " ") }

// absentTerm is a word no corpus here holds; the run checks that every
// tool counts zero for it.
const absentTerm = "xqzjvwkqpz"

// pickTerms picks the query set from document frequencies: an absent
// term, a rare word (in 2 or 3 documents), a medium one (in about 1% of
// the documents), the most common word, three words at about 0.5%, 2% and
// 5%, and the 16 letters held by the most documents. Words are lowercase
// and at least 6 letters for rare and medium ones, so that few longer
// words hold them as a substring (find and the others match substrings;
// the frequency here counts whole words). Ties go to the byte order, so a
// corpus always gives the same picks.
func pickTerms(f *docFreq) []query {
	type wc struct {
		w string
		n int
	}
	var long, lower []wc
	for w, n := range f.words {
		if len(w) >= 6 && lowerWord(w) {
			long = append(long, wc{w, n})
		}
		if lowerWord(w) {
			lower = append(lower, wc{w, n})
		}
	}
	byFreq := func(a, b wc) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return strings.Compare(a.w, b.w)
	}
	slices.SortFunc(long, byFreq)
	slices.SortFunc(lower, byFreq)
	used := map[string]bool{absentTerm: true}
	// near returns the unused long word whose frequency is closest to n.
	near := func(n int) wc {
		best, bestD := wc{}, -1
		for _, c := range long {
			if used[c.w] {
				continue
			}
			d := c.n - n
			if d < 0 {
				d = -d
			}
			if bestD < 0 || d < bestD || d == bestD && c.w < best.w {
				best, bestD = c, d
			}
		}
		used[best.w] = true
		return best
	}
	qs := []query{{class: "absent", terms: []string{absentTerm}}}
	add := func(class string, ws ...wc) {
		q := query{class: class}
		for _, w := range ws {
			if w.w == "" {
				return
			}
			q.terms = append(q.terms, w.w)
		}
		q.df = ws[0].n
		qs = append(qs, q)
	}
	pct := func(p float64) int { return max(1, int(p*float64(f.docs)+0.5)) }
	// Rare: 2 or 3 documents; the middle one of those in byte order, not
	// the first (which would start with the same letters every time).
	var rare []wc
	for _, c := range long {
		if c.n == 2 || c.n == 3 {
			rare = append(rare, c)
		}
	}
	if len(rare) > 0 {
		slices.SortFunc(rare, func(a, b wc) int { return strings.Compare(a.w, b.w) })
		r := rare[len(rare)/2]
		used[r.w] = true
		add("rare", r)
	} else {
		add("rare", near(2))
	}
	add("medium", near(pct(0.01)))
	if len(lower) > 0 {
		used[lower[0].w] = true
		add("common", lower[0])
	}
	add("3 terms", near(pct(0.005)), near(pct(0.02)), near(pct(0.05)))
	var letters []wc
	for c, n := range f.letters {
		if n > 0 {
			letters = append(letters, wc{string(rune(c)), n})
		}
	}
	slices.SortFunc(letters, byFreq)
	if len(letters) >= 16 {
		add("16 letters", letters[:16]...)
	}
	return qs
}

func lowerWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// ftsSQL is the FTS5 statement counting the documents that hold any of the
// terms, byte for byte (the table is built with case_sensitive 1). The
// trigram index answers terms of 3 characters or more; a shorter term
// matches nothing through MATCH, so a query holding one scans every
// document with instr() instead (scan is true).
func ftsSQL(terms []string) (sql string, scan bool) {
	for _, t := range terms {
		if utf8.RuneCountInString(t) < 3 {
			scan = true
		}
	}
	quote := func(s, q string) string { return q + strings.ReplaceAll(s, q, q+q) + q }
	var parts []string
	for _, t := range terms {
		if scan {
			parts = append(parts, "instr(body, "+quote(t, "'")+") > 0")
		} else {
			parts = append(parts, quote(t, `"`))
		}
	}
	if scan {
		return "SELECT count(*) FROM docs WHERE " + strings.Join(parts, " OR ") + ";", true
	}
	return "SELECT count(*) FROM docs WHERE docs MATCH " + quote(strings.Join(parts, " OR "), "'") + ";", false
}

// median returns the middle of d (the upper one of an even count); zero
// for none.
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}
