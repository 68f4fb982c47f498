package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/internal/pagedamage"

	"github.com/stretchr/testify/require"
)

// TestPageLoopIsOneLine: a branch page whose first child is itself sends
// every search through that bucket into endless recursion, which the Go
// runtime ends with hundreds of lines and exit 2. The stack watch
// (db/stackwatch.go) must turn it into the one line of any damage,
// naming the archive and check, with exit 1, quickly; check reports it.
func TestPageLoopIsOneLine(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	for i := range 60 {
		var b strings.Builder
		fmt.Fprintf(&b, "document %d\n", i)
		for j := range 4000 {
			fmt.Fprintf(&b, "line %d of document %d, Alice owes Bob %d\n", j, i, i*j)
		}
		w.write(fmt.Sprintf("docs/d%02d.txt", i), b.String())
	}
	w.ok("ingest", "docs")

	// The root of the chunks bucket is a branch page (60 documents of
	// 160 KB): every child of it becomes itself.
	damaged, root := pagedamage.LoopRoot(t, w.db, "chunks")
	require.NoError(t, os.Rename(damaged, w.db))

	// show reads chunks by key: a search through the looping root.
	cmd := exec.Command(chronicleBin, "--db", w.db, "show", "docs/d00.txt", "1")
	cmd.Dir, cmd.Env = w.dir, baseEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	require.NoError(t, cmd.Start())
	require.Equal(t, 1, exitCodeWithin(t, cmd, 30*time.Second, "show on a looping page tree"), "stderr: %.500s", stderr.String())
	require.Equal(t, fmt.Sprintf("chronicle: archive %s is damaged: a page tree loops (a page points back into its own path), and the read could not end; `chronicle check` lists the problems\n", w.db), stderr.String())
	t.Logf("ended after %v", time.Since(start))

	r := w.run("check")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stdout+r.stderr, fmt.Sprintf("page %d is reached twice (a loop", root))
}
