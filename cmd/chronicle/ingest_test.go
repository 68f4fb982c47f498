package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// badRecord is a typed record with 8 fields instead of 9.
const badRecord = "@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\n"

// TestIngestBatch: a directory is walked in lexical order; a rejected file
// is reported with its line and rule, leaves no trace, and the others land;
// re-ingesting reports reuse.
func TestIngestBatch(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	// Written in reverse order: the walk must not depend on creation order.
	w.write("batch/c.txt", "Carol owns Pen.\n")
	w.write("batch/b.txt", "Opening prose.\n"+badRecord+"Dave owns Cup.\n")
	w.write("batch/a.txt", "Alice owns Book.\n")
	w.write("batch/.hidden.txt", "Hidden owns Nothing.\n")

	r := w.run("ingest", "batch")
	require.Equal(t, 1, r.code, "%s", r)
	out := lines(r.stdout)
	require.Len(t, out, 6, r.stdout)
	require.Equal(t, "skipped   batch/.hidden.txt  hidden (its name starts with a dot)", out[0])
	out = out[1:]
	require.Regexp(t, `^new +batch/a\.txt +[0-9a-f]{12} +1 event$`, out[0])
	require.Regexp(t, `^rejected +batch/b\.txt:2:1: @chronicle record has 8 fields, want 9 \(byte 15\)$`, out[1])
	require.Regexp(t, `^  2 \| @chronicle\\tAlice`, out[2])
	require.Equal(t, "    | ^", out[3])
	require.Regexp(t, `^new +batch/c\.txt +[0-9a-f]{12} +1 event$`, out[4])
	require.Equal(t, "chronicle ingest: 1 of 3 files rejected\n", r.stderr)

	docs := w.docs()
	require.Len(t, docs, 2)
	require.Equal(t, []string{"batch/a.txt"}, docs[0].Names)
	require.Equal(t, []string{"batch/c.txt"}, docs[1].Names)
	for _, d := range docs {
		require.EqualValues(t, 1750000000, d.ImportedAt)
		require.Equal(t, 2, d.Version)
	}
	text := lines(w.ok("docs"))
	require.Len(t, text, 3, "header and two documents")
	require.Regexp(t, `batch/a\.txt$`, text[1])
	require.Regexp(t, `batch/c\.txt$`, text[2])

	// No trace of the rejected file: not a name, no receipt.
	requireOneLineError(t, w.run("show", "batch/b.txt"), 1, "show", `"batch/b\.txt": no such document`)
	recs := w.receipts()
	require.Len(t, recs, 2)
	for _, rec := range recs {
		require.Equal(t, "INGEST", rec.Kind)
	}
	require.Contains(t, w.ok("check"), "ok: 2 documents checked")

	// Re-ingest: the good files are reused, the bad one rejected again.
	r = w.run("ingest", "batch")
	require.Equal(t, 1, r.code, "%s", r)
	out = lines(r.stdout)[1:] // after the hidden file's line
	require.Len(t, out, 5)
	require.Regexp(t, `^reused +batch/a\.txt +[0-9a-f]{12} +first imported 2025-06-15T15:06:40Z$`, out[0])
	require.Regexp(t, `^rejected +batch/b\.txt:2:1: `, out[1])
	require.Regexp(t, `^reused +batch/c\.txt +[0-9a-f]{12} +first imported 2025-06-15T15:06:40Z$`, out[4])
	require.Equal(t, docs, w.docs())
	require.Len(t, w.receipts(), 2, "a repeated ingest keeps its receipt once")
}

