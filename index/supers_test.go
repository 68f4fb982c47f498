package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// dumpBucket is every key and value of bucket name.
func dumpBucket(t testing.TB, db *bolt.DB, name []byte) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(name).ForEach(func(k, v []byte) error {
			m[string(k)] = string(v)
			return nil
		})
	}))
	return m
}

func foldedMark(t testing.TB, db *bolt.DB) uint64 {
	t.Helper()
	var w uint64
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		var err error
		w, err = Folded(tx)
		return err
	}))
	return w
}

// summaryCorpus is documents #1..#last (index 0 unused) of a few random
// pieces each, folded in batches of random size in sequence order except
// the held ones, which stay unfolded.
func summaryCorpus(t testing.TB, r *rand.Rand, last uint64, held func(uint64) bool) (*bolt.DB, [][]byte) {
	t.Helper()
	db := openTestDB(t)
	docs := make([][]byte, last+1)
	var batch []*DocGrams
	fold := func() {
		require.NoError(t, db.Update(func(tx *bolt.Tx) error { return FoldTerms(tx, batch) }))
		batch = batch[:0]
	}
	for s := uint64(1); s <= last; s++ {
		docs[s] = randBytes(r, r.IntN(10))
		if !held(s) {
			batch = append(batch, CountGrams(docs[s]).Compact(s))
		}
		if len(batch) > 0 && (r.IntN(200) == 0 || s == last) {
			fold()
		}
	}
	return db, docs
}

// TestSummariesAcrossSuperGroups: with documents in three super-groups and
// a few in the second left unfolded, Candidates is exactly the documents
// that may hold a term (the unfolded ones always), the folded mark stops
// at the first unfolded document and moves to the end once it is folded,
// and the summaries match the postings.
func TestSummariesAcrossSuperGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	const last = 2*SuperSize + 700
	heldFrom, heldTo := uint64(SuperSize+100), uint64(SuperSize+110)
	held := func(s uint64) bool { return s >= heldFrom && s < heldTo }
	db, docs := summaryCorpus(t, r, last, held)
	grams := make([]map[string]bool, last+1)
	follows := make([]map[string]uint8, last+1)
	cps := make([]map[uint32][]int, last+1)
	for s := 1; s <= last; s++ {
		grams[s], follows[s], cps[s] = gramsOf(docs[s]), followsOf(docs[s]), cpGramsOf(docs[s])
	}
	query := func(pending func(uint64) bool) {
		t.Helper()
		for range 150 {
			var set [][]byte
			for range 1 + r.IntN(3) {
				var term []byte
				switch r.IntN(3) {
				case 0:
					term = randBytes(r, 1+r.IntN(3))
				case 1:
					term = []byte{0xF0, byte(r.IntN(256)), 'q'} // absent, mostly
				default:
					if src := docs[1+r.IntN(last)]; len(src) > 0 {
						i := r.IntN(len(src))
						term = src[i:min(len(src), i+2+r.IntN(6))]
					}
				}
				if len(term) > 0 && !slices.ContainsFunc(term, find.IsSeparator) {
					set = append(set, term)
				}
			}
			if len(set) == 0 {
				continue
			}
			limit := uint64(last)
			if r.IntN(5) == 0 {
				limit = uint64(r.IntN(last + 10))
			}
			var want []uint64
			for s := uint64(1); s <= min(limit, last); s++ {
				if pending(s) {
					want = append(want, s)
					continue
				}
				for _, term := range set {
					if mayContain(grams[s], follows[s], cps[s], term) {
						want = append(want, s)
						break
					}
				}
			}
			require.NoError(t, db.View(func(tx *bolt.Tx) error {
				got, err := Candidates(tx, limit, set)
				require.NoError(t, err)
				require.Equal(t, want, got, "terms %q up to #%d", set, limit)
				return nil
			}))
		}
	}
	query(held)
	require.Equal(t, heldFrom, foldedMark(t, db), "the mark stops at the first unfolded document")

	var batch []*DocGrams
	for s := heldFrom; s < heldTo; s++ {
		batch = append(batch, CountGrams(docs[s]).Compact(s))
	}
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return FoldTerms(tx, batch) }))
	require.Equal(t, uint64(last+1), foldedMark(t, db))
	query(func(uint64) bool { return false })

	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		missing, err := CheckSummaries(tx, last)
		require.NoError(t, err)
		require.Zero(t, missing)
		return nil
	}))

	// Summarising the postings afresh (the schema 15 upgrade) writes the
	// same bytes as folding did.
	folded := dumpBucket(t, db, bucketSupers)
	for super := range uint32(3) {
		require.Contains(t, folded, string(startKey(super)), "super-group %d", super)
	}
	require.NotContains(t, folded, string(startKey(3)))
	require.Contains(t, folded, string(keyFolded))
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketSupers); err != nil {
			return err
		}
		return BuildSummaries(tx)
	}))
	require.Equal(t, folded, dumpBucket(t, db, bucketSupers))
}

