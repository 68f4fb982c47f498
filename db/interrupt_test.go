package db_test

import (
	"context"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// ingestNotes ingests n group files (not from disk) into a.
func ingestNotes(t *testing.T, a *db.Archive, n int) {
	t.Helper()
	for _, f := range groupFiles("notes", n) {
		_, err := a.Ingest(f.src, goldenTime, f.path)
		require.NoError(t, err)
	}
}

// TestCheckStopsOnCancel: check ends at the next document once its context
// is canceled, with ErrInterrupted (and context.Canceled) saying how far
// it got; a context canceled before it starts checks no document.
func TestCheckStopsOnCancel(t *testing.T) {
	t.Parallel()
	a := openArchive(t, newPath(t))
	ingestNotes(t, a, 6)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checked := 0
	_, err := a.CheckWith(ctx, db.CheckOptions{Progress: func(i, n int, d *db.Document) {
		checked++
		if i == 1 {
			cancel()
		}
	}})
	require.ErrorIs(t, err, db.ErrInterrupted)
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, "check interrupted after 2 of 6 documents")
	require.Equal(t, 2, checked)

	_, err = a.Check(ctx)
	require.EqualError(t, err, "check interrupted after 0 of 6 documents")
	require.Empty(t, problemsOf(t, a), "a live context checks them all")
}

// reindexMark reads the rebuild-in-progress mark of the closed archive at
// path ("" when there is none).
func reindexMark(t *testing.T, path string) (mark string) {
	t.Helper()
	editBolt(t, path, func(tx *bolt.Tx) error { // a transaction that writes nothing
		mark = string(tx.Bucket([]byte("meta")).Get([]byte("reindex_next")))
		return nil
	})
	return mark
}

// TestReindexStopsOnCancel: a rebuild whose context is canceled after its
// first batch ends there with ErrInterrupted, leaving its mark; the next
// open finishes the rebuild and every document is found again. A context
// canceled before the rebuild starts leaves the indexes as they were.
func TestReindexStopsOnCancel(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	a := openArchive(t, path)
	ingestNotes(t, a, 70) // three batches
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n, err := a.Reindex(ctx)
	require.ErrorIs(t, err, db.ErrInterrupted)
	require.Zero(t, n)
	require.NoError(t, a.Close())
	require.Empty(t, reindexMark(t, path), "nothing was started")

	a = openArchive(t, path)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	batches := 0
	n, err = a.ReindexWith(ctx, db.ReindexOptions{Progress: func(done, total int) { batches++; cancel() }})
	require.ErrorIs(t, err, db.ErrInterrupted)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, batches)
	require.Positive(t, n)
	require.Less(t, n, 70)
	require.NoError(t, a.Close())
	require.NotEmpty(t, reindexMark(t, path), "the rebuild is marked unfinished")

	a = openArchive(t, path) // finishes the rebuild
	require.NoError(t, a.Close())
	require.Empty(t, reindexMark(t, path))
	a = openArchive(t, path)
	require.Empty(t, problemsOf(t, a))
	q, err := find.NewQuery("uniq69word")
	require.NoError(t, err)
	hits, err := a.Find(q, 0)
	require.NoError(t, err)
	require.Len(t, hits, 1)
}
