//go:build unix

// Among the errors is a FIFO given as a receipt (mkfifo): Unix only.

package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJSONErrors: with --json an error is one JSON object on stderr naming
// its kind, exit code and object; the exit codes follow the table.
func TestJSONErrors(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	alice := "testdata/samples/alice-bob-en.txt"
	w.write("bad.receipt", "not a receipt\n")
	w.write("other.receipt", "something else\n")
	w.write("bad.txt", "@chronicle\tx\n")
	fifo := w.mkfifo("pipe")
	fresh := newWS(t) // no archive
	for _, tc := range []struct {
		name    string
		argv    []string
		code    int
		kind    string
		objects map[string]string
		stdout  bool // a verdict or outcomes on stdout
	}{
		{"no archive", []string{"--db", fresh.db, "docs"}, 10, "no_archive", map[string]string{"archive": fresh.db}, false},
		{"no archive for --keep", []string{"--db", fresh.db, "query", "x", "y", "--keep"}, 10, "no_archive", map[string]string{"archive": fresh.db}, false},
		{"no archive to migrate", []string{"--db", fresh.db, "migrate"}, 10, "no_archive", map[string]string{"archive": fresh.db}, false},
		{"no archive to reindex", []string{"--db", fresh.db, "reindex"}, 10, "no_archive", map[string]string{"archive": fresh.db}, false},
		{"an empty --db", []string{"docs", "--db="}, 2, "usage", nil, false},
		{"unknown flag", []string{"query", alice, g1Q, "--limt", "3"}, 2, "usage", map[string]string{"flag": "limt"}, false},
		{"flag without its value", []string{"find", "x", "--limit"}, 2, "usage", map[string]string{"flag": "limit"}, false},
		{"bad flag value", []string{"find", "x", "--limit", "0"}, 2, "usage", nil, false},
		{"missing argument", []string{"query", alice}, 2, "usage", nil, false},
		{"unknown document", []string{"show", "nosuch.txt"}, 1, "no_such_document", map[string]string{"document": "nosuch.txt"}, false},
		{"unknown document of a query", []string{"query", "nosuch.txt", g1Q}, 1, "no_such_document", map[string]string{"document": "nosuch.txt"}, false},
		{"INVALID receipt", []string{"verify", "bad.receipt"}, 1, "invalid", map[string]string{"file": "bad.receipt"}, true},
		{"a FIFO for --receipt", []string{"query", alice, g1Q, "--receipt", fifo}, 1, "not_regular_file", map[string]string{"file": fifo}, false},
		{"a different receipt in the way", []string{"query", alice, g1Q, "--receipt", "other.receipt"}, 1, "exists", nil, false},
		{"a rejected file", []string{"ingest", "bad.txt", alice}, 1, "rejected", nil, true},
		{"a missing claims file", []string{"claims", "check", "nope.jsonl"}, 1, "no_such_file", map[string]string{"file": "nope.jsonl"}, false},
		{"unknown claims verb", []string{"claims", "frob"}, 2, "usage", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := w.run
			argv := tc.argv
			if argv[0] == "--db" {
				run, argv = fresh.run, argv[2:]
			}
			// --json right after the command name: a flag that wants a
			// value at the end must not take it.
			r := run(append([]string{argv[0], "--json"}, argv[1:]...)...)
			e := requireJSONError(t, r, tc.code, tc.kind, argv[0], tc.objects, tc.stdout)
			_, hasLocation := e["location"]
			require.False(t, hasLocation, "no location outside a script")
			// The readable view: the same code, one text line.
			text := run(argv...)
			require.Equal(t, tc.code, text.code, "%s", text)
			if !tc.stdout {
				require.Equal(t, e["message"].(string)+"\n", text.stderr)
			}
		})
	}
	require.NoFileExists(t, fresh.db, "reading never creates an archive")
}
