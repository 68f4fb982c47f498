package benchtool

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"unicode"

	"github.com/casper-chronicle/chronicle/engine/find"
)

// DocFreq counts, for each word, the documents holding it (document
// frequency), and the same for the ASCII letters. Words are find's tokens
// (runs between its separators) made only of ASCII letters, 3 to 24 bytes:
// the terms picked from it must mean the same bytes to chronicle, rg and
// FTS5, and need no quoting in any of them.
type DocFreq struct {
	Docs    int            // documents counted
	Words   map[string]int // word → documents holding it
	Letters [128]int       // ASCII letter → documents holding it
}

func NewDocFreq() *DocFreq { return &DocFreq{Words: map[string]int{}} }

// Add counts one document.
func (f *DocFreq) Add(text []byte) {
	f.Docs++
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
		f.Words[w]++
	}
	for c, ok := range letters {
		if ok {
			f.Letters[c]++
		}
	}
}

func asciiLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Query is one benchmark query: its terms are joined with spaces for
// chronicle (which splits them again) and ORed for rg and FTS5, as find
// counts a line that holds any of them.
type Query struct {
	Class string
	Terms []string
	DF    int // documents holding the term as a word (the first term for one)
}

func (q Query) Text() string { return strings.Join(q.Terms, " ") }

// AbsentTerm is a word no corpus here holds; the run checks that every
// tool counts zero for it.
const AbsentTerm = "xqzjvwkqpz"

// PickTerms picks the query set from document frequencies: an absent
// term, a rare word (in 2 or 3 documents), a medium one (in about 1% of
// the documents), the most common word, three words at about 0.5%, 2% and
// 5%, and the 16 letters held by the most documents. Words are lowercase
// and at least 6 letters for rare and medium ones, so that few longer
// words hold them as a substring (find and the others match substrings;
// the frequency here counts whole words). Ties go to the byte order, so a
// corpus always gives the same picks.
func PickTerms(f *DocFreq) []Query {
	type wc struct {
		w string
		n int
	}
	var long, lower []wc
	for w, n := range f.Words {
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
	used := map[string]bool{AbsentTerm: true}
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
	qs := []Query{{Class: "absent", Terms: []string{AbsentTerm}}}
	add := func(class string, ws ...wc) {
		q := Query{Class: class}
		for _, w := range ws {
			if w.w == "" {
				return
			}
			q.Terms = append(q.Terms, w.w)
		}
		q.DF = ws[0].n
		qs = append(qs, q)
	}
	pct := func(p float64) int { return max(1, int(p*float64(f.Docs)+0.5)) }
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
	for c, n := range f.Letters {
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

// TopEntities are the n names with the most events in `chronicle entities
// --json` (ties by name), names that hold a letter first (the grammars
// also take marks such as "*" as names, which make a poor example).
func TopEntities(out []byte, n int) []string {
	type entity struct {
		Events int    `json:"events"`
		Name   string `json:"name"`
		letter bool
	}
	var all []entity
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var e entity
		if dec.Decode(&e) != nil {
			break
		}
		e.letter = strings.IndexFunc(e.Name, unicode.IsLetter) >= 0
		all = append(all, e)
	}
	slices.SortFunc(all, func(a, b entity) int {
		if a.letter != b.letter {
			if a.letter {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.Events, a.Events); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	var names []string
	for _, e := range all[:min(n, len(all))] {
		names = append(names, e.Name)
	}
	return names
}
