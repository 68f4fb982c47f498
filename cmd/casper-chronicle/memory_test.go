//go:build unix

// The peak RSS of a child comes from its rusage (ru_maxrss): Unix only.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/platform"
)

// rssBudget is issue 13's memory target: every command on the CONTRACT 14
// corpus peaks at 16 MiB of resident memory or less.
const rssBudget = 16 << 20

// peakRSSHelperEnv makes the test binary a small helper that runs the
// command in the variable (a JSON argument list), waits for it and prints
// its ru_maxrss in KiB. A child's ru_maxrss counts the parent's resident
// pages at the fork and exec (the kernel records the replaced memory's
// high-water mark), so a command started by this test process, grown by
// the other tests, would measure the test process; the helper is started
// before it allocates anything and is far smaller than the commands.
const peakRSSHelperEnv = "CASPER_TEST_PEAK_RSS_OF"

// init turns the test binary into the helper before TestMain builds
// anything.
func init() {
	if args := os.Getenv(peakRSSHelperEnv); args != "" {
		os.Exit(peakRSSHelper(args))
	}
}

func peakRSSHelper(argsJSON string) int {
	var args []string
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil || len(args) == 0 {
		fmt.Fprintln(os.Stderr, "peak RSS helper: bad arguments:", argsJSON)
		return 2
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "peak RSS helper:", err)
		return 2
	}
	kib, ok := platform.ChildMaxRSS(cmd.ProcessState)
	if !ok {
		fmt.Fprintln(os.Stderr, "peak RSS helper: no rusage here")
		return 2
	}
	fmt.Printf("%d %d\n", kib, cmd.ProcessState.ExitCode())
	return 0
}

// peakRSS runs binary with args in dir through the helper and returns its
// peak RSS in bytes; the command must succeed.
func peakRSS(t *testing.T, dir string, args ...string) int64 {
	t.Helper()
	argsJSON, err := json.Marshal(append([]string{binary}, args...))
	require.NoError(t, err)
	helper := exec.Command(os.Args[0])
	helper.Dir = dir
	helper.Env = append(os.Environ(), peakRSSHelperEnv+"="+string(argsJSON))
	var out, errOut bytes.Buffer
	helper.Stdout, helper.Stderr = &out, &errOut
	require.NoError(t, helper.Run(), "%v: %s", args, errOut.String())
	fields := strings.Fields(out.String())
	require.Len(t, fields, 2, "helper output %q", out.String())
	kib, err := strconv.ParseInt(fields[0], 10, 64)
	require.NoError(t, err)
	require.Equal(t, "0", fields[1], "%v exits 0: %s", args, errOut.String())
	return kib << 10
}

// TestSpec14PeakRSS runs every command of the real binary on the CONTRACT 14
// corpus (5,000,096 bytes) and fails if one peaks above rssBudget as the
// kernel counts it (wait4's ru_maxrss, the binary's mapped pages
// included). The commands measure about 9 MiB, so the margin absorbs the
// noise of page cache and GC timing.
func TestSpec14PeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary on a 5 MB corpus")
	}
	dir := t.TempDir()
	require.NoError(t, fileio.CreateSharedFrom(filepath.Join(dir, "doc.txt"), engine.WriteSpec14Corpus))
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
		peak := peakRSS(t, tc.dir, tc.args...)
		t.Logf("%-28s peak RSS %5.1f MiB", tc.name, float64(peak)/(1<<20))
		require.LessOrEqual(t, peak, int64(rssBudget), "%s peaks at %.1f MiB, the budget is 16 MiB", tc.name, float64(peak)/(1<<20))
	}
}
