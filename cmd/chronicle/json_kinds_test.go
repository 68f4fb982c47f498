//go:build unix

// Among the error kinds is a FIFO given as the archive (mkfifo): Unix only.

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJSONErrorKinds: the JSON error of each of these names the kind and
// the object the README lists (not "damaged" or "failure"), and its
// message is in the tool's words, naming the path once, not Go's
// "stat PATH: no such file or directory".
func TestJSONErrorKinds(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	alice := "testdata/samples/alice-bob-en.txt"
	text := w.write("notes.txt", "hello, not an archive\n")
	dir := filepath.Join(w.dir, "adir")
	require.NoError(t, os.Mkdir(dir, 0o755))
	fifo := w.mkfifo("apipe")
	w.write("other.receipt", "something else\n")
	w.write("exp/alice-bob-en.txt.chronicle", "other content\n")
	for _, tc := range []struct {
		name    string
		argv    []string // after --db and --json
		db      string   // the archive, when not the samples'
		code    int
		kind    string
		objects map[string]string
		message string // the text after "chronicle CMD: ", when pinned
		stdout  bool
	}{
		{"a text file as the archive", []string{"docs"}, text, 1, "not_archive", map[string]string{"archive": text}, "", false},
		{"a directory as the archive", []string{"docs"}, dir, 1, "not_regular_file", map[string]string{"archive": dir, "file": dir},
			"archive " + dir + " is a directory, not a regular file", false},
		{"a FIFO as the archive", []string{"docs"}, fifo, 1, "not_regular_file", map[string]string{"archive": fifo, "file": fifo},
			"archive " + fifo + " is a FIFO, not a regular file", false},
		{"export over a store with other content", []string{"export", alice, "exp"}, "", 1, "exists", map[string]string{"file": "exp/alice-bob-en.txt.chronicle"},
			"exp/alice-bob-en.txt.chronicle already exists with other content; nothing was overwritten", false},
		{"verify a missing receipt", []string{"verify", "nosuch.receipt"}, "", 1, "no_such_file", map[string]string{"file": "nosuch.receipt"},
			"nosuch.receipt: no such file", true},
		{"a different receipt in the way", []string{"query", alice, g1Q, "--receipt", "other.receipt"}, "", 1, "exists", map[string]string{"file": "other.receipt"}, "", false},
		{"a receipt in a missing directory", []string{"query", alice, g1Q, "--receipt", "nodir/x.receipt"}, "", 1, "no_such_file", map[string]string{"file": "nodir/x.receipt"},
			"nodir/x.receipt: its directory does not exist", false},
		{"claims check of a missing file", []string{"claims", "check", "nosuch.jsonl"}, "", 1, "no_such_file", map[string]string{"file": "nosuch.jsonl"},
			"nosuch.jsonl: no such file", false},
		{"claims read of a missing file", []string{"claims", "read", "nosuch.jsonl"}, "", 1, "no_such_file", map[string]string{"file": "nosuch.jsonl"},
			"nosuch.jsonl: no such file", false},
		{"claims verify of a missing file", []string{"claims", "verify", "nosuch.jsonl"}, "", 1, "no_such_file", map[string]string{"file": "nosuch.jsonl"},
			"nosuch.jsonl: no such file", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := w.db
			if tc.db != "" {
				db = tc.db
			}
			run := func(args ...string) result {
				return w.raw(nil, append([]string{"--db", db}, args...)...)
			}
			r := run(append([]string{tc.argv[0], "--json"}, tc.argv[1:]...)...)
			e := requireJSONError(t, r, tc.code, tc.kind, tc.argv[0], tc.objects, tc.stdout)
			if tc.message != "" {
				require.Equal(t, "chronicle "+tc.argv[0]+": "+tc.message, e["message"])
			}
			// The readable view: the same code and the same line.
			txt := run(tc.argv...)
			require.Equal(t, tc.code, txt.code, "%s", txt)
			require.Equal(t, e["message"].(string)+"\n", txt.stderr)
		})
	}
	require.Equal(t, "other content\n", string(w.read("exp/alice-bob-en.txt.chronicle")), "nothing was overwritten")
}

// TestVerifyMissingReceipt: a missing receipt is still the INVALID verdict
// (exit 1) on stdout, and its problem is in the tool's words.
func TestVerifyMissingReceipt(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	r := w.run("verify", "nosuch.receipt", "--json")
	require.Equal(t, 1, r.code, "%s", r)
	require.Equal(t, []map[string]any{{"file": "nosuch.receipt", "problem": "nosuch.receipt: no such file", "verdict": "INVALID"}}, jsonLines(t, r.stdout))
	r = w.run("verify", "nosuch.receipt")
	require.Equal(t, "INVALID\n", r.stdout)
}

// TestImportMissingStore: a missing store is rejected in the tool's words,
// naming the path once, in both views.
func TestImportMissingStore(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	r := w.run("import", "nosuch.chronicle")
	require.Equal(t, 1, r.code, "%s", r)
	require.Equal(t, "rejected  nosuch.chronicle: no such file\n", r.stdout)
	r = w.run("import", "nosuch.chronicle", "--json")
	require.Equal(t, []map[string]any{{"error": "no_such_file", "message": "nosuch.chronicle: no such file", "outcome": "rejected", "path": "nosuch.chronicle"}}, jsonLines(t, r.stdout))
}
