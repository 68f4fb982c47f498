package db

// Running totals (schema 14, issue 26): every write that changes what
// `stats` prints keeps them equal to a full recount; the upgrade from an
// older schema counts them; `check` reports totals that are missing,
// damaged or different from a recount.

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// requireTotalsMatch: the kept totals read (constant time) equal a
// recount and want.
func requireTotalsMatch(t *testing.T, a *Archive, want Totals) {
	t.Helper()
	kept, err := a.Totals()
	require.NoError(t, err)
	counted, err := a.CountTotals()
	require.NoError(t, err)
	require.Equal(t, counted, kept, "kept totals against a recount")
	require.Equal(t, want, kept)
	require.Empty(t, a.checkTotals())
}

// sumDocs is the document part of the totals, from the listed records.
func sumDocs(t *testing.T, a *Archive) Totals {
	t.Helper()
	docs, err := a.Docs()
	require.NoError(t, err)
	var s Totals
	for _, d := range docs {
		s.Documents++
		s.Events += int64(d.EventCount)
		s.SourceBytes += d.SourceSize
		s.StoredBytes += d.StoredBytes
	}
	return s
}

func TestTotalsFollowEveryWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chronicle.db")
	a, err := Open(path, Options{})
	require.NoError(t, err)
	defer a.Close()
	requireTotalsMatch(t, a, Totals{})

	stories := []struct{ name, text string }{
		{"one.txt", "alpha one\n@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"},
		{"two.txt", "nothing here\nBob owns Book.\n"},
		{"three.txt", "alpha beta\nbeta alpha\nAlice owns Book.\n"},
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
		add  Totals // beyond the documents' own totals
	}{
		{"ingest three", func(t *testing.T) {
			for _, s := range stories {
				_, err := a.Ingest([]byte(s.text), 1750000000, s.name)
				require.NoError(t, err)
			}
		}, Totals{Receipts: 3}},
		{"ingest again, another name", func(t *testing.T) {
			res, err := a.Ingest([]byte(stories[0].text), 1750000000, "again.txt")
			require.NoError(t, err)
			require.True(t, res.Reused)
		}, Totals{Receipts: 3}}, // the same INGEST receipt, kept once
		{"keep a document receipt", func(t *testing.T) {
			docs, err := a.Docs()
			require.NoError(t, err)
			r := &Receipt{Kind: KindQuery, Document: docs[0].SHA256, Store: docs[0].StoreSHA256, Result: docs[0].StoreSHA256, Question: "q"}
			require.NoError(t, a.KeepReceipt(r))
			require.NoError(t, a.KeepReceipt(r), "kept once")
		}, Totals{Receipts: 4}},
		{"keep cross-archive receipts", func(t *testing.T) {
			q, err := find.NewQuery("alpha beta")
			require.NoError(t, err)
			_, r, err := a.FindWithReceipt(q, 2)
			require.NoError(t, err)
			require.NoError(t, a.KeepSetReceipt(r))
			_, r, err = a.EntityWithReceipt("Alice")
			require.NoError(t, err)
			require.NoError(t, a.KeepSetReceipt(r))
		}, Totals{Receipts: 4, SetReceipts: 2}},
		{"import a store with original receipts", func(t *testing.T) {
			data, err := os.ReadFile("../testdata/old/story.txt.chronicle")
			require.NoError(t, err)
			s, err := engine.Load(data)
			require.NoError(t, err)
			originals := []Original{{Name: "a.receipt", Bytes: []byte("one")}, {Name: "b.receipt", Bytes: []byte("two")}}
			res, err := a.ImportStore(s, data, []string{"story.txt"}, originals)
			require.NoError(t, err)
			require.Equal(t, 2, res.Receipts)
			res, err = a.ImportStore(s, data, []string{"story.txt"}, originals)
			require.NoError(t, err)
			require.Equal(t, 2, res.Unchanged, "imported again: nothing new")
		}, Totals{Receipts: 4, SetReceipts: 2, Originals: 2}},
		{"claims check", func(t *testing.T) {
			data, err := os.ReadFile("../testdata/claims/samples.claims.jsonl")
			require.NoError(t, err)
			_, err = a.CheckClaims(data)
			require.NoError(t, err)
		}, Totals{}}, // filled in below from the receipts listed
		{"reindex", func(t *testing.T) {
			_, err := a.Reindex(context.Background())
			require.NoError(t, err)
		}, Totals{}},
	}
	for _, st := range steps {
		st.do(t)
		want := sumDocs(t, a)
		docReceipts, err := a.Receipts(nil)
		require.NoError(t, err)
		sets, err := a.SetReceipts()
		require.NoError(t, err)
		origs, err := a.Originals(nil)
		require.NoError(t, err)
		want.Receipts, want.SetReceipts, want.Originals = int64(len(docReceipts)), int64(len(sets)), int64(len(origs))
		if st.add != (Totals{}) {
			require.Equal(t, st.add.Receipts, want.Receipts, st.name)
			require.Equal(t, st.add.SetReceipts, want.SetReceipts, st.name)
			require.Equal(t, st.add.Originals, want.Originals, st.name)
		}
		requireTotalsMatch(t, a, want)
	}

	// They survive a reopen, read-only too.
	want, err := a.Totals()
	require.NoError(t, err)
	require.NoError(t, a.Close())
	r, err := Open(path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer r.Close()
	got, err := r.Totals()
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.EqualValues(t, 4, got.Documents)
}

