package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ingested returns a directory holding in.txt and its store.
func ingested(t *testing.T, source string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"in.txt": source})
	require.Equal(t, 0, runIn(t, dir, "ingest", "in.txt").code)
	return dir
}

func TestQueryFindClaimArgumentErrors(t *testing.T) {
	dir := ingested(t, aliceBook)
	before := snapshot(t, dir)
	long := strings.Repeat("x", 128)
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"empty STORE", []string{"query", "", "A B"}, 2},
		{"STORE of 2048 bytes", []string{"find", strings.Repeat("s", 2048), "A"}, 2},
		{"STORE not UTF-8", []string{"query", "in\xff", "A B"}, 2},
		{"question not UTF-8", []string{"query", "in.txt.chronicle", "A\xffB"}, 2},
		{"terms not UTF-8", []string{"find", "in.txt.chronicle", "\xc0\x80"}, 2},
		{"claim field of 128 bytes", []string{"claim", "in.txt.chronicle", long, "owns", "Book"}, 2},
		{"claim field with TAB", []string{"claim", "in.txt.chronicle", "Al\tice", "owns", "Book"}, 2},
		{"claim checks fields before STORE", []string{"claim", "", "A\tB", "owns", "Book"}, 2},
		{"claim empty field", []string{"claim", "in.txt.chronicle", "", "owns", "Book"}, 1},
		{"claim field with LF", []string{"claim", "in.txt.chronicle", "Al\nice", "owns", "Book"}, 1},
		{"missing store", []string{"query", "nope.chronicle", "A B"}, 1},
		{"source is not a store", []string{"query", "in.txt", "A B"}, 1},
		{"find with only separators", []string{"find", "in.txt.chronicle", " .,;:?! "}, 1},
		{"find with empty terms", []string{"find", "in.txt.chronicle", ""}, 1},
		{"find with 17 terms", []string{"find", "in.txt.chronicle", strings.Repeat("a ", 17)}, 1},
		{"question of 2048 bytes", []string{"query", "in.txt.chronicle", strings.Repeat("q", 2048)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runIn(t, dir, tc.args...)
			require.Equal(t, tc.code, got.code, got.stderr)
			require.Empty(t, got.stdout)
			require.NotEmpty(t, got.stderr, "a failure explains itself on stderr")
			require.Equal(t, before, snapshot(t, dir), "a failed command writes nothing")
		})
	}
}

func TestQueryEmptyQuestionIsUnknown(t *testing.T) {
	dir := ingested(t, aliceBook)
	got := runIn(t, dir, "query", "in.txt.chronicle", "")
	require.Equal(t, 0, got.code)
	require.True(t, strings.HasPrefix(got.stdout, `{"status":"UNKNOWN","assessment":"DEBT_SETTLEMENT","question":"","debt":null,`))
	require.True(t, strings.HasSuffix(got.stdout, "\nreceipt=in.txt.chronicle.query-e3b0c44298fc1c14.receipt\n"))
}

func TestQuestionOf2047BytesFitsAReceipt(t *testing.T) {
	dir := ingested(t, aliceBook)
	got := runIn(t, dir, "query", "in.txt.chronicle", strings.Repeat("q", 2047))
	require.Equal(t, 0, got.code, got.stderr)
	receipt := strings.TrimPrefix(got.stdout[strings.LastIndex(got.stdout, "receipt="):], "receipt=")
	require.Equal(t, 0, runIn(t, dir, "verify", strings.TrimSpace(receipt)).code)
}

func TestClaimIsSugarForQuery(t *testing.T) {
	dir := ingested(t, aliceBook)
	viaClaim := runIn(t, dir, "claim", "in.txt.chronicle", "Alice", "owns", "Book")
	viaQuery := runIn(t, dir, "query", "in.txt.chronicle", "@claim\tAlice\towns\tBook")
	require.Equal(t, 0, viaClaim.code)
	require.Equal(t, viaClaim, viaQuery)
}

func TestReceiptRecordsThePathAsTyped(t *testing.T) {
	dir := ingested(t, aliceBook)
	require.Equal(t, 0, runIn(t, dir, "find", "in.txt.chronicle", "Book").code)
	// ./in.txt.chronicle names the same receipt file with different content.
	before := snapshot(t, dir)
	got := runIn(t, dir, "find", "./in.txt.chronicle", "Book")
	require.Equal(t, 1, got.code)
	require.Empty(t, got.stdout)
	require.Equal(t, before, snapshot(t, dir))
}

func TestVerifyOutcomes(t *testing.T) {
	dir := ingested(t, aliceBook)
	q := runIn(t, dir, "claim", "in.txt.chronicle", "Alice", "owns", "Book")
	require.Equal(t, 0, q.code)
	queryReceipt := "in.txt.chronicle.query-e19a9a4818ac46d3.receipt"
	require.Contains(t, q.stdout, "receipt="+queryReceipt+"\n")

	for _, r := range []string{"in.txt.chronicle.receipt", queryReceipt} {
		got := runIn(t, dir, "verify", r)
		require.Equal(t, result{0, "VALID\n", ""}, got)
	}
	for _, r := range []string{"", "missing.receipt", "in.txt", "bad\xff"} {
		got := runIn(t, dir, "verify", r)
		require.Equal(t, 1, got.code, "verify %q", r)
		require.Equal(t, "INVALID\n", got.stdout)
	}

	// A changed source file does not matter (receipts bind the store); a
	// changed store invalidates every receipt that names it.
	store := filepath.Join(dir, "in.txt.chronicle")
	data, err := os.ReadFile(store)
	require.NoError(t, err)
	data[48] ^= 1
	require.NoError(t, os.WriteFile(store, data, 0o644))
	for _, r := range []string{"in.txt.chronicle.receipt", queryReceipt} {
		got := runIn(t, dir, "verify", r)
		require.Equal(t, 1, got.code)
		require.Equal(t, "INVALID\n", got.stdout)
		require.Contains(t, got.stderr, "store_sha256")
	}
}
