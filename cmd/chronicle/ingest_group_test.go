package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIngestGroupsKeepWalkOrder: whatever the group size, every entry of
// a batch gets its outcome line in walk order (files, a rejected file and
// a skipped link in the middle of a group), the rejected file is left out
// alone and the others land; --commit-every takes a positive count only,
// refused before the archive is created.
func TestIngestGroupsKeepWalkOrder(t *testing.T) {
	t.Parallel()
	for _, every := range []string{"1", "2", "3", "2048"} {
		t.Run("commit-every="+every, func(t *testing.T) {
			w := newWS(t)
			w.write("batch/a.txt", "Alice owns Book.\n")
			w.write("batch/b.txt", "Bob owns Pen.\n")
			require.NoError(t, os.Symlink("a.txt", filepath.Join(w.dir, "batch", "b2.lnk")))
			w.write("batch/c-bad.txt", "fine\nnot \xff UTF-8\n")
			w.write("batch/.hidden", "skipped\n")
			w.write("batch/d.txt", "Carol owns Cup.\n")
			w.write("batch/e.txt", "Alice owns Book.\n") // the bytes of a.txt: reused
			w.write("batch/f.txt", "Dave owns Hat.\n")
			r := w.run("ingest", "batch", "--json", "--commit-every="+every)
			require.Equal(t, 1, r.code, "%s", r)
			var got []string
			for _, line := range lines(r.stdout) {
				var o struct{ Path, Outcome string }
				require.NoError(t, json.Unmarshal([]byte(line), &o), line)
				got = append(got, o.Outcome+" "+o.Path)
			}
			require.Equal(t, []string{
				"skipped batch/.hidden", "new batch/a.txt", "new batch/b.txt", "skipped batch/b2.lnk", "rejected batch/c-bad.txt",
				"new batch/d.txt", "reused batch/e.txt", "new batch/f.txt",
			}, got)
			require.Len(t, w.docs(), 4)
			require.Contains(t, w.ok("check"), "ok: 4 documents checked")
		})
	}
	w := newWS(t)
	w.write("a.txt", "Alice owns Book.\n")
	for _, bad := range []string{"0", "-3", "many"} {
		r := w.run("ingest", "a.txt", "--commit-every="+bad)
		require.Equal(t, 2, r.code, "%s", r)
		require.Contains(t, r.stderr, fmt.Sprintf("--commit-every wants a positive integer, got %q", bad))
		require.NoFileExists(t, w.db)
	}
}
