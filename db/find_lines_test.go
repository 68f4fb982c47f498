package db_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// listingSource is a random document of several chunks: lines of words
// from a small vocabulary (so that multi-term queries score lines 1 to 3
// and a result lists its lines out of line order), empty lines, CRLFs,
// lone CRs, Arabic, and lines longer than a chunk; it may end without LF.
func listingSource(rng *rand.Rand, size int) []byte {
	words := []string{"alpha", "beta", "gamma", "أحمد", "خالد", "x", "ab", "delta", "alphabet"}
	ends := []string{"\n", "\n", "\n", "\r\n", "\r\r\n", "\n\n"}
	var b bytes.Buffer
	for b.Len() < size {
		n := rng.IntN(12)
		if rng.IntN(400) == 0 {
			n = 15_000 + rng.IntN(20_000) // a line longer than a chunk
		}
		for i := range n {
			if i > 0 {
				b.WriteString([]string{" ", "\t", ",", "  "}[rng.IntN(4)])
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		b.WriteString(ends[rng.IntN(len(ends))])
	}
	if rng.IntN(2) == 0 {
		b.WriteString("alpha at the end, no LF")
	}
	return b.Bytes()
}

// The lines find lists, read forward from the line index's checkpoints
// and from the previous listed line, are exactly those of the scan of the
// whole source, for one and several terms (results whose lines are not in
// line order), lines crossing chunk boundaries and CRs at their ends.
func TestFindListsLinesLikeTheScan(t *testing.T) {
	t.Parallel()
	a := openArchive(t, newPath(t))
	rng := rand.New(rand.NewPCG(42, 13))
	queries := []string{"alpha", "beta gamma", "alpha beta gamma", "x", "ab", "أحمد خالد", "alphabet delta x", "end", "a", "gamma x alpha"}
	var srcs [][]byte // by sequence number - 1
	for i := range 6 {
		src := listingSource(rng, (1+i)*db.ChunkSize+rng.IntN(db.ChunkSize))
		_, err := a.Ingest(src, 1, fmt.Sprintf("doc%d.txt", i))
		require.NoError(t, err)
		srcs = append(srcs, src)
	}
	for _, terms := range queries {
		q := mustQuery(t, terms)
		for _, limit := range []int{0, 2} {
			hits, err := a.Find(q, limit)
			require.NoError(t, err)
			matching := 0
			for _, src := range srcs {
				if q.Search(src, db.Digest{}).TotalMatchingLines > 0 {
					matching++
				}
			}
			if limit > 0 {
				matching = min(matching, limit)
			}
			require.Len(t, hits, matching, "%q", terms)
			for _, h := range hits {
				want := q.Search(srcs[h.Doc.Seq-1], h.Doc.SHA256)
				require.Equal(t, string(want.JSON()), string(h.Result.JSON()), "doc %d, %q", h.Doc.Seq, terms)
			}
		}
	}
}

// A damaged chunk holding a listed line fails find with the document's
// name, whichever listed line reads it first; damage in a chunk no listed
// line is in leaves the answer as it was (check reports it).
func TestFindRefusesDamagedListedChunk(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	a := openArchive(t, path)
	var b bytes.Buffer
	for c := range 4 {
		for b.Len() < (c+1)*db.ChunkSize-100 {
			b.WriteString("filler words here\n")
		}
		if c != 2 { // chunk 2 holds no line with the term
			fmt.Fprintf(&b, "needle in chunk %d\n", c)
		}
	}
	src := b.Bytes()
	res, err := a.Ingest(src, 1, "four.txt")
	require.NoError(t, err)
	q := mustQuery(t, "needle")
	want, err := a.Find(q, 0)
	require.NoError(t, err)
	require.Len(t, want, 1)
	require.Equal(t, 3, want[0].Result.TotalMatchingLines)
	require.NoError(t, a.Close())

	for _, tc := range []struct {
		chunk int
		fails bool
	}{{0, true}, {1, true}, {2, false}, {3, true}} {
		t.Run(fmt.Sprint("chunk ", tc.chunk), func(t *testing.T) {
			p := newPath(t)
			copyFile(t, path, p)
			editBolt(t, p, func(tx *bolt.Tx) error {
				bk := tx.Bucket([]byte("chunks"))
				raw := unchunk(t, bk.Get(chunkKey(res.Doc.SHA256, tc.chunk)))
				raw[len(raw)/2] ^= 0x01 // same length, other bytes
				return bk.Put(chunkKey(res.Doc.SHA256, tc.chunk), chunkFrame(t, raw))
			})
			a := openArchive(t, p, db.Options{ReadOnly: true})
			hits, err := a.Find(q, 0)
			if !tc.fails {
				require.NoError(t, err)
				require.Equal(t, string(want[0].Result.JSON()), string(hits[0].Result.JSON()))
				return
			}
			require.ErrorIs(t, err, db.ErrCorrupt)
			require.ErrorContains(t, err, "four.txt")
			require.ErrorContains(t, err, fmt.Sprintf("chunk %d does not hash to its digest", tc.chunk))
			require.Nil(t, hits)
		})
	}
}
