package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sampleWS is a workspace with the two sample stories ingested into its
// archive and copied to samples/.
func sampleWS(t *testing.T) *ws {
	t.Helper()
	w := newWS(t)
	require.NoError(t, os.CopyFS(filepath.Join(w.dir, "samples"), os.DirFS("../../testdata/samples")))
	w.ok("ingest", "samples")
	return w
}

const line1 = "     1  Opening prose about Alice and Bob.\n"
const line7 = "     7  Closing line mentions Alice again.\n"

// TestScriptFile: -f FILE runs a script; a failing line is reported as
// FILE:LINE and the rest runs (exit code of the last failure); --bail
// stops at the first failure with its code; -f - reads stdin, whose
// lines are `line N`; a script that cannot be opened names -f.
func TestScriptFile(t *testing.T) {
	t.Parallel()
	w := sampleWS(t)
	w.write("s.chr", "# a script\nshow samples/alice-bob-en.txt 1 --text\nshow samples/nope.txt\nfnd Saud\nshow samples/alice-bob-en.txt 7 --text\n")
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr []string // prefixes of the stderr lines
	}{
		{"every line runs", []string{"-f", "s.chr"}, "", 2, line1 + line7,
			[]string{"s.chr:3: chronicle show: \"samples/nope.txt\": no such document", "s.chr:4: chronicle: unknown command \"fnd\"; did you mean \"find\"?"}},
		{"--bail stops at the first failure", []string{"--bail", "-f", "s.chr"}, "", 1, line1,
			[]string{"s.chr:3: chronicle show: \"samples/nope.txt\": no such document"}},
		{"--bail after -f", []string{"-f", "s.chr", "--bail"}, "", 1, line1,
			[]string{"s.chr:3: chronicle show: "}},
		{"-f - is stdin", []string{"-f", "-"}, "show samples/alice-bob-en.txt 1 --text\nfrobnicate\n", 2, line1,
			[]string{"line 2: chronicle: unknown command \"frobnicate\""}},
		{"a missing script", []string{"-f", "nope.chr"}, "", 1, "",
			[]string{"chronicle -f: nope.chr: no such file"}},
		{"a directory", []string{"-f", "samples"}, "", 1, "",
			[]string{"chronicle -f: samples: not a regular file"}},
		{"-f without FILE", []string{"-f"}, "", 2, "",
			[]string{"chronicle: -f needs a script FILE (- reads stdin)"}},
		{"-f with a command", []string{"-f", "s.chr", "docs"}, "", 2, "",
			[]string{"chronicle: -f starts a session and takes no command (\"docs\")"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.stdin(tc.stdin, append([]string{"--db=" + w.db}, tc.args...)...)
			require.Equal(t, tc.code, r.code, "%s", r)
			require.Equal(t, tc.stdout, r.stdout)
			got := lines(r.stderr)
			require.Len(t, got, len(tc.stderr), "%s", r)
			for i, p := range tc.stderr {
				require.True(t, strings.HasPrefix(got[i], p), "stderr line %d: %q, want %q...", i+1, got[i], p)
			}
		})
	}
}

