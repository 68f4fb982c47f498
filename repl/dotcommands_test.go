package repl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSessionNames: the session command list and the help texts name the
// same commands, and each help text starts with its usage.
func TestSessionNames(t *testing.T) {
	var keys []string
	for k, d := range sessionCommands {
		keys = append(keys, k)
		require.True(t, strings.HasPrefix(d.text(k), "usage: "+k), "%s: %q", k, d.text(k))
		require.NotEmpty(t, d.summary, k)
		require.True(t, strings.HasPrefix(d.example, k), "%s: its example uses it: %q", k, d.example)
	}
	names := sessionNames()
	slices.Sort(keys)
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	require.Equal(t, keys, sorted)
	for _, n := range names {
		require.Contains(t, sessionHelp, n, "the session help names %s", n)
	}
}

// TestTimer: .timer on prints one `time: N ms` line on stderr after each
// command, never on stdout, so that JSON results stay JSON Lines.
func TestTimer(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	_, _, code := w.split(strings.NewReader("ingest samples\n"))
	require.Equal(t, 0, code)
	stdout, stderr, code := w.split(strings.NewReader(".timer on\ndocs --json\nshow samples/nope.txt\nentities --json\n.timer off\ndocs --json\n"))
	require.Equal(t, 1, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 2+8+2, stdout)
	for _, l := range lines {
		require.True(t, json.Valid([]byte(l)), "stdout is JSON Lines: %q", l)
	}
	require.Regexp(t, regexp.MustCompile(`\Atime: \d+\.\d ms\n`+
		`line 3: chronicle show: "samples/nope.txt": no such document[^\n]*\n`+
		`time: \d+\.\d ms\ntime: \d+\.\d ms\n\z`), stderr)
}

// TestFormatElapsed: milliseconds below a second, seconds above.
func TestFormatElapsed(t *testing.T) {
	for _, tc := range []struct {
		us   int64
		want string
	}{{0, "0.0 ms"}, {12345, "12.3 ms"}, {999949, "999.9 ms"}, {1500000, "1.50 s"}, {61234567, "61.23 s"}} {
		require.Equal(t, tc.want, formatElapsed(timeMicros(tc.us)))
	}
}

// TestOutputFile: .output FILE gets the results only (errors stay on
// stderr), is private, emptied when opened again, and closed (complete)
// when the script ends without .output.
func TestOutputFile(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	_, _, code := w.split(strings.NewReader("ingest samples\n"))
	require.Equal(t, 0, code)
	path := filepath.Join(w.dir, "out.jsonl")
	stdout, stderr, code := w.split(strings.NewReader(".output out.jsonl\ndocs\nshow samples/nope.txt\n.output\nshow samples/alice-bob-en.txt 1 --text\n"))
	require.Equal(t, 1, code)
	require.Equal(t, "     1  Opening prose about Alice and Bob.\n", stdout)
	require.Contains(t, stderr, "line 3: chronicle show: ")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "SHA256             BYTES  EVENTS  IMPORTED              NAMES\n"+
		"5755af8bbd9e         926       4  2025-06-15T15:06:40Z  samples/ahmed-khalid-ar.txt\n"+
		"a4b3c1b7767b         383       5  2025-06-15T15:06:40Z  samples/alice-bob-en.txt\n", string(data),
		"what docs prints to a file (a listing is readable unless --json)")
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	// opened again: emptied first; left open at the end: still written
	stdout, _, code = w.split(strings.NewReader(".output out.jsonl\nentities Al --json\n"))
	require.Equal(t, 0, code)
	require.Empty(t, stdout)
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, `{"events":3,"name":"Alice"}`+"\n", string(data))

	// -c lines share the session: .output then a command
	stdout, _, code = w.split(strings.NewReader(""), "-c", ".output out.jsonl", "-c", "entities Bo --json")
	require.Equal(t, 0, code)
	require.Empty(t, stdout)
	require.Equal(t, `{"events":2,"name":"Bob"}`+"\n", string(readFile(t, path)))
}

