package db_test

// Listing at any size (issue 26): ListDocs pages (limit, after) give the
// rows of the whole listing, in pieces, in every order; CompleteDocs reads
// names by a seek, capped.

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// listFixture ingests documents of varied sizes (some equal), one with
// three names, varied event counts, and one left without a name (its only name moved to a later
// document); it returns the archive path and the documents in import
// order.
func listFixture(t *testing.T) (string, *db.Archive) {
	t.Helper()
	path := newPath(t)
	a := openArchive(t, path)
	for i := 0; i < 23; i++ {
		name := fmt.Sprintf("doc-%02d.txt", (i*7)%23) // names not in import order
		// (i*3)%4 literal events: event counts not in import order.
		text := fmt.Sprintf("document %d\n%s\n%s", i, strings.Repeat("x", (i*5)%11), strings.Repeat("Alice owns Book.\n", (i*3)%4))
		_, err := a.Ingest([]byte(text), goldenTime, name)
		require.NoError(t, err)
	}
	_, err := a.Ingest([]byte("several names\n"), goldenTime, "zz.txt", "aa.txt", "mm.txt")
	require.NoError(t, err)
	// lonely.txt loses its only name to the next document.
	_, err = a.Ingest([]byte("lonely\n"), goldenTime, "lonely.txt")
	require.NoError(t, err)
	_, err = a.Ingest([]byte("took the name\n"), goldenTime, "lonely.txt")
	require.NoError(t, err)
	return path, a
}

func listAll(t *testing.T, a *db.Archive, opts db.ListOptions) ([]string, bool) {
	t.Helper()
	var out []string
	more, err := a.ListDocs(opts, func(d *db.Document) error {
		out = append(out, d.SHA256.String())
		return nil
	})
	require.NoError(t, err)
	return out, more
}

func digests(docs []*db.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.SHA256.String()
	}
	return out
}

func TestListDocsPages(t *testing.T) {
	_, a := listFixture(t)
	docs, err := a.Docs()
	require.NoError(t, err)
	require.Len(t, docs, 26)

	byName := slices.Clone(docs)
	first := func(d *db.Document) string {
		if len(d.Names) == 0 {
			return "\xff" // after every name
		}
		return slices.Min(d.Names)
	}
	slices.SortStableFunc(byName, func(x, y *db.Document) int { return strings.Compare(first(x), first(y)) })
	require.Empty(t, byName[len(byName)-1].Names, "the nameless document comes last")
	require.Equal(t, "aa.txt", first(byName[0]))
	bySize := slices.Clone(docs)
	slices.SortStableFunc(bySize, func(x, y *db.Document) int { return int(y.SourceSize - x.SourceSize) })
	byEvents := slices.Clone(docs)
	slices.SortStableFunc(byEvents, func(x, y *db.Document) int { return int(y.EventCount) - int(x.EventCount) })
	require.NotEqual(t, docs, byEvents, "the fixture's event counts differ")
	newest := slices.Clone(docs)
	slices.Reverse(newest)

	for _, order := range []struct {
		name  string
		order db.DocOrder
		want  []string
	}{
		{"import", db.OrderImport, digests(docs)},
		{"name", db.OrderName, digests(byName)},
		{"size", db.OrderSize, digests(bySize)},
		{"events", db.OrderEvents, digests(byEvents)},
		{"newest", db.OrderNewest, digests(newest)},
	} {
		t.Run(order.name, func(t *testing.T) {
			all, more := listAll(t, a, db.ListOptions{Order: order.order})
			require.False(t, more)
			require.Equal(t, order.want, all)
			for _, limit := range []int{1, 2, 5, 25, 26, 27, 100} {
				var got []string
				var after *db.Digest
				pages := 0
				for {
					page, more := listAll(t, a, db.ListOptions{Order: order.order, After: after, Limit: limit})
					require.LessOrEqual(t, len(page), limit)
					got = append(got, page...)
					pages++
					if !more {
						break
					}
					require.Len(t, page, limit, "a page before the last is full")
					d := hexDigest(page[len(page)-1])
					after = &d
				}
				require.Equal(t, order.want, got, "limit %d", limit)
				require.Equal(t, (len(order.want)+limit-1)/limit, pages, "limit %d", limit)
			}
			// After the last document: nothing, and no more.
			last := hexDigest(order.want[len(order.want)-1])
			page, more := listAll(t, a, db.ListOptions{Order: order.order, After: &last, Limit: 3})
			require.Empty(t, page)
			require.False(t, more)
		})
	}

	unknown := db.Digest{1, 2, 3}
	_, err = a.ListDocs(db.ListOptions{After: &unknown}, func(*db.Document) error { return nil })
	require.ErrorIs(t, err, db.ErrUnknownDoc)
}

