package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// packCorpus is summaryCorpus of seed with every document folded, packed
// as the folds go, or, with packs false, in an index without the packs
// bucket (an archive of schema 18), which folding never packs.
func packCorpus(t testing.TB, seed, last uint64, packs bool) (*bolt.DB, [][]byte) {
	t.Helper()
	r := rand.New(rand.NewPCG(19, seed))
	if packs {
		return summaryCorpus(t, r, last, func(uint64) bool { return false })
	}
	db := openTestDB(t)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketPacks) }))
	docs := make([][]byte, last+1)
	var batch []*DocGrams
	for s := uint64(1); s <= last; s++ {
		docs[s] = randBytes(r, r.IntN(10))
		batch = append(batch, CountGrams(docs[s]).Compact(s))
		if r.IntN(200) == 0 || s == last {
			require.NoError(t, db.Update(func(tx *bolt.Tx) error { return FoldTerms(tx, batch) }))
			batch = batch[:0]
		}
	}
	return db, docs
}

func packedMark(t testing.TB, db *bolt.DB) uint32 {
	t.Helper()
	var n uint32
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		var err error
		n, err = Packed(tx)
		return err
	}))
	return n
}

type posting struct {
	k string
	p Posting
}

func allPostings(t testing.TB, db *bolt.DB) []posting {
	t.Helper()
	var out []posting
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		return EachPosting(tx, func(k []byte, p Posting) error {
			out = append(out, posting{string(k), p})
			return nil
		})
	}))
	return out
}

// TestPackedAnswersAsUnpacked: folding 2 super-groups and a part packs the
// two whole ones, as they fill; the packed index holds the same postings
// as the unpacked one, answers every query with the same bounds, and
// checks clean; packing an unpacked index afterwards (an upgraded archive)
// writes byte for byte what packing during the folds wrote.
func TestPackedAnswersAsUnpacked(t *testing.T) {
	const last = 2*SuperSize + 300
	packed, docs := packCorpus(t, 1, last, true)
	plain, _ := packCorpus(t, 1, last, false)
	require.Equal(t, uint32(2), packedMark(t, packed))

	// The group postings of a packed group keep only its start entry.
	for k, v := range dumpBucket(t, packed, bucketGrams) {
		if binary.BigEndian.Uint32([]byte(k)) < 2*GroupSize {
			require.Equal(t, byte(kindStart), k[4], "%x", k)
			link, _, ok := openBlock([]byte(k), []byte(v))
			require.True(t, ok)
			require.Equal(t, packedLink, link)
		}
	}
	require.Equal(t, allPostings(t, plain), allPostings(t, packed))

	r := rand.New(rand.NewPCG(19, 2))
	for range 300 {
		var terms [][]byte
		for range 1 + r.IntN(3) {
			src := docs[1+r.IntN(last)]
			if len(src) == 0 {
				continue
			}
			i := r.IntN(len(src))
			if term := bytes.FieldsFunc(src[i:min(len(src), i+1+r.IntN(7))], isSep); len(term) > 0 {
				terms = append(terms, term[0])
			}
		}
		if len(terms) == 0 {
			continue
		}
		bounds := func(db *bolt.DB) (b []Bound) {
			require.NoError(t, db.View(func(tx *bolt.Tx) error {
				var err error
				b, err = Bounds(tx, last, terms)
				return err
			}))
			return b
		}
		require.Equal(t, bounds(plain), bounds(packed), "terms %q", terms)
	}

	require.NoError(t, packed.View(func(tx *bolt.Tx) error {
		for s := uint64(1); s <= last; s += 37 {
			missing, wrong, pending, err := CheckTerms(tx, s, docs[s])
			require.NoError(t, err)
			require.False(t, pending)
			require.Zero(t, missing+wrong, "document #%d", s)
		}
		stray, err := StrayTermBits(tx, func(seq uint64) bool { return seq >= 1 && seq <= last })
		require.NoError(t, err)
		require.Zero(t, stray)
		missing, err := CheckSummaries(tx, last)
		require.NoError(t, err)
		require.Zero(t, missing)
		return nil
	}))

	// The upgrade: the packs bucket added, then one super-group a
	// transaction.
	require.NoError(t, plain.Update(func(tx *bolt.Tx) error { return CreateBuckets(tx) }))
	for _, want := range []bool{true, true, false} {
		var did bool
		require.NoError(t, plain.Update(func(tx *bolt.Tx) error {
			var err error
			did, err = PackNext(tx)
			return err
		}))
		require.Equal(t, want, did)
	}
	for _, b := range [][]byte{bucketGrams, bucketPacks, bucketSupers} {
		require.Equal(t, dumpBucket(t, packed, b), dumpBucket(t, plain, b), "bucket %s", b)
	}
}

