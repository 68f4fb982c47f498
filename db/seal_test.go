package db_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// sealFixture is a closed archive of three documents, two of which hold
// "Zanzibarite"; victim is the first of those (#1).
type sealFixture struct {
	path   string
	victim *db.Document
	other  *db.Document
}

func newSealFixture(t *testing.T) *sealFixture {
	t.Helper()
	f := &sealFixture{path: filepath.Join(t.TempDir(), "seal.db")}
	a, err := db.Open(f.path, db.Options{})
	require.NoError(t, err)
	for i, src := range []string{
		"Alice paid Bob.\nThe Zanzibarite ledger.\n",
		"Bob paid Carol.\nNothing else.\n",
		"A Zanzibarite trader.\n",
	} {
		res, err := a.Ingest([]byte(src), 1750000000+uint64(i), []string{"victim.txt", "plain.txt", "other.txt"}[i])
		require.NoError(t, err)
		switch i {
		case 0:
			f.victim = res.Doc
		case 2:
			f.other = res.Doc
		}
	}
	require.NoError(t, a.Close())
	return f
}

// findZan runs find "Zanzibarite" on the archive.
func (f *sealFixture) findZan(t *testing.T) ([]db.FindHit, error) {
	t.Helper()
	a := openArchive(t, f.path)
	q, err := find.NewQuery("Zanzibarite")
	require.NoError(t, err)
	hits, err := a.Find(q, 0)
	require.NoError(t, a.Close())
	return hits, err
}

func (f *sealFixture) problems(t *testing.T) []db.Problem {
	t.Helper()
	a := openArchive(t, f.path)
	defer a.Close()
	return problemsOf(t, a)
}

// zanKey is the key of the block of trigram "Zan" in group 0 (documents
// #1..#63): the trigrams "Za?", of which the victim holds only "Zan".
var zanKey = []byte{0, 0, 0, 0, 3, 'Z', 'a'}

func TestFindFailsOnDamagedPosting(t *testing.T) {
	f := newSealFixture(t)
	hits, err := f.findZan(t)
	require.NoError(t, err)
	require.Len(t, hits, 2)
	require.Empty(t, f.problems(t))

	cases := []struct {
		name   string
		damage func(b *bolt.Bucket) error
	}{
		{"entry changed", func(b *bolt.Bucket) error {
			v := bytes.Clone(b.Get(zanKey))
			v[len(v)/2] ^= 1 // without resealing: the seal tells
			return b.Put(bytes.Clone(zanKey), v)
		}},
		{"count lowered", func(b *bolt.Bucket) error {
			v := bytes.Clone(b.Get(zanKey))
			v[len(v)-9]-- // the last count, just before the seal
			return b.Put(bytes.Clone(zanKey), v)
		}},
		{"key deleted", func(b *bolt.Bucket) error { return b.Delete(zanKey) }},
		{"key renamed", func(b *bolt.Bucket) error {
			v := bytes.Clone(b.Get(zanKey))
			if err := b.Delete(zanKey); err != nil {
				return err
			}
			return b.Put([]byte{0, 0, 0, 0, 3, 'Z', 'b'}, v)
		}},
		{"group start deleted", func(b *bolt.Bucket) error {
			// With "Zan" gone too, only the start entry could prove it absent.
			if err := b.Delete(zanKey); err != nil {
				return err
			}
			return b.Delete([]byte{0, 0, 0, 0, 0})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := *f
			g.path = filepath.Join(t.TempDir(), "copy.db")
			copyFile(t, f.path, g.path)
			editBolt(t, g.path, func(tx *bolt.Tx) error { return tc.damage(tx.Bucket([]byte("grams"))) })
			hits, err := g.findZan(t)
			require.ErrorIs(t, err, db.ErrCorrupt, "a damaged posting must fail find, not drop a document (%d hits)", len(hits))
			msg := err.Error()
			require.Contains(t, msg, g.path)
			require.Contains(t, msg, "term index of documents #1..#63")
			require.Contains(t, msg, "chronicle check")
			require.NotContains(t, msg, "\n")
			probs := g.problems(t)
			require.NotEmpty(t, probs)
			want := "term index misses 1 grams of the document (run `chronicle reindex`)"
			if tc.name == "group start deleted" {
				want = "term index cannot be read: damaged index entry: the term index of documents #1..#63 lacks its start entry (run `chronicle check`, then `chronicle reindex`)"
			}
			require.Contains(t, ixProblemsAbout(probs, g.victim.Label()), want, "check names the document: %v", probs)

			// reindex repairs it.
			a := openArchive(t, g.path)
			_, err = a.Reindex(context.Background())
			require.NoError(t, err)
			require.NoError(t, a.Close())
			hits, err = g.findZan(t)
			require.NoError(t, err)
			require.Len(t, hits, 2)
			require.Empty(t, g.problems(t))
		})
	}
}

// An ingest into a group with a damaged posting fails instead of sealing
// the damage over.
func TestIngestRefusesDamagedPosting(t *testing.T) {
	f := newSealFixture(t)
	editBolt(t, f.path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("grams"))
		v := bytes.Clone(b.Get(zanKey))
		v[1] ^= 0x40
		return b.Put(bytes.Clone(zanKey), v)
	})
	a := openArchive(t, f.path)
	_, err := a.Ingest([]byte("Zanzibarite again.\n"), 1750000100, "again.txt")
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.Contains(t, err.Error(), "chronicle reindex")
}

