package db_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/index"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// The limited cross-archive find stops early on the term index's bounds
// (index.Bounds); these tests check that its answer is byte for byte the
// exhaustive ranking's first limit entries, that it does stop early, that
// the bounds are sound, and that check reports a damaged count.

// findLines renders hits as `chronicle find --json` prints them.
func findLines(t testing.TB, hits []db.FindHit) string {
	var b strings.Builder
	for _, h := range hits {
		names, err := json.Marshal(h.Doc.Names)
		require.NoError(t, err)
		fmt.Fprintf(&b, "{\"document_sha256\":\"%s\",\"names\":%s,\"result\":%s}\n", h.Doc.SHA256, names, h.Result.JSON())
	}
	return b.String()
}

// scanRanking is the reference ranking: every document scanned, those with
// a matching line ordered by best matched_terms, total matching lines, then
// import order.
func (c *ixCorpus) scanRanking(t testing.TB, docs []*db.Document, terms string) []db.FindHit {
	var hits []db.FindHit
	for _, d := range docs {
		r, err := find.SearchSource(c.src[d.SHA256], d.SHA256, terms)
		require.NoError(t, err)
		if r.TotalMatchingLines > 0 {
			hits = append(hits, db.FindHit{Doc: d, Result: r})
		}
	}
	sort.SliceStable(hits, func(x, y int) bool {
		bx, by := hits[x].Result.Matches[0].MatchedTerms, hits[y].Result.Matches[0].MatchedTerms
		if bx != by {
			return bx > by
		}
		return hits[x].Result.TotalMatchingLines > hits[y].Result.TotalMatchingLines
	})
	return hits
}

// TestLimitedFindEqualsExhaustive: for random corpora, term sets and
// limits, Find with a limit equals the scan ranking cut at the limit, byte
// for byte, and so does the exhaustive Find.
func TestLimitedFindEqualsExhaustive(t *testing.T) {
	t.Parallel()
	for _, cfg := range []struct {
		seed  uint64
		ndocs int
		sets  int
	}{{21, 150, 120}, {22, 200, 80}} {
		t.Run(fmt.Sprint("seed", cfg.seed), func(t *testing.T) {
			t.Parallel()
			c := ixBuild(t, cfg.seed, cfg.ndocs)
			docs := c.docs(t)
			srcs := c.sources(docs)
			r := rand.New(rand.NewPCG(cfg.seed, 13))
			pruned, searched, total := 0, 0, 0
			for range cfg.sets {
				terms := ixTerms(r, srcs)
				q, err := find.NewQuery(terms)
				if err != nil {
					continue
				}
				scan := c.scanRanking(t, docs, terms)
				all, st, err := c.a.FindWithStats(q, 0)
				require.NoError(t, err)
				require.Equal(t, st.Candidates, st.Searched, "no limit: every candidate is searched")
				require.Equal(t, findLines(t, scan), findLines(t, all), "terms %q", terms)
				for _, limit := range []int{1, 2, 3, 5, 20, len(scan), len(scan) + 1, 1000} {
					if limit <= 0 {
						continue
					}
					hits, st, err := c.a.FindWithStats(q, limit)
					require.NoError(t, err)
					want := scan[:min(limit, len(scan))]
					require.Equal(t, findLines(t, want), findLines(t, hits), "terms %q limit %d", terms, limit)
					require.LessOrEqual(t, st.Searched, st.Candidates)
					total += st.Candidates
					searched += st.Searched
					if st.Searched < st.Candidates {
						pruned++
					}
				}
			}
			t.Logf("%d limited finds stopped early; %d of %d candidates searched", pruned, searched, total)
			require.Positive(t, pruned)
		})
	}
}