func isSep(c rune) bool { return c < 0x80 && find.IsSeparator(byte(c)) }

// TestPackDamageFails: a pack or a block in it that does not match its
// seal, a lost pack, a lost or damaged packed mark and a packed group whose
// start entry no longer says so fail the query that reads them
// (ErrDamaged) and are counted by StrayTermBits; nothing is dropped
// silently.
func TestPackDamageFails(t *testing.T) {
	const last = SuperSize + 100
	db, docs := packCorpus(t, 3, last, true)
	require.Equal(t, uint32(1), packedMark(t, db))
	packs, grams := dumpBucket(t, db, bucketPacks), dumpBucket(t, db, bucketGrams)

	// A trigram pack of at least two groups and a term its first group
	// holds.
	var pk []byte
	var h packHeader
	for k, v := range packs {
		if len(k) == 7 && k[4] == 3 {
			hh, ok := openPack([]byte(k), []byte(v))
			require.True(t, ok)
			if len(hh.offs) > 3 && (pk == nil || bytes.Compare([]byte(k), pk) < 0) {
				pk, h = []byte(k), hh
			}
		}
	}
	require.NotNil(t, pk)
	first := uint32(0)
	for h.groups&(1<<first) == 0 {
		first++
	}
	bk := binary.BigEndian.AppendUint32(nil, first)
	bk = append(bk, pk[4:]...)
	_, es, ok := decodeBlock(bk, h.block(uint(first)))
	require.True(t, ok)
	term := []byte{pk[5], pk[6], es[0].last}
	require.True(t, bytes.Contains(docs[uint64(first)*GroupSize+uint64(firstBit(es[0].Bitmap))], term))

	restore := func() {
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			for name, clean := range map[string]map[string]string{string(bucketPacks): packs, string(bucketGrams): grams} {
				b := tx.Bucket([]byte(name))
				for k, v := range clean {
					if err := b.Put([]byte(k), []byte(v)); err != nil {
						return err
					}
				}
			}
			return nil
		}))
	}
	damage := func(name string, fn func(tx *bolt.Tx) error) {
		t.Helper()
		require.NoError(t, db.Update(fn), name)
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			_, err := Candidates(tx, last, [][]byte{term})
			require.True(t, errors.Is(err, ErrDamaged), "%s: %v", name, err)
			stray, err := StrayTermBits(tx, func(uint64) bool { return true })
			require.True(t, err != nil || stray > 0, "%s: check finds nothing", name)
			return nil
		}), name)
		restore()
	}
	flip := func(at func(v []byte) int) func(tx *bolt.Tx) error {
		return func(tx *bolt.Tx) error {
			v := []byte(packs[string(pk)])
			v[at(v)] ^= 1
			return tx.Bucket(bucketPacks).Put(pk, v)
		}
	}
	damage("a flipped byte in a pack's header", flip(func([]byte) int { return len(pk) - 4 }))
	damage("a flipped byte in a packed block", flip(func([]byte) int { return int(h.offs[0]) + 2 }))
	damage("a lost pack", func(tx *bolt.Tx) error { return tx.Bucket(bucketPacks).Delete(pk) })
	damage("a lost packed mark", func(tx *bolt.Tx) error { return tx.Bucket(bucketPacks).Delete(keyPacked) })
	damage("a damaged packed mark", func(tx *bolt.Tx) error {
		v := []byte(packs[string(keyPacked)])
		v[7] ^= 1
		return tx.Bucket(bucketPacks).Put(keyPacked, v)
	})
	damage("the packs bucket lost", func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketPacks); err != nil {
			return err
		}
		_, err := tx.CreateBucket(bucketPacks)
		return err
	})
	// A start entry resealed to say its group is not packed: the chain
	// check counts it (a query of a packed group never reads it).
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		k := startKey(first)
		_, es, ok := decodeBlock(k, []byte(grams[string(k)]))
		require.True(t, ok)
		return tx.Bucket(bucketGrams).Put(k, encodeBlock(nil, k, endLink, es))
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		stray, err := StrayTermBits(tx, func(uint64) bool { return true })
		require.NoError(t, err)
		require.Positive(t, stray)
		return nil
	}))
	restore()
	require.Equal(t, packs, dumpBucket(t, db, bucketPacks))
}

