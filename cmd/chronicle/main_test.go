package main

// End-to-end tests of the `chronicle` command: the real binaries (chronicle
// and casper-chronicle) are built once in TestMain and run with os/exec in
// temporary directories, with the golden clock (SOURCE_DATE_EPOCH) and an
// archive inside the test's directory.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/casper-chronicle/chronicle/cmd/internal/climain"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/internal/testbin"

	"github.com/stretchr/testify/require"
)

// epoch is the golden clock of testdata/golden (transcript.json fixed_time).
const epoch = "1750000000"

// goldenDir holds the original tool's golden cases.
const goldenDir = "../../testdata/golden"

// The binaries under test, built once.
var chronicleBin, casperBin string

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, map[string]*string{"chronicle": &chronicleBin, "casper-chronicle": &casperBin, "chronicle-extract": new(string)}))
}

// result is what one run of a binary produced.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// baseEnv is the process environment without the variables the tests
// control, plus the golden clock.
func baseEnv() []string {
	return append(testbin.Environ("CHRONICLE_DB", "SOURCE_DATE_EPOCH", climain.MemstatsEnv), "SOURCE_DATE_EPOCH="+epoch)
}

// runBin runs bin in dir with baseEnv plus extra and returns its outcome.
func runBin(t testing.TB, bin, dir string, extra []string, args ...string) result {
	t.Helper()
	r, err := runBinErr(bin, dir, extra, args...)
	require.NoError(t, err)
	return r
}

// runBinErr is runBin for goroutines: it reports a failure to run (not a
// non-zero exit) as an error.
func runBinErr(bin, dir string, extra []string, args ...string) (result, error) {
	return runStdin(bin, dir, extra, nil, args...)
}

// runLimit is how long a run of a binary may take before a test gives up
// on it.
const runLimit = 30 * time.Second

// runStdin is runBinErr with stdin (nil: none); a run is stopped after
// 30 s, which is an error too.
func runStdin(bin, dir string, extra []string, stdin io.Reader, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), extra...)
	cmd.Stdin = stdin
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	ran := cmd.Run()
	code, err := testbin.ExitCode(ran)
	r := result{code: code, stdout: out.String(), stderr: errOut.String(), elapsed: time.Since(start)}
	if ran != nil && err == nil {
		err = ctx.Err() // killed at the deadline
	}
	if err != nil {
		return r, fmt.Errorf("running %s %q: %w", filepath.Base(bin), args, err)
	}
	return r, nil
}

// ws is one test's working directory with its own archive.
type ws struct {
	t   testing.TB
	dir string
	db  string // absolute archive path
}

func newWS(t testing.TB) *ws {
	dir := t.TempDir()
	return &ws{t: t, dir: dir, db: filepath.Join(dir, "archive.db")}
}

// run runs chronicle on the workspace archive (--db=PATH as a global flag
// before the command name).
func (w *ws) run(args ...string) result {
	w.t.Helper()
	return runBin(w.t, chronicleBin, w.dir, nil, append([]string{"--db=" + w.db}, args...)...)
}

// raw runs chronicle with exactly args and the extra environment.
func (w *ws) raw(extra []string, args ...string) result {
	w.t.Helper()
	return runBin(w.t, chronicleBin, w.dir, extra, args...)
}

// ok runs chronicle on the workspace archive, requires exit 0 and returns
// stdout.
func (w *ws) ok(args ...string) string {
	w.t.Helper()
	r := w.run(args...)
	require.Equal(w.t, 0, r.code, "chronicle %q\n%s", args, r)
	return r.stdout
}

// casper runs casper-chronicle in the workspace directory.
func (w *ws) casper(args ...string) result {
	w.t.Helper()
	return runBin(w.t, casperBin, w.dir, nil, args...)
}

// write creates a file (and its directories) under the workspace.
func (w *ws) write(name, content string) string {
	w.t.Helper()
	path := filepath.Join(w.dir, name)
	require.NoError(w.t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(w.t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// read returns a file of the workspace.
func (w *ws) read(name string) []byte {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.dir, name))
	require.NoError(w.t, err)
	return data
}

// copyGolden copies a golden case file into the workspace under name.
func (w *ws) copyGolden(caseName, file, name string) {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, caseName, file))
	require.NoError(w.t, err)
	w.write(name, string(data))
}

// docInfo is one line of `docs --json`.
type docInfo struct {
	SHA256     string   `json:"document_sha256"`
	Names      []string `json:"names"`
	Size       int64    `json:"size"`
	Events     int      `json:"events"`
	ImportedAt uint64   `json:"imported_at"`
	Version    int      `json:"store_version"`
}

// docs lists the archive's documents in import order.
func (w *ws) docs() []docInfo {
	w.t.Helper()
	var out []docInfo
	for _, line := range lines(w.ok("docs", "--json")) {
		var d docInfo
		require.NoError(w.t, json.Unmarshal([]byte(line), &d), line)
		out = append(out, d)
	}
	return out
}

// receiptInfo is one line of `receipts --json`.
type receiptInfo struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Document string `json:"document_sha256"`
	Question string `json:"question"`
	Receipt  string `json:"receipt"`
	Verdict  string `json:"verdict"`
}

func (w *ws) receipts(args ...string) []receiptInfo {
	w.t.Helper()
	var out []receiptInfo
	for _, line := range lines(w.ok(append([]string{"receipts", "--json"}, args...)...)) {
		var r receiptInfo
		require.NoError(w.t, json.Unmarshal([]byte(line), &r), line)
		out = append(out, r)
	}
	return out
}

// lines splits output into its LF-terminated lines (none for "").
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// requireOneLineError checks a failure: nothing on stdout, one stderr line
// starting "chronicle CMD: " and matching every pattern.
func requireOneLineError(t testing.TB, r result, code int, cmd string, patterns ...string) {
	t.Helper()
	require.Equal(t, code, r.code, "%s", r)
	require.Empty(t, r.stdout, "a failed command prints no result")
	require.Len(t, lines(r.stderr), 1, "one error line: %q", r.stderr)
	require.True(t, strings.HasSuffix(r.stderr, "\n"))
	require.True(t, strings.HasPrefix(r.stderr, "chronicle "+cmd+": "), "stderr %q", r.stderr)
	for _, p := range patterns {
		require.Regexp(t, regexp.MustCompile(p), r.stderr)
	}
}

// firstLine is the first line of s with its LF.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line + "\n"
}

// exitCodeWithin waits for the started cmd to end, at most limit (then it
// kills it and fails the test: what names the command), and returns its
// exit code, which must come from an exit (not a start or wait error).
func exitCodeWithin(t *testing.T, cmd *exec.Cmd, limit time.Duration, what string) int {
	t.Helper()
	err := testbin.WaitWithin(cmd, limit)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", what)
	return exit.ExitCode()
}

// start starts chronicle in the workspace with baseEnv: its stdout is
// the pipe returned, its stderr kept in the buffer; a process still
// running when the test ends is killed.
func (w *ws) start(t *testing.T, args ...string) (*exec.Cmd, io.Reader, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(chronicleBin, args...)
	cmd.Dir = w.dir
	cmd.Env = baseEnv()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, stdout, &stderr
}

// archiveBytes is the archive file as it is now.
func (w *ws) archiveBytes() []byte {
	w.t.Helper()
	data, err := os.ReadFile(w.db)
	require.NoError(w.t, err)
	return data
}