// TestLimitedFindPrunes: for a term in every document, limit 1 searches
// the document with the most matching lines and stops there (one more per
// other worker that started meanwhile).
func TestLimitedFindPrunes(t *testing.T) {
	t.Parallel()
	a, err := db.Open(filepath.Join(t.TempDir(), "a.db"), db.Options{})
	require.NoError(t, err)
	defer a.Close()
	const n = 40
	for i := range n {
		// Document i holds "ledger" on 1 + (i*7)%n lines.
		var b bytes.Buffer
		for k := range n + 1 {
			if k < 1+(i*7)%n {
				fmt.Fprintf(&b, "line %d of the ledger %d\n", k, i)
			} else {
				fmt.Fprintf(&b, "line %d of the book %d\n", k, i)
			}
		}
		_, err := a.Ingest(b.Bytes(), 1750000000, fmt.Sprintf("doc-%02d.txt", i))
		require.NoError(t, err)
	}
	q, err := find.NewQuery("ledger")
	require.NoError(t, err)
	all, st, err := a.FindWithStats(q, 0)
	require.NoError(t, err)
	require.Len(t, all, n)
	require.Equal(t, n, st.Searched)
	for _, limit := range []int{1, 3, 10} {
		hits, st, err := a.FindWithStats(q, limit)
		require.NoError(t, err)
		require.Equal(t, findLines(t, all[:limit]), findLines(t, hits))
		require.Equal(t, n, st.Candidates)
		require.LessOrEqual(t, st.Searched, limit+runtime.GOMAXPROCS(0), "limit %d", limit)
	}
	require.Equal(t, n, all[0].Result.TotalMatchingLines)

	// Ties: "line" is on every line of every document (n+1 lines each), so
	// every key ties and import order decides.
	q, err = find.NewQuery("line")
	require.NoError(t, err)
	hits, st, err := a.FindWithStats(q, 2)
	require.NoError(t, err)
	require.Len(t, hits, 2)
	require.Equal(t, []uint64{1, 2}, []uint64{hits[0].Doc.Seq, hits[1].Doc.Seq})
	require.LessOrEqual(t, st.Searched, 2+runtime.GOMAXPROCS(0))
}

// TestBoundsSound: for every document and random term sets, the bounds
// are at least the exact best matched_terms and total_matching_lines, and
// every matching document has a bound.
func TestBoundsSound(t *testing.T) {
	t.Parallel()
	c := ixBuild(t, 23, 140)
	docs := c.docs(t)
	srcs := c.sources(docs)
	r := rand.New(rand.NewPCG(23, 14))
	exact := 0
	for range 300 {
		terms := ixTerms(r, srcs)
		q, err := find.NewQuery(terms)
		if err != nil {
			continue
		}
		bounds, err := c.a.BoundsForTest(q.Terms())
		require.NoError(t, err)
		bySeq := map[uint64]index.Bound{}
		for _, b := range bounds {
			bySeq[b.Seq] = b
		}
		for i, d := range docs {
			res, err := find.SearchSource(srcs[i], d.SHA256, terms)
			require.NoError(t, err)
			if res.TotalMatchingLines == 0 {
				continue
			}
			b, ok := bySeq[d.Seq]
			require.True(t, ok, "terms %q: document #%d matches but has no bound", terms, d.Seq)
			require.GreaterOrEqual(t, b.Terms, res.Matches[0].MatchedTerms, "terms %q document #%d", terms, d.Seq)
			require.GreaterOrEqual(t, b.Lines, uint64(res.TotalMatchingLines), "terms %q document #%d", terms, d.Seq)
			if b.Terms == res.Matches[0].MatchedTerms && b.Lines == uint64(res.TotalMatchingLines) {
				exact++
			}
		}
	}
	t.Logf("%d matching (document, term set) pairs with exact bounds", exact)
}

// TestCheckReportsLoweredCount: a line count lowered by hand is reported
// by check for its document only, and reindex repairs it.
func TestCheckReportsLoweredCount(t *testing.T) {
	t.Parallel()
	c := ixBuild(t, 24, 80)
	require.Empty(t, c.problems(t))
	docs := c.docs(t)
	victim := docs[len(docs)/2]
	lowered := 0
	c.edit(t, func(tx *bolt.Tx) error {
		type posting struct {
			k []byte
			p index.Posting
		}
		var edits []posting
		bit := uint64(1) << (victim.Seq % index.GroupSize)
		if err := index.EachPosting(tx, func(k []byte, p index.Posting) error {
			if uint64(binary.BigEndian.Uint32(k)) != victim.Seq/index.GroupSize || k[4] == 0 || len(edits) == 3 {
				return nil
			}
			i := bits.OnesCount64(p.Bitmap & (bit - 1))
			if p.Bitmap&bit == 0 || p.Counts[i] < 2 {
				return nil
			}
			p.Counts[i]--
			edits = append(edits, posting{k, p})
			return nil
		}); err != nil {
			return err
		}
		for _, e := range edits {
			if err := index.SetPosting(tx, e.k, e.p.Bitmap, e.p.Counts); err != nil {
				return err
			}
			lowered++
		}
		if lowered == 3 {
			return nil
		}
		return fmt.Errorf("document #%d has fewer than 3 grams on several lines", victim.Seq)
	})
	probs := c.problems(t)
	require.Len(t, probs, 1, "%v", probs)
	require.Equal(t, victim.Label(), probs[0].Doc)
	require.Contains(t, probs[0].Detail, "wrong line counts for 3 grams")
	_, err := c.a.Reindex(context.Background())
	require.NoError(t, err)
	require.Empty(t, c.problems(t))
}
