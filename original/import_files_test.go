package original

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// TestImportFilesStopsOnCancel: a batch of stores stops before the next
// store once its context is canceled (ErrInterrupted, context.Canceled):
// the stores imported so far stay, and a canceled context imports none.
func TestImportFilesStopsOnCancel(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join(goldenDir, "g[0-9]_*"))
	require.NoError(t, err)
	root := t.TempDir()
	var stores []string
	for _, caseDir := range cases[:3] {
		dir := filepath.Join(root, filepath.Base(caseDir))
		require.NoError(t, os.Mkdir(dir, 0o755))
		goldenLayout(t, caseDir, dir)
		stores = append(stores, filepath.Join(dir, storeOfInput))
	}
	a, _ := openArchive(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = ImportFiles(ctx, a, stores, ImportOptions{})
	require.ErrorIs(t, err, db.ErrInterrupted)
	require.EqualError(t, err, "interrupted; 3 of 3 stores not imported")
	require.Empty(t, stateOf(t, a).Docs)

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var told []string
	err = ImportFiles(ctx, a, stores, ImportOptions{Outcome: func(path string, rep *Report, err error) error {
		require.NoError(t, err)
		told = append(told, path)
		cancel()
		return nil
	}})
	require.ErrorIs(t, err, db.ErrInterrupted)
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, "interrupted; 2 of 3 stores not imported")
	require.Equal(t, stores[:1], told)
	require.Len(t, stateOf(t, a).Docs, 1)

	require.NoError(t, ImportFiles(context.Background(), a, stores, ImportOptions{}))
	require.Len(t, stateOf(t, a).Docs, 3)
}