// TestSeveralCommands: -c may be given several times and mixes with -f,
// all run in the order given; --bail stops at the first failure; exit in
// one ends the rest.
func TestSeveralCommands(t *testing.T) {
	t.Parallel()
	w := sampleWS(t)
	w.write("two.chr", "show samples/alice-bob-en.txt 2 --text\n")
	show := func(n string) []string { return []string{"-c", "show samples/alice-bob-en.txt " + n + " --text"} }
	args := func(parts ...[]string) []string {
		out := []string{"--db=" + w.db}
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	line2 := "     2  @chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"
	line3 := "     3  Unrelated narrative line.\n"
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"in order", args(show("3"), show("1"), show("7")), 0, line3 + line1 + line7, ""},
		{"-c and -f in order", args(show("1"), []string{"-f", "two.chr"}, show("3")), 0, line1 + line2 + line3, ""},
		{"a failure does not stop the rest", args(show("1"), []string{"-c", "show samples/nope.txt"}, show("7")), 1, line1 + line7,
			"chronicle show: \"samples/nope.txt\": no such document"},
		{"--bail stops at it", args([]string{"--bail"}, show("1"), []string{"-c", "fnd x"}, show("7")), 2, line1,
			"chronicle: unknown command \"fnd\"; did you mean \"find\"? `help` lists the commands"},
		{"exit ends the rest", args(show("1"), []string{"-c", "exit"}, show("7")), 0, line1, ""},
		{"session settings carry over", args([]string{"-c", ".mode text"}, []string{"-c", "show samples/alice-bob-en.txt 1"}), 0, line1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.raw(nil, tc.args...)
			require.Equal(t, tc.code, r.code, "%s", r)
			require.Equal(t, tc.stdout, r.stdout)
			if tc.stderr == "" {
				require.Empty(t, r.stderr)
			} else {
				require.True(t, strings.HasPrefix(r.stderr, tc.stderr), "%s", r)
				require.Len(t, lines(r.stderr), 1)
			}
		})
	}
}

// TestInitFileNotForScripts: the init file ($XDG_CONFIG_HOME/chronicle/init)
// is for interactive sessions only (the REPL's terminal test runs it): -c,
// -f and a script on stdin never read it; --no-init is accepted anywhere a
// session starts.
func TestInitFileNotForScripts(t *testing.T) {
	t.Parallel()
	w := sampleWS(t)
	config := filepath.Join(w.dir, "config")
	w.write("config/chronicle/init", ".mode json\nshow samples/alice-bob-en.txt 7\n")
	env := []string{"XDG_CONFIG_HOME=" + config, "HOME=" + w.dir}
	for _, args := range [][]string{
		{"-c", "show samples/alice-bob-en.txt 1 --text"},
		{"--no-init", "-c", "show samples/alice-bob-en.txt 1 --text"},
		{"-c", "show samples/alice-bob-en.txt 1 --text", "--no-init"},
	} {
		r := w.raw(env, append([]string{"--db=" + w.db}, args...)...)
		require.Equal(t, 0, r.code, "%q %s", args, r)
		require.Equal(t, line1, r.stdout, "%q: the init file did not run", args)
		require.Empty(t, r.stderr)
	}
	r := w.stdinEnv(env, "show samples/alice-bob-en.txt 1 --text\n", "--db="+w.db, "--no-init")
	require.Equal(t, 0, r.code, "%s", r)
	require.Equal(t, line1, r.stdout)
	r = w.raw(env, "--db="+w.db, "--no-init", "docs")
	require.Equal(t, 2, r.code, "%s", r)
	require.Equal(t, "chronicle: --no-init starts a session and takes no command (\"docs\"); write `chronicle docs` or put it in -c\n", r.stderr)
}

// TestUnknownSuggestions: the CLI's did-you-mean for commands and flags.
func TestUnknownSuggestions(t *testing.T) {
	t.Parallel()
	w := sampleWS(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fnd", "Saud"}, "chronicle: unknown command \"fnd\"; did you mean \"find\"? `help` lists the commands\n"},
		{[]string{"find", "Saud", "--limt", "1"}, "chronicle find: unknown flag --limt; did you mean --limit?\n"},
		{[]string{"--bial"}, "chronicle: unknown flag --bial; did you mean --bail? `chronicle help` lists the commands and their flags\n"},
	} {
		r := w.run(tc.args...)
		require.Equal(t, 2, r.code, "%s", r)
		require.Empty(t, r.stdout)
		require.Equal(t, tc.want, r.stderr)
	}
}

// stdin runs chronicle in the workspace with args and input on stdin.
func (w *ws) stdin(input string, args ...string) result {
	w.t.Helper()
	return w.stdinEnv(nil, input, args...)
}

// stdinEnv is stdin with extra environment variables.
func (w *ws) stdinEnv(extra []string, input string, args ...string) result {
	w.t.Helper()
	r, err := runStdin(chronicleBin, w.dir, extra, strings.NewReader(input), args...)
	require.NoError(w.t, err)
	return r
}
