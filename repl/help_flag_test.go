package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// helpFlagLines are the spellings of a request for command name's help
// that must print what `help NAME` prints: -h and --help, alone, after
// arguments and a flag that would be wrong, and on a verb of a command
// that has verbs.
func helpFlagLines(c *command) []string {
	lines := []string{c.name + " --help", c.name + " -h", c.name + " one two --bogus --help", "--help " + c.name}
	if c.verbs != nil {
		for _, v := range c.verbs() {
			// "claims VERB ARGS  summary"
			lines = append(lines, c.name+" "+strings.Fields(v)[1]+" -h")
		}
	}
	return lines
}

// TestHelpFlagSession: in a session (a script on stdin), every command of
// the table given -h or --help prints exactly what `help COMMAND` prints,
// in each output mode, exits 0 and opens no archive (none is created).
func TestHelpFlagSession(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	modes := []string{".mode auto", ".mode text", ".mode json", ".mode table"}
	script := func(line string) string {
		var b strings.Builder
		for _, m := range modes {
			b.WriteString(m + "\n" + line + "\n")
		}
		return b.String()
	}
	for _, c := range table {
		t.Run(c.name, func(t *testing.T) {
			want, code := w.run(script("help " + c.name))
			require.Equal(t, 0, code, want)
			require.True(t, strings.HasPrefix(want, "usage: "+strings.TrimSpace(c.name+" "+c.args)+"\n"), want)
			require.Contains(t, want, `{"name":"`+c.name+`",`, "the JSON modes print help's JSON line")
			for _, line := range helpFlagLines(c) {
				got, code := w.run(script(line))
				require.Equal(t, 0, code, "%s:\n%s", line, got)
				require.Equal(t, want, got, line)
			}
		})
	}
	_, err := os.Stat(filepath.Join(w.dir, "chronicle.db"))
	require.ErrorIs(t, err, os.ErrNotExist, "asking for help created the archive")
}

// TestTerminalHelpFlag: in the REPL on a terminal, `COMMAND --help` and
// `COMMAND -h` show the screen `help COMMAND` shows, for every command of
// the table, with no archive (the prompt still counts none afterwards).
func TestTerminalHelpFlag(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	tm := newTerm(t, w)
	tm.start(100, 60)
	const prompt0 = "chronicle.db (0 docs)> "
	tm.waitPrompt(prompt0, "")
	// output is the screen after typing line: what the command printed,
	// without the typed line and the next prompt.
	output := func(line string) string {
		t.Helper()
		tm.Keys("C-l")
		tm.waitFor("a clear screen", func(s string) bool { return s == strings.TrimSpace(prompt0) })
		tm.Type(line)
		tm.Keys("Enter")
		s := tm.waitFor("the prompt after "+line, func(s string) bool {
			return strings.Count(s, strings.TrimSpace(prompt0)) == 2 && lastLine(s)+" " == prompt0
		})
		first, rest, _ := strings.Cut(s, "\n")
		require.Equal(t, prompt0+line, first)
		return strings.TrimSuffix(rest, strings.TrimSpace(prompt0))
	}
	for _, c := range table {
		want := output("help " + c.name)
		require.True(t, strings.HasPrefix(want, "usage: "+strings.TrimSpace(c.name+" "+c.args)+"\n"), "help %s:\n%s", c.name, want)
		for _, line := range helpFlagLines(c) {
			require.Equal(t, want, output(line), line)
		}
	}
	tm.Keys("C-d")
	tm.waitExit()
	_, err := os.Stat(filepath.Join(w.dir, "chronicle.db"))
	require.ErrorIs(t, err, os.ErrNotExist, "asking for help created the archive")
}