// downgradeTo13 makes a current archive look like one schema 13 wrote:
// no totals, schema_version 13.
func downgradeTo13(t *testing.T, path string) {
	t.Helper()
	b, err := bolt.Open(path, 0o644, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if err := meta.Delete(keyTotals); err != nil {
			return err
		}
		return meta.Put(keySchema, []byte("13"))
	}))
	require.NoError(t, b.Close())
}

func TestTotalsUpgrade(t *testing.T) {
	for _, tc := range []struct {
		name    string
		from    int
		prepare func(t *testing.T) string
		docs    int64
	}{
		{"schema 1 fixture", 1, func(t *testing.T) string { return schemaTestCopy(t) }, 9},
		{"schema 12 fixture", 12, func(t *testing.T) string {
			data, err := os.ReadFile(schema12Fixture)
			require.NoError(t, err)
			p := filepath.Join(t.TempDir(), "schema12.db")
			require.NoError(t, os.WriteFile(p, data, 0o644))
			return p
		}, 70},
		{"schema 13 archive", 13, func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "s13.db")
			a, err := Open(p, Options{})
			require.NoError(t, err)
			for i := 0; i < 5; i++ {
				_, err := a.Ingest([]byte("line "+strconv.Itoa(i)+"\nAlice owns Book.\n"), 1750000000, "d"+strconv.Itoa(i)+".txt")
				require.NoError(t, err)
			}
			require.NoError(t, a.Close())
			downgradeTo13(t, p)
			return p
		}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.prepare(t)
			version, _ := schemaTestRaw(t, path)
			require.Equal(t, strconv.Itoa(tc.from), version)
			for _, readOnly := range []bool{true, false} {
				// The read-only open upgrades with a brief write open; the
				// second open finds nothing to do.
				a, err := Open(path, Options{ReadOnly: readOnly})
				require.NoError(t, err)
				kept, err := a.Totals()
				require.NoError(t, err)
				counted, err := a.CountTotals()
				require.NoError(t, err)
				require.Equal(t, counted, kept)
				require.Equal(t, tc.docs, kept.Documents)
				docs := sumDocs(t, a)
				require.Equal(t, docs.Events, kept.Events)
				require.Equal(t, docs.SourceBytes, kept.SourceBytes)
				require.Equal(t, docs.StoredBytes, kept.StoredBytes)
				recs, err := a.Receipts(nil)
				require.NoError(t, err)
				require.EqualValues(t, len(recs), kept.Receipts)
				require.Empty(t, problemsOfArchive(t, a))
				require.NoError(t, a.Close())
			}
			version, _ = schemaTestRaw(t, path)
			require.Equal(t, strconv.Itoa(SchemaVersion), version)
		})
	}
}

func problemsOfArchive(t *testing.T, a *Archive) []Problem {
	t.Helper()
	p, err := a.Check(context.Background())
	require.NoError(t, err)
	return p
}

