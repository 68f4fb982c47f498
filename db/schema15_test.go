package db

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// testdata/archives/schema15.db was written by schema 15, before the
// documents were listed by size and event count: the samples, the stories
// and 14 small pieces of varied sizes and event counts (one stored under
// two names, ties of event count), ingested by `chronicle ingest` and
// compacted with bbolt.Compact.
const schema15Fixture = "../testdata/archives/schema15.db"

// orderOf lists the digests of every document in order, and checks that
// pages of two end to end give the same.
func orderOf(t *testing.T, a *Archive, order DocOrder) []Digest {
	t.Helper()
	var all []Digest
	_, err := a.ListDocs(ListOptions{Order: order}, func(d *Document) error {
		all = append(all, d.SHA256)
		return nil
	})
	require.NoError(t, err)
	var paged []Digest
	var after *Digest
	for {
		more, err := a.ListDocs(ListOptions{Order: order, After: after, Limit: 2}, func(d *Document) error {
			paged = append(paged, d.SHA256)
			return nil
		})
		require.NoError(t, err)
		if !more {
			break
		}
		last := paged[len(paged)-1]
		after = &last
	}
	require.Equal(t, all, paged, "paged by 2")
	return all
}

// sortedBy is the documents' digests by value, largest first, ties in
// import order: what the order bucket must list.
func sortedBy(docs []*Document, value func(*Document) uint64) []Digest {
	docs = slices.Clone(docs)
	slices.SortStableFunc(docs, func(x, y *Document) int {
		switch vx, vy := value(x), value(y); {
		case vx > vy:
			return -1
		case vx < vy:
			return 1
		}
		return 0
	})
	out := make([]Digest, len(docs))
	for i, d := range docs {
		out[i] = d.SHA256
	}
	return out
}

// TestSchema15UpgradeOrdersDocuments: the upgrade to schema 16 lists every
// document by size and by event count from its record, as a fresh ingest
// would; check finds nothing wrong.
func TestSchema15UpgradeOrdersDocuments(t *testing.T) {
	path := fixtureCopy(t, schema15Fixture)
	version, _ := schemaTestRaw(t, path)
	require.Equal(t, "15", version, "the fixture must stay a schema-15 archive")
	require.False(t, hasBucket(t, path, "docorder"))

	a, err := Open(path, Options{})
	require.NoError(t, err)
	defer a.Close()
	require.Equal(t, 15, a.UpgradedFrom)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
	docs, err := a.Docs()
	require.NoError(t, err)
	require.Len(t, docs, 17)
	bySize := sortedBy(docs, func(d *Document) uint64 { return uint64(d.SourceSize) })
	byEvents := sortedBy(docs, func(d *Document) uint64 { return uint64(d.EventCount) })
	require.NotEqual(t, bySize, byEvents)
	require.Equal(t, bySize, orderOf(t, a, OrderSize))
	require.Equal(t, byEvents, orderOf(t, a, OrderEvents))

	// Each document's receipts, read from its own key prefix and counted,
	// are those of the whole listing that name it; pages in issue order
	// list the same receipts.
	all, err := a.Receipts(nil)
	require.NoError(t, err)
	require.Len(t, all, 17, "the ingest receipts")
	var paged []*Receipt
	for from := uint64(1); ; from += 5 {
		page, more, err := a.ReceiptsFrom(from, 5)
		require.NoError(t, err)
		for i, kr := range page {
			require.Equal(t, from+uint64(i), kr.Seq)
			paged = append(paged, kr.Doc)
		}
		if !more {
			break
		}
	}
	require.Equal(t, all, paged)
	for _, d := range docs {
		mine, err := a.Receipts(&d.SHA256)
		require.NoError(t, err)
		var want []*Receipt
		for _, r := range all {
			if r.Document == d.SHA256 {
				want = append(want, r)
			}
		}
		require.Equal(t, want, mine, d.Label())
	}

	// A document ingested after the upgrade takes its place in both.
	res, err := a.Ingest([]byte("Alice owns Book.\nAlice owns Pen.\nAlice owns Cup.\nAlice owns Hat.\nAlice owns Box.\nAlice owns Car.\n"), 1, "late.txt")
	require.NoError(t, err)
	docs, err = a.Docs()
	require.NoError(t, err)
	require.Equal(t, sortedBy(docs, func(d *Document) uint64 { return uint64(d.SourceSize) }), orderOf(t, a, OrderSize))
	require.Equal(t, res.Doc.SHA256, orderOf(t, a, OrderEvents)[0], "the most events first")
	ans, err := a.Answer(res.Doc, KindQuery, "@claim\tAlice\towns\tBook")
	require.NoError(t, err)
	require.NoError(t, a.KeepReceipt(ans.Receipt))
	mine, err := a.Receipts(&res.Doc.SHA256)
	require.NoError(t, err)
	require.Len(t, mine, 2, "its ingest receipt and the claim's, counted")
	problems, err = a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
}