func firstBit(w uint64) int {
	for i := 0; i < 64; i++ {
		if w&(1<<i) != 0 {
			return i
		}
	}
	return -1
}

// TestPackRefusesDamagedPostings: a block lost from a group's chain, or one
// that does not match its seal, stops packing (ErrDamaged) before anything
// is moved, so packing never makes a loss undetectable; a repair of a
// packed posting is refused (ErrPacked).
func TestPackRefusesDamagedPostings(t *testing.T) {
	const last = SuperSize + 10
	for _, name := range []string{"lost", "flipped"} {
		db, _ := packCorpus(t, 4, last, false)
		var victim []byte
		grams := dumpBucket(t, db, bucketGrams)
		for k := range grams {
			if binary.BigEndian.Uint32([]byte(k)) == 7 && k[4] == 3 && (victim == nil || k < string(victim)) {
				victim = []byte(k)
			}
		}
		require.NotNil(t, victim)
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			if err := CreateBuckets(tx); err != nil {
				return err
			}
			if name == "lost" {
				return tx.Bucket(bucketGrams).Delete(victim)
			}
			v := []byte(grams[string(victim)])
			v[len(v)-1] ^= 1
			return tx.Bucket(bucketGrams).Put(victim, v)
		}))
		before := dumpBucket(t, db, bucketGrams)
		err := db.Update(func(tx *bolt.Tx) error {
			_, err := PackNext(tx)
			return err
		})
		require.ErrorIs(t, err, ErrDamaged, name)
		require.Contains(t, err.Error(), "documents #448..#511", name)
		require.Equal(t, before, dumpBucket(t, db, bucketGrams), name)
		require.Zero(t, packedMark(t, db), name)
	}

	db, _ := packCorpus(t, 4, last, true)
	require.Equal(t, uint32(1), packedMark(t, db))
	err := db.Update(func(tx *bolt.Tx) error {
		return SetPosting(tx, gramKey(3, 1, 'a'), 1<<5, []uint32{1})
	})
	require.ErrorIs(t, err, ErrPacked)
}

// FuzzOpenPack: no pack value, however malformed, panics its reader; one
// that opens locates blocks that lie inside it, in order, to its end.
// Seeds are in testdata/fuzz/FuzzOpenPack.
func FuzzOpenPack(f *testing.F) {
	k := []byte{0, 0, 0, 1, 3, 'a', 'b'}
	f.Add([]byte{3, 'a', 'c', 3, 0, 0, 0, 0, 0, 0, 0, 2, 3}, true)
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0}, true)
	f.Add([]byte{0xFF, 0, 0, 0, 0, 0, 0, 0, 0}, false)
	f.Fuzz(func(t *testing.T, v []byte, reseal bool) {
		if reseal {
			// Seal v's first half as a header, so that the parser past
			// the seal is reached; the rest stands for the blocks.
			n := len(v) / 2
			head := bytes.Clone(v[:n])
			v = append(binary.LittleEndian.AppendUint64(head, sealOf(k, head)), v[n:]...)
		}
		for _, key := range [][]byte{k, startKey(1)} {
			h, ok := openPack(key, v)
			if !ok {
				continue
			}
			if key[4] == kindStart {
				require.Nil(t, h.offs)
				continue
			}
			require.Len(t, h.offs, bits.OnesCount64(h.groups)+1)
			for i := 1; i < len(h.offs); i++ {
				require.LessOrEqual(t, h.offs[i-1], h.offs[i])
			}
			require.Equal(t, len(v), int(h.offs[len(h.offs)-1]))
			for bit := range uint(64) {
				if h.groups&(1<<bit) == 0 {
					require.Nil(t, h.block(bit), "group %d has no block", bit)
				} else {
					require.NotNil(t, h.block(bit), "group %d has a block", bit)
				}
			}
		}
	})
}
