package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// archiveHit is one JSON line of a cross-archive find.
type archiveHit struct {
	Document string          `json:"document_sha256"`
	Names    []string        `json:"names"`
	Result   json.RawMessage `json:"result"`
}

// TestFindAcrossArchive: without --doc, find prints one JSON line per
// matching document, its result equal to the per-document find, ordered by
// best matched_terms, then total matching lines, then import order.
func TestFindAcrossArchive(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	files := []struct{ name, text string }{ // in import order
		{"z-one.txt", "alpha one\n"},                           // best 1, total 1
		{"a-one.txt", "alpha z\nnothing\n"},                    // best 1, total 1: after z-one (imported later)
		{`q"uote.txt`, "alpha beta\n"},                         // best 2, total 1
		{"two.txt", "alpha x\nalpha y\n"},                      // best 1, total 2
		{"none.txt", "nothing here\n"},                         // no match
		{"three.txt", "beta alpha\nalpha beta\nbeta\nAlpha\n"}, // best 2, total 3
		{"arabic.txt", "سعود alpha\n"},                         // best 1, total 1: last
	}
	for _, f := range files {
		w.write(f.name, f.text)
		w.ok("ingest", f.name)
	}
	w.ok("ingest", `q"uote.txt`, "--name", "second name")
	receiptsBefore := len(w.receipts())

	want := []string{"three.txt", `q"uote.txt`, "two.txt", "z-one.txt", "a-one.txt", "arabic.txt"}
	hits := findHits(t, w.ok("find", "alpha beta", "--json"))
	var got []string
	for _, h := range hits {
		got = append(got, h.Names[0])
	}
	require.Equal(t, want, got)

	// Each line is exactly the per-document find result, wrapped.
	raw := lines(w.ok("find", "alpha beta", "--json"))
	for i, h := range hits {
		names, err := json.Marshal(h.Names)
		require.NoError(t, err)
		perDoc := strings.TrimSuffix(w.ok("find", "--doc", h.Names[0], "alpha beta", "--json"), "\n")
		require.Equal(t, fmt.Sprintf(`{"document_sha256":"%s","names":%s,"result":%s}`, h.Document, names, perDoc), raw[i])
		require.JSONEq(t, perDoc, string(h.Result))
	}
	require.Equal(t, []string{`q"uote.txt`, "second name"}, hits[1].Names)

	// --limit caps the documents; piped stdout is JSON without --json.
	require.Equal(t, strings.Join(raw[:2], "\n")+"\n", w.ok("find", "alpha beta", "--limit", "2"))
	require.Equal(t, strings.Join(raw, "\n")+"\n", w.ok("find", "--limit=100", "alpha beta"))
	require.Equal(t, raw[0]+"\n", w.ok("find", "--limit", "1", "alpha beta"))

	// No match: no lines (JSON), NO_MATCH (text).
	require.Equal(t, "", w.ok("find", "nowhere-to-be-found"))
	require.Equal(t, "NO_MATCH\n", w.ok("find", "nowhere-to-be-found", "--text"))

	text := w.ok("find", "alpha beta", "--text", "--limit", "2")
	require.Regexp(t, `^MATCHES  3 matching lines in three\.txt\n  three\.txt:1  \[2\]  beta alpha\n`, text)
	require.Contains(t, text, "MATCHES  1 matching line in q\"uote.txt\n")

	// Terms that are only separators are rejected, as by the original.
	r := w.run("find", " .,;:?! ")
	require.Equal(t, 1, r.code, "%s", r)
	require.Empty(t, r.stdout)

	// Answering is read-only: neither find --doc nor the cross-archive find
	// keeps a receipt.
	require.Len(t, w.receipts(), receiptsBefore)
}

func findHits(t *testing.T, out string) []archiveHit {
	t.Helper()
	var hits []archiveHit
	for _, line := range lines(out) {
		var h archiveHit
		require.NoError(t, json.Unmarshal([]byte(line), &h), line)
		hits = append(hits, h)
	}
	return hits
}
