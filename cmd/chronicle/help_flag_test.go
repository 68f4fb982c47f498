package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHelpFlagEveryCommand: for every command of the table (help --json,
// so a new command is covered as soon as it exists), -h and --help
// anywhere before "--", even after arguments and flags that would be
// wrong, print exactly what `help COMMAND` prints (--json included) and
// exit 0, with nothing on stderr and without opening the archive: there is
// none, and none is created. A verb of claims asks for the claims help.
func TestHelpFlagEveryCommand(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	entries := helpTable(t, w)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		want := w.raw(nil, "help", e.Name)
		require.Equal(t, 0, want.code, "%s", want)
		require.True(t, strings.HasPrefix(want.stdout, "usage: "+strings.TrimSpace(e.Name+" "+e.Args)+"\n"), "help %s:\n%s", e.Name, want.stdout)
		wantJSON := w.raw(nil, "help", e.Name, "--json")
		require.Equal(t, 0, wantJSON.code, "%s", wantJSON)

		var lines [][]string
		for _, h := range []string{"--help", "-h"} {
			lines = append(lines,
				[]string{e.Name, h},
				[]string{h, e.Name}, // hoisted, as the global flags are
				[]string{e.Name, "one", "two", "three", "--bogus", h},
				[]string{e.Name, h, "--", "-h"},
			)
			for _, v := range e.Verbs {
				lines = append(lines, []string{e.Name, strings.Fields(v)[1], h})
			}
		}
		for _, argv := range lines {
			t.Run(strings.Join(argv, " "), func(t *testing.T) {
				for _, r := range []result{w.raw(nil, argv...), w.run(argv...)} {
					require.Equal(t, 0, r.code, "%s", r)
					require.Empty(t, r.stderr)
					require.Equal(t, want.stdout, r.stdout)
				}
				r := w.raw(nil, append([]string{argv[0], "--json"}, argv[1:]...)...)
				require.Equal(t, 0, r.code, "%s", r)
				require.Empty(t, r.stderr)
				require.Equal(t, wantJSON.stdout, r.stdout)
			})
		}
	}
	for _, path := range []string{w.db, filepath.Join(w.dir, "chronicle.db")} {
		_, err := os.Stat(path)
		require.ErrorIs(t, err, os.ErrNotExist, "asking for help created %s", path)
	}
}

// TestHelpFlagNoCommand: a help flag with no command, beside the global
// flags, is `help` (and a session line -h or --help is the session's
// `help`), without creating the archive.
func TestHelpFlagNoCommand(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	want := w.raw(nil, "help")
	require.Equal(t, 0, want.code, "%s", want)
	wantSession := w.raw(nil, "-c", "help")
	require.Equal(t, 0, wantSession.code, "%s", wantSession)
	require.NotEqual(t, want.stdout, wantSession.stdout, "the session's help adds the session commands")
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"-h"}, want.stdout},
		{[]string{"--help"}, want.stdout},
		{[]string{"--db", w.db, "--help"}, want.stdout},
		{[]string{"--db=" + w.db, "--wait", "1s", "-h"}, want.stdout},
		{[]string{"-c", "--help"}, wantSession.stdout},
		{[]string{"-c", "-h"}, wantSession.stdout},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			r := w.raw(nil, tc.argv...)
			require.Equal(t, 0, r.code, "%s", r)
			require.Empty(t, r.stderr)
			require.Equal(t, tc.want, r.stdout)
		})
	}
	_, err := os.Stat(w.db)
	require.ErrorIs(t, err, os.ErrNotExist, "asking for help created the archive")
}

// TestHelpFlagAfterDoubleDash: before "--", -h and --help ask for help;
// after it they are arguments: `find -- -h` searches for "-h", in one
// document and across the archive, and `query DOC -- -h` asks "-h".
func TestHelpFlagAfterDoubleDash(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	for _, tc := range []struct {
		name    string
		argv    []string // the command line, its last word -h or --help
		help    string   // what the line without "--" starts with: the help (--json: its JSON line)
		literal string   // substring of the result with "--" before the last word
	}{
		{"doc -h", []string{"find", "--json", "--doc", "input.txt", "-h"}, `{"name":"find",`, `"query":"-h"`},
		{"doc --help", []string{"find", "--json", "--doc", "input.txt", "--help"}, `{"name":"find",`, `"query":"--help"`},
		{"archive -h", []string{"find", "--text", "--receipt", "-", "-h"}, "usage: find ", "question_hex:2d68\n"}, // "-h"
		{"query", []string{"query", "--json", "input.txt", "-h"}, `{"name":"query",`, `"question":"-h"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.run(tc.argv...)
			require.Equal(t, 0, r.code, "%s", r)
			require.Empty(t, r.stderr)
			require.True(t, strings.HasPrefix(r.stdout, tc.help), r.stdout)

			last := len(tc.argv) - 1
			r = w.run(append(append(append([]string{}, tc.argv[:last]...), "--"), tc.argv[last])...)
			require.Equal(t, 0, r.code, "%s", r)
			require.Empty(t, r.stderr)
			require.NotContains(t, r.stdout, tc.help)
			require.NotContains(t, r.stdout, "usage:")
			require.Contains(t, r.stdout, tc.literal)
		})
	}
}

// TestFindSeveralArguments: `find Saud Alice` is `find "Saud Alice"`:
// the same JSON result and the same receipt, byte for byte, in one
// document and across the archive, kept or only written.
func TestFindSeveralArguments(t *testing.T) {
	t.Parallel()
	w := makeRunArchive(t)
	for _, tc := range []struct {
		name  string
		flags []string
		terms []string
	}{
		{"archive", nil, []string{"Saud", "Alice"}},
		{"archive three", []string{"--limit", "2"}, []string{"Layla", "Omar", "paid"}},
		{"doc", []string{"--doc", "testdata/samples/alice-bob-en.txt"}, []string{"Alice", "Bob"}},
		{"doc kept", []string{"--doc", "testdata/samples/alice-bob-en.txt", "--keep"}, []string{"Bob", "Alice"}},
		{"archive kept", []string{"--keep"}, []string{"Saud", "Ahmed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(receipt string, terms ...string) string {
				argv := append([]string{"find", "--json", "--receipt", receipt}, tc.flags...)
				out := w.ok(append(argv, terms...)...)
				require.NotEmpty(t, w.read(receipt))
				return out
			}
			joined := strings.Join(tc.terms, " ")
			quoted := run(tc.name+"-quoted.receipt", joined)
			require.Contains(t, quoted, `"query":"`+joined+`"`)
			require.Equal(t, quoted, run(tc.name+"-words.receipt", tc.terms...))
			require.Equal(t, w.read(tc.name+"-quoted.receipt"), w.read(tc.name+"-words.receipt"))
		})
	}
}
