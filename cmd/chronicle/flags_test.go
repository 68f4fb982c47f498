package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	g1       = "g1_english_intermediary"
	g1Q      = "Did Alice repay Bob?"
	g1Prefix = "a4b3c1b7767bb9d11e5486555702ffcb07c0964063cf27af85a296517bb46f0d"
)

// g1WS is a workspace whose archive holds g1's input.txt.
func g1WS(t *testing.T) *ws {
	t.Helper()
	w := newWS(t)
	w.copyGolden(g1, "input.txt", "input.txt")
	w.ok("ingest", "input.txt")
	return w
}

// g1Answer is the golden JSON line of g1Q.
func g1Answer(t *testing.T) string {
	t.Helper()
	for _, gc := range goldenCases(t, false) {
		if gc.name != g1 {
			continue
		}
		for _, c := range gc.commands {
			if c.Argv[0] == "query" && c.Argv[2] == g1Q {
				return firstLine(c.Stdout)
			}
		}
	}
	t.Fatal("g1 has no golden answer to " + g1Q)
	return ""
}

// TestFlagPlacement: flags before or after positional arguments, --db=PATH
// and --db PATH, global flags before the command name, CHRONICLE_DB.
func TestFlagPlacement(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	want := g1Answer(t)
	rel := filepath.Base(w.db)
	for _, tc := range []struct {
		name string
		env  []string
		argv []string
	}{
		{"json after positionals", nil, []string{"--db", w.db, "query", "input.txt", g1Q, "--json"}},
		{"json before positionals", nil, []string{"--db", w.db, "query", "--json", "input.txt", g1Q}},
		{"json between positionals", nil, []string{"--db", w.db, "query", "input.txt", "--json", g1Q}},
		{"db= before command", nil, []string{"--db=" + w.db, "query", "input.txt", g1Q, "--json"}},
		{"db after positionals", nil, []string{"query", "input.txt", g1Q, "--db", w.db, "--json"}},
		{"db= after positionals", nil, []string{"query", "input.txt", g1Q, "--json", "--db=" + w.db}},
		{"db between positionals", nil, []string{"query", "input.txt", "--db", w.db, g1Q}},
		{"global json and db before command", nil, []string{"--json", "--db", w.db, "query", "input.txt", g1Q}},
		{"relative db", nil, []string{"--db", rel, "query", "input.txt", g1Q}},
		{"piped stdout without --json", nil, []string{"--db", w.db, "query", "input.txt", g1Q}},
		{"CHRONICLE_DB", []string{"CHRONICLE_DB=" + w.db}, []string{"query", "input.txt", g1Q, "--json"}},
		{"--db beats CHRONICLE_DB", []string{"CHRONICLE_DB=" + filepath.Join(w.dir, "missing.db")}, []string{"query", "--db", w.db, "input.txt", g1Q}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.raw(tc.env, tc.argv...)
			require.Equal(t, 0, r.code, "%s", r)
			require.Equal(t, want, r.stdout)
			require.Empty(t, r.stderr)
		})
	}
	_, err := os.Stat(filepath.Join(w.dir, "missing.db"))
	require.ErrorIs(t, err, os.ErrNotExist, "--db must win over CHRONICLE_DB")
}

