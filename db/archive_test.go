package db_test

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Every golden input ingested into a fresh archive rebuilds the original
// tool's store byte for byte, loads the same events and answers every
// golden query, claim and find with the golden JSON.
func TestGoldenIngestRebuildAndAnswer(t *testing.T) {
	for _, c := range loadGolden(t) {
		t.Run(c.Name, func(t *testing.T) {
			a := openArchive(t, newPath(t))
			res, err := a.Ingest(c.Input, goldenTime, c.DocName())
			require.NoError(t, err)
			require.False(t, res.Reused)
			require.Equal(t, []string{c.DocName()}, res.Added)
			require.Nil(t, res.Moved)

			want, err := engine.Load(c.Store)
			require.NoError(t, err)
			d := res.Doc
			require.Equal(t, c.Digest(), d.SHA256)
			require.Equal(t, db.Digest(sha256.Sum256(c.Store)), d.StoreSHA256)
			require.Equal(t, uint64(goldenTime), d.ImportedAt)
			require.Equal(t, 2, d.Version)
			require.Equal(t, int64(len(c.Input)), d.SourceSize)
			require.Equal(t, len(want.Events), d.EventCount)
			require.Equal(t, []string{c.DocName()}, d.Names)
			require.Equal(t, uint64(1), d.Seq)

			storeBytes, rebuilt, err := a.Rebuild(d)
			require.NoError(t, err)
			require.Equal(t, c.Store, storeBytes, "rebuilt store differs from the golden store")
			require.Equal(t, want.Events, rebuilt.Events)

			loaded, err := a.Load(d)
			require.NoError(t, err)
			require.Equal(t, want.Version, loaded.Version)
			require.Equal(t, want.Document, loaded.Document)
			require.Equal(t, want.ImportedAt, loaded.ImportedAt)
			require.Equal(t, want.Source, loaded.Source)
			require.Equal(t, want.Events, loaded.Events)

			for i := range loaded.Events {
				e := &loaded.Events[i]
				span, err := a.Span(d, e)
				require.NoError(t, err, "event %d", i+1)
				require.Equal(t, c.Input[e.ByteStart:e.ByteEnd], span, "event %d", i+1)
			}

			// LoadEvidence holds the event spans only: enough for queries.
			evidence, err := a.LoadEvidence(d)
			require.NoError(t, err)
			require.Equal(t, want.Events, evidence.Events)
			require.Equal(t, want.Document, evidence.Document)
			require.Len(t, evidence.Source, len(c.Input))
			for _, cmd := range c.Cmds {
				require.Equal(t, cmd.Want, string(replay(t, loaded, cmd.Kind, cmd.Question)), "%s %q", cmd.Kind, cmd.Question)
				if cmd.Kind == db.KindQuery {
					require.Equal(t, cmd.Want, string(replay(t, evidence, cmd.Kind, cmd.Question)), "evidence: %q", cmd.Question)
				}
			}

			// The ingest receipt attests the canonical store and verifies.
			require.Equal(t, &db.Receipt{Kind: db.KindIngest, Document: c.Digest(), Store: d.StoreSHA256, Result: d.StoreSHA256}, res.Receipt)
			outcome, err := a.Verify(res.Receipt, receipt.Canonical{})
			require.NoError(t, err)
			require.Equal(t, receipt.Valid, outcome)
			require.Empty(t, problemsOf(t, a))
		})
	}
}

