package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// batchDocs are documents spread over three groups of 64, in Arabic and
// English, with typed records.
func batchDocs(n int) [][]byte {
	r := rand.New(rand.NewPCG(13, 1))
	words := []string{"Alice", "Bob", "owes", "book", "أحمد", "خالد", "مستودع", "دين", "سدد", "the", "of", "ledger"}
	var out [][]byte
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "document %d\n", i)
		for range 5 + r.IntN(40) {
			for range 1 + r.IntN(8) {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteByte(' ')
			}
			b.WriteByte('\n')
		}
		if i%7 == 0 {
			b.WriteString("@chronicle\tAhmed\tBORROWED_FROM\tKhalid\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n")
		}
		out = append(out, []byte(b.String()))
	}
	return out
}

var batchQueries = []string{"Alice", "مستودع", "دين سدد", "book ledger of", "absent", "o", "خالد Bob", "document 77"}

func findAll(t *testing.T, a *db.Archive) []string {
	t.Helper()
	var out []string
	for _, q := range batchQueries {
		for _, limit := range []int{0, 3} {
			hits, err := a.Find(mustQuery(t, q), limit)
			require.NoError(t, err)
			out = append(out, findLines(t, hits))
		}
	}
	return out
}

// TestBatchIngestExact: a batch ingest (term postings folded many
// documents at a time) answers every find exactly as one-at-a-time
// ingests do, before its grams are folded, after, and after a process
// died holding them; its term index ends byte-identical.
func TestBatchIngestExact(t *testing.T) {
	t.Parallel()
	docs := batchDocs(150)
	dir := t.TempDir()

	one := openArchive(t, filepath.Join(dir, "one.db"))
	for i, src := range docs {
		_, err := one.Ingest(src, 1700000000, fmt.Sprintf("d%03d.txt", i))
		require.NoError(t, err)
	}
	want := findAll(t, one)
	wantGrams, err := one.GramsDumpForTest()
	require.NoError(t, err)

	path := filepath.Join(dir, "batch.db")
	b := openArchive(t, path)
	b.BeginBatch()
	for i, src := range docs[:100] {
		_, err := b.IngestPrepared(b.Prepare(src, 1700000000), fmt.Sprintf("d%03d.txt", i))
		require.NoError(t, err)
	}
	// 100 documents in: some folded (a group filled), some waiting.
	un, err := b.UnindexedForTest()
	require.NoError(t, err)
	require.NotEmpty(t, un)
	require.Less(t, len(un), 100)
	// Another process reads meanwhile, read-only (the batch lets go of
	// the archive between documents).
	require.NoError(t, b.Release())
	r := openArchive(t, path, db.Options{ReadOnly: true})
	partial := findAll(t, r)
	require.Empty(t, problemsOf(t, r), "waiting documents are not damage")
	require.NoError(t, r.Close())

	for i, src := range docs[100:] {
		_, err := b.Ingest(src, 1700000000, fmt.Sprintf("d%03d.txt", 100+i))
		require.NoError(t, err)
	}
	// The process dies before EndBatch: its waiting grams are lost.
	b.AbandonBatchForTest()
	require.NoError(t, b.Close())
	r = openArchive(t, path, db.Options{ReadOnly: true})
	un, err = r.UnindexedForTest()
	require.NoError(t, err)
	require.NotEmpty(t, un)
	require.Equal(t, want, findAll(t, r))
	require.Empty(t, problemsOf(t, r))
	require.NoError(t, r.Close())

	// The next write open folds them from the stored documents.
	w := openArchive(t, path)
	un, err = w.UnindexedForTest()
	require.NoError(t, err)
	require.Empty(t, un)
	require.Equal(t, want, findAll(t, w))
	gotGrams, err := w.GramsDumpForTest()
	require.NoError(t, err)
	require.Equal(t, wantGrams, gotGrams)
	require.Empty(t, problemsOf(t, w))

	// The partial view was the one-at-a-time archive's at 100 documents.
	p := openArchive(t, filepath.Join(dir, "p.db"))
	for i, src := range docs[:100] {
		_, err := p.Ingest(src, 1700000000, fmt.Sprintf("d%03d.txt", i))
		require.NoError(t, err)
	}
	require.Equal(t, findAll(t, p), partial)
}

// TestBatchEndAndClose: EndBatch folds what is waiting; Close ends an open
// batch; a rejected document leaves the batch as it was.
func TestBatchEndAndClose(t *testing.T) {
	t.Parallel()
	docs := batchDocs(10)
	path := filepath.Join(t.TempDir(), "a.db")
	a, err := db.Open(path, db.Options{})
	require.NoError(t, err)
	a.BeginBatch()
	for i, src := range docs[:5] {
		_, err := a.Ingest(src, 1700000000, fmt.Sprintf("d%d", i))
		require.NoError(t, err)
	}
	_, err = a.IngestPrepared(a.Prepare([]byte("bad\xff"), 1700000000), "bad")
	require.Error(t, err)
	un, err := a.UnindexedForTest()
	require.NoError(t, err)
	require.Equal(t, []uint64{1, 2, 3, 4, 5}, un)
	require.NoError(t, a.EndBatch())
	un, err = a.UnindexedForTest()
	require.NoError(t, err)
	require.Empty(t, un)

	a.BeginBatch()
	for i, src := range docs[5:] {
		_, err := a.Ingest(src, 1700000000, fmt.Sprintf("d%d", 5+i))
		require.NoError(t, err)
	}
	require.NoError(t, a.Close())
	r := openArchive(t, path, db.Options{ReadOnly: true})
	un, err = r.UnindexedForTest()
	require.NoError(t, err)
	require.Empty(t, un)
	require.Empty(t, problemsOf(t, r))
}

// TestBatchIngestRewritesSummaryPages: a batch whose documents hold
// thousands of distinct grams spreads the term index summary (gramgroups)
// over pages of its own, which every deferred fold checks before it
// rewrites them (checkGroupPages); the batch commits, check finds nothing,
// and every document's own word finds it.
func TestBatchIngestRewritesSummaryPages(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 4))
	letters := []rune("abcdefghijklmnopqrstuvwxyzأبتثجحخدذرزسشصضطظعغفقكلمنهوي")
	word := func() string {
		w := make([]rune, 4+r.IntN(6))
		for i := range w {
			w[i] = letters[r.IntN(len(letters))]
		}
		return string(w)
	}
	a := openArchive(t, filepath.Join(t.TempDir(), "batch.db"))
	a.BeginBatch()
	own := make([]string, 200)
	for i := range own {
		var b strings.Builder
		own[i] = fmt.Sprintf("own%dword", i)
		b.WriteString(own[i] + "\n")
		for range 60 {
			b.WriteString(word() + " ")
		}
		_, err := a.Ingest([]byte(b.String()), 1700000000, fmt.Sprintf("d%03d.txt", i))
		require.NoError(t, err)
	}
	require.NoError(t, a.EndBatch())
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
	for i, w := range own {
		hits, err := a.Find(mustQuery(t, w), 0)
		require.NoError(t, err)
		require.Len(t, hits, 1, "%s", w)
		require.Equal(t, fmt.Sprintf("d%03d.txt", i), hits[0].Doc.Label())
	}
}
