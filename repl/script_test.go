package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// docNames lists the names of the workspace archive's documents.
func (w *workspace) docNames(args ...string) []string {
	w.t.Helper()
	out, _, code := w.split(strings.NewReader(""), append([]string{"docs", "--json"}, args...)...)
	require.Equal(w.t, 0, code)
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		_, rest, _ := strings.Cut(l, `"names":["`)
		name, _, _ := strings.Cut(rest, `"`)
		names = append(names, name)
	}
	return names
}

// TestScriptBail: a piped script runs every line and exits with the last
// failure's code; with --bail it stops at the first failure with its code.
func TestScriptBail(t *testing.T) {
	t.Parallel()
	script := "ingest samples/alice-bob-en.txt\nfrobnicate\nshow samples/nope.txt\ningest samples/ahmed-khalid-ar.txt\n"

	w := newWorkspace(t)
	stdout, stderr, code := w.split(strings.NewReader(script), "--bail")
	require.Equal(t, 2, code, "frobnicate is a usage error")
	require.Equal(t, "new       samples/alice-bob-en.txt  a4b3c1b7767b  5 events\n", stdout)
	require.Equal(t, "line 2: chronicle: unknown command \"frobnicate\"; `help` lists the commands\n", stderr)
	require.Equal(t, []string{"samples/alice-bob-en.txt"}, w.docNames(), "the lines after the failure did not run")

	w = newWorkspace(t)
	stdout, stderr, code = w.split(strings.NewReader(script))
	require.Equal(t, 1, code, "the last failure (show: no such document) gives the exit code")
	require.Equal(t, "new       samples/alice-bob-en.txt  a4b3c1b7767b  5 events\nnew       samples/ahmed-khalid-ar.txt  5755af8bbd9e  4 events\n", stdout)
	require.Len(t, strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"), 2, "one line per error:\n%s", stderr)
	require.Equal(t, []string{"samples/alice-bob-en.txt", "samples/ahmed-khalid-ar.txt"}, w.docNames())

	for _, tc := range []struct {
		script string
		code   int
	}{
		{"show samples/nope.txt\nfrobnicate\ndocs\n", 2},
		{"frobnicate\nshow samples/nope.txt\ndocs\n", 1},
		{"docs\n\n# comment\n   \n", 0},
		{"frobnicate\nexit\ningest samples\n", 2},
		{"docs\r\nshow samples/alice-bob-en.txt 1\r\n", 0},
		{"show samples/alice-bob-en.txt 1", 0}, // no newline at the end
		{"", 0},
	} {
		out, code := w.run(tc.script)
		require.Equal(t, tc.code, code, "%q\n%s", tc.script, out)
		require.NotContains(t, out, "> ", "no prompt when stdin is not a terminal")
	}
	out, code := w.run("frobnicate\nexit\ningest samples\n", "--bail")
	require.Equal(t, 2, code, out)
	out, code = w.run("show samples/alice-bob-en.txt 1\r\n")
	require.Equal(t, 0, code, out)
	require.Equal(t, "     1  Opening prose about Alice and Bob.\n", out)
}

// TestOneCommand: -c runs one line with the session's quoting and exit
// codes; --db before it names the archive.
func TestOneCommand(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	out, code := w.run("", "-c", "ingest samples")
	require.Equal(t, 0, code, out)
	out, code = w.run("", "-c", `query samples/alice-bob-en.txt "@settlement\tAlice\tBob" --text`)
	require.Equal(t, 0, code, out)
	require.True(t, strings.HasPrefix(out, "PARTIAL  debt 100/1 SAR (borrower Alice, lender Bob)"), out)
	out, code = w.run("", "-c", `show samples/nope.txt`)
	require.Equal(t, 1, code, out)
	out, code = w.run("", "-c", `show "samples/nope.txt`)
	require.Equal(t, 2, code, out)
	require.Equal(t, "chronicle: unterminated double quote opened at character 6; close it with \"\n", out)
	out, code = w.run("", "-c")
	require.Equal(t, 2, code, out)
	out, code = w.run("", "-c", "docs", "-c", "docs")
	require.Equal(t, 0, code, out)
	require.Equal(t, 2, strings.Count(out, "SHA256  "), "-c may be given several times:\n%s", out)
	out, code = w.run("", "-c", "exit")
	require.Equal(t, 0, code, out)
	require.Empty(t, out)

	other := filepath.Join(w.dir, "other.db")
	out, code = w.run("", "--db", other, "-c", "ingest samples/alice-bob-en.txt")
	require.Equal(t, 0, code, out)
	require.Equal(t, []string{"samples/alice-bob-en.txt"}, w.docNames("--db", other))
	out, code = w.run("ingest samples/ahmed-khalid-ar.txt\n", "--db="+other)
	require.Equal(t, 0, code, out)
	require.Len(t, w.docNames("--db", other), 2)
}

// TestNoInput: with stdin at /dev/null there is no script: chronicle
// prints help (exit 0), as `chronicle help`.
func TestNoInput(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	devnull, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer devnull.Close()
	stdout, stderr, code := w.split(devnull)
	require.Equal(t, 0, code)
	require.Empty(t, stderr)
	require.Contains(t, stdout, "commands (DOC is a document name")
	_, err = os.Stat(filepath.Join(w.dir, "chronicle.db"))
	require.ErrorIs(t, err, os.ErrNotExist, "help does not create the archive")
}

func TestParseSessionArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want sessionOpts
		ok   bool
		err  string
	}{
		{nil, sessionOpts{mode: modeAuto}, true, ""},
		{[]string{"--db", "x.db"}, sessionOpts{db: "x.db", mode: modeAuto}, true, ""},
		{[]string{"--db=x.db", "--json", "--bail"}, sessionOpts{db: "x.db", mode: modeJSON, bail: true}, true, ""},
		{[]string{"--text", "-c", "docs"}, sessionOpts{mode: modeText, steps: []step{{arg: "docs"}}}, true, ""},
		{[]string{"-c", "docs", "-f", "a.chr", "--no-init", "-c", "stats", "-f", "-"}, sessionOpts{mode: modeAuto, noInit: true, steps: []step{{arg: "docs"}, {file: true, arg: "a.chr"}, {arg: "stats"}, {file: true, arg: "-"}}}, true, ""},
		{[]string{"--no-init"}, sessionOpts{mode: modeAuto, noInit: true}, true, ""},
		{[]string{"docs"}, sessionOpts{mode: modeAuto}, false, ""},
		{[]string{"--db", "x.db", "docs"}, sessionOpts{db: "x.db", mode: modeAuto}, false, ""},
		{[]string{"--json", "query", "d", "q"}, sessionOpts{mode: modeJSON}, false, ""},
		{[]string{"--bail", "docs"}, sessionOpts{}, false, `--bail starts a session and takes no command ("docs")`},
		{[]string{"-f", "x.chr", "docs"}, sessionOpts{}, false, `-f starts a session and takes no command ("docs")`},
		{[]string{"-c"}, sessionOpts{}, false, "-c needs a command line"},
		{[]string{"-f"}, sessionOpts{}, false, "-f needs a script FILE (- reads stdin)"},
	} {
		got, ok, err := parseSessionArgs(tc.args)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "%q", tc.args)
			continue
		}
		require.NoError(t, err, "%q", tc.args)
		require.Equal(t, tc.ok, ok, "%q", tc.args)
		if ok {
			require.Equal(t, tc.want, got, "%q", tc.args)
		}
	}
}
