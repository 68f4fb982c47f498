package db_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// writeBatch writes n group files under dir and returns their paths in
// walk order.
func writeBatch(t *testing.T, dir string, n int) []string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var paths []string
	for _, f := range groupFiles(dir, n) {
		require.NoError(t, writeFile(f.path, f.src))
		paths = append(paths, f.path)
	}
	return paths
}

// docNames lists the first name of each document, in import order; the
// archive may be released (IngestPaths leaves it so).
func docNames(t *testing.T, a *db.Archive) []string {
	t.Helper()
	var names []string
	require.NoError(t, a.Hold(true, func() error {
		docs, err := a.Docs()
		for _, d := range docs {
			names = append(names, d.Names[0])
		}
		return err
	}))
	return names
}

// heldProblems is check of a released archive, under the shared lock.
func heldProblems(t *testing.T, a *db.Archive) (problems []db.Problem) {
	t.Helper()
	require.NoError(t, a.Hold(true, func() (err error) {
		problems, err = a.Check(context.Background())
		return err
	}))
	return problems
}

// ingestPaths runs IngestPaths over args with groups of groupSize and
// returns the outcomes it reported.
func ingestPaths(ctx context.Context, a *db.Archive, args []string, groupSize int, each func(db.PathOutcome)) ([]db.PathOutcome, error) {
	var outs []db.PathOutcome
	err := a.IngestPaths(ctx, db.WalkPaths(args), db.IngestOptions{ImportedAt: goldenTime, GroupFiles: groupSize,
		Outcome: func(o db.PathOutcome) error {
			outs = append(outs, o)
			if each != nil {
				each(o)
			}
			return nil
		}})
	return outs, err
}

// TestIngestPathsOutcomes: a walk's entries come back in walk order, each
// with its typed outcome, a file's once its group committed: new, reused
// (same bytes from another path), rejected (with the bytes, to locate the
// fault), skipped (hidden, symbolic link) and empty (a directory argument
// with no file); the groups do not change what lands.
func TestIngestPathsOutcomes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := writeBatch(t, filepath.Join(dir, "batch"), 5)
	src, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	require.NoError(t, writeFile(filepath.Join(dir, "batch", "g-copy.txt"), src))
	require.NoError(t, writeFile(filepath.Join(dir, "batch", "h-bad.txt"), []byte("ok\n\xff\n")))
	require.NoError(t, writeFile(filepath.Join(dir, "batch", ".hidden.txt"), []byte("x\n")))
	require.NoError(t, os.Symlink(paths[1], filepath.Join(dir, "batch", "i-link.txt")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "empty"), 0o755))
	a := openArchive(t, newPath(t))

	type line struct {
		path string
		kind db.OutcomeKind
	}
	var got []line
	outs, err := ingestPaths(context.Background(), a, []string{filepath.Join(dir, "batch"), filepath.Join(dir, "empty")}, 2, nil)
	require.NoError(t, err)
	for _, o := range outs {
		got = append(got, line{filepath.Base(o.Path), o.Kind})
		switch o.Kind {
		case db.OutcomeNew, db.OutcomeReused:
			require.NotNil(t, o.Result.Receipt, o.Path)
		case db.OutcomeRejected:
			require.Equal(t, []byte("ok\n\xff\n"), o.Src, "the bytes that locate the fault")
			require.Error(t, o.Err)
		}
	}
	require.Equal(t, []line{
		{".hidden.txt", db.OutcomeSkipped},
		{"f000.txt", db.OutcomeNew}, {"f001.txt", db.OutcomeNew}, {"f002.txt", db.OutcomeNew},
		{"f003.txt", db.OutcomeNew}, {"f004.txt", db.OutcomeNew},
		{"g-copy.txt", db.OutcomeReused},
		{"h-bad.txt", db.OutcomeRejected},
		{"i-link.txt", db.OutcomeSkipped},
		{"empty", db.OutcomeEmpty},
	}, got)
	require.Len(t, docNames(t, a), 5)
	require.Empty(t, heldProblems(t, a))
}

// TestIngestPathsNothingToIngest: entries without a file do not touch the
// archive, which need not exist (a nil one is fine).
func TestIngestPathsNothingToIngest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var a *db.Archive
	outs, err := ingestPaths(context.Background(), a, []string{dir, filepath.Join(dir, "missing.txt")}, 0, nil)
	require.NoError(t, err)
	require.Len(t, outs, 2)
	require.Equal(t, db.OutcomeEmpty, outs[0].Kind)
	require.Equal(t, db.OutcomeRejected, outs[1].Kind)
	require.ErrorIs(t, outs[1].Err, os.ErrNotExist)
}

