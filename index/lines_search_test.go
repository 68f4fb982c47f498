package index

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireFinderAgrees checks that f finds term at every offset of d where
// bytes.Index does, searching from every start.
func requireFinderAgrees(t testing.TB, d, term []byte) {
	t.Helper()
	f := newTermFinder(term)
	for from := 0; from <= len(d); from++ {
		require.Equal(t, bytes.Index(d[from:], term), f.index(d[from:]), "term %q from %d of %q", term, from, d)
	}
}

// The anchored search finds exactly what bytes.Index finds: Arabic terms
// (anchored) and ASCII ones (bytes.Index), in blocks of real-like sorted
// tokens where the anchor byte is rare, frequent (every token holds it:
// the fallback) or absent, with matches at the very start and end.
func TestTermFinderEqualsIndex(t *testing.T) {
	sorted := func(toks ...string) []byte { return []byte(strings.Join(toks, "\n") + "\n") }
	for _, tc := range []struct {
		name  string
		block []byte
		terms []string
	}{
		{"arabic words", sorted("آجل", "الاضاليل", "تحنين", "صبابة", "فالخضب", "مستودع", "وبالمماحي"),
			[]string{"آجل", "تحنين", "ضب", "مستودع", "وبالمماحي", "ع", "لا", "بة\n", "خضبx"}},
		{"anchor in every token", sorted(strings.Repeat("ضض", 40), "ضضضب", "ضبض", strings.Repeat("ض", 300)+"ب"),
			[]string{"ضب", "ضضب", "بض", "ضضضضضضضضب", "ضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضضب"}},
		{"anchor absent", sorted("ابجد", "هوز", "حطي"), []string{"ظظ", "غين", "ابجد"}},
		{"match at the ends", []byte("ظابجدظ"), []string{"ظا", "دظ", "ظابجدظ", "ظابجدظظ"}},
		{"ascii", sorted("AAMOANDW", "LocalSystem", "function", "that"), []string{"that", "Local", "tion", "ANDW", "xyz"}},
		{"mixed", sorted("aأb", "أأ", "ab"), []string{"أb", "aأ", "أأ"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, term := range tc.terms {
				requireFinderAgrees(t, tc.block, []byte(term))
			}
		})
	}
}

// Random blocks over a small alphabet of Arabic letters and ASCII (so
// that false anchor hits are frequent), random terms cut from them and
// random ones.
func TestTermFinderRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	alphabet := []string{"ا", "ل", "ض", "ب", "ظ", "a", "b", "\n", "ـ"}
	for range 300 {
		var b strings.Builder
		for range rng.IntN(400) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		d := []byte(b.String())
		for range 5 {
			var term []byte
			if len(d) > 0 && rng.IntN(3) > 0 {
				i := rng.IntN(len(d))
				term = d[i:min(len(d), i+1+rng.IntN(12))]
			} else {
				var tb strings.Builder
				for range 1 + rng.IntN(5) {
					tb.WriteString(alphabet[rng.IntN(len(alphabet)-2)])
				}
				term = []byte(tb.String())
			}
			requireFinderAgrees(t, d, bytes.Clone(term))
		}
	}
}

// FuzzTermFinder: the anchored search agrees with bytes.Index on any
// bytes.
func FuzzTermFinder(f *testing.F) {
	f.Add([]byte("آجل\nتحنين\nفالخضب\n"), []byte("خضب"))
	f.Add([]byte("ضضضضضضضضضضضضب"), []byte("ضب"))
	f.Add([]byte("\xd8\xd8\xd9"), []byte("\xd9\xd8"))
	f.Fuzz(func(t *testing.T, d, term []byte) {
		if len(term) == 0 || len(d) > 4096 {
			return
		}
		requireFinderAgrees(t, d, term)
	})
}
