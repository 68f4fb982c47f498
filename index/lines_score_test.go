package index

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/stretchr/testify/require"
)

// The scorer keeps a line's set of terms in its score byte (up to 8
// distinct terms), in 2 bytes (up to 16) or in 8 (more), and stops its
// list of touched lines at a sixteenth of the lines: for every number of
// terms from 1 to 64, weights of 1 (sets counted as bits) and above, and
// documents where the terms touch few or most lines, one scorer reused
// across all of them agrees with the scan of the lines.
func TestScoreAnyNumberOfTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	letters := []byte("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
	var s LineScorer
	for doc := range 120 {
		// Dense documents use few letters (every term on most lines),
		// sparse ones many and long words.
		alphabet := letters[:2+r.IntN(len(letters)-2)]
		var src []byte
		for range 1 + r.IntN(400) {
			for w := range r.IntN(6) {
				if w > 0 {
					src = append(src, ' ')
				}
				for range 1 + r.IntN(4) {
					src = append(src, alphabet[r.IntN(len(alphabet))])
				}
			}
			src = append(src, '\n')
		}
		rec := buildLines(src, 1+r.IntN(200), 1+r.IntN(300))
		l, err := ParseLines(rec, nil)
		require.NoError(t, err)
		for _, n := range []int{1, 2, 8, 9, 16, 17, 40, 64} {
			var terms []scoreTerm
			seen := map[string]bool{}
			unit := r.IntN(2) == 0
			for len(terms) < n {
				term := []byte{letters[r.IntN(len(letters))]}
				if r.IntN(3) == 0 {
					term = append(term, letters[r.IntN(len(letters))])
				}
				if seen[string(term)] {
					continue
				}
				seen[string(term)] = true
				w := uint8(1)
				if !unit {
					w = uint8(1 + r.IntN(3))
				}
				terms = append(terms, scoreTerm{term: bytes.Clone(term), weight: w})
			}
			wantTotal, wantTop := naiveScore(src, terms, find.MaxMatches)
			total, top, err := s.scoreTerms(l, terms, find.MaxMatches)
			require.NoError(t, err)
			require.Equal(t, wantTotal, total, "doc %d, %d terms", doc, n)
			require.Equal(t, wantTop, top, "doc %d, %d terms", doc, n)
		}
	}
}
