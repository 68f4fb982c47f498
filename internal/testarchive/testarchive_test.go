package testarchive

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// TestSamples: the sample archive holds the files of testdata/samples
// under their repository paths, in lexical order, imported at GoldenTime;
// Build adds further directories after them.
func TestSamples(t *testing.T) {
	root := Root(t)
	_, err := os.Stat(filepath.Join(root, "testdata", "samples"))
	require.NoError(t, err, "the root holds testdata")

	read := func(path string) []*db.Document {
		a, err := db.Open(path, db.Options{ReadOnly: true})
		require.NoError(t, err)
		defer a.Close()
		docs, err := a.Docs()
		require.NoError(t, err)
		return docs
	}
	docs := read(Samples(t))
	require.Len(t, docs, 2)
	for i, name := range []string{"testdata/samples/ahmed-khalid-ar.txt", "testdata/samples/alice-bob-en.txt"} {
		require.Equal(t, []string{name}, docs[i].Names)
		require.Equal(t, uint64(GoldenTime), docs[i].ImportedAt)
	}

	path := filepath.Join(t.TempDir(), "two-dirs.db")
	Build(t, path, "testdata/samples", "testdata/stories")
	docs = read(path)
	require.Len(t, docs, 4)
	require.Equal(t, []string{"testdata/stories/2-bank-statement-en.txt"}, docs[3].Names)
}

// TestOne: one document under its name at GoldenTime.
func TestOne(t *testing.T) {
	a, err := db.Open(One(t, "one.txt", "@chronicle\tZed\tBORROWED_FROM\tYan\t5\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"), db.Options{ReadOnly: true})
	require.NoError(t, err)
	defer a.Close()
	docs, err := a.Docs()
	require.NoError(t, err)
	require.Len(t, docs, 1)
	require.Equal(t, []string{"one.txt"}, docs[0].Names)
	require.Equal(t, uint64(GoldenTime), docs[0].ImportedAt)
	require.Equal(t, 1, docs[0].EventCount)
}
