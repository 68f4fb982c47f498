package repl

// The REPL on a real terminal: chronicle runs in a tmux pane (a
// pseudo-terminal, internal/testterm), keys are sent with send-keys and
// the screen is read back with capture-pane. Each test has its own tmux
// server (socket in a temporary directory) that it kills at the end.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/internal/testterm"
	"github.com/casper-chronicle/chronicle/repl/shellwords"

	"github.com/stretchr/testify/require"
)

// term is one tmux server (testterm) with one session running chronicle
// in the workspace.
type term struct {
	*testterm.Term
	t *testing.T
	w *workspace
}

// newTerm starts a tmux server for the workspace; the tests skip only when
// the tmux binary is missing.
func newTerm(t *testing.T, w *workspace, extraEnv ...string) *term {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	return &term{Term: testterm.New(t, w.dir, w.env(extraEnv...)), t: t, w: w}
}

// start runs chronicle in a new session of the given size.
func (tm *term) start(width, height int, args ...string) {
	tm.t.Helper()
	line := chronicleBin
	for _, a := range args {
		line += " " + shellwords.Quote(a)
	}
	tm.Start(width, height, line)
}

// lastLine is the last non-blank line of a screen, without trailing
// spaces.
func lastLine(s string) string {
	return strings.TrimRight(s[strings.LastIndexByte(s, '\n')+1:], " ")
}

// waitFor polls the screen until ok holds (10 s at most).
func (tm *term) waitFor(what string, ok func(screen string) bool) string {
	tm.t.Helper()
	return tm.Poll(what, 10*time.Second, tm.Screen, ok)
}

// waitForIn polls capture until ok holds (10 s at most).
func (tm *term) waitForIn(capture func() string, what string, ok func(screen string) bool) string {
	tm.t.Helper()
	return tm.Poll(what, 10*time.Second, capture, ok)
}

// waitPrompt waits until the last line is exactly prompt plus typed.
func (tm *term) waitPrompt(prompt, typed string) string {
	tm.t.Helper()
	want := strings.TrimRight(prompt+typed, " ")
	return tm.waitFor(fmt.Sprintf("the line %q", want), func(s string) bool { return lastLine(s) == want })
}

// waitExit waits until chronicle has left (its session is gone).
func (tm *term) waitExit() {
	tm.t.Helper()
	tm.WaitGone("chronicle", 10*time.Second)
}

const prompt2 = "chronicle.db (2 docs)> "

// TestTerminal: the guide and prompt; a query on the Arabic sample shows
// PARTIAL and its evidence lines; Ctrl-C on a half-typed line gives an
// empty prompt; Tab completes a document name; Ctrl-D leaves; the history
// (without the line typed after a space) survives a restart.
func TestTerminal(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	out, code := w.run("ingest samples\n")
	require.Equal(t, 0, code, out)
	tm := newTerm(t, w)
	tm.start(200, 50)
	s := tm.waitPrompt(prompt2, "")
	require.Contains(t, s, "Chronicle: the archive chronicle.db holds 2 documents with 9 events.")
	require.Contains(t, s, "  query samples/ahmed-khalid-ar.txt 'هل سدد أحمد دين خالد؟'")
	require.Contains(t, s, "`help` lists the commands")

	tm.Type(`query samples/ahmed-khalid-ar.txt "هل سدد أحمد دين خالد؟"`)
	tm.Keys("Enter")
	s = tm.waitFor("the answer", func(s string) bool { return strings.Contains(s, "PARTIAL") && lastLine(s)+" " == prompt2 })
	require.Contains(t, s, "PARTIAL  debt 100/1 SAR (borrower أحمد, lender خالد)  settled 40/1")
	for _, l := range []string{"  samples/ahmed-khalid-ar.txt:2  أقر أحمد", "  samples/ahmed-khalid-ar.txt:4  أكد خالد",
		"+ samples/ahmed-khalid-ar.txt:6  أكد سعود", "  samples/ahmed-khalid-ar.txt:8  حوّل أحمد"} {
		require.Contains(t, s, l)
	}

	// Ctrl-C drops the half-typed line.
	tm.Type("docs --jso")
	tm.waitPrompt(prompt2, "docs --jso")
	tm.Keys("C-c")
	s = tm.waitPrompt(prompt2, "")
	require.Contains(t, s, prompt2+"docs --jso^C\n")
	tm.Type("show samples/alice-bob-en.txt 3")
	tm.Keys("Enter")
	tm.waitFor("line 3", func(s string) bool { return strings.Contains(s, "     3  Unrelated narrative line.") })
	tm.waitPrompt(prompt2, "")

	// Tab completes a document name.
	tm.Type("show samples/al")
	tm.Keys("Tab")
	tm.waitPrompt(prompt2, "show samples/alice-bob-en.txt ")
	tm.Type("1")
	tm.Keys("Enter")
	tm.waitFor("line 1", func(s string) bool { return strings.Contains(s, "     1  Opening prose about Alice and Bob.") })
	tm.waitPrompt(prompt2, "")

	// A line typed after a space stays out of the history.
	tm.Type(" show samples/alice-bob-en.txt 7")
	tm.Keys("Enter")
	tm.waitFor("line 7", func(s string) bool { return strings.Contains(s, "     7  Closing line mentions Alice again.") })
	tm.waitPrompt(prompt2, "")
	tm.Keys("C-d")
	tm.waitExit()

	hist, err := os.ReadFile(filepath.Join(w.dir, "config", "chronicle", "history"))
	require.NoError(t, err)
	require.Equal(t, `query samples/ahmed-khalid-ar.txt "هل سدد أحمد دين خالد؟"`+"\nshow samples/alice-bob-en.txt 3\nshow samples/alice-bob-en.txt 1\n", string(hist))

	// The history survives a restart: Up brings the last lines back.
	tm.start(200, 50)
	tm.waitPrompt(prompt2, "")
	tm.Keys("Up")
	tm.waitPrompt(prompt2, "show samples/alice-bob-en.txt 1")
	tm.Keys("Up")
	tm.waitPrompt(prompt2, "show samples/alice-bob-en.txt 3")
	tm.Keys("Up")
	tm.waitPrompt(prompt2, `query samples/ahmed-khalid-ar.txt "هل سدد أحمد دين خالد؟"`)
	tm.Keys("Enter")
	tm.waitFor("the answer again", func(s string) bool {
		return strings.Count(s, "PARTIAL  debt 100/1 SAR") == 1 && lastLine(s)+" " == prompt2
	})
	tm.Type("exit")
	tm.Keys("Enter")
	tm.waitExit()
}