// All golden inputs in one archive survive a close and reopen unchanged;
// re-ingesting them reuses every document, keeps the first import time and
// does not grow the file.
func TestGoldenArchiveReopenAndReingest(t *testing.T) {
	cases := loadGolden(t)
	path := newPath(t)
	a := openArchive(t, path)
	first := ingestGolden(t, a, cases, goldenTime)
	require.NoError(t, a.Close())
	size := fileSize(t, path)

	check := func(t *testing.T, a *db.Archive) {
		docs, err := a.Docs()
		require.NoError(t, err)
		require.Len(t, docs, len(cases))
		for i, d := range docs {
			c := &cases[i]
			require.Equal(t, c.Digest(), d.SHA256, "Docs lists documents in import order")
			require.Equal(t, uint64(i+1), d.Seq)
			require.Equal(t, first[i].Doc, d)
			require.Equal(t, uint64(goldenTime), d.ImportedAt)
			require.Equal(t, []string{c.DocName()}, d.Names)
			require.Equal(t, c.DocName(), d.Label())

			byName, err := a.Resolve(c.DocName())
			require.NoError(t, err)
			require.Equal(t, d, byName)

			storeBytes, _, err := a.Rebuild(d)
			require.NoError(t, err)
			require.Equal(t, c.Store, storeBytes)
			s, err := a.Load(d)
			require.NoError(t, err)
			for _, cmd := range c.Cmds {
				require.Equal(t, cmd.Want, string(replay(t, s, cmd.Kind, cmd.Question)), "%s: %s %q", c.Name, cmd.Kind, cmd.Question)
			}
		}
		require.Empty(t, problemsOf(t, a))
	}

	t.Run("reopen", func(t *testing.T) {
		a := openArchive(t, path)
		check(t, a)
		require.NoError(t, a.Close())
	})
	t.Run("reopen read-only", func(t *testing.T) {
		a := openArchive(t, path, db.Options{ReadOnly: true})
		check(t, a)
		require.NoError(t, a.Close())
	})
	t.Run("reingest", func(t *testing.T) {
		a := openArchive(t, path)
		receiptsBefore, err := a.Receipts(nil)
		require.NoError(t, err)
		for i := range cases {
			c := &cases[i]
			res, err := a.Ingest(c.Input, goldenTime+12345, c.DocName())
			require.NoError(t, err, c.Name)
			require.True(t, res.Reused, c.Name)
			require.Empty(t, res.Added)
			require.Nil(t, res.Moved)
			require.Equal(t, first[i].Doc, res.Doc)
			require.Equal(t, uint64(goldenTime), res.Doc.ImportedAt, "the first import time is kept")
			require.Equal(t, first[i].Receipt, res.Receipt, "the same ingest receipt is issued again")
		}
		receiptsAfter, err := a.Receipts(nil)
		require.NoError(t, err)
		require.Equal(t, receiptsBefore, receiptsAfter, "an identical receipt is kept once")
		check(t, a)
		require.NoError(t, a.Close())
		require.Equal(t, size, fileSize(t, path), "re-ingesting added nothing")
	})
}

func TestDocsOfEmptyArchive(t *testing.T) {
	a := openArchive(t, newPath(t))
	docs, err := a.Docs()
	require.NoError(t, err)
	require.Empty(t, docs)
	require.Empty(t, problemsOf(t, a))
	recs, err := a.Receipts(nil)
	require.NoError(t, err)
	require.Empty(t, recs)
	_, err = a.Document(db.Digest{1})
	require.ErrorIs(t, err, db.ErrUnknownDoc)
}

func TestEmptyDocument(t *testing.T) {
	a := openArchive(t, newPath(t))
	res, err := a.Ingest(nil, goldenTime, "empty.txt")
	require.NoError(t, err)
	require.Equal(t, int64(0), res.Doc.SourceSize)
	require.Equal(t, 0, res.Doc.EventCount)
	require.Equal(t, 0, res.Doc.Chunks())

	want, err := engine.NewStore(nil, goldenTime)
	require.NoError(t, err)
	storeBytes, _, err := a.Rebuild(res.Doc)
	require.NoError(t, err)
	require.Equal(t, want.Encode(), storeBytes)
	s, err := a.Load(res.Doc)
	require.NoError(t, err)
	require.Empty(t, s.Source)
	require.Empty(t, s.Events)
	require.Empty(t, problemsOf(t, a))
}

func TestOpenReadOnlyMissingFile(t *testing.T) {
	path := newPath(t)
	_, err := db.Open(path, db.Options{ReadOnly: true})
	require.ErrorIs(t, err, db.ErrNoArchive)
	_, statErr := os.Stat(path)
	require.ErrorIs(t, statErr, os.ErrNotExist, "a read-only open creates nothing")
}

