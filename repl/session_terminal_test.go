package repl

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTerminalSessionCommands: on a real terminal the init file runs
// before the first prompt (its failing line reported as INITPATH:LINE, the
// REPL going on); .help shows the session help; Tab completes .timer;
// .timer on prints the time after a command; a typo gets a did-you-mean;
// \q leaves. With --no-init the init file is skipped.
func TestTerminalSessionCommands(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	out, code := w.run("ingest samples\n")
	require.Equal(t, 0, code, out)
	initFile := filepath.Join(w.dir, "config", "chronicle", "init")
	require.NoError(t, os.MkdirAll(filepath.Dir(initFile), 0o700))
	require.NoError(t, os.WriteFile(initFile, []byte("# runs before the first prompt\n.mode text\nfrobnicate\nexit\nshow samples/alice-bob-en.txt 7\n"), 0o600))

	tm := newTerm(t, w)
	tm.start(200, 50)
	textPrompt := "chronicle.db (2 docs) text> "
	s := tm.waitPrompt(textPrompt, "")
	require.Contains(t, s, initFile+":3: chronicle: unknown command \"frobnicate\"; `help` lists the commands\n")
	require.Contains(t, s, initFile+":4: chronicle: exit in the init file is ignored; the session goes on\n")
	require.Contains(t, s, "     7  Closing line mentions Alice again.\n", "the lines after the failing one and the exit ran")

	tm.Keys("C-l")
	tm.Type(".help")
	tm.Keys("Enter")
	s = tm.waitFor("the session help", func(s string) bool {
		return strings.Contains(s, "Tab completes.") && lastLine(s)+" " == textPrompt
	})
	require.Contains(t, s, "  .read FILE          run FILE's lines as a script; errors name FILE:LINE")

	tm.Keys("C-l")
	tm.Type(".tim")
	tm.Keys("Tab")
	tm.waitPrompt(textPrompt, ".timer ")
	tm.Type("on")
	tm.Keys("Enter")
	tm.waitPrompt(textPrompt, "")
	tm.Type("show samples/alice-bob-en.txt 1")
	tm.Keys("Enter")
	s = tm.waitFor("the time", func(s string) bool { return strings.Contains(s, "time: ") && lastLine(s)+" " == textPrompt })
	require.Regexp(t, regexp.MustCompile(`     1  Opening prose about Alice and Bob.\ntime: \d+\.\d ms\n`), s)

	tm.Type("fnd Saud")
	tm.Keys("Enter")
	s = tm.waitFor("the suggestion", func(s string) bool { return strings.Contains(s, "did you mean") && lastLine(s)+" " == textPrompt })
	require.Contains(t, s, "chronicle: unknown command \"fnd\"; did you mean \"find\"? `help` lists the commands\n")
	tm.Type(`\q`)
	tm.Keys("Enter")
	tm.waitExit()

	// --no-init: the plain prompt, nothing of the init file
	tm.start(200, 50, "--no-init")
	s = tm.waitPrompt(prompt2, "")
	require.NotContains(t, s, "frobnicate")
	tm.Type(".quit")
	tm.Keys("Enter")
	tm.waitExit()
}