// TestSummaryDamageFails: a summary block that does not match its seal, a
// block lost from its chain and a damaged folded mark fail a query that
// reads them (ErrDamaged) and count in CheckSummaries; a group bit lost
// from a well-sealed summary is found by CheckSummaries.
func TestSummaryDamageFails(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2))
	const last = SuperSize + 300
	db, _ := summaryCorpus(t, r, last, func(uint64) bool { return false })
	clean := dumpBucket(t, db, bucketSupers)

	// A trigram block of super-group 0 with at least two entries, and the
	// term that reads it.
	var bk []byte
	var es []entry
	for k, v := range clean {
		if len(k) == 7 && binary.BigEndian.Uint32([]byte(k)) == 0 && k[4] == 3 {
			_, e, ok := decodeLevelBlock([]byte(k), []byte(v), false)
			require.True(t, ok)
			if len(e) >= 2 && (bk == nil || bytes.Compare([]byte(k), bk) < 0) {
				bk, es = []byte(k), e
			}
		}
	}
	require.NotNil(t, bk)
	term := []byte{bk[5], bk[6], es[0].last}

	restore := func() {
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketSupers)
			for k, v := range clean {
				if err := b.Put([]byte(k), []byte(v)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	damage := func(name string, fn func(b *bolt.Bucket) error, queryFails bool) {
		t.Helper()
		require.NoError(t, db.Update(func(tx *bolt.Tx) error { return fn(tx.Bucket(bucketSupers)) }), name)
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			_, err := Candidates(tx, last, [][]byte{term})
			if queryFails {
				require.True(t, errors.Is(err, ErrDamaged), "%s: %v", name, err)
			} else {
				require.NoError(t, err, name)
			}
			missing, err := CheckSummaries(tx, last)
			require.True(t, err != nil || missing > 0, "%s: check finds nothing", name)
			return nil
		}), name)
		restore()
	}
	damage("a flipped byte", func(b *bolt.Bucket) error {
		v := []byte(clean[string(bk)])
		v[len(v)-sealLen-1] ^= 1
		return b.Put(bk, v)
	}, true)
	damage("a lost block", func(b *bolt.Bucket) error { return b.Delete(bk) }, true)
	damage("a damaged folded mark", func(b *bolt.Bucket) error {
		v := []byte(clean[string(keyFolded)])
		v[7] ^= 1
		return b.Put(keyFolded, v)
	}, true)
	damage("a lost group bit", func(b *bolt.Bucket) error {
		link, es, ok := decodeLevelBlock(bk, []byte(clean[string(bk)]), false)
		require.True(t, ok)
		es[0].Bitmap &= es[0].Bitmap - 1 // its lowest group forgotten
		if es[0].Bitmap == 0 {
			es = es[1:]
		}
		return b.Put(bk, encodeBlock(nil, bk, link, es))
	}, false)
	require.Equal(t, clean, dumpBucket(t, db, bucketSupers))
}

// TestFoldedMarkTooFar: a folded mark past an unfolded document (resealed,
// so it reads) is reported by CheckSummaries.
func TestFoldedMarkTooFar(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 3))
	db, _ := summaryCorpus(t, r, 200, func(s uint64) bool { return s == 150 })
	require.Equal(t, uint64(150), foldedMark(t, db))
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		v := binary.BigEndian.AppendUint64(nil, 201)
		v = binary.LittleEndian.AppendUint64(v, sealOf(keyFolded, v))
		return tx.Bucket(bucketSupers).Put(keyFolded, v)
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		missing, err := CheckSummaries(tx, 200)
		require.NoError(t, err)
		require.Equal(t, 1, missing)
		return nil
	}))
}