// TestIngestOutcomes: JSON outcome lines, reuse from another path (a new
// name, the first import time kept), --name, and missing paths.
func TestIngestOutcomes(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("a.txt", "Alice owns Book.\n")
	w.write("copy-of-a.txt", "Alice owns Book.\n")
	w.write("bad.txt", badRecord)

	r := w.run("ingest", "--json", "a.txt", "bad.txt", "missing.txt")
	require.Equal(t, 1, r.code, "%s", r)
	out := lines(r.stdout)
	require.Len(t, out, 3)
	type outcome struct {
		Path    string `json:"path"`
		Outcome string `json:"outcome"`
		Doc     string `json:"document_sha256"`
		Events  int    `json:"events"`
		Error   string `json:"error"`
	}
	var got []outcome
	for _, line := range out {
		var o outcome
		require.NoError(t, json.Unmarshal([]byte(line), &o), line)
		got = append(got, o)
	}
	byPath := map[string]outcome{}
	for _, o := range got {
		byPath[o.Path] = o
	}
	require.Equal(t, "new", byPath["a.txt"].Outcome)
	require.Regexp(t, `^[0-9a-f]{64}$`, byPath["a.txt"].Doc)
	require.Equal(t, 1, byPath["a.txt"].Events)
	require.Equal(t, "rejected", byPath["bad.txt"].Outcome)
	require.Equal(t, "bad.txt:1:1: @chronicle record has 8 fields, want 9 (byte 0)", byPath["bad.txt"].Error)
	require.Equal(t, "rejected", byPath["missing.txt"].Outcome)
	require.Equal(t, "missing.txt: no such file or directory", byPath["missing.txt"].Error)
	require.Equal(t, "chronicle ingest: 2 of 3 files rejected\n", asText(t, r).stderr)

	// The same bytes from another path, at another time: reused, first
	// import time kept, one more name.
	r = runBin(t, chronicleBin, w.dir, []string{"SOURCE_DATE_EPOCH=1800000000"}, "--db", w.db, "ingest", "copy-of-a.txt", "--name", "the-book")
	require.Equal(t, 0, r.code, "%s", r)
	require.Regexp(t, `^reused +copy-of-a\.txt +[0-9a-f]{12} +first imported 2025-06-15T15:06:40Z\n$`, r.stdout)
	docs := w.docs()
	require.Len(t, docs, 1)
	require.Equal(t, []string{"a.txt", "copy-of-a.txt", "the-book"}, docs[0].Names)
	require.EqualValues(t, 1750000000, docs[0].ImportedAt)
	for _, name := range docs[0].Names {
		require.Contains(t, w.ok("show", name), "Alice owns Book.")
	}

	// --receipt on ingest writes the archive INGEST receipt, which verifies.
	w.write("b.txt", "Bob owns Pen.\n")
	w.ok("ingest", "b.txt", "--receipt", "b.receipt")
	r = w.run("verify", "b.receipt")
	require.Equal(t, 0, r.code, "%s", r)
	require.Equal(t, w.verifyText("b.receipt", "VALID"), r.stdout)
	require.Regexp(t, regexp.MustCompile(`^CHRONICLE-ARCHIVE-RECEIPT-V1\nkind:INGEST\n`), string(w.read("b.receipt")))

	// A missing path alone is a failure naming the path.
	r = w.run("ingest", filepath.Join("nowhere", "x.txt"))
	require.Equal(t, 1, r.code)
	require.Regexp(t, `^rejected +nowhere/x\.txt: `, r.stdout)
}

// TestIngestNameMoves: ingesting changed bytes from the same path makes the
// name point at the new document; the old one stays, reachable by hash.
func TestIngestNameMoves(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("story.txt", "Alice owns Book.\n")
	w.ok("ingest", "story.txt")
	old := w.docs()[0].SHA256

	w.write("story.txt", "Alice owns Pen.\n")
	r := w.run("ingest", "story.txt")
	require.Equal(t, 0, r.code, "%s", r)
	require.Regexp(t, `^new +story\.txt `, r.stdout)
	require.Equal(t, `chronicle ingest: name "story.txt" now points at `+w.docs()[1].SHA256[:12]+` (was `+old[:12]+`, which stays in the archive)`+"\n", r.stderr)

	docs := w.docs()
	require.Len(t, docs, 2)
	require.Empty(t, docs[0].Names)
	require.Equal(t, []string{"story.txt"}, docs[1].Names)
	require.Contains(t, w.ok("claim", "story.txt", "Alice", "owns", "Pen"), `"status":"EXACT_STATED"`)
	require.Contains(t, w.ok("claim", old[:8], "Alice", "owns", "Book"), `"status":"EXACT_STATED"`)
	require.Equal(t, "store=out/"+old[:12]+".chronicle\nreceipt=out/"+old[:12]+".chronicle.receipt\nsignature=out/"+old[:12]+".chronicle.receipt.sig\n", w.ok("export", old[:8], "out"))
	require.Contains(t, w.ok("check"), "ok: 2 documents")
}

// TestConcurrentIngests: several processes ingesting into one archive at
// once each either land or fail with the in-use error; the archive stays
// consistent.
func TestConcurrentIngests(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("seed.txt", "Seed owns Archive.\n")
	w.ok("ingest", "seed.txt")
	const n = 6
	type outcome struct {
		r   result
		err error
	}
	results := make(chan outcome, n)
	for i := range n {
		name := fmt.Sprintf("f%d.txt", i)
		w.write(name, fmt.Sprintf("Person%d owns Thing%d.\n", i, i))
		go func() {
			r, err := runBinErr(chronicleBin, w.dir, nil, "--db", w.db, "ingest", name)
			results <- outcome{r, err}
		}()
	}
	landed := 1
	for range n {
		o := <-results
		require.NoError(t, o.err)
		r := o.r
		switch r.code {
		case 0:
			landed++
			require.Regexp(t, `^new +f\d\.txt `, r.stdout)
		default:
			require.Equal(t, 11, r.code, "%s", r)
			require.Contains(t, r.stderr, "archive is in use by another process")
		}
	}
	require.Len(t, w.docs(), landed)
	require.Contains(t, w.ok("check"), fmt.Sprintf("ok: %d documents", landed))
}
