package mcpserver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestMCPDamagedPage: a damaged page is the CLI's one line, word for
// word, whether the read that meets it runs on the tool call's goroutine
// (show: a panic recovered by db.Guard) or on one of db's workers (find:
// the worker's DamageError naming the document), never bbolt's text.
func TestMCPDamagedPage(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := range 3 { // documents large enough that every bucket has pages of its own
		var b strings.Builder
		for j := range 3000 {
			fmt.Fprintf(&b, "line %d of ledger %d: Alice paid Bob %d SAR at the market\n", j, i, (i+1)*j)
		}
		name := filepath.Join(dir, fmt.Sprintf("ledger%d.txt", i))
		require.NoError(t, os.WriteFile(name, []byte(b.String()), 0o600))
		names = append(names, name)
	}
	archive := filepath.Join(dir, "chronicle.db")
	_, stderr := cli(t, archive, "ingest", dir)
	require.Empty(t, stderr)
	raw, err := os.ReadFile(archive)
	require.NoError(t, err)

	for _, tc := range []struct {
		bucket string
		tool   string
		args   map[string]any
		cli    []string
		want   string // %s: the archive
	}{
		{"chunks", "show", map[string]any{"document": names[1], "from": 2, "to": 3}, []string{"show", names[1], "2-3"},
			"chronicle show: archive %s is damaged: a page could not be read; `chronicle check` lists the problems it can find"},
		{"lines", "find", map[string]any{"terms": "Alice"}, []string{"find", "Alice"},
			"chronicle find: archive %s: document #1: archive corruption: a page could not be read; `chronicle check` lists the problems it can find"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			damaged := filepath.Join(t.TempDir(), "damaged.db")
			require.NoError(t, os.WriteFile(damaged, zeroRoot(t, archive, raw, tc.bucket), 0o600))
			want := fmt.Sprintf(tc.want, damaged)
			_, stderr := cli(t, damaged, tc.cli...)
			require.Equal(t, want+"\n", stderr, "the CLI")
			cs := connect(t, damaged, "damage")
			require.Equal(t, want, callError(t, cs, tc.tool, tc.args), "the MCP server")
			require.Equal(t, want, callError(t, cs, tc.tool, tc.args), "the server survives it")
		})
	}
}

// zeroRoot returns raw, the file of the archive at path, with the root
// page of bucket zeroed: bbolt panics when a read reaches it ("Page
// expected to be: N, but self identifies as 0").
func zeroRoot(t *testing.T, path string, raw []byte, bucket string) []byte {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	var root uint64
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket([]byte(bucket)).Root())
		return nil
	}))
	size := uint64(b.Info().PageSize)
	require.NoError(t, b.Close())
	require.NotZero(t, root, "bucket %s is inline", bucket)
	out := append([]byte(nil), raw...)
	clear(out[root*size : (root+1)*size])
	return out
}
