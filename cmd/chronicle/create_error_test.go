package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCreateInReadOnlyDirectory: an archive that cannot be created is
// named, with its directory, in text and in the JSON error (message and
// "file"), never the temporary file creation works in; nothing is left
// behind.
func TestCreateInReadOnlyDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Dir(readOnlyCopy(t, "../../testdata/archives/schema12.db"))
	cause, kind := "read-only file system", "failure"
	if os.Geteuid() != 0 { // readOnlyCopy made only the file read-only
		require.NoError(t, os.Chmod(dir, 0o555))
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		cause, kind = "permission denied", "permission"
	}
	w := newWS(t)
	w.write("a.txt", "alpha\n")
	path := filepath.Join(dir, "new.db")
	want := "archive " + path + ": cannot create it: the directory " + dir + " is not writable (" + cause + ")"
	for _, tc := range []struct {
		name string
		json bool
	}{{"text", false}, {"json", true}} {
		t.Run(tc.name, func(t *testing.T) {
			argv := []string{"--db=" + path, "ingest", "a.txt"}
			if tc.json {
				e := requireJSONError(t, w.raw(nil, append(argv, "--json")...), 1, kind, "ingest", map[string]string{"file": path}, false)
				require.Equal(t, "chronicle ingest: "+want, e["message"])
				return
			}
			r := w.raw(nil, argv...)
			requireOneLineError(t, r, 1, "ingest", regexp.QuoteMeta(want))
			require.NotContains(t, r.stderr, ".creating-")
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the copy readOnlyCopy made")
}