// TestOrderDamage: an entry lost or pointing at another document is a
// problem check names and a listing refuses (never a wrong order); a
// reindex writes the order again.
func TestOrderDamage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		damage  func(b *bolt.Bucket, first, second []byte) error
		listErr bool
	}{
		{"entry lost", func(b *bolt.Bucket, first, _ []byte) error { return b.Delete(first) }, true},
		{"entry points at another document", func(b *bolt.Bucket, first, second []byte) error {
			return b.Put(first, b.Get(second))
		}, true},
		{"stray entry", func(b *bolt.Bucket, _, _ []byte) error {
			return b.Put(orderKey(orderSize, 1<<40, 999), make([]byte, 32))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fixtureCopy(t, schema15Fixture)
			a, err := Open(path, Options{})
			require.NoError(t, err)
			require.NoError(t, a.bolt.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketOrder)
				c := b.Cursor()
				first, _ := c.Seek([]byte{orderSize})
				first = slices.Clone(first)
				second, _ := c.Next()
				return tc.damage(b, first, slices.Clone(second))
			}))
			problems, err := a.Check(context.Background())
			require.NoError(t, err)
			require.NotEmpty(t, problems)
			_, err = a.ListDocs(ListOptions{Order: OrderSize}, func(*Document) error { return nil })
			if tc.listErr {
				require.ErrorIs(t, err, ErrCorrupt)
			}
			_, err = a.Reindex(context.Background())
			require.NoError(t, err)
			problems, err = a.Check(context.Background())
			require.NoError(t, err)
			require.Empty(t, problems)
			docs, err := a.Docs()
			require.NoError(t, err)
			require.Equal(t, sortedBy(docs, func(d *Document) uint64 { return uint64(d.SourceSize) }), orderOf(t, a, OrderSize))
			require.NoError(t, a.Close())
		})
	}
}

// TestDerivedBucketMissing: a schema-16 archive without one of the
// buckets derived from the records and receipts is damage that names the
// bucket and `chronicle reindex`, which writes it again.
func TestDerivedBucketMissing(t *testing.T) {
	for _, name := range [][]byte{bucketOrder, bucketReceiptCounts, bucketReceiptOrder} {
		t.Run(string(name), func(t *testing.T) {
			path := fixtureCopy(t, schema15Fixture)
			a, err := Open(path, Options{})
			require.NoError(t, err)
			docs, err := a.Docs()
			require.NoError(t, err)
			require.NoError(t, a.bolt.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(name) }))
			reads := []error{}
			_, err = a.ListDocs(ListOptions{Order: OrderSize}, func(*Document) error { return nil })
			reads = append(reads, err)
			_, err = a.Receipts(&docs[0].SHA256)
			reads = append(reads, err)
			_, _, err = a.ReceiptsFrom(1, 10)
			reads = append(reads, err)
			_, err = a.Ingest([]byte("one more\n"), 1, "more.txt")
			reads = append(reads, err)
			failed := 0
			for _, err := range reads {
				if err != nil {
					require.ErrorIs(t, err, ErrCorrupt)
					require.Contains(t, err.Error(), "the "+string(name)+" bucket is missing (run `chronicle reindex`")
					failed++
				}
			}
			require.Positive(t, failed)
			problems, err := a.Check(context.Background())
			require.NoError(t, err)
			require.Contains(t, fmt.Sprint(problems), "the "+string(name)+" bucket is missing")
			_, err = a.Reindex(context.Background())
			require.NoError(t, err)
			problems, err = a.Check(context.Background())
			require.NoError(t, err)
			require.Empty(t, problems)
			_, err = a.Ingest([]byte("one more\n"), 1, "more.txt")
			require.NoError(t, err)
			require.NoError(t, a.Close())
		})
	}
}
