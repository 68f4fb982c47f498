package db_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/index"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// groupFile is one file of a group test: its path and bytes.
type groupFile struct {
	path string
	src  []byte
}

// groupFiles makes n small documents, each with a word of its own
// (uniq<i>) and an event, under dir.
func groupFiles(dir string, n int) []groupFile {
	var out []groupFile
	for i := range n {
		src := fmt.Sprintf("Note %d: uniq%dword is here.\n@chronicle\tP%d\tPAID_TO\tQ%d\t%d\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\nAlice owns Book%d.\n", i, i, i, i, i+1, i)
		out = append(out, groupFile{path: filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), src: []byte(src)})
	}
	return out
}

func prepareAll(a *db.Archive, files []groupFile) []db.FileToIngest {
	var out []db.FileToIngest
	for _, f := range files {
		out = append(out, db.FileToIngest{Prepared: a.Prepare(f.src, goldenTime), Path: f.path})
	}
	return out
}

// lastTxID is the ID of the last transaction committed to the archive at
// path (closed): each commit adds one.
func lastTxID(t *testing.T, path string) int {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	var id int
	require.NoError(t, b.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil }))
	return id
}

// unindexed lists the documents of the archive at path (closed) whose
// grams are not in the term index.
func unindexed(t *testing.T, path string) []uint64 {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	var seqs []uint64
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		var err error
		seqs, err = index.Unindexed(tx, tx.Bucket([]byte("docs")).Sequence())
		return err
	}))
	return seqs
}

// A group lands in one commit and leaves the archive as ingesting its
// files one by one does: the same documents, names, receipts and answers.
func TestIngestFilesEqualsOneByOne(t *testing.T) {
	dir := t.TempDir()
	files := groupFiles(dir, 40)
	files = append(files, groupFile{path: filepath.Join(dir, "copy.txt"), src: files[3].src}) // same bytes: reused

	grouped := newPath(t)
	a := openArchive(t, grouped)
	require.NoError(t, a.Close())
	before := lastTxID(t, grouped)
	a = openArchive(t, grouped)
	outs := a.IngestFiles(prepareAll(a, files))
	require.NoError(t, a.Close())
	require.Equal(t, before+1, lastTxID(t, grouped), "the group is one commit")

	single := newPath(t)
	b := openArchive(t, single)
	for i, f := range files {
		res, err := b.IngestFile(b.Prepare(f.src, goldenTime), f.path)
		require.NoError(t, err)
		require.NoError(t, outs[i].Err, f.path)
		require.Equal(t, res.Doc.SHA256, outs[i].Result.Doc.SHA256)
		require.Equal(t, res.Reused, outs[i].Result.Reused, f.path)
		require.Equal(t, res.Receipt.Encode(), outs[i].Result.Receipt.Encode())
	}
	require.True(t, outs[len(files)-1].Result.Reused, "the second copy reuses the first")

	a = openArchive(t, grouped, db.Options{ReadOnly: true})
	gotDocs, err := a.Docs()
	require.NoError(t, err)
	wantDocs, err := b.Docs()
	require.NoError(t, err)
	require.Equal(t, wantDocs, gotDocs)
	gotReceipts, err := a.Receipts(nil)
	require.NoError(t, err)
	wantReceipts, err := b.Receipts(nil)
	require.NoError(t, err)
	require.Equal(t, wantReceipts, gotReceipts)
	for _, term := range []string{"uniq7word", "Alice", "PAID_TO", "absentterm"} {
		q, err := find.NewQuery(term)
		require.NoError(t, err)
		got, err := a.Find(q, 0)
		require.NoError(t, err)
		want, err := b.Find(q, 0)
		require.NoError(t, err)
		require.Equal(t, len(want), len(got), term)
		for i := range want {
			require.Equal(t, want[i].Doc.SHA256, got[i].Doc.SHA256, term)
			require.Equal(t, want[i].Result, got[i].Result, term)
		}
	}
	require.Empty(t, problemsOf(t, a))
}

// A file that fails inside a group is left out alone: the files before and
// after it land (in two commits), it gets the error IngestFile gives it,
// and nothing of it is written.
func TestIngestFilesIsolatesAFailure(t *testing.T) {
	tests := []struct {
		name string
		bad  func(dir string) groupFile
		is   error
	}{
		{"rejected source", func(dir string) groupFile {
			return groupFile{path: filepath.Join(dir, "bad.txt"), src: []byte("fine\nnot \xff UTF-8\n")}
		}, engine.ErrInvalidText},
		{"name too long", func(dir string) groupFile {
			return groupFile{path: strings.Repeat("n", 4097), src: []byte("a name no archive keeps\n")}
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := groupFiles(dir, 12)
			bad := tc.bad(dir)
			files = append(files[:6:6], append([]groupFile{bad}, files[6:]...)...)
			path := newPath(t)
			a := openArchive(t, path)
			require.NoError(t, a.Close())
			before := lastTxID(t, path)
			a = openArchive(t, path)
			outs := a.IngestFiles(prepareAll(a, files))
			for i, out := range outs {
				if i == 6 {
					require.Error(t, out.Err)
					require.Nil(t, out.Result)
					if tc.is != nil {
						require.ErrorIs(t, out.Err, tc.is)
					}
					continue
				}
				require.NoError(t, out.Err, files[i].path)
				require.False(t, out.Result.Reused)
			}
			docs, err := a.Docs()
			require.NoError(t, err)
			require.Len(t, docs, 12)
			_, err = a.Resolve(bad.path)
			require.ErrorIs(t, err, db.ErrUnknownDoc)
			require.Empty(t, problemsOf(t, a))
			require.NoError(t, a.Close())
			require.Equal(t, before+2, lastTxID(t, path), "the files around the failure commit as two groups")
		})
	}
}

// A group that rolls back leaves the term batch as it was: grams of
// documents committed by an earlier group and still waiting in the batch
// are folded when the batch ends, even though the rolled-back group had
// folded them once.
func TestIngestFilesRollbackKeepsTheBatch(t *testing.T) {
	dir := t.TempDir()
	files := groupFiles(dir, 70)
	path := newPath(t)
	a := openArchive(t, path)
	a.BeginBatch()
	// Ten documents commit and wait in the batch.
	for _, out := range a.IngestFiles(prepareAll(a, files[:10])) {
		require.NoError(t, out.Err)
	}
	// The next group reaches the fold (64 documents in the batch), then a
	// file fails after it and the group rolls back.
	rest := prepareAll(a, files[10:])
	rest = append(rest[:58:58], append([]db.FileToIngest{{Prepared: a.Prepare([]byte("long name\n"), goldenTime), Path: strings.Repeat("n", 4097)}}, rest[58:]...)...)
	outs := a.IngestFiles(rest)
	require.Error(t, outs[58].Err)
	require.NoError(t, a.EndBatch())
	docs, err := a.Docs()
	require.NoError(t, err)
	require.Len(t, docs, 70)
	require.NoError(t, a.Close())
	require.Empty(t, unindexed(t, path), "every document's grams reached the term index")
	a = openArchive(t, path, db.Options{ReadOnly: true})
	for _, i := range []int{0, 9, 10, 60, 69} {
		q, err := find.NewQuery(fmt.Sprintf("uniq%dword", i))
		require.NoError(t, err)
		hits, stats, err := a.FindWithStats(q, 0)
		require.NoError(t, err)
		require.Len(t, hits, 1, "uniq%dword", i)
		require.Equal(t, []string{files[i].path}, hits[0].Doc.Names)
		require.Less(t, stats.Candidates, 70, "the term index rules documents out")
	}
	require.Empty(t, problemsOf(t, a))
}
