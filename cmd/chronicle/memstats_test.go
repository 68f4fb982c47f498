package main

import (
	"github.com/casper-chronicle/chronicle/cmd/internal/climain"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// CHRONICLE_MEMSTATS=FILE makes chronicle write its memory figures to FILE
// at exit, for a failing command too, and changes nothing else; without
// it no file is written.
func TestMemstats(t *testing.T) {
	w := newWS(t)
	samples, err := filepath.Abs("../../testdata/samples")
	require.NoError(t, err)
	stats := filepath.Join(w.dir, "memstats")
	env := []string{climain.MemstatsEnv + "=" + stats}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"ingest", samples}, 0},
		{[]string{"query", "missing-document", "Did Alice repay Bob?"}, 1},
		{[]string{"docs"}, 0},
	} {
		args := append([]string{"--db=" + w.db}, tc.args...)
		r := runBin(t, chronicleBin, w.dir, env, args...)
		require.Equal(t, tc.code, r.code, r)
		data, err := os.ReadFile(stats)
		require.NoError(t, err)
		fields := strings.Fields(string(data))
		require.Len(t, fields, 4, "%s", data)
		values := map[string]uint64{}
		for i, key := range []string{"heap_peak_bytes", "go_peak_bytes", "rss_peak_bytes", "gc_cycles"} {
			k, v, ok := strings.Cut(fields[i], "=")
			require.True(t, ok)
			require.Equal(t, key, k)
			n, err := strconv.ParseUint(v, 10, 64)
			require.NoError(t, err, fields[i])
			values[k] = n
		}
		require.Positive(t, values["heap_peak_bytes"])
		require.Greater(t, values["go_peak_bytes"], values["heap_peak_bytes"], "the heap is part of what the runtime holds")
		require.Greater(t, values["rss_peak_bytes"], uint64(1<<20))
		require.NoError(t, os.Remove(stats))

		if tc.args[0] != "ingest" {
			plain := runBin(t, chronicleBin, w.dir, nil, args...)
			require.Equal(t, plain, result{code: r.code, stdout: r.stdout, stderr: r.stderr, elapsed: plain.elapsed}, "the same command without the variable")
			require.NoFileExists(t, stats)
		}
	}
}
