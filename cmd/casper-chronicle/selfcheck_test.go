package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSelfCheckPassesAndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	got := runEnv(t, dir, nil, "--self-check")
	require.Equal(t, result{0, "", "Chronicle self-check: PASS (0 failures)\n"}, got)
	require.Empty(t, snapshot(t, dir))
}

func TestSelfCheckAndBenchmarkRefuseOccupiedScratchNames(t *testing.T) {
	for _, tc := range []struct {
		flag, occupied, stdout string
	}{
		{"--self-check", "chronicle-self-test.txt", ""},
		{"--self-check", "chronicle-missing-test.txt.chronicle.receipt", ""},
		{"--self-check", "chronicle-self-test.txt.chronicle.query-" + "2b1e625137622224" + ".receipt", ""},
		{"--benchmark", "chronicle-benchmark.txt.chronicle", "arena_live_after_free=0\n"},
		{"--benchmark", "chronicle-benchmark.txt.chronicle.query-" + "0808a7686e92b03b" + ".receipt", "arena_live_after_free=0\n"},
	} {
		t.Run(tc.flag+" "+tc.occupied, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{tc.occupied: "mine"})
			got := runIn(t, dir, tc.flag)
			require.Equal(t, 1, got.code)
			require.Equal(t, tc.stdout, got.stdout)
			require.Equal(t, map[string][]byte{tc.occupied: []byte("mine")}, snapshot(t, dir))
		})
	}
}

func TestBenchmarkReportsTheOriginalKeys(t *testing.T) {
	dir := t.TempDir()
	got := runEnv(t, dir, nil, "--benchmark")
	require.Equal(t, 0, got.code, got.stderr)
	var keys []string
	values := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n") {
		k, v, ok := strings.Cut(line, "=")
		require.True(t, ok, line)
		keys = append(keys, k)
		values[k] = v
	}
	require.Equal(t, []string{"benchmark_words", "input_bytes", "extracted_events", "elapsed_seconds",
		"throughput_bytes_per_second", "query_seconds", "verify_seconds", "arena_capacity_bytes",
		"arena_peak_bytes", "heap_peak_bytes", "corpus_sha256", "receipt_sha256", "status", "settled",
		"arena_live_after_free"}, keys)
	require.Equal(t, "1000000", values["benchmark_words"])
	require.Equal(t, "5000096", values["input_bytes"])
	require.Equal(t, "4", values["extracted_events"])
	require.Equal(t, "2e3eb278eb4dbaecd57451a9691840315fad057434fcfb05b3e27bccbd2cd663", values["corpus_sha256"])
	require.Equal(t, "PARTIAL", values["status"])
	require.Equal(t, "40/100", values["settled"])
	require.Len(t, values["receipt_sha256"], 64)
	require.Empty(t, snapshot(t, dir))
}
