package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const aliceBook = "Alice owns Book.\n"

func TestIngestArgumentErrorsExit2(t *testing.T) {
	long := strings.Repeat("a", maxIngestPath+1)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"empty FILE", []string{"ingest", ""}},
		{"FILE of 2038 bytes", []string{"ingest", long}},
		{"FILE not UTF-8", []string{"ingest", "bad\xffname"}},
		{"no FILE", []string{"ingest"}},
		{"two FILEs", []string{"ingest", "a", "b"}},
		{"unknown command", []string{"Ingest", "a"}},
		{"no command", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			got := runIn(t, dir, tc.args...)
			require.Equal(t, 2, got.code)
			require.Empty(t, got.stdout)
			require.Empty(t, snapshot(t, dir))
		})
	}
	got := runIn(t, t.TempDir())
	require.Contains(t, got.stderr, "usage:\n  "+binary+" ingest FILE\n")
	require.Contains(t, got.stderr, "  "+binary+" --benchmark\n")
}

func TestIngestPathLimitIsInclusive(t *testing.T) {
	// 2037 bytes passes the argument check; the file does not exist, which
	// is an ordinary failure (exit 1), not a usage error.
	got := runIn(t, t.TempDir(), "ingest", strings.Repeat("a", maxIngestPath))
	require.Equal(t, 1, got.code)
}

func TestIngestRejectedSourceLeavesNothing(t *testing.T) {
	for _, tc := range []struct {
		name, source, stderr string
	}{
		{"typed record with 8 fields", "prose\nmore prose\n@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\n",
			"line 3 (byte 17): @chronicle record has 8 fields, want 9"},
		{"marker without TAB", "@chronicles are fun\n", "line 1 (byte 10)"},
		{"NUL byte", "abc\x00def\n", "line 1 (byte 3): NUL byte"},
		{"invalid UTF-8", "ok\n\xc3\x28\n", "line 2 (byte 3): invalid UTF-8"},
		{"bad Arabic digit", "أقر أحمد بأنه اقترض من خالد مبلغ مائة ريال سعودي في اليوم الأول.\n", "line 1"},
		{"literal token of 128 bytes", "Alice owns " + strings.Repeat("b", 128) + ".\n", "line 1 (byte 11)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"in.txt": tc.source})
			got := runIn(t, dir, "ingest", "in.txt")
			require.Equal(t, 1, got.code)
			require.Empty(t, got.stdout)
			require.Contains(t, got.stderr, tc.stderr)
			require.Equal(t, map[string][]byte{"in.txt": []byte(tc.source)}, snapshot(t, dir))
		})
	}
}

func TestIngestMissingAndOversizedSource(t *testing.T) {
	dir := t.TempDir()
	got := runIn(t, dir, "ingest", "missing.txt")
	require.Equal(t, 1, got.code)
	require.Contains(t, got.stderr, "missing.txt")
	require.Empty(t, snapshot(t, dir))

	big := strings.Repeat("x", 8<<20) + "\n"
	writeFiles(t, dir, map[string]string{"big.txt": big})
	got = runIn(t, dir, "ingest", "big.txt")
	require.Equal(t, 1, got.code)
	require.Contains(t, got.stderr, "too large")
	require.Len(t, snapshot(t, dir), 1)
}

func TestIngestNeverOverwritesAnInvalidStore(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"in.txt": aliceBook, "in.txt.chronicle": "not a store"})
	got := runIn(t, dir, "ingest", "in.txt")
	require.Equal(t, 1, got.code)
	require.Empty(t, got.stdout)
	require.Equal(t, map[string][]byte{"in.txt": []byte(aliceBook), "in.txt.chronicle": []byte("not a store")}, snapshot(t, dir))
}

func TestIngestReuseIsIdempotentAndKeepsImportTime(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"in.txt": aliceBook})
	first := runIn(t, dir, "ingest", "in.txt")
	require.Equal(t, 0, first.code)
	before := snapshot(t, dir)
	again := runEnv(t, dir, []string{"SOURCE_DATE_EPOCH=1"}, "ingest", "in.txt")
	require.Equal(t, first, again)
	require.Equal(t, before, snapshot(t, dir))
	golden, err := os.ReadFile(filepath.Join(goldenDir, "g0_minimal_literal", "input.txt.chronicle"))
	require.NoError(t, err)
	require.Equal(t, golden, before["in.txt.chronicle"])
}

func TestIngestChangedSourceAgainstValidStoreFails(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"in.txt": aliceBook})
	require.Equal(t, 0, runIn(t, dir, "ingest", "in.txt").code)
	require.NoError(t, os.Remove(filepath.Join(dir, "in.txt.chronicle.receipt")))
	writeFiles(t, dir, map[string]string{"in.txt": "Bob owns Pen.\n"})
	before := snapshot(t, dir)
	got := runIn(t, dir, "ingest", "in.txt")
	require.Equal(t, 1, got.code)
	require.Empty(t, got.stdout)
	require.Equal(t, before, snapshot(t, dir))
}

func TestIngestReceiptCollisionKeepsNewStore(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"in.txt": aliceBook, "in.txt.chronicle.receipt": "someone else's\n"})
	got := runIn(t, dir, "ingest", "in.txt")
	require.Equal(t, 1, got.code)
	require.Empty(t, got.stdout)
	files := snapshot(t, dir)
	require.Equal(t, "someone else's\n", string(files["in.txt.chronicle.receipt"]))
	require.Contains(t, files, "in.txt.chronicle", "CONTRACT 1.2 step 4: the new store is not rolled back")
}

func TestIngestImportTimeFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"in.txt": aliceBook})
	got := runEnv(t, dir, []string{"SOURCE_DATE_EPOCH=soon"}, "ingest", "in.txt")
	require.Equal(t, 1, got.code)
	require.Contains(t, got.stderr, "SOURCE_DATE_EPOCH")
	require.Len(t, snapshot(t, dir), 1)

	got = runEnv(t, dir, []string{"SOURCE_DATE_EPOCH=42"}, "ingest", "in.txt")
	require.Equal(t, 0, got.code)
	store := snapshot(t, dir)["in.txt.chronicle"]
	require.Equal(t, byte(42), store[56])
}