// TestIngestPathsCanceledBeforeStart: a context canceled before the batch
// ingests nothing, and says so: every file is left, the first named.
func TestIngestPathsCanceledBeforeStart(t *testing.T) {
	t.Parallel()
	paths := writeBatch(t, filepath.Join(t.TempDir(), "batch"), 6)
	a := openArchive(t, newPath(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	outs, err := ingestPaths(ctx, a, paths, 2, nil)
	require.ErrorIs(t, err, db.ErrInterrupted)
	require.ErrorIs(t, err, context.Canceled)
	var stopped *db.IngestInterrupted
	require.True(t, errors.As(err, &stopped))
	require.Equal(t, 6, stopped.Left)
	require.Equal(t, 6, stopped.Files)
	require.Equal(t, paths[0], stopped.First)
	require.Empty(t, outs)
	require.Empty(t, docNames(t, a))
}

// cancelableBatch writes a batch of n files, opens a new archive, and
// returns them with a context the test cancels.
func cancelableBatch(t *testing.T, n int) (dir string, paths []string, a *db.Archive, ctx context.Context, cancel func()) {
	dir = filepath.Join(t.TempDir(), "batch")
	paths = writeBatch(t, dir, n)
	ctx, cancel = context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return dir, paths, openArchive(t, newPath(t)), ctx, cancel
}

// TestIngestPathsCanceledAfterFirstGroup: a context canceled once the
// first group has committed leaves exactly that group in the archive
// (whole, and checked), names the first file left, and a re-run with a
// live context ingests the rest and reuses the first group's documents.
func TestIngestPathsCanceledAfterFirstGroup(t *testing.T) {
	t.Parallel()
	dir, paths, a, ctx, cancel := cancelableBatch(t, 20)
	outs, err := ingestPaths(ctx, a, []string{dir}, 5, func(db.PathOutcome) { cancel() })
	var stopped *db.IngestInterrupted
	require.True(t, errors.As(err, &stopped), "err: %v", err)
	require.ErrorIs(t, err, db.ErrInterrupted)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 15, stopped.Left)
	require.Equal(t, paths[5], stopped.First)
	require.Len(t, outs, 5, "the first group's outcomes, all of them")
	require.Equal(t, paths[:5], docNames(t, a))
	require.Empty(t, heldProblems(t, a))

	outs, err = ingestPaths(context.Background(), a, []string{dir}, 5, nil)
	require.NoError(t, err)
	require.Len(t, outs, 20)
	for i, o := range outs {
		want := db.OutcomeNew
		if i < 5 {
			want = db.OutcomeReused
		}
		require.Equal(t, want, o.Kind, o.Path)
	}
	require.Equal(t, paths, docNames(t, a))
	require.Empty(t, heldProblems(t, a))
}

// TestIngestPathsOutcomeError: an error from the Outcome callback (a
// receipt file that cannot be written) ends the batch with that error;
// the group that committed stays.
func TestIngestPathsOutcomeError(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "batch")
	writeBatch(t, dir, 6)
	a := openArchive(t, newPath(t))
	stop := errors.New("cannot write the receipt")
	err := a.IngestPaths(context.Background(), db.WalkPaths([]string{dir}), db.IngestOptions{ImportedAt: goldenTime, GroupFiles: 3,
		Outcome: func(db.PathOutcome) error { return stop }})
	require.ErrorIs(t, err, stop)
	require.Len(t, docNames(t, a), 3)
}

// TestIngestPathsCanceledMidGroup: a context canceled while a group is
// being gathered commits that group, whole, before the batch stops.
func TestIngestPathsCanceledMidGroup(t *testing.T) {
	t.Parallel()
	dir, paths, a, ctx, cancel := cancelableBatch(t, 20)
	var outs []db.PathOutcome
	err := a.IngestPaths(ctx, db.WalkPaths([]string{dir}), db.IngestOptions{ImportedAt: goldenTime, GroupFiles: 10,
		Outcome: func(o db.PathOutcome) error { outs = append(outs, o); return nil },
		Progress: func(p db.IngestProgress) {
			if p.Seen == 3 {
				cancel()
			}
		}})
	var stopped *db.IngestInterrupted
	require.True(t, errors.As(err, &stopped), "err: %v", err)
	require.Equal(t, 17, stopped.Left)
	require.Equal(t, paths[3], stopped.First)
	require.Len(t, outs, 3)
	require.Equal(t, paths[:3], docNames(t, a))
	require.Empty(t, heldProblems(t, a))
}

// TestIngestPathsReadOnly: a batch on an archive opened read-only is
// refused before any file is read, not file by file.
func TestIngestPathsReadOnly(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "batch")
	writeBatch(t, dir, 3)
	path := newPath(t)
	require.NoError(t, openArchive(t, path).Close())
	a := openArchive(t, path, db.Options{ReadOnly: true})
	outs, err := ingestPaths(context.Background(), a, []string{dir}, 0, nil)
	require.ErrorContains(t, err, "read-only")
	require.Empty(t, outs)
}