func TestTotalsTampered(t *testing.T) {
	build := func(t *testing.T) string {
		p := filepath.Join(t.TempDir(), "chronicle.db")
		a, err := Open(p, Options{})
		require.NoError(t, err)
		for i := 0; i < 3; i++ {
			_, err := a.Ingest([]byte("line "+strconv.Itoa(i)+"\nAlice owns Book.\n"), 1750000000, "d"+strconv.Itoa(i)+".txt")
			require.NoError(t, err)
		}
		require.NoError(t, a.Close())
		return p
	}
	edit := func(t *testing.T, path string, fn func(meta *bolt.Bucket, v []byte) error) {
		b, err := bolt.Open(path, 0o644, nil)
		require.NoError(t, err)
		require.NoError(t, b.Update(func(tx *bolt.Tx) error {
			meta := tx.Bucket(bucketMeta)
			return fn(meta, append([]byte(nil), meta.Get(keyTotals)...))
		}))
		require.NoError(t, b.Close())
	}
	for _, tc := range []struct {
		name   string
		tamper func(meta *bolt.Bucket, v []byte) error
		stats  string // in Totals' error
		check  string // in check's one problem
	}{
		{"a byte flipped", func(meta *bolt.Bucket, v []byte) error {
			v[20] ^= 1
			return meta.Put(keyTotals, v)
		}, "does not match its digest", "does not match its digest"},
		{"removed", func(meta *bolt.Bucket, _ []byte) error {
			return meta.Delete(keyTotals)
		}, "running totals are missing", "running totals are missing"},
		{"truncated", func(meta *bolt.Bucket, v []byte) error {
			return meta.Put(keyTotals, v[:10])
		}, "is 10 bytes", "is 10 bytes"},
		{"sealed, one event more", func(meta *bolt.Bucket, v []byte) error {
			tt, err := decodeTotals(v)
			if err != nil {
				return err
			}
			tt.Events++
			return meta.Put(keyTotals, tt.encode())
		}, "", "differ from a recount"},
		{"sealed, one document more", func(meta *bolt.Bucket, v []byte) error {
			tt, err := decodeTotals(v)
			if err != nil {
				return err
			}
			tt.Documents++
			return meta.Put(keyTotals, tt.encode())
		}, "count 4 documents where 3 were issued", "differ from a recount"},
		{"sealed, a receipt fewer", func(meta *bolt.Bucket, v []byte) error {
			tt, err := decodeTotals(v)
			if err != nil {
				return err
			}
			tt.Receipts--
			return meta.Put(keyTotals, tt.encode())
		}, "count 2 kept receipts where 3 are numbered", "differ from a recount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := build(t)
			edit(t, path, tc.tamper)
			a, err := Open(path, Options{ReadOnly: true})
			require.NoError(t, err)
			defer a.Close()
			_, err = a.Totals()
			if tc.stats == "" {
				// Consistent with what bbolt keeps: only a recount sees it.
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ErrCorrupt)
				require.Contains(t, err.Error(), tc.stats)
			}
			problems := problemsOfArchive(t, a)
			require.Len(t, problems, 1, "%v", problems)
			require.Contains(t, problems[0].Detail, tc.check)
			require.Equal(t, 1, strings.Count(problems[0].String(), "\n")+1, "one line")
			require.NoError(t, a.Close())

			// A reindex recounts them.
			w, err := Open(path, Options{})
			require.NoError(t, err)
			_, err = w.Reindex(context.Background())
			require.NoError(t, err)
			requireTotalsMatch(t, w, sumDocs(t, w).withReceipts(3))
			require.NoError(t, w.Close())
		})
	}
}

func (t Totals) withReceipts(n int64) Totals { t.Receipts = n; return t }

// TestTotalsWriteGoesOnWhenDamaged: a write on an archive whose totals are
// missing succeeds and leaves them missing (stats and check keep saying
// so) instead of counting from nothing.
func TestTotalsWriteGoesOnWhenDamaged(t *testing.T) {
	p := filepath.Join(t.TempDir(), "chronicle.db")
	a, err := Open(p, Options{})
	require.NoError(t, err)
	_, err = a.Ingest([]byte("one\n"), 1750000000, "one.txt")
	require.NoError(t, err)
	require.NoError(t, a.Close())
	b, err := bolt.Open(p, 0o644, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Delete(keyTotals) }))
	require.NoError(t, b.Close())

	a, err = Open(p, Options{})
	require.NoError(t, err)
	defer a.Close()
	_, err = a.Ingest([]byte("two\n"), 1750000000, "two.txt")
	require.NoError(t, err)
	_, err = a.Totals()
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "missing")
}