func TestOpenCreatesCurrentSchema(t *testing.T) {
	path := newPath(t)
	a := openArchive(t, path)
	require.Equal(t, path, a.Path())
	require.NoError(t, a.Close())

	b, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte("meta"))
		require.NotNil(t, meta)
		require.Equal(t, strconv.Itoa(db.SchemaVersion), string(meta.Get([]byte("schema_version"))))
		for _, name := range []string{"docs", "chunks", "events", "names", "receipts"} {
			require.NotNil(t, tx.Bucket([]byte(name)), name)
		}
		return nil
	}))
}

// Opening an existing archive and closing it again writes nothing.
func TestOpenCloseLeavesFileUnchanged(t *testing.T) {
	path := newPath(t)
	a := openArchive(t, path)
	ingestGolden(t, a, loadGolden(t)[:2], goldenTime)
	require.NoError(t, a.Close())
	before := readFile(t, path)
	for _, ro := range []bool{false, true} {
		a = openArchive(t, path, db.Options{ReadOnly: ro})
		_, err := a.Docs()
		require.NoError(t, err)
		require.NoError(t, a.Close())
		require.Equal(t, before, readFile(t, path), "read-only=%v", ro)
	}
}

// Archives that this build must refuse are refused with the right error
// and left byte for byte as they were.
func TestOpenRefusesForeignFiles(t *testing.T) {
	g0 := loadGolden(t)[0]
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want error // nil: any error
	}{
		{"newer schema", func(t *testing.T, path string) {
			a := openArchive(t, path)
			require.NoError(t, a.Close())
			editBolt(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), []byte(strconv.Itoa(db.SchemaVersion+1)))
			})
		}, db.ErrNewerSchema},
		{"much newer schema", func(t *testing.T, path string) {
			a := openArchive(t, path)
			require.NoError(t, a.Close())
			editBolt(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), []byte("1000"))
			})
		}, db.ErrNewerSchema},
		{"non-numeric schema", func(t *testing.T, path string) {
			a := openArchive(t, path)
			require.NoError(t, a.Close())
			editBolt(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), []byte("one"))
			})
		}, db.ErrNotArchive},
		{"meta without schema", func(t *testing.T, path string) {
			editBolt(t, path, func(tx *bolt.Tx) error {
				_, err := tx.CreateBucket([]byte("meta"))
				return err
			})
		}, db.ErrNotArchive},
		{"foreign bbolt buckets", func(t *testing.T, path string) {
			editBolt(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("widgets"))
				if err != nil {
					return err
				}
				return b.Put([]byte("k"), []byte("v"))
			})
		}, db.ErrNotArchive},
		{"text file", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("Alice owns Book.\n"), 0o644))
		}, db.ErrNotArchive},
		{"page-sized text", func(t *testing.T, path string) {
			b := make([]byte, 3*4096)
			for i := range b {
				b[i] = 'a' + byte(i%26)
			}
			require.NoError(t, os.WriteFile(path, b, 0o644))
		}, db.ErrNotArchive},
		{"chronicle store", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, g0.Store, 0o644))
		}, db.ErrNotArchive},
		{"single byte", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte{0}, 0o644))
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := newPath(t)
			tc.make(t, path)
			before := readFile(t, path)
			for _, ro := range []bool{false, true} {
				a, err := db.Open(path, db.Options{ReadOnly: ro})
				if a != nil {
					a.Close()
				}
				require.Error(t, err, "read-only=%v", ro)
				require.Nil(t, a)
				if tc.want != nil {
					require.ErrorIs(t, err, tc.want, "read-only=%v", ro)
				}
				require.Contains(t, err.Error(), path)
				require.Equal(t, before, readFile(t, path), "a refused file is left untouched (read-only=%v)", ro)
			}
		})
	}
}

// A read-only open of an empty file (say, one just created by touch) is
// refused cleanly rather than with an I/O error.
func TestOpenReadOnlyEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	_, err := db.Open(path, db.Options{ReadOnly: true})
	require.Error(t, err)
	require.True(t, errorsIsAny(err, db.ErrNotArchive, db.ErrNoArchive), "got %v", err)
	require.Empty(t, readFile(t, path))
}

func errorsIsAny(err error, targets ...error) bool {
	for _, target := range targets {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
