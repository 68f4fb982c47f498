package index

import (
	"bytes"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Follow masks (schema 21): a document that holds every trigram of a word
// but never in a row is ruled out; postings without masks (written
// before) rule nothing out, and a fold into them gives the documents
// already there the mask that rules nothing out.

func addDocs(t *testing.T, db *bolt.DB, docs map[uint64]string) {
	t.Helper()
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for seq, src := range docs {
			if err := AddTerms(tx, seq, []byte(src)); err != nil {
				return err
			}
		}
		return nil
	}))
}

func candidates(t *testing.T, db *bolt.DB, maxSeq uint64, terms ...string) []uint64 {
	t.Helper()
	var got []uint64
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		var ts [][]byte
		for _, s := range terms {
			ts = append(ts, []byte(s))
		}
		var err error
		got, err = Candidates(tx, maxSeq, ts)
		return err
	}))
	return got
}

// stripFollows rewrites every trigram block without follow masks, as
// schema 20 wrote them.
func stripFollows(t *testing.T, db *bolt.DB) {
	t.Helper()
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketGrams)
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if k[4] != 3 {
				continue
			}
			link, es, ok := decodeBlock(k, v)
			require.True(t, ok)
			for i := range es {
				require.Len(t, es[i].Follows, len(es[i].Counts), "a new trigram posting keeps its masks")
				es[i].Follows = nil
			}
			if err := b.Put(bytes.Clone(k), encodeBlock(nil, k, link, es)); err != nil {
				return err
			}
		}
		return nil
	}))
}

func checkClean(t *testing.T, db *bolt.DB, docs map[uint64]string) {
	t.Helper()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for seq, src := range docs {
			missing, wrong, pending, err := CheckTerms(tx, seq, []byte(src))
			require.NoError(t, err)
			require.False(t, pending)
			require.Zero(t, missing, "document #%d", seq)
			require.Zero(t, wrong, "document #%d", seq)
		}
		return nil
	}))
}

func TestFollowMasksRuleOut(t *testing.T) {
	db := openTestDB(t)
	docs := map[uint64]string{
		1: "we keep avoiding it",
		2: "avocado, avoid the idiom at dinner; a ring", // avo voi oid idi din ing, never in a row
		3: "nothing of it",
	}
	addDocs(t, db, docs)
	checkClean(t, db, docs)
	require.Equal(t, []uint64{1}, candidates(t, db, 3, "avoiding"))
	require.Equal(t, []uint64{1, 2}, candidates(t, db, 3, "avoid"))
	require.Equal(t, []uint64{1, 2}, candidates(t, db, 3, "avoiding", "dinner"))

	// The same postings without masks: nothing is ruled out by them.
	stripFollows(t, db)
	checkClean(t, db, docs)
	require.Equal(t, []uint64{1, 2}, candidates(t, db, 3, "avoiding"))

	// A fold into those postings: the documents there get 0xFF (any
	// byte), the new one its own mask.
	more := map[uint64]string{4: "avoiding again", 5: "a void in a ring"}
	addDocs(t, db, more)
	for s, src := range more {
		docs[s] = src
	}
	checkClean(t, db, docs)
	require.Equal(t, []uint64{1, 2, 4}, candidates(t, db, 5, "avoiding"))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		r, err := newGramReader(tx)
		require.NoError(t, err)
		bm, counts, found, err := r.lookup(gramKey(0, 3, uint32('o')<<16|uint32('i')<<8|uint32('d')), true)
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, AllFollow, postingFollow(bm, counts, 1<<2), "#2's mask, from before")
		require.Equal(t, FollowBit('i'), postingFollow(bm, counts, 1<<4), "#4: oid followed by i")
		return nil
	}))

	// A mask without a byte the document has after the trigram is damage
	// that check finds.
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketGrams)
		k := []byte{0, 0, 0, 0, 3, 'o', 'i'}
		link, es, ok := decodeBlock(k, b.Get(k))
		require.True(t, ok)
		for i := range es {
			if es[i].last == 'd' {
				es[i].Follows[bits.OnesCount64(es[i].Bitmap&(1<<4-1))] = 0 // #4's
			}
		}
		return b.Put(k, encodeBlock(nil, k, link, es))
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		_, wrong, _, err := CheckTerms(tx, 4, []byte(docs[4]))
		require.NoError(t, err)
		require.Equal(t, 1, wrong)
		return nil
	}))
}