// TestTerminalInterrupt: Ctrl-C during a batch ingest stops it after the
// current group (which commits) and returns to the prompt; the documents
// ingested so far are whole (check passes). Groups of 20 keep the lines
// printed after the interruption on the 50-line screen.
func TestTerminalInterrupt(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	const n = 400
	many := filepath.Join(w.dir, "many")
	require.NoError(t, os.MkdirAll(many, 0o755))
	for i := range n {
		require.NoError(t, os.WriteFile(filepath.Join(many, fmt.Sprintf("note-%03d.txt", i)), []byte(fmt.Sprintf("note %d\n", i)), 0o644))
	}
	tm := newTerm(t, w)
	tm.start(200, 50)
	tm.waitPrompt("chronicle.db (0 docs)> ", "")
	tm.Type("ingest many --commit-every 20")
	tm.Keys("Enter")
	progress := regexp.MustCompile(`\] [1-9][0-9]*/400 (\d+ docs/s [0-9.]+ MB/s  )?many/`)
	tm.waitFor("the progress bar", func(s string) bool { return progress.MatchString(s) })
	tm.Keys("C-c")
	s := tm.waitFor("the interruption", func(s string) bool { return strings.Contains(s, "chronicle ingest: interrupted; ") })
	require.Contains(t, s, "chronicle: interrupting; the command stops at its next safe point")
	m := regexp.MustCompile(`interrupted; (\d+) of 400 files not ingested`).FindStringSubmatch(s)
	require.NotNil(t, m, s)
	var left int
	fmt.Sscan(m[1], &left)
	require.Greater(t, left, 0)
	tm.waitPrompt(fmt.Sprintf("chronicle.db (%d docs)> ", n-left), "")
	tm.Type("check")
	tm.Keys("Enter")
	tm.waitFor("check", func(s string) bool { return strings.Contains(s, fmt.Sprintf("ok: %d documents checked", n-left)) })
	tm.Type("quit")
	tm.Keys("Enter")
	tm.waitExit()
}

