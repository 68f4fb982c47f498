package db_test

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// TestMixedChunkSizes: documents written in 64 KiB chunks (before
// ChunkSize became 16 KiB) and in 16 KiB chunks live in one archive; find
// lists their lines exactly as the scan sees them, check finds nothing
// wrong, and each keeps its own chunk size.
func TestMixedChunkSizes(t *testing.T) {
	t.Parallel()
	a := openArchive(t, newPath(t))
	defer a.Close()
	var srcs [][]byte
	var docs []*db.Document
	for i, size := range []int{64 << 10, 0, 64 << 10, 0} {
		a.SetChunkSizeForTest(size)
		var b strings.Builder
		for l := 0; b.Len() < 300<<10; l++ {
			fmt.Fprintf(&b, "line %d of document %d: Alice paid Bob %d coins\n", l, i, l%97)
			if l%1000 == 999 {
				b.WriteString(strings.Repeat("a long line without the word ", 3000) + "needle\n")
			}
		}
		src := []byte(b.String())
		res, err := a.Ingest(src, uint64(1750000000+i), fmt.Sprintf("doc%d.txt", i))
		require.NoError(t, err)
		srcs = append(srcs, src)
		docs = append(docs, res.Doc)
	}
	for i, d := range docs {
		want := []int{64 << 10, db.ChunkSize, 64 << 10, db.ChunkSize}[i]
		require.Equal(t, want, d.ChunkSize, "document %d", i)
	}
	for _, terms := range []string{"needle", "Alice coins", "96", "document 3", "zzz"} {
		q := mustQuery(t, terms)
		hits, err := a.Find(q, 0)
		require.NoError(t, err)
		got := map[db.Digest]string{}
		for _, h := range hits {
			got[h.Doc.SHA256] = fmt.Sprint(h.Result.Matches, h.Result.TotalMatchingLines)
		}
		for i, d := range docs {
			want := q.Search(srcs[i], d.SHA256)
			if want.TotalMatchingLines == 0 {
				require.NotContains(t, got, d.SHA256, "%q in document %d", terms, i)
				continue
			}
			require.Equal(t, fmt.Sprint(want.Matches, want.TotalMatchingLines), got[d.SHA256], "%q in document %d", terms, i)
		}
	}
	require.Empty(t, problemsOf(t, a))
}

// TestPrepareUnlessKnown: a source the archive holds is ingested without being
// prepared (only its name and receipt are added), and one it turns out not
// to hold is prepared by IngestPrepared itself, so the shortcut can never
// lose a document.
func TestPrepareUnlessKnown(t *testing.T) {
	t.Parallel()
	a := openArchive(t, newPath(t))
	defer a.Close()
	src := []byte("@event\tPAYMENT\tAhmed\tKhalid\t100\tSAR\n")
	first, err := a.IngestPrepared(a.Prepare(src, 1750000000), "first.txt")
	require.NoError(t, err)
	require.False(t, first.Reused)

	known, err := a.KnownDocuments()
	require.NoError(t, err)
	require.Equal(t, map[db.Digest]bool{first.Doc.SHA256: true}, known)

	again, err := a.IngestPrepared(a.PrepareUnlessKnown(src, 1750000100, known), "again.txt")
	require.NoError(t, err)
	require.True(t, again.Reused)
	require.Equal(t, first.Doc.SHA256, again.Doc.SHA256)
	require.Equal(t, []string{"first.txt", "again.txt"}, again.Doc.Names)

	// Claimed known, but new: prepared on the spot, events and all.
	other := []byte("@event\tPAYMENT\tSaud\tAhmed\t5\tSAR\nAnd some prose.\n")
	known[sha256.Sum256(other)] = true
	res, err := a.IngestPrepared(a.PrepareUnlessKnown(other, 1750000200, known), "other.txt")
	require.NoError(t, err)
	require.False(t, res.Reused)
	require.Equal(t, 1, res.Doc.EventCount)
	hits, err := a.Find(mustQuery(t, "prose"), 0)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	require.Equal(t, res.Doc.SHA256, hits[0].Doc.SHA256)
	require.Empty(t, problemsOf(t, a))
}
