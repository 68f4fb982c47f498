package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIngestEmptyDirectory: a directory argument that gives no file to
// ingest is said so on stderr (with --json: an "empty" outcome line);
// when nothing at all was given to ingest the exit is 1 and a missing
// archive is not created, else the exit follows the files. No argument
// at all stays a usage error.
func TestIngestEmptyDirectory(t *testing.T) {
	t.Parallel()
	const note = "chronicle ingest: %s: no files to ingest in this directory\n"
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		stdout  string // regexp
		stderr  string // exact
		created bool   // the archive exists afterwards
	}{
		{"one empty directory", []string{"empty"}, 1, `^$`, fmt.Sprintf(note, "empty"), false},
		{"two empty directories", []string{"empty", "hidden-only"}, 1,
			`^skipped   hidden-only/\.h  hidden \(its name starts with a dot\)\n$`,
			fmt.Sprintf(note, "empty") + fmt.Sprintf(note, "hidden-only"), false},
		{"an empty directory beside files", []string{"empty", "full"}, 0,
			`^new +full/a\.txt +[0-9a-f]{12} +1 event\n$`, fmt.Sprintf(note, "empty"), true},
		{"an empty directory beside a rejected file", []string{"empty", "missing.txt"}, 1,
			`^rejected  missing\.txt: no such file or directory\n$`,
			fmt.Sprintf(note, "empty") + "chronicle ingest: 1 of 1 files rejected\n", false},
		{"an empty directory inside a walk is not an argument", []string{"nested"}, 0,
			`^new +nested/b\.txt +[0-9a-f]{12} +1 event\n$`, "", true},
		{"the empty directory in JSON", []string{"--json", "empty"}, 1,
			`^\{"outcome":"empty","path":"empty","reason":"no files to ingest in this directory"\}\n$`,
			`{"code":1,"command":"ingest","error":"failure","file":"empty","message":"chronicle ingest: nothing was ingested: empty has no files to ingest"}` + "\n", false},
		{"no argument", nil, 2, `^$`, "chronicle ingest: usage: ingest PATH...\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWS(t)
			require.NoError(t, os.Mkdir(filepath.Join(w.dir, "empty"), 0o755))
			w.write("hidden-only/.h", "Hidden owns Nothing.\n")
			w.write("full/a.txt", "Alice owns Book.\n")
			w.write("nested/b.txt", "Bob owns Cup.\n")
			require.NoError(t, os.Mkdir(filepath.Join(w.dir, "nested", "inner"), 0o755))

			r := w.run(append([]string{"ingest"}, tc.args...)...)
			require.Equal(t, tc.code, r.code, "%s", r)
			require.Regexp(t, tc.stdout, r.stdout)
			require.Equal(t, tc.stderr, r.stderr)
			_, err := os.Stat(w.db)
			if tc.created {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, os.ErrNotExist, "nothing to ingest creates no archive")
		})
	}
}
