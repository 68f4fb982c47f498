package index

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/stretchr/testify/require"
)

// randomToken is a token of arbitrary bytes, no separator: ASCII, Arabic
// and other multibyte characters, and bytes of broken encodings (lone
// continuation bytes, cut sequences, invalid leads, an encoded U+FFFD).
func randomToken(r *rand.Rand) []byte {
	pieces := [][]byte{
		[]byte("a"), []byte("b"), []byte("Z"), []byte("7"), []byte("\x00"),
		[]byte("ب"), []byte("ال"), []byte("ي"), []byte("é"), []byte("€"), []byte("😀"),
		{0x80}, {0xBF}, {0xD8}, {0xE2, 0x82}, {0xF0, 0x9F, 0x98}, {0xC0}, {0xFF}, {0xED, 0xA0, 0x80},
		[]byte("\uFFFD"),
	}
	var b []byte
	for range 1 + r.IntN(8) {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return b
}

// TestFilterNeverMisses: a block's filter passes every byte substring of
// every one of its tokens, however it cuts their characters.
func TestFilterNeverMisses(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var set gramSet
	rejected := 0
	for range 300 {
		set.reset()
		toks := make([][]byte, 1+r.IntN(40))
		for i := range toks {
			toks[i] = randomToken(r)
			set.addToken(toks[i])
		}
		f := set.filter(nil, filterBitsPerGram, filterProbes)
		for _, tok := range toks {
			for i := range tok {
				for j := i + 1; j <= len(tok); j++ {
					grams := termUnitGrams(tok[i:j], nil)
					require.True(t, filterMay(f, filterProbes, grams), "token %q, term %q", tok, tok[i:j])
				}
			}
		}
		// The filter is not all ones: absent terms are turned away.
		if !filterMay(f, filterProbes, termUnitGrams([]byte("qج\u0700"), nil)) {
			rejected++
		}
	}
	require.Greater(t, rejected, 300*3/4)
}

func TestTermUnitGrams(t *testing.T) {
	for _, c := range []struct {
		term  string
		grams int
	}{
		{"", 0},
		{"a", 1},                            // unigram
		{"ab", 2},                           // two unigrams
		{"abc", 1},                          // one trigram
		{"abcdef", 4},                       // trigrams
		{"بال", 1},                          // three characters, six bytes
		{"\xa8\xd8\xa7", 1},                 // the cut first character is skipped
		{"\xa8", 0},                         // half a character: no gram
		{"\xd8", 0},                         // the other half
		{"\xa8\xd8", 0},                     // two halves
		{"ب\xd8", 1},                        // the cut last character is undecided
		{"\xd8A", 2},                        // an invalid byte then A: both decided
		{"\xe2\x82\xacab", 1},               // €ab: one trigram
		{"\xf0\x9f\x98", 0},                 // a cut four-byte character
		{"\xed\xa0\x80x", 2},                // a surrogate: three invalid bytes, then x
		{"\xff\xfe", 2},                     // invalid bytes are units
		{"\x80\x80\x80abc", 1},              // continuation bytes skipped
		{"\xef\xbf\xbd\xef\xbf\xbdz", 1},    // U+FFFD is a character
		{"\xef\xbf\xbd\xef\xbf\xbd", 2},     // two of them
		{"\xc3\xa9\xc3", 1},                 // é then half of é
		{"abc\xd9", 1},                      // abc then half a character
		{"\xd9\x8a\xd9\x8a\xd9\x8a\xd9", 1}, // three ي then half of one
	} {
		got := termUnitGrams([]byte(c.term), nil)
		require.Len(t, got, c.grams, "%q", c.term)
	}
}

// naiveScore is the scan over arbitrary bytes: the lines of src, each
// scored by the weights of the terms it contains.
func naiveScore(src []byte, terms []scoreTerm, max int) (int, []LineScore) {
	var hits []LineScore
	lines := bytes.Split(src, []byte{'\n'})
	if len(src) == 0 || src[len(src)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		score := 0
		for _, t := range terms {
			if bytes.Contains(line, t.term) {
				score += int(t.weight)
			}
		}
		if score > 0 {
			hits = append(hits, LineScore{Line: i + 1, Score: score})
		}
	}
	total := len(hits)
	var top []LineScore
	for _, h := range hits {
		i := len(top)
		for i > 0 && h.before(top[i-1]) {
			i--
		}
		if i < max {
			top = append(top[:i], append([]LineScore{h}, top[i:]...)...)
			top = top[:min(len(top), max)]
		}
	}
	return total, top
}

// TestScoreArbitraryBytes: over sources and terms of arbitrary bytes
// (broken encodings, terms cutting characters anywhere, 1 to 3 byte
// terms), in blocks of every size, the line index scores what the scan
// does.
func TestScoreArbitraryBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	seps := []byte(" \t.,;:?!\r")
	var s LineScorer
	for doc := range 200 {
		var src []byte
		var toks [][]byte
		for range r.IntN(300) {
			switch r.IntN(8) {
			case 0:
				src = append(src, '\n')
			case 1:
				src = append(src, seps[r.IntN(len(seps))])
			default:
				tok := randomToken(r)
				if len(toks) > 0 && r.IntN(3) == 0 {
					tok = toks[r.IntN(len(toks))] // repeated tokens
				}
				toks = append(toks, tok)
				src = append(src, tok...)
				src = append(src, seps[r.IntN(len(seps))])
			}
		}
		rec := buildLines(src, 1+r.IntN(200), 1+r.IntN(300))
		l, err := ParseLines(rec, nil)
		require.NoError(t, err)
		for range 30 {
			var terms []scoreTerm
		next:
			for range 1 + r.IntN(4) {
				var term []byte
				switch {
				case len(toks) > 0 && r.IntN(4) != 0: // a piece of a token, 1 to 3 bytes half the time
					tok := toks[r.IntN(len(toks))]
					i := r.IntN(len(tok))
					n := 1 + r.IntN(len(tok)-i)
					if r.IntN(2) == 0 {
						n = min(n, 1+r.IntN(3))
					}
					term = tok[i : i+n]
				default:
					term = randomToken(r)
				}
				for _, have := range terms {
					if bytes.Equal(have.term, term) {
						continue next
					}
				}
				terms = append(terms, scoreTerm{term: term, weight: uint8(1 + r.IntN(3))})
			}
			wantTotal, wantTop := naiveScore(src, terms, find.MaxMatches)
			total, top, err := s.scoreTerms(l, terms, find.MaxMatches)
			require.NoError(t, err)
			require.Equal(t, wantTotal, total, "doc %d terms %q", doc, terms)
			require.Equal(t, wantTop, top, "doc %d terms %q", doc, terms)
		}
		// Many one-byte terms (matched in one pass over a block's
		// tokens), alone or beside longer ones.
		for range 10 {
			if len(toks) == 0 {
				break
			}
			var terms []scoreTerm
			seen := map[byte]bool{}
			for range 2 + r.IntN(15) {
				tok := toks[r.IntN(len(toks))]
				if c := tok[r.IntN(len(tok))]; !seen[c] {
					seen[c] = true
					terms = append(terms, scoreTerm{term: []byte{c}, weight: uint8(1 + r.IntN(3))})
				}
			}
			if tok := toks[r.IntN(len(toks))]; r.IntN(2) == 0 && len(tok) > 1 {
				terms = append(terms, scoreTerm{term: tok, weight: 1})
			}
			wantTotal, wantTop := naiveScore(src, terms, find.MaxMatches)
			total, top, err := s.scoreTerms(l, terms, find.MaxMatches)
			require.NoError(t, err)
			require.Equal(t, wantTotal, total, "doc %d terms %q", doc, terms)
			require.Equal(t, wantTop, top, "doc %d terms %q", doc, terms)
		}
	}
}

// TestNextUnit: units are what utf8.DecodeRune reads, invalid bytes
// apart from U+FFFD.
func TestNextUnit(t *testing.T) {
	for _, c := range []struct {
		in   string
		unit uint32
		size int
	}{
		{"a", 'a', 1},
		{"ب", 'ب', 2},
		{"\uFFFD", utf8.RuneError, 3},
		{"\xff", unitInvalid + 0xff, 1},
		{"\xd8", unitInvalid + 0xd8, 1},
		{"\xd8A", unitInvalid + 0xd8, 1},
		{"😀", '😀', 4},
	} {
		u, n := nextUnit([]byte(c.in))
		require.Equal(t, c.unit, u, "%q", c.in)
		require.Equal(t, c.size, n, "%q", c.in)
	}
}
