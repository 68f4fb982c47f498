package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"chronicle/db/fileio"
)

// rssBudget is issue 13's memory target: every command on the SPEC 14
// corpus peaks at 16 MiB of resident memory or less.
const rssBudget = 16 << 20

// TestSpec14PeakRSS runs every command of the real binary on the SPEC 14
// corpus (5,000,096 bytes) and fails if one peaks above rssBudget, as the
// kernel counts it (wait4's ru_maxrss: the binary's mapped pages
// included). The commands measure about 9 MiB, so the margin absorbs the
// noise of another process's page cache or GC timing.
func TestSpec14PeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary on a 5 MB corpus")
	}
	dir := t.TempDir()
	require.NoError(t, fileio.CreateSharedFrom(filepath.Join(dir, "doc.txt"), writeBenchmarkCorpus))
	bench := filepath.Join(dir, "bench")
	require.NoError(t, os.Mkdir(bench, 0o755))
	store := "doc.txt.chronicle"
	query := store + ".query-0808a7686e92b03b.receipt" // "Ahmed Khalid"
	for _, tc := range []struct {
		name string
		dir  string
		args []string
	}{
		{"--benchmark", bench, []string{"--benchmark"}},
		{"ingest", dir, []string{"ingest", "doc.txt"}},
		{"ingest again (store reused)", dir, []string{"ingest", "doc.txt"}},
		{"query", dir, []string{"query", store, "Ahmed Khalid"}},
		{"find", dir, []string{"find", store, "Ahmed Saud"}},
		{"claim", dir, []string{"claim", store, "Ahmed", "PAID_TO", "Saud"}},
		{"verify INGEST", dir, []string{"verify", store + ".receipt"}},
		{"verify QUERY", dir, []string{"verify", query}},
	} {
		cmd := exec.Command(binary, tc.args...)
		cmd.Dir = tc.dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", tc.name, out)
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
		t.Logf("%-28s peak RSS %5.1f MiB", tc.name, float64(peak)/(1<<20))
		require.LessOrEqual(t, peak, int64(rssBudget), "%s peaks at %.1f MiB, the budget is 16 MiB", tc.name, float64(peak)/(1<<20))
	}
}