// TestListDocsDamage: a lost sequence entry or a record whose name entry
// points elsewhere fails the listing instead of shortening it.
func TestListDocsDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(tx *bolt.Tx) error
		order  db.DocOrder
	}{
		{"lost sequence entry", func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("seqs")).Delete([]byte{0, 0, 0, 0, 0, 0, 0, 5})
		}, db.OrderImport},
		{"last sequence entry lost", func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("seqs")).Delete([]byte{0, 0, 0, 0, 0, 0, 0, 26})
		}, db.OrderImport},
		{"lost sequence entry, newest first", func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("seqs")).Delete([]byte{0, 0, 0, 0, 0, 0, 0, 5})
		}, db.OrderNewest},
		{"last sequence entry lost, newest first", func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("seqs")).Delete([]byte{0, 0, 0, 0, 0, 0, 0, 26})
		}, db.OrderNewest},
		{"first sequence entry lost, newest first", func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("seqs")).Delete([]byte{0, 0, 0, 0, 0, 0, 0, 1})
		}, db.OrderNewest},
		{"name entry moved", func(tx *bolt.Tx) error {
			nb := tx.Bucket([]byte("names"))
			return nb.Put([]byte("doc-03.txt"), nb.Get([]byte("doc-04.txt")))
		}, db.OrderName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, a := listFixture(t)
			require.NoError(t, a.Close())
			editBolt(t, path, tc.damage)
			a = openArchive(t, path, db.Options{ReadOnly: true})
			_, err := a.ListDocs(db.ListOptions{Order: tc.order}, func(*db.Document) error { return nil })
			require.ErrorIs(t, err, db.ErrCorrupt)
		})
	}
}

// TestCompleteDocs: names by prefix, in byte order, at most max, read by a
// seek: 100,000 name entries cost no more than ten (no timing asserted:
// the answer is what a full scan would give, capped).
func TestCompleteDocs(t *testing.T) {
	path, a := listFixture(t)
	for _, tc := range []struct {
		prefix string
		max    int
		want   []string
	}{
		{"doc-1", 100, []string{"doc-10.txt", "doc-11.txt", "doc-12.txt", "doc-13.txt", "doc-14.txt", "doc-15.txt", "doc-16.txt", "doc-17.txt", "doc-18.txt", "doc-19.txt"}},
		{"doc-1", 3, []string{"doc-10.txt", "doc-11.txt", "doc-12.txt"}},
		{"a", 10, []string{"aa.txt"}},
		{"lonely", 10, []string{"lonely.txt"}},
		{"nothing", 10, nil},
		{"", 2, []string{"aa.txt", "doc-00.txt"}},
	} {
		names, _, err := a.CompleteDocs(tc.prefix, tc.max)
		require.NoError(t, err)
		require.Equal(t, tc.want, names, "prefix %q", tc.prefix)
	}
	docs, err := a.Docs()
	require.NoError(t, err)
	h := docs[3].SHA256.String()
	_, found, err := a.CompleteDocs(h[:5], 10)
	require.NoError(t, err)
	require.Contains(t, found, docs[3].SHA256)
	for _, d := range found {
		require.True(t, strings.HasPrefix(d.String(), h[:5]))
	}
	_, found, err = a.CompleteDocs("", 10)
	require.NoError(t, err)
	require.Empty(t, found, "no hashes for an empty word")
	_, found, err = a.CompleteDocs("doc", 10)
	require.NoError(t, err)
	require.Empty(t, found, "not hex")

	// 100,000 names: the answer is still the first max of the prefix.
	require.NoError(t, a.Close())
	editBolt(t, path, func(tx *bolt.Tx) error {
		nb := tx.Bucket([]byte("names"))
		target := docs[0].SHA256
		for i := 0; i < 100000; i++ {
			if err := nb.Put([]byte(fmt.Sprintf("bulk/%06d.txt", i)), target[:]); err != nil {
				return err
			}
		}
		return nil
	})
	a = openArchive(t, path, db.Options{ReadOnly: true})
	names, _, err := a.CompleteDocs("bulk/0421", 200)
	require.NoError(t, err)
	require.Len(t, names, 100)
	require.Equal(t, "bulk/042100.txt", names[0])
	require.Equal(t, "bulk/042199.txt", names[99])
	names, _, err = a.CompleteDocs("bulk/", 200)
	require.NoError(t, err)
	require.Len(t, names, 200)
	require.Equal(t, "bulk/000199.txt", names[199])
}
