package main

import (
	"cmp"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/engine/find"
)

// wordFreq counts find's tokens in text.
type wordFreq map[string]int

func (f wordFreq) add(text []byte) {
	for i := 0; i < len(text); {
		if find.IsSeparator(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && !find.IsSeparator(text[j]) {
			j++
		}
		if j-i <= 64 {
			f[string(text[i:j])]++
		}
		i = j
	}
}

type wordCount struct {
	w string
	n int
}

// wordy keeps tokens made only of letters, at least minRunes long, of one
// script (Arabic or not).
func wordy(w string, minRunes int, arabic bool) bool {
	if utf8.RuneCountInString(w) < minRunes {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) || unicode.Is(unicode.Arabic, r) != arabic {
			return false
		}
	}
	return true
}

// ranked returns the tokens passing keep, most frequent first (ties by
// bytes, so the pick is deterministic).
func (f wordFreq) ranked(keep func(string) bool) []wordCount {
	var out []wordCount
	for w, n := range f {
		if keep(w) {
			out = append(out, wordCount{w, n})
		}
	}
	slices.SortFunc(out, func(a, b wordCount) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return strings.Compare(a.w, b.w)
	})
	return out
}

// query is one benchmark query.
type query struct {
	class string
	terms []string
}

func (q query) text() string { return strings.Join(q.terms, " ") }

// pickQueries builds the query set from the word frequencies of a corpus:
// absent (fixed), rare (seen once or twice), medium (around the 1/10,000
// token frequency), common (the top words), 1- and 2-byte terms, Arabic
// terms, and multi-term mixes of 2, 4, 8 and 16 terms.
func pickQueries(f wordFreq, tokens int) []query {
	var qs []query
	add := func(class string, terms ...string) {
		for _, t := range terms {
			if t == "" {
				return
			}
		}
		qs = append(qs, query{class, terms})
	}
	latin := f.ranked(func(w string) bool { return wordy(w, 4, false) })
	arabic := f.ranked(func(w string) bool { return wordy(w, 3, true) })
	at := func(ws []wordCount, i int) string {
		if len(ws) == 0 {
			return ""
		}
		return ws[min(max(i, 0), len(ws)-1)].w
	}
	// byCount is the first word seen at most n times.
	byCount := func(ws []wordCount, n, skip int) string {
		i, _ := slices.BinarySearchFunc(ws, n, func(a wordCount, n int) int { return cmp.Compare(n, a.n) })
		return at(ws, i+skip)
	}
	mainW := latin
	if len(arabic) > len(latin) {
		mainW = arabic
	}
	mediumN := max(tokens/10000, 3)

	add("absent", "xqzjvwkq")
	add("absent", "ظظضضغغ")
	add("absent", "Zyxwvutq", "qqjjxxzz")
	add("rare", byCount(mainW, 1, len(mainW)/20))
	add("rare", byCount(mainW, 2, 7))
	add("rare", byCount(latin, 1, 3))
	add("medium", byCount(mainW, mediumN, 0))
	add("medium", byCount(mainW, mediumN, 11))
	add("common", at(mainW, 0))
	add("common", at(mainW, 3))
	add("common", at(mainW, 10))
	// 1- and 2-byte terms: the most and least frequent letters of the
	// corpus among tokens (ASCII), and 2-byte: an ASCII pair and an Arabic
	// letter.
	letters := letterRank(f)
	add("1-byte", at(letters, 0))
	add("1-byte", at(letters, len(letters)-1))
	add("2-byte", "th")
	add("2-byte", "ب")
	add("arabic", at(arabic, 0))
	add("arabic", byCount(arabic, mediumN, 0))
	add("arabic", byCount(arabic, 1, 5))
	add("arabic", "مستودع")
	add("multi-2", at(mainW, 1), byCount(mainW, 1, 2))
	add("multi-2", byCount(mainW, mediumN, 3), byCount(mainW, mediumN, 4))
	four := []string{at(mainW, 2), byCount(mainW, mediumN, 5), byCount(mainW, 2, 3), at(arabic, 1)}
	add("multi-4", four...)
	var eight, sixteen, ones []string
	for i := range 8 {
		eight = append(eight, at(mainW, i*7+5))
	}
	add("multi-8", eight...)
	for i := range 16 {
		switch i % 4 {
		case 0:
			sixteen = append(sixteen, at(mainW, i*3))
		case 1:
			sixteen = append(sixteen, byCount(mainW, mediumN, i))
		case 2:
			sixteen = append(sixteen, byCount(mainW, 1, i))
		default:
			sixteen = append(sixteen, at(arabic, i))
		}
	}
	add("multi-16", sixteen...)
	for _, l := range letters[:min(16, len(letters))] {
		ones = append(ones, l.w)
	}
	if len(ones) == 16 {
		add("multi-16", ones...)
	}
	// Drop duplicate terms inside a query (find counts them once anyway).
	for i, q := range qs {
		var u []string
		for _, t := range q.terms {
			if !slices.Contains(u, t) {
				u = append(u, t)
			}
		}
		qs[i].terms = u
	}
	return qs
}

// letterRank ranks the ASCII letters by how many tokens hold them.
func letterRank(f wordFreq) []wordCount {
	var n [128]int
	for w, c := range f {
		for i := 0; i < len(w); i++ {
			if b := w[i]; b < 128 && unicode.IsLetter(rune(b)) {
				n[b] += c
			}
		}
	}
	var out []wordCount
	for b, c := range n {
		if c > 0 {
			out = append(out, wordCount{string(rune(b)), c})
		}
	}
	slices.SortFunc(out, func(a, b wordCount) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return strings.Compare(a.w, b.w)
	})
	return out
}

// corpusFreq counts the tokens of the files.
func corpusFreq(files []string) (wordFreq, int) {
	f := wordFreq{}
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.add(b)
		}
	}
	tokens := 0
	for _, n := range f {
		tokens += n
	}
	return f, tokens
}
