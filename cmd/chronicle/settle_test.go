package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/stretchr/testify/require"
)

// storyWS is a workspace whose archive holds the samples and the
// two-document story of testdata/stories (a loan agreement and a bank
// statement), ingested as `make run` does.
func storyWS(t *testing.T) *ws {
	t.Helper()
	w := newWS(t)
	for _, dir := range []string{"samples", "stories"} {
		entries, err := os.ReadDir(filepath.Join("..", "..", "testdata", dir))
		require.NoError(t, err)
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join("..", "..", "testdata", dir, e.Name()))
			require.NoError(t, err)
			w.write(dir+"/"+e.Name(), string(data))
		}
	}
	w.ok("ingest", "samples", "stories")
	return w
}

const (
	loanDoc      = "stories/1-loan-agreement-en.txt"
	statementDoc = "stories/2-bank-statement-en.txt"
	storyQ       = "Did Layla repay Omar?"
)

// TestSettleCLI: `settle` across the loan agreement and the statement
// settles the debt that neither document settles alone; the readable view
// names the documents and which payment was counted in which; the JSON
// line for one chosen document is byte for byte `query DOC`.
func TestSettleCLI(t *testing.T) {
	t.Parallel()
	w := storyWS(t)
	out := w.ok("settle", storyQ, "--text")
	require.Equal(t, strings.Join([]string{
		"SUPPORTED  debt 500/1 SAR (borrower Layla, lender Omar)  settled 500/1",
		"documents: " + loanDoc + " (#3), " + statementDoc + " (#4)  (of documents #1..#4)",
		"counted: 200/1 SAR in " + statementDoc + ":4",
		"counted: 300/1 SAR in " + statementDoc + ":6",
		"  " + loanDoc + ":4  @chronicle\tLayla\tBORROWED_FROM\tOmar\t500\tSAR\t2026-01-05\tASSERTED\tPOSITIVE\tCONFIRMED",
		"  " + loanDoc + ":6  @chronicle\tGulf Bank\tINTERMEDIARY_FOR\tOmar\t-\tSAR\t2026-01-05\tASSERTED\tPOSITIVE\tCONFIRMED",
		"+ " + statementDoc + ":4  @chronicle\tLayla\tPAID_TO\tOmar\t200\tSAR\t2026-02-01\tASSERTED\tPOSITIVE\tCONFIRMED",
		"+ " + statementDoc + ":6  @chronicle\tLayla\tTRANSFER_TO\tGulf Bank\t300\tSAR\t2026-02-20\tASSERTED\tPOSITIVE\tCONFIRMED",
	}, "\n")+"\n", out)

	// Not a terminal: the canonical JSON line, each evidence naming its document.
	js := w.ok("settle", storyQ)
	require.True(t, strings.HasPrefix(js, `{"status":"SUPPORTED","assessment":"DEBT_SETTLEMENT","question":"Did Layla repay Omar?","debt":{"num":500,"den":1,"currency":"SAR","borrower":"Layla","lender":"Omar"},"settled":{"num":500,"den":1},`), js)
	require.Equal(t, 1, strings.Count(js, "\n"))
	docs := map[string]string{}
	for _, d := range w.docs() {
		docs[d.Names[0]] = d.SHA256
	}
	require.Equal(t, 2, strings.Count(js, `"document_sha256":"`+docs[loanDoc]+`"`))
	require.Equal(t, 2, strings.Count(js, `"document_sha256":"`+docs[statementDoc]+`"`))
	require.Equal(t, js, w.ok("settle", "--doc", statementDoc, "--doc", loanDoc, storyQ), "the chosen pair, any order")
	require.Contains(t, w.ok("settle", "Layla", "Omar?"), `"question":"Layla Omar?","debt":{"num":500`, "words join with single spaces")

	// One document: exactly `query DOC QUESTION`, for every sample question.
	for _, c := range []struct{ doc, q string }{
		{loanDoc, storyQ}, {statementDoc, storyQ},
		{"samples/alice-bob-en.txt", "Did Alice repay Bob?"}, {"samples/ahmed-khalid-ar.txt", "هل سدد أحمد دين خالد؟"},
		{"samples/ahmed-khalid-ar.txt", "Did Alice repay Bob?"},
	} {
		require.Equal(t, w.ok("query", c.doc, c.q, "--json"), w.ok("settle", c.q, "--doc", c.doc, "--json"), "%s %q", c.doc, c.q)
	}
	require.Contains(t, w.ok("settle", storyQ, "--doc", loanDoc), `"status":"UNKNOWN"`)

	// Answers write nothing: no receipt is kept.
	before := w.receipts()
	w.ok("settle", storyQ)
	require.Equal(t, before, w.receipts())

	// Errors: a claim, no question, an unknown document.
	requireOneLineError(t, w.run("settle", "@claim\tA\tB\tC"), 2, "settle", "claim")
	require.Equal(t, 2, w.run("settle").code)
	requireOneLineError(t, w.run("settle", storyQ, "--doc", "nope.txt"), 1, "settle", "nope")
}

