package db

import (
	"context"
	"testing"

	"github.com/casper-chronicle/chronicle/index"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// testdata/archives/schema14.db was written by schema 14, before the term
// index had its group summaries: the test inputs and samples and 139
// twelve-line pieces of the project's guides (153 documents, three groups),
// ingested by `chronicle ingest` and compacted with bbolt.Compact.
const schema14Fixture = "../testdata/archives/schema14.db"

// TestSchema14UpgradeSummarisesTermIndex: the upgrade to schema 15 builds
// the group summaries from the postings (no document is read), marks every
// document folded, and every find answers as on a freshly ingested
// archive.
func TestSchema14UpgradeSummarisesTermIndex(t *testing.T) {
	path := fixtureCopy(t, schema14Fixture)
	version, _ := schemaTestRaw(t, path)
	require.Equal(t, "14", version, "the fixture must stay a schema-14 archive")
	require.False(t, hasBucket(t, path, "gramgroups"), "the fixture has no summaries")

	a, err := Open(path, Options{})
	require.NoError(t, err)
	defer a.Close()
	require.Equal(t, 14, a.UpgradedFrom)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
	require.NoError(t, a.bolt.View(func(tx *bolt.Tx) error {
		w, err := index.Folded(tx)
		require.NoError(t, err)
		require.Equal(t, maxSeq(tx)+1, w, "every document is folded")
		require.Equal(t, uint64(153), maxSeq(tx))
		return nil
	}))
	requireFindsAsFresh(t, a, 153, 900)
}

// hasBucket reports whether the archive at path has a bucket of that name.
func hasBucket(t *testing.T, path, name string) bool {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	found := false
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		found = tx.Bucket([]byte(name)) != nil
		return nil
	}))
	return found
}