// TestReadDepth: a chain of distinct scripts deeper than maxReadDepth is
// stopped with an error naming the file, and nothing past it runs.
func TestReadDepth(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	for i := range maxReadDepth + 2 {
		body := fmt.Sprintf(".read deep/%d.chr\n", i+1)
		require.NoError(t, os.MkdirAll(filepath.Join(w.dir, "deep"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(w.dir, "deep", fmt.Sprintf("%d.chr", i)), []byte(body), 0o644))
	}
	out, code := w.run(".read deep/0.chr\n")
	require.Equal(t, 1, code, out)
	require.Equal(t, fmt.Sprintf("deep/%d.chr:1: chronicle .read: deep/%d.chr: .read nested more than %d deep; it was not read\n",
		maxReadDepth-1, maxReadDepth, maxReadDepth), out)
}

// TestTableRender: columns in first-seen key order, a missing key an empty
// cell, numbers right-aligned, Arabic (with a combining mark) and wide
// characters padded by display width, TAB and control bytes escaped.
func TestTableRender(t *testing.T) {
	out := "{\"name\":\"Alice\",\"events\":3,\"tags\":[\"a\",\"b\"]}\n" +
		"{\"name\":\"حوّل\",\"events\":12,\"note\":\"x\\ty\\u001b\"}\n" +
		"{\"name\":\"漢字\",\"events\":null,\"ok\":true}\n"
	rows, kind := parseRows([]byte(out))
	require.Equal(t, rowsFlat, kind)
	var b strings.Builder
	writeTable(&b, rows)
	require.Equal(t, ""+
		"name   events  tags  note      ok\n"+
		"Alice       3  a, b\n"+
		"حوّل        12        x\\ty\\x1b\n"+
		"漢字"+strings.Repeat(" ", 1+2+6+2+4+2+8+2)+"true\n", b.String())
}

// TestParseRows: what falls back to the readable view.
func TestParseRows(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want rowsKind
	}{
		{"", rowsText},
		{"ok: 2 documents checked\n", rowsText},
		{`{"a":1}` + "\n" + "text\n", rowsText},
		{`{"a":1}`, rowsText}, // no final newline: not JSON Lines
		{`[1,2]` + "\n", rowsText},
		{`{"a":1} {"b":2}` + "\n", rowsText},
		{`{"a":1}` + "\n\n", rowsText},
		{`{"a":1,"b":[1,"x",null]}` + "\n", rowsFlat},
		{`{"a":{"b":1}}` + "\n", rowsNested},
		{`{"a":1}` + "\n" + `{"a":[{"b":1}],"c":2}` + "\n", rowsNested},
		{`{"a":[[1]]}` + "\n", rowsNested},
		{`{"a":{"b":1}` + "\n", rowsText}, // broken JSON is text
	} {
		_, kind := parseRows([]byte(tc.out))
		require.Equal(t, tc.want, kind, "%q", tc.out)
	}
}

// TestSuggestions: unknown commands and flags name the nearest ones.
func TestSuggestions(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"fnd", "unknown command \"fnd\"; did you mean \"find\"? `help` lists the commands"},
		{"ingset", "unknown command \"ingset\"; did you mean \"ingest\"? `help` lists the commands"},
		{"recipts", "unknown command \"recipts\"; did you mean \"receipts\"? `help` lists the commands"},
		{"frobnicate", "unknown command \"frobnicate\"; `help` lists the commands"},
		{"--bial", "unknown flag --bial; did you mean --bail? `chronicle help` lists the commands and their flags"},
		{"--no-inti", "unknown flag --no-inti; did you mean --no-init? `chronicle help` lists the commands and their flags"},
	} {
		require.Equal(t, tc.want, unknownCommand(tc.name))
	}
	// A misspelt flag before the command is the word to complain about,
	// not the value after it; a known one and its value are skipped.
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"--limt", "3", "find", "x"}, "--limt"},
		{[]string{"--limit", "3", "fnd", "x"}, "fnd"},
		{[]string{"--db=x", "--bial"}, "--bial"},
		{[]string{"--db", "x", "fnd"}, "fnd"},
	} {
		require.Equal(t, tc.want, firstUnknown(tc.argv), tc.argv)
	}
	for _, tc := range []struct {
		cmd, flag, want string
	}{
		{"find", "--limt", "unknown flag --limt; did you mean --limit?"},
		{"find", "--lim", "unknown flag --lim; did you mean --limit?"},
		{"docs", "--jsno", "unknown flag --jsno; did you mean --json?"},
		{"receipts", "--verfy", "unknown flag --verfy; did you mean --verify?"},
		{"stats", "--limit", "unknown flag --limit"}, // not a flag of stats, nothing near
	} {
		_, err := parseArgs([]string{tc.flag}, lookup(tc.cmd).flags)
		require.EqualError(t, err, tc.want, "%s %s", tc.cmd, tc.flag)
	}
}

func timeMicros(us int64) time.Duration { return time.Duration(us) * time.Microsecond }
