package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestPageLoopIsOneLine: a branch page whose first child is itself sends
// every search through that bucket into endless recursion, which the Go
// runtime ends with hundreds of lines and exit 2. The stack watch
// (repl/stackwatch.go) must turn it into the one line of any damage,
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
	b, err := bolt.Open(w.db, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	var root uint64
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket([]byte("chunks")).Root())
		return nil
	}))
	pageSize := int64(b.Info().PageSize)
	require.NoError(t, b.Close())
	raw, err := os.ReadFile(w.db)
	require.NoError(t, err)
	p := raw[int64(root)*pageSize:]
	require.Equal(t, uint16(0x01), binary.LittleEndian.Uint16(p[8:]), "the chunks bucket's root is a branch page")
	n := int(binary.LittleEndian.Uint16(p[10:]))
	require.GreaterOrEqual(t, n, 2)
	for i := range n { // branch elements: pos u32, ksize u32, child u64
		binary.LittleEndian.PutUint64(p[16+16*i+8:], root)
	}
	require.NoError(t, os.WriteFile(w.db, raw, 0o600))

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
