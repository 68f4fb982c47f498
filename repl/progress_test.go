package repl

// Progress of the long commands: drawn on stderr when it is a terminal (a
// tmux pane, whose raw output pipe-pane records), never when it is not.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/testterm"
	"github.com/casper-chronicle/chronicle/repl/shellwords"
	"github.com/casper-chronicle/chronicle/repl/termtext"

	"github.com/stretchr/testify/require"
)

// progressMark starts every redraw of a progress line.
const progressMark = "\r\x1b[K["

// TestProgressOnTerminal: check, reindex, import and claims check draw
// their progress line on a terminal and clear it; their results stay.
func TestProgressOnTerminal(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	prepareProgress(t, w)
	tm := newTerm(t, w)
	log := filepath.Join(w.dir, "pane.log")
	// The commands wait for "go", so that pipe-pane records from the start.
	script := "while [ ! -e go ]; do sleep 0.05; done; " +
		chronicleBin + " check; " + chronicleBin + " reindex; " +
		chronicleBin + " import old/alice-bob-en.txt.chronicle old2/ahmed-khalid-ar.txt.chronicle; " +
		chronicleBin + " claims check claims.jsonl --text; echo finished; sleep 60"
	tm.Start(200, 50, "sh -c "+shellwords.Quote(script))
	out, err := tm.Tmux("pipe-pane", "-t", testterm.Session, "-o", "cat >> "+shellwords.Quote(log))
	require.NoError(t, err, out)
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "go"), nil, 0o644))
	s := tm.waitFor("the commands to finish", func(s string) bool { return strings.Contains(s, "finished") })
	require.Contains(t, s, "ok: 2 documents checked in chronicle.db")
	require.Contains(t, s, "reindexed 2 documents in chronicle.db")
	require.Contains(t, s, "8 claims: 4 supported, 1 contradicted, 3 unverified")
	raw, err := os.ReadFile(log)
	require.NoError(t, err)
	for _, want := range []string{
		"] 0/2 samples/ahmed-khalid-ar.txt", "] 1/2 samples/alice-bob-en.txt", // check
		"] 2/2 documents indexed in chronicle.db",  // reindex
		"] 1/2 old2/ahmed-khalid-ar.txt.chronicle", // import
		"] 3/4 result on ",                         // claims check
	} {
		require.Contains(t, string(raw), want, "progress on the terminal")
	}
	require.Contains(t, string(raw), progressMark)
}

// TestProgressNotPiped: with stderr not a terminal the same commands print
// no progress at all.
func TestProgressNotPiped(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	prepareProgress(t, w)
	for _, argv := range [][]string{
		{"check"}, {"reindex"}, {"import", "old/alice-bob-en.txt.chronicle", "old2/ahmed-khalid-ar.txt.chronicle"},
		{"claims", "check", "claims.jsonl"}, {"ingest", "samples"},
	} {
		stdout, stderr, code := w.split(nil, argv...)
		require.Equal(t, 0, code, "%q: %s%s", argv, stdout, stderr)
		require.Empty(t, stderr, "%q", argv)
		require.NotContains(t, stdout, "\x1b[K", "%q", argv)
	}
}

// prepareProgress ingests the samples, exports both as stores to import
// again and copies a claims file with four result lines.
func prepareProgress(t *testing.T, w *workspace) {
	t.Helper()
	for _, argv := range [][]string{
		{"ingest", "samples"},
		{"export", "samples/alice-bob-en.txt", "old"},
		{"export", "samples/ahmed-khalid-ar.txt", "old2"},
	} {
		out, code := w.run("", argv...)
		require.Equal(t, 0, code, "%q: %s", argv, out)
	}
	claims, err := os.ReadFile("../testdata/claims/agent-answer.jsonl")
	require.NoError(t, err)
	// The claims file names the documents by their repository paths.
	text := strings.ReplaceAll(string(claims), "testdata/samples/", "samples/")
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "claims.jsonl"), []byte(text), 0o644))
}

// TestProgressLine: the line is sanitized and cut to 78 columns by display
// width; a dumb terminal gets spaces instead of the erase-line sequence.
func TestProgressLine(t *testing.T) {
	for _, term := range []string{"xterm", "dumb"} {
		t.Run(term, func(t *testing.T) {
			t.Setenv("TERM", term)
			var out strings.Builder
			p := newProgress(&Env{Stderr: &out, StderrTTY: true}, 4)
			p.step(1, "evil\x1b[2Jname.txt")
			p.step(2, strings.Repeat("ملف", 40)+".txt")
			p.clear()
			draws := strings.Split(out.String(), "\r")[1:]
			if term == "dumb" {
				require.NotContains(t, out.String(), "\x1b")
				require.Len(t, draws, 4, "%q", out.String()) // two lines, the blanking, the return
				require.Equal(t, strings.Repeat(" ", termtext.Width(draws[1], 0)), draws[2])
				require.Empty(t, draws[3])
			} else {
				require.Len(t, draws, 3, "%q", out.String())
				for i := range draws {
					draws[i] = strings.TrimPrefix(draws[i], "\x1b[K")
				}
				require.Empty(t, draws[2])
			}
			require.Equal(t, `[######..................] 1/4 evil\x1b[2Jname.txt`, strings.TrimRight(draws[0], " "))
			require.Equal(t, 78, termtext.Width(draws[1], 0))
			require.True(t, strings.HasPrefix(draws[1], "[############............] 2/4 ملفملف"))
		})
	}
	var piped strings.Builder
	newProgress(&Env{Stderr: &piped}, 4).step(1, "x")
	require.Empty(t, piped.String())
}
