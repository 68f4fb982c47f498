package chronicle_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle"
)

// TestIngestPaths: a directory is ingested as `chronicle ingest` ingests
// it, outcome by outcome in walk order; a canceled context ingests nothing
// (ErrInterrupted, context.Canceled), and a later call does it all; a
// second run reuses every document.
func TestIngestPaths(t *testing.T) {
	t.Parallel()
	a, _ := openTemp(t)
	dir := filepath.Join(t.TempDir(), "notes")
	require.NoError(t, os.Mkdir(dir, 0o755))
	for i := range 3 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%d.txt", i)), []byte(fmt.Sprintf("Alice owns Book%d.\n", i)), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.txt"), []byte("ok\n\xff\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".hidden"), []byte("x\n"), 0o644))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := a.IngestPaths(ctx, []string{dir}, nil)
	require.ErrorIs(t, err, chronicle.ErrInterrupted)
	require.ErrorIs(t, err, context.Canceled)
	docs, err := a.Documents()
	require.NoError(t, err)
	require.Empty(t, docs)

	outcomes := func() (got []string) {
		require.NoError(t, a.IngestPaths(context.Background(), []string{dir}, func(p chronicle.PathIngested) error {
			got = append(got, p.Outcome+" "+filepath.Base(p.Path))
			if p.Ingested != nil {
				require.NotEmpty(t, p.Ingested.Receipt)
			}
			return nil
		}))
		return got
	}
	require.Equal(t, []string{"skipped .hidden", "rejected bad.txt", "new n0.txt", "new n1.txt", "new n2.txt"}, outcomes())
	require.Equal(t, []string{"skipped .hidden", "rejected bad.txt", "reused n0.txt", "reused n1.txt", "reused n2.txt"}, outcomes())
	docs, err = a.Documents()
	require.NoError(t, err)
	require.Len(t, docs, 3)

	stop := errors.New("enough")
	err = a.IngestPaths(context.Background(), []string{dir}, func(chronicle.PathIngested) error { return stop })
	require.ErrorIs(t, err, stop)
}

// TestIngestPathsTakesOriginalsAsText: the API ingests a mail and a page
// as their own UTF-8 bytes, and rejects a PDF as not UTF-8 (API.md); only
// `chronicle ingest` keeps them as originals.
func TestIngestPathsTakesOriginalsAsText(t *testing.T) {
	t.Parallel()
	a, _ := openTemp(t)
	dir := t.TempDir()
	for _, name := range []string{"plain.eml", "english.html", "english.pdf"} {
		data, err := os.ReadFile(filepath.Join("engine", "extract", "testdata", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	var got []string
	require.NoError(t, a.IngestPaths(context.Background(), []string{dir}, func(p chronicle.PathIngested) error {
		got = append(got, p.Outcome+" "+filepath.Base(p.Path))
		if p.Ingested != nil {
			data, err := os.ReadFile(p.Path)
			require.NoError(t, err)
			require.Equal(t, int64(len(data)), p.Ingested.Document.Size, "%s: its own bytes", p.Path)
		}
		return nil
	}))
	require.Equal(t, []string{"new english.html", "rejected english.pdf", "new plain.eml"}, got)
}
