package repl

// The REPL is tested through the real `chronicle` binary, built once in
// TestMain: piped scripts (transcripts, --bail), -c, and the interactive
// REPL under a pseudo-terminal (tmux).

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/internal/testbin"

	"github.com/stretchr/testify/require"
)

// epoch is the golden clock (SOURCE_DATE_EPOCH) of every test archive.
const epoch = "1750000000"

// chronicleBin is the binary under test.
var chronicleBin string

func TestMain(m *testing.M) {
	os.Exit(testbin.Main(m, map[string]*string{"chronicle": &chronicleBin, "chronicle-extract": new(string)}))
}

// workspace is a temporary directory with the sample stories in samples/,
// the session scripts of testdata/scripts in scripts/,
// its own config directory, and (once something is ingested)
// ./chronicle.db.
type workspace struct {
	t   testing.TB
	dir string
}

func newWorkspace(t testing.TB) *workspace {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(dir, "samples"), os.DirFS("../testdata/samples")))
	// the session scripts that transcripts .read (testdata/scripts)
	require.NoError(t, os.CopyFS(filepath.Join(dir, "scripts"), os.DirFS("testdata/scripts")))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "config"), 0o700))
	return &workspace{t: t, dir: dir}
}

// env is the process environment of the binary: no variable the tests
// control is inherited; the golden clock; HOME and XDG_CONFIG_HOME in the
// workspace.
func (w *workspace) env(extra ...string) []string {
	env := testbin.Environ("CHRONICLE_DB", "SOURCE_DATE_EPOCH", "PAGER", "XDG_CONFIG_HOME", "HOME", "TMUX", "TMUX_PANE")
	env = append(env, "SOURCE_DATE_EPOCH="+epoch, "HOME="+w.dir, "XDG_CONFIG_HOME="+filepath.Join(w.dir, "config"))
	return append(env, extra...)
}

// run runs chronicle in the workspace with stdin and returns the combined
// stdout and stderr (one pipe, so their order is kept) and the exit code.
func (w *workspace) run(stdin string, args ...string) (string, int) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chronicleBin, args...)
	cmd.Dir = w.dir
	cmd.Env = w.env()
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	code, err := testbin.ExitCode(cmd.Run())
	require.NoError(w.t, err, "running chronicle %q", args)
	return out.String(), code
}

// split runs chronicle with separate stdout and stderr.
func (w *workspace) split(stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	cmd := exec.Command(chronicleBin, args...)
	cmd.Dir = w.dir
	cmd.Env = w.env()
	cmd.Stdin = stdin
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code, err := testbin.ExitCode(cmd.Run())
	require.NoError(w.t, err, "running chronicle %q", args)
	return out.String(), errOut.String(), code
}
