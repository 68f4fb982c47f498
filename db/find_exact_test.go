package db_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/stretchr/testify/require"
)

// TestFindShortTermExactCounts: a query of one distinct term of up to
// three bytes takes its documents' matching line counts from the term
// index and looks up only the lines it lists (index.Bound.Exact); every
// answer is the scan's, at every limit, for ASCII and Arabic letters,
// repeated terms, lines with the term many times, CRLF and no final LF.
func TestFindShortTermExactCounts(t *testing.T) {
	t.Parallel()
	a := openArchive(t, newPath(t))
	defer a.Close()
	r := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("e ee the then Zed ab ba ب بب باب كتب at a")
	srcs := map[db.Digest][]byte{}
	for i := range 70 { // two groups of the term index
		var b strings.Builder
		for l := range 50 + r.IntN(400) {
			for w := range r.IntN(12) {
				if w > 0 {
					b.WriteString([]string{" ", ", ", ". "}[r.IntN(3)])
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			if l%37 == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
		if i%3 == 0 {
			b.WriteString("the end without LF e")
		}
		res, err := a.Ingest([]byte(b.String()), uint64(1750000000+i), fmt.Sprintf("d%02d.txt", i))
		require.NoError(t, err)
		srcs[res.Doc.SHA256] = []byte(b.String())
	}
	// Large documents where the term is rare (its first lines are looked
	// up in the line index), or common only at the end (the source scan
	// gives up at its budget and the line index finds them).
	for i, tail := range []struct {
		every int
		last  int
	}{{every: 9000, last: 0}, {every: 1, last: 500}} {
		var b strings.Builder
		for l := 0; b.Len() < 900<<10; l++ {
			if tail.last == 0 && l%tail.every == 5 {
				b.WriteString("a line with q and ب in it\n")
				continue
			}
			b.WriteString("filler words here\n")
		}
		for range tail.last {
			b.WriteString("the q near the end, and ب\n")
		}
		res, err := a.Ingest([]byte(b.String()), uint64(1760000000+i), fmt.Sprintf("big%d.txt", i))
		require.NoError(t, err)
		srcs[res.Doc.SHA256] = []byte(b.String())
	}
	for _, terms := range []string{"e", "Z", "th", "the", "ب", "e e", "a", "ab", "بب", "zz", "t", "q"} {
		q, err := find.NewQuery(terms)
		require.NoError(t, err)
		for term := range q.Distinct() {
			require.LessOrEqual(t, len(term), 4, "the test asks short terms") // "بب" is 4 bytes: not exact, the usual path
		}
		all, err := a.Find(q, 0)
		require.NoError(t, err)
		want := 0
		for sha, src := range srcs {
			if q.Search(src, sha).TotalMatchingLines > 0 {
				want++
			}
		}
		require.Len(t, all, want, "%q: documents", terms)
		for _, h := range all {
			w := q.Search(srcs[h.Doc.SHA256], h.Doc.SHA256)
			require.Equal(t, w.TotalMatchingLines, h.Result.TotalMatchingLines, "%q in %s", terms, h.Doc.Label())
			require.Equal(t, w.Matches, h.Result.Matches, "%q in %s", terms, h.Doc.Label())
		}
		for _, limit := range []int{1, 5, 20} {
			hits, err := a.Find(q, limit)
			require.NoError(t, err)
			require.Equal(t, all[:min(limit, len(all))], hits, "%q, limit %d", terms, limit)
		}
	}
}
