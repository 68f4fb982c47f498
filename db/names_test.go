package db

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestSchema11SourcesUpgrade: an archive written before source paths
// (schema 11) keeps working: its absolute names become their own source
// paths, so an uncleaned spelling finds them, and its relative names
// resolve as typed or cleaned; check finds nothing wrong.
func TestSchema11SourcesUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	a, err := Open(path, Options{})
	require.NoError(t, err)
	_, err = a.Ingest([]byte("Alice owns Book.\n"), 1750000000, "/data/stories/x.txt")
	require.NoError(t, err)
	_, err = a.Ingest([]byte("Bob owns Pen.\n"), 1750000000, "rel/y.txt")
	require.NoError(t, err)
	// Ingest (no file) keeps no source: the records are as schema 11
	// wrote them. Mark the file schema 11.
	require.NoError(t, a.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keySchema, []byte("11"))
	}))
	require.NoError(t, a.Close())

	a, err = Open(path, Options{})
	require.NoError(t, err)
	defer a.Close()
	require.Equal(t, 11, a.UpgradedFrom)
	for _, c := range []struct{ arg, want string }{
		{"/data/stories/x.txt", "/data/stories/x.txt"},
		{"/data/stories/./x.txt", "/data/stories/x.txt"},
		{"/data//stories/x.txt", "/data/stories/x.txt"},
		{"rel/y.txt", "rel/y.txt"},
		{"./rel/y.txt", "rel/y.txt"},
	} {
		d, err := a.Resolve(c.arg)
		require.NoError(t, err, c.arg)
		require.Equal(t, []string{c.want}, d.Names, c.arg)
	}
	d, err := a.Resolve("/data/stories/x.txt")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"/data/stories/x.txt": "/data/stories/x.txt"}, d.Sources)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
}

// TestSourcePathDamage: a path entry and a record that disagree are
// corruption, for a read by path and for check.
func TestSourcePathDamage(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.db")
	a, err := Open(path, Options{})
	require.NoError(t, err)
	defer a.Close()
	file := filepath.Join(dir, "story.txt")
	pp := a.Prepare([]byte("Alice owns Book.\n"), 1750000000)
	res, err := a.IngestFile(pp, file)
	require.NoError(t, err)
	require.Equal(t, map[string]string{file: file}, res.Doc.Sources)
	other, err := a.Ingest([]byte("Bob owns Pen.\n"), 1750000000, "other.txt")
	require.NoError(t, err)

	// The path entry now points at the other document.
	require.NoError(t, a.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketNames).Put(pathKey(file), other.Doc.SHA256[:])
	}))
	_, err = a.Resolve(dir + "/./story.txt") // not the name as typed: found by its path
	require.True(t, errors.Is(err, ErrCorrupt), "%v", err)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, problems)
	var details []string
	for _, p := range problems {
		details = append(details, p.Detail)
	}
	require.Contains(t, details, `source path "`+file+`" is not in the document's record`)
	require.Contains(t, details, `the path entry "`+file+`" does not point back at it`)
}

// TestChosenNames: IngestFile refuses an empty chosen name and one that is
// a hash prefix of another document, writing nothing.
func TestChosenNames(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(filepath.Join(dir, "a.db"), Options{})
	require.NoError(t, err)
	defer a.Close()
	first, err := a.Ingest([]byte("Alice owns Book.\n"), 1750000000, "a.txt")
	require.NoError(t, err)
	for _, name := range []string{"", first.Doc.SHA256.String()[:8], first.Doc.SHA256.String()} {
		_, err := a.IngestFile(a.Prepare([]byte("Bob owns Pen.\n"), 1750000000), filepath.Join(dir, "b.txt"), name)
		require.True(t, errors.Is(err, ErrBadChosenName), "%q: %v", name, err)
		docs, err := a.Docs()
		require.NoError(t, err)
		require.Len(t, docs, 1, "nothing was written")
	}
}