func TestReceiptsFailOnDamagedOrLostEntry(t *testing.T) {
	f := newSealFixture(t)
	a := openArchive(t, f.path)
	kept, err := a.Receipts(nil)
	require.NoError(t, err)
	require.Len(t, kept, 3, "the INGEST receipts")
	require.NoError(t, a.Close())

	// receiptKeyOf is the key of the kept receipt of document d.
	keyOf := func(tx *bolt.Tx, d *db.Document) []byte {
		k, _ := tx.Bucket([]byte("receipts")).Cursor().Seek(d.SHA256[:])
		require.True(t, bytes.HasPrefix(k, d.SHA256[:]))
		return bytes.Clone(k)
	}
	// Each case damages the receipt of one document (victim or other):
	// every listing that reads it fails (all, and that document's, whose
	// count of receipts says when one is lost); the other document's,
	// read from its own key prefix, lists its receipt.
	cases := []struct {
		name, want, wantDoc string
		damaged             *db.Document
		damage              func(tx *bolt.Tx) error
	}{
		{"renumbered", "does not match its digest", "does not match its digest", f.victim, func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("receipts"))
			k := keyOf(tx, f.victim)
			v := bytes.Clone(b.Get(k))
			binary.BigEndian.PutUint64(v, 9) // listed last, were it not sealed
			return b.Put(k, v)
		}},
		{"altered", "does not match its digest", "does not match its digest", f.other, func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("receipts"))
			k := keyOf(tx, f.other)
			v := bytes.Clone(b.Get(k))
			v[20] ^= 1
			return b.Put(k, v)
		}},
		{"deleted", "3 are numbered but 2 are there (lost entries)", "has 1 counted but 0 are there (lost entries)", f.victim, func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("receipts")).Delete(keyOf(tx, f.victim))
		}},
		{"moved to another key", "does not match its digest", "does not match its digest", f.victim, func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("receipts"))
			k := keyOf(tx, f.victim)
			v := bytes.Clone(b.Get(k))
			if err := b.Delete(k); err != nil {
				return err
			}
			k[40] ^= 1
			return b.Put(k, v)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "copy.db")
			copyFile(t, f.path, path)
			editBolt(t, path, tc.damage)
			a := openArchive(t, path)
			for doc, want := range map[*db.Digest]string{nil: tc.want, &tc.damaged.SHA256: tc.wantDoc} {
				_, err := a.Receipts(doc)
				require.ErrorIs(t, err, db.ErrCorrupt, "a damaged or lost receipt fails every listing that reads it")
				require.Contains(t, err.Error(), want)
				require.Contains(t, err.Error(), path)
				require.Contains(t, err.Error(), "chronicle check")
			}
			_, _, err := a.ReceiptsFrom(1, 100)
			require.ErrorIs(t, err, db.ErrCorrupt, "a page in issue order that holds it fails too")
			undamaged := f.other
			if tc.damaged == f.other {
				undamaged = f.victim
			}
			mine, err := a.Receipts(&undamaged.SHA256)
			require.NoError(t, err, "another document's receipts are read without the damaged one")
			require.Len(t, mine, 1)
			require.Equal(t, undamaged.SHA256, mine[0].Document)
			probs := problemsOf(t, a)
			var all []string
			for _, p := range probs {
				all = append(all, p.String())
			}
			require.Contains(t, strings.Join(all, "\n"), tc.want, "check reports it")
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, data, 0o600))
}

// TestRecordDigestIsCanonical: a document record whose digest member was
// changed to uppercase hex (the same digest to hex.Decode, other bytes) is
// damage: reads and check refuse it.
func TestRecordDigestIsCanonical(t *testing.T) {
	f := newSealFixture(t)
	b, err := bolt.Open(f.path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(func(tx *bolt.Tx) error {
		docs := tx.Bucket([]byte("docs"))
		rec := bytes.Clone(docs.Get(f.victim.SHA256[:]))
		at := bytes.LastIndex(rec, []byte(`"`+`}`))
		digits := rec[at-64 : at]
		i := bytes.IndexAny(digits, "abcdef")
		require.GreaterOrEqual(t, i, 0, "a digest with a letter digit")
		digits[i] -= 'a' - 'A'
		return docs.Put(f.victim.SHA256[:], rec)
	}))
	require.NoError(t, b.Close())

	a := openArchive(t, f.path)
	_, err = a.Document(f.victim.SHA256)
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.NoError(t, a.Close())
	require.NotEmpty(t, f.problems(t))
}

func TestDigestTextIsLowercase(t *testing.T) {
	var d db.Digest
	lower := strings.Repeat("ab", 32)
	require.NoError(t, d.UnmarshalText([]byte(lower)))
	require.Equal(t, lower, d.String())
	require.Error(t, d.UnmarshalText([]byte(strings.ToUpper(lower))))
	require.Error(t, d.UnmarshalText([]byte(lower[:63]+"A")))
	require.Error(t, d.UnmarshalText([]byte(lower[:62])))
}
