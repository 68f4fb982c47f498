package db

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// testdata/archives/schema12.db was written by schema 12, whose term index
// kept one bbolt value per gram: the golden inputs, the two samples and 60
// pieces of the README (70 documents, two groups of the term index),
// ingested by `chronicle ingest *.txt` and compacted with bbolt.Compact.
const schema12Fixture = "../testdata/archives/schema12.db"

// TestSchema12UpgradeKeepsFindAnswers: the upgrade to posting blocks
// (schema 13) rebuilds the term index, and every find gives the answer of
// an archive freshly ingested from the same documents.
func TestSchema12UpgradeKeepsFindAnswers(t *testing.T) {
	path := fixtureCopy(t, schema12Fixture)
	version, _ := schemaTestRaw(t, path)
	require.Equal(t, "12", version, "the fixture must stay a schema-12 archive")
	require.True(t, hasGramKeyOfLen(t, path, 8), "the fixture keeps one key per trigram")

	a, err := Open(path, Options{})
	require.NoError(t, err)
	defer a.Close()
	require.Equal(t, 12, a.UpgradedFrom)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)

	requireFindsAsFresh(t, a, 70, 600)
	require.NoError(t, a.Close())
	require.False(t, hasGramKeyOfLen(t, path, 8), "the upgrade leaves no per-gram key")
}

// fixtureCopy copies an archive fixture into t's temporary directory (an
// upgrade writes to it) and returns the copy's path.
func fixtureCopy(t *testing.T, fixture string) string {
	t.Helper()
	data, err := os.ReadFile(fixture)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), filepath.Base(fixture))
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// requireFindsAsFresh checks that a (an upgraded archive of wantDocs
// documents) answers find, for at least minQueries of the words of its
// documents and a few mixes, as an archive freshly ingested from the same
// documents does.
func requireFindsAsFresh(t *testing.T, a *Archive, wantDocs, minQueries int) {
	t.Helper()
	fresh, err := Open(filepath.Join(t.TempDir(), "fresh.db"), Options{})
	require.NoError(t, err)
	defer fresh.Close()
	docs, err := a.Docs()
	require.NoError(t, err)
	require.Len(t, docs, wantDocs)
	slices.SortFunc(docs, func(x, y *Document) int { return int(x.Seq) - int(y.Seq) })
	words := map[string]bool{}
	for _, d := range docs {
		s, err := a.Load(d)
		require.NoError(t, err)
		for _, n := range d.Names {
			_, err = fresh.Ingest(s.Source, d.ImportedAt, n)
			require.NoError(t, err)
		}
		for _, w := range strings.FieldsFunc(string(s.Source), func(r rune) bool { return r < 0x80 && find.IsSeparator(byte(r)) }) {
			words[w] = true
		}
	}
	var queries []string
	for w := range words {
		queries = append(queries, w)
	}
	slices.Sort(queries)
	queries = append(queries, "e", "ب", "th", "xqzjvwkq", "Alice Bob", "find term index", "أحمد خالد")
	asked := 0
	for i, q := range queries {
		if i%2 != 0 && i < len(queries)-7 {
			continue // half the words, and the mixes
		}
		fq, err := find.NewQuery(q)
		if err != nil {
			continue // words find refuses (too long, not UTF-8): not asked
		}
		asked++
		want, err := fresh.Find(fq, 20)
		require.NoError(t, err)
		got, err := a.Find(fq, 20)
		require.NoError(t, err, "find %q", q)
		require.Equal(t, len(want), len(got), "find %q", q)
		for j := range want {
			require.Equal(t, want[j].Doc.SHA256, got[j].Doc.SHA256, "find %q", q)
			require.Equal(t, want[j].Result, got[j].Result, "find %q", q)
		}
	}
	require.Greater(t, asked, minQueries)
}

// hasGramKeyOfLen reports whether the term index of the archive at path
// holds a key of n bytes (a trigram key of schema 12 is 8 bytes; a block
// key is at most 7).
func hasGramKeyOfLen(t *testing.T, path string, n int) bool {
	t.Helper()
	b, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	require.NoError(t, err)
	defer b.Close()
	found := false
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("grams")).ForEach(func(k, _ []byte) error {
			found = found || len(k) == n
			return nil
		})
	}))
	return found
}