// TestSettleReceiptCLI: --receipt FILE writes an ARCHIVE-SETTLE receipt
// (over documents #1..#S, or the chosen set by their digests) that
// `verify` reports VALID, still VALID after later imports, and INVALID
// once a bound document is damaged; --keep keeps it and `receipts
// --verify` lists it.
func TestSettleReceiptCLI(t *testing.T) {
	t.Parallel()
	w := storyWS(t)
	plain := w.ok("settle", storyQ)
	require.Equal(t, plain, w.ok("settle", storyQ, "--receipt", "all.receipt"))
	require.Equal(t, plain, w.ok("settle", storyQ, "--doc", loanDoc, "--doc", statementDoc, "--receipt", "pair.receipt"))
	all, pair := string(w.read("all.receipt")), string(w.read("pair.receipt"))
	require.True(t, strings.HasPrefix(all, "CHRONICLE-ARCHIVE-SET-RECEIPT-V1\nkind:ARCHIVE-SETTLE\ndocuments:4\nset_sha256:"), all)
	docs := map[string]string{}
	for _, d := range w.docs() {
		docs[d.Names[0]] = d.SHA256
	}
	require.True(t, strings.HasPrefix(pair, "CHRONICLE-ARCHIVE-SET-RECEIPT-V1\nkind:ARCHIVE-SETTLE\ndocuments:2\ndocument_sha256:"+docs[loanDoc]+"\ndocument_sha256:"+docs[statementDoc]+"\nset_sha256:"), pair)
	requireVerdict(t, w, "all.receipt", "VALID")
	requireVerdict(t, w, "pair.receipt", "VALID")

	// --receipt - prints it after the answer; --keep keeps it.
	out := w.ok("settle", storyQ, "--receipt", "-", "--keep")
	require.Equal(t, plain+all, out)
	text := w.ok("settle", storyQ, "--keep", "--text", "--doc", loanDoc, "--doc", statementDoc)
	require.Contains(t, text, "2 chosen documents")
	require.Regexp(t, `receipt [0-9a-f]{12} kept`, text)
	rec := w.ok("receipts", "--verify")
	require.Equal(t, 2, strings.Count(rec, "ARCHIVE-SETTLE"), rec)
	require.NotContains(t, rec, "INVALID")

	// Later imports: a repeated payment changes the answer; the receipts hold.
	w.write("later.txt", "@chronicle\tLayla\tPAID_TO\tOmar\t200\tSAR\t2026-02-01\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	w.ok("ingest", "later.txt")
	require.Contains(t, w.ok("settle", storyQ), `"status":"UNKNOWN"`, "the repeated payment counts once")
	requireVerdict(t, w, "all.receipt", "VALID")
	requireVerdict(t, w, "pair.receipt", "VALID")

	// A damaged bound document: INVALID.
	corrupt(t, w.db, "chunks", docs[statementDoc], func(t *testing.T, frame []byte) []byte {
		src, err := s2.Decode(nil, frame)
		require.NoError(t, err)
		src[0] ^= 0x20
		return s2.EncodeBetter(nil, src)
	})
	requireVerdict(t, w, "all.receipt", "INVALID")
	requireVerdict(t, w, "pair.receipt", "INVALID")
	r := w.run("receipts", "--verify")
	require.Equal(t, 1, r.code, "%s", r)
}

// TestEntityNotesCrossDocumentDebt: the readable view of `entity` says
// when a name takes part in a debt settled from several documents, and
// how to settle it; a debt within one document and the JSON view get no
// note.
func TestEntityNotesCrossDocumentDebt(t *testing.T) {
	t.Parallel()
	w := storyWS(t)
	note := "note: Omar takes part in the debt of Layla to Omar, recorded across 2 documents (" + loanDoc + ", " + statementDoc +
		"): `settle 'Did Layla repay Omar?'` settles it across them\n"
	require.True(t, strings.HasSuffix(w.ok("entity", "Omar", "--text"), note), w.ok("entity", "Omar", "--text"))
	require.Contains(t, w.ok("entity", "Layla", "--text"), "note: Layla takes part in the debt of Layla to Omar, recorded across 2 documents")
	require.NotContains(t, w.ok("entity", "Alice", "--text"), "note:", "Alice's debt is recorded in one document")
	require.NotContains(t, w.ok("entity", "Omar", "--json"), "note:")
	// The note's suggestion works as written.
	require.Contains(t, w.ok("settle", storyQ, "--text"), "SUPPORTED  debt 500/1 SAR (borrower Layla, lender Omar)  settled 500/1")
}