// TestTerminalPager: with $PAGER set, an output taller than the terminal
// goes through it and a short one does not; the prompt follows the
// document count; the guide of an empty archive says how to start.
func TestTerminalPager(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	pager := filepath.Join(w.dir, "pager.sh")
	require.NoError(t, os.WriteFile(pager, []byte("#!/bin/sh\nsed 's/^/| /'\n"), 0o755))
	tm := newTerm(t, w, "PAGER="+pager)
	tm.start(120, 12)
	s := tm.waitPrompt("chronicle.db (0 docs)> ", "")
	require.Contains(t, s, "Chronicle: the archive chronicle.db has no documents yet.")
	tm.Type("ingest samples")
	tm.Keys("Enter")
	tm.waitPrompt(prompt2, "")
	tm.Keys("C-l") // clear the screen
	tm.Type("docs")
	tm.Keys("Enter")
	s = tm.waitFor("docs", func(s string) bool { return strings.Contains(s, "SHA256  ") && lastLine(s)+" " == prompt2 })
	require.Contains(t, s, "\nSHA256  ", "three lines: not paged")
	tm.Type("help")
	tm.Keys("Enter")
	s = tm.waitFor("help through the pager", func(s string) bool {
		return strings.Contains(s, "|   130  interrupted") && lastLine(s)+" " == prompt2
	})
	require.Contains(t, s, "|   Ctrl-C clears the line or interrupts a running command; Tab completes.")
	tm.Keys("C-d")
	tm.waitExit()
}

// TestTerminalClaims: the claims commands in the REPL, completed with Tab:
// the readable table with the contradicted claim's evidence lines, then
// the rows verified.
func TestTerminalClaims(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	out, code := w.run("ingest samples\n")
	require.Equal(t, 0, code, out)
	answer, err := os.ReadFile("../testdata/claims/agent-answer.jsonl")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "answer.jsonl"),
		[]byte(strings.ReplaceAll(string(answer), "testdata/samples/", "samples/")), 0o644))
	tm := newTerm(t, w)
	tm.start(200, 60)
	tm.waitPrompt(prompt2, "")
	tm.Type("claims ch")
	tm.Keys("Tab")
	tm.waitPrompt(prompt2, "claims check ")
	tm.Type("ans")
	tm.Keys("Tab")
	tm.waitPrompt(prompt2, "claims check answer.jsonl ")
	tm.Type("--out rows.jsonl")
	tm.Keys("Enter")
	s := tm.waitFor("the claims table", func(s string) bool {
		return strings.Contains(s, "8 claims: 4 supported, 1 contradicted, 3 unverified") && lastLine(s)+" " == prompt2
	})
	require.Contains(t, s, `2      contradicted  conflict           "100/1"               "40/1"`)
	require.Contains(t, s, "     + samples/alice-bob-en.txt:5  @chronicle")
	require.Contains(t, s, "     + samples/ahmed-khalid-ar.txt:6  أكد سعود استلام مبلغ 40 ريال سعودي من أحمد في اليوم الثاني.")
	tm.Type("claims verify rows.jsonl")
	tm.Keys("Enter")
	tm.waitFor("VALID", func(s string) bool { return lastLine(s)+" " == prompt2 && strings.Contains(s, "\nVALID\n") })
	tm.Keys("C-d")
	tm.waitExit()
}

// TestTerminalInterruptCheck: Ctrl-C stops a long check before its next
// document and the prompt returns with nothing of the session holding the
// archive: an ingest right after it gets in at once.
func TestTerminalInterruptCheck(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	many := filepath.Join(w.dir, "many")
	require.NoError(t, os.MkdirAll(many, 0o755))
	line := strings.Repeat("alpha beta gamma delta evidence ", 3) + "\n"
	for i := range 40 {
		require.NoError(t, os.WriteFile(filepath.Join(many, fmt.Sprintf("doc-%02d.txt", i)),
			[]byte(fmt.Sprintf("document %d\n", i)+strings.Repeat(line, 6000)), 0o644))
	}
	out, code := w.run("ingest many\n")
	require.Equal(t, 0, code, out)
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "late.txt"), []byte("late\n"), 0o644))
	tm := newTerm(t, w)
	tm.start(200, 50)
	prompt := "chronicle.db (40 docs)> "
	tm.waitPrompt(prompt, "")
	tm.Type("check")
	tm.Keys("Enter")
	tm.waitFor("the progress bar", func(s string) bool { return strings.Contains(s, "/40 many/") })
	tm.Keys("C-c")
	s := tm.waitFor("the interruption", func(s string) bool { return strings.Contains(s, "chronicle check: check interrupted after ") })
	require.Contains(t, s, "chronicle: interrupting; the command stops at its next safe point")
	m := regexp.MustCompile(`check interrupted after (\d+) of 40 documents`).FindStringSubmatch(s)
	require.NotNil(t, m, s)
	tm.waitPrompt(prompt, "")
	tm.Type("ingest late.txt --wait=200ms")
	tm.Keys("Enter")
	tm.waitFor("the ingest", func(s string) bool { return strings.Contains(s, "new       late.txt") })
	tm.waitPrompt("chronicle.db (41 docs)> ", "")
	tm.Type("quit")
	tm.Keys("Enter")
	tm.waitExit()
}
