package db_test

import (
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// TestPrepareKnown: a source the archive holds is ingested without being
// prepared (only its name and receipt are added), and one it turns out not
// to hold is prepared by IngestPrepared itself, so the shortcut can never
// lose a document.
func TestPrepareKnown(t *testing.T) {
	t.Parallel()
	a := openArchive(t, newPath(t))
	defer a.Close()
	src := []byte("@event\tPAYMENT\tAhmed\tKhalid\t100\tSAR\n")
	first, err := a.IngestPrepared(a.Prepare(src, 1750000000), "first.txt")
	require.NoError(t, err)
	require.False(t, first.Reused)

	known, err := a.KnownDocuments()
	require.NoError(t, err)
	require.Equal(t, map[db.Digest]bool{first.Doc.SHA256: true}, known)

	again, err := a.IngestPrepared(a.PrepareKnown(src, 1750000100), "again.txt")
	require.NoError(t, err)
	require.True(t, again.Reused)
	require.Equal(t, first.Doc.SHA256, again.Doc.SHA256)
	require.Equal(t, []string{"first.txt", "again.txt"}, again.Doc.Names)

	// Claimed known, but new: prepared on the spot, events and all.
	other := []byte("@event\tPAYMENT\tSaud\tAhmed\t5\tSAR\nAnd some prose.\n")
	res, err := a.IngestPrepared(a.PrepareKnown(other, 1750000200), "other.txt")
	require.NoError(t, err)
	require.False(t, res.Reused)
	require.Equal(t, 1, res.Doc.EventCount)
	hits, err := a.Find(mustQuery(t, "prose"), 0)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	require.Equal(t, res.Doc.SHA256, hits[0].Doc.SHA256)
	require.Empty(t, problemsOf(t, a))
}