// TestDoubleDashEndsFlags: after `--` every argument is positional, even
// one that looks like a flag.
func TestDoubleDashEndsFlags(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	for _, tc := range []struct {
		name string
		argv []string
		want string // substring of the JSON result
	}{
		{"query", []string{"query", "input.txt", "--", "--Alice Bob"}, `"question":"--Alice Bob"`},
		{"query flags first", []string{"query", "--json", "input.txt", "--", "--json"}, `"question":"--json"`},
		{"claim", []string{"claim", "input.txt", "--", "--Alice", "owns", "--db"}, `"question":"@claim\t--Alice\towns\t--db"`},
		{"find", []string{"find", "--doc", "input.txt", "--", "--json"}, `"query":"--json"`},
		{"find unknown-looking flag", []string{"find", "--doc=input.txt", "--", "--bogus"}, `"query":"--bogus"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.run(tc.argv...)
			require.Equal(t, 0, r.code, "%s", r)
			require.Len(t, lines(r.stdout), 1)
			require.Contains(t, r.stdout, tc.want)
		})
	}
}

// TestUsageErrors: unknown flags, wrong argument counts and bad flag
// values exit 2 with a one-line usage message, before any archive is
// created.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	w := newWS(t) // no archive: a usage error must not need one
	for _, tc := range []struct {
		argv []string
		cmd  string
		want string
	}{
		{[]string{"query", "input.txt", "Q", "--bogus"}, "query", `unknown flag --bogus`},
		{[]string{"--bogus", "docs"}, "docs", `unknown flag --bogus`},
		{[]string{"docs", "--verify"}, "docs", `unknown flag --verify`},
		{[]string{"query", "input.txt"}, "query", `usage: query DOC QUESTION`},
		{[]string{"query", "input.txt", "a", "b"}, "query", `usage: query DOC QUESTION`},
		{[]string{"query", "--", "input.txt"}, "query", `usage: query DOC QUESTION`},
		{[]string{"claim", "input.txt", "a", "b"}, "claim", `usage: claim DOC SUBJECT PREDICATE OBJECT`},
		{[]string{"find"}, "find", `usage: find TERMS\.\.\.`},
		{[]string{"find", "--"}, "find", `usage: find TERMS\.\.\.`},
		{[]string{"show"}, "show", `usage: show DOC \[FROM\[-TO\]\]`},
		{[]string{"show", "a", "1", "2"}, "show", `usage: show DOC`},
		{[]string{"docs", "extra"}, "docs", `usage: docs`},
		{[]string{"stats", "extra"}, "stats", `usage: stats`},
		{[]string{"check", "extra"}, "check", `usage: check`},
		{[]string{"export", "input.txt"}, "export", `usage: export DOC DIR`},
		{[]string{"verify"}, "verify", `usage: verify RECEIPT`},
		{[]string{"ingest"}, "ingest", `usage: ingest PATH\.\.\.`},
		{[]string{"receipts", "a", "b"}, "receipts", `usage: receipts \[DOC\]`},
		{[]string{"query", "--json=yes", "input.txt", "Q"}, "query", `--json takes no value`},
		{[]string{"query", "input.txt", "Q", "--json", "--json"}, "query", `--json given twice`},
		{[]string{"query", "input.txt", "Q", "--receipt"}, "query", `--receipt needs FILE`},
		{[]string{"find", "--doc"}, "find", `--doc needs DOC`},
		{[]string{"find", "--limit", "0", "x"}, "find", `--limit wants a positive integer`},
		{[]string{"find", "--limit=many", "x"}, "find", `--limit wants a positive integer`},
		{[]string{"find", "--limit", "2147483648", "--receipt", "r", "x"}, "find", `--limit 2147483648 is above 2147483647`},
		{[]string{"entity", "x", "--receipt"}, "entity", `--receipt needs FILE`},
		{[]string{"ingest", "--name", "n", "a", "b"}, "ingest", `--name and --receipt need exactly one file`},
		{[]string{"claim", "d", "a\tb", "c", "d"}, "claim", `without TAB`},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			r := w.run(tc.argv...)
			requireOneLineError(t, asText(t, r), 2, tc.cmd, tc.want)
		})
	}
	_, err := os.Stat(w.db)
	require.ErrorIs(t, err, os.ErrNotExist, "a usage error created the archive")
}

// TestHelp: help lists every command; help COMMAND shows its usage and an
// example; an unknown command is a usage error.
func TestHelp(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	for _, argv := range [][]string{{"help"}, {"--db", w.db, "help"}} { // help --json: help_test.go
		r := w.raw(nil, argv...)
		require.Equal(t, 0, r.code, "%s", r)
		require.Contains(t, r.stdout, "commands")
		require.Regexp(t, `(?m)^exit codes:\n  0 +success or VALID\n  1 +failure or INVALID\n  2 +usage\n  3 +UNSUPPORTED\n  10 +no archive\n  11 +archive busy\n  130 +interrupted$`, r.stdout)
		for _, name := range []string{"ingest", "docs", "show", "stats", "query", "claim", "find", "receipts", "verify", "export", "check", "help"} {
			require.Regexp(t, `(?m)^  `+name+`\b`, r.stdout)
		}
	}

	for _, tc := range []struct{ cmd, usage, example string }{
		{"query", "usage: query DOC QUESTION\n", "\nexample:\n  query "},
		{"claim", "usage: claim DOC SUBJECT PREDICATE OBJECT\n", "\nexample:\n  claim "},
		{"find", "usage: find TERMS...\n", "\nexample:\n  find "},
		{"ingest", "usage: ingest PATH...\n", "\nexample:\n  ingest "},
		{"verify", "usage: verify RECEIPT\n", "\nexample:\n  verify "},
		{"export", "usage: export DOC DIR\n", "\nexample:\n  export "},
		{"show", "usage: show DOC [FROM[-TO]]\n", "\nexample:\n  show "},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			r := w.raw(nil, "help", tc.cmd)
			require.Equal(t, 0, r.code, "%s", r)
			require.True(t, strings.HasPrefix(r.stdout, tc.usage), r.stdout)
			require.Contains(t, r.stdout, tc.example)
			require.Contains(t, r.stdout, "--db PATH")
		})
	}
	r := w.raw(nil, "help", "query")
	require.Contains(t, r.stdout, "--receipt FILE")

	r = w.raw(nil, "frobnicate")
	require.Equal(t, 2, r.code, "%s", r)
	require.Empty(t, r.stdout)
	require.Equal(t, "chronicle: unknown command \"frobnicate\"; `help` lists the commands\n", r.stderr)

	r = w.raw(nil, "help", "frobnicate")
	requireOneLineError(t, r, 2, "help", `unknown command "frobnicate"`)
}

// TestArchiveLocation: CHRONICLE_DB names the archive when --db is absent;
// with neither, the archive is ./chronicle.db.
func TestArchiveLocation(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.copyGolden(g1, "input.txt", "input.txt")
	envDB := filepath.Join(w.dir, "env", "env.db")
	require.NoError(t, os.MkdirAll(filepath.Dir(envDB), 0o755))
	env := []string{"CHRONICLE_DB=" + envDB}

	r := w.raw(env, "ingest", "input.txt")
	require.Equal(t, 0, r.code, "%s", r)
	require.FileExists(t, envDB)
	require.NoFileExists(t, filepath.Join(w.dir, "chronicle.db"))
	r = w.raw(env, "docs")
	require.Equal(t, 0, r.code, "%s", r)
	require.Contains(t, r.stdout, "input.txt")
	r = w.raw(env, "stats", "--json")
	require.Contains(t, r.stdout, `"archive":"`+envDB+`"`)

	// --db wins over CHRONICLE_DB; a reader never creates an archive.
	other := filepath.Join(w.dir, "other.db")
	r = w.raw(env, "--db", other, "docs")
	requireOneLineError(t, r, 10, "docs", regexp.QuoteMeta("archive "+other+": no archive at this path"), "`chronicle ingest FILE` creates it")
	require.NoFileExists(t, other)

	// Default: ./chronicle.db in the working directory.
	r = w.raw(nil, "ingest", "input.txt")
	require.Equal(t, 0, r.code, "%s", r)
	require.FileExists(t, filepath.Join(w.dir, "chronicle.db"))
	r = w.raw(nil, "stats", "--json")
	require.Contains(t, r.stdout, `"archive":"chronicle.db"`)
}

// TestNotAnArchive: --db naming a file that is not an archive is refused
// and the file is left untouched.
func TestNotAnArchive(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.copyGolden(g1, "input.txt", "input.txt")
	before := w.read("input.txt")
	for _, argv := range [][]string{{"ingest", "input.txt"}, {"docs"}, {"query", "input.txt", "Q"}, {"check"}} {
		r := w.raw(nil, append([]string{"--db", "input.txt"}, argv...)...)
		requireOneLineError(t, r, 1, argv[0], `archive input\.txt: not a Chronicle archive`)
		require.Equal(t, before, w.read("input.txt"))
	}
}
