package index

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	bolt "go.etcd.io/bbolt"
)

// GroupSize is the number of documents sharing one posting bitmap.
const GroupSize = 64

var (
	bucketGrams    = []byte("grams")
	bucketEntities = []byte("entities")
)

// Buckets lists the buckets the index owns.
var Buckets = [][]byte{bucketGrams, bucketEntities}

// CreateBuckets creates the index buckets if they are missing.
func CreateBuckets(tx *bolt.Tx) error {
	for _, b := range Buckets {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

// DropBuckets deletes the index (reindex rebuilds it).
func DropBuckets(tx *bolt.Tx) error {
	for _, b := range Buckets {
		if tx.Bucket(b) != nil {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
	}
	return CreateBuckets(tx)
}

// gramSet is the set of distinct 1-, 2- and 3-byte grams of a text.
type gramSet struct {
	uni [256 / 64]uint64
	bi  [65536 / 64]uint64
	tri []uint64 // 2^24 bits, allocated lazily
}

func newGramSet() *gramSet { return &gramSet{tri: make([]uint64, (1<<24)/64)} }

func (g *gramSet) add(src []byte) {
	for i, c := range src {
		g.uni[c>>6] |= 1 << (c & 63)
		if i+1 < len(src) {
			b := uint32(c)<<8 | uint32(src[i+1])
			g.bi[b>>6] |= 1 << (b & 63)
		}
		if i+2 < len(src) {
			t := uint32(c)<<16 | uint32(src[i+1])<<8 | uint32(src[i+2])
			g.tri[t>>6] |= 1 << (t & 63)
		}
	}
}

// each calls fn for every gram in the set, in key order per length.
func (g *gramSet) each(fn func(n int, gram uint32) error) error {
	for n, words := range [][]uint64{g.uni[:], g.bi[:], g.tri} {
		for w, word := range words {
			for word != 0 {
				bit := bits.TrailingZeros64(word)
				word &= word - 1
				if err := fn(n+1, uint32(w*64+bit)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// gramKey is group ‖ n ‖ gram (n bytes).
func gramKey(group uint32, n int, gram uint32) []byte {
	k := make([]byte, 5+n)
	binary.BigEndian.PutUint32(k, group)
	k[4] = byte(n)
	for i := n - 1; i >= 0; i-- {
		k[5+i] = byte(gram)
		gram >>= 8
	}
	return k
}

func groupOf(seq uint64) (uint32, uint64) {
	return uint32(seq / GroupSize), 1 << (seq % GroupSize)
}

// AddTerms records every gram of src for document seq.
func AddTerms(tx *bolt.Tx, seq uint64, src []byte) error {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	set := newGramSet()
	set.add(src)
	group, bit := groupOf(seq)
	return set.each(func(n int, gram uint32) error {
		k := gramKey(group, n, gram)
		var cur uint64
		if v := b.Get(k); len(v) == 8 {
			cur = binary.LittleEndian.Uint64(v)
		}
		// bbolt keeps the value slice until commit: each Put needs its own.
		return b.Put(k, binary.LittleEndian.AppendUint64(make([]byte, 0, 8), cur|bit))
	})
}

// termGrams returns the grams that every document containing term holds:
// its trigrams, or the term itself when it is shorter than three bytes.
func termGrams(term []byte) [][2]uint32 {
	if len(term) < 3 {
		var g uint32
		for _, c := range term {
			g = g<<8 | uint32(c)
		}
		return [][2]uint32{{uint32(len(term)), g}}
	}
	seen := map[uint32]bool{}
	var out [][2]uint32
	for i := 0; i+2 < len(term); i++ {
		t := uint32(term[i])<<16 | uint32(term[i+1])<<8 | uint32(term[i+2])
		if !seen[t] {
			seen[t] = true
			out = append(out, [2]uint32{3, t})
		}
	}
	return out
}

// Candidates returns, in ascending order, the sequence numbers (1..maxSeq)
// of the documents that may contain at least one of the terms. Every
// document whose bytes contain a term is returned; others may be too.
func Candidates(tx *bolt.Tx, maxSeq uint64, terms [][]byte) ([]uint64, error) {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return nil, fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	grams := make([][][2]uint32, len(terms))
	for i, t := range terms {
		grams[i] = termGrams(t)
	}
	var out []uint64
	for group := uint32(0); uint64(group)*GroupSize <= maxSeq; group++ {
		var any uint64
		for _, tg := range grams {
			all := ^uint64(0)
			for _, g := range tg {
				v := b.Get(gramKey(group, int(g[0]), g[1]))
				if len(v) != 8 {
					all = 0
					break
				}
				all &= binary.LittleEndian.Uint64(v)
				if all == 0 {
					break
				}
			}
			any |= all
		}
		for any != 0 {
			bit := bits.TrailingZeros64(any)
			any &= any - 1
			if seq := uint64(group)*GroupSize + uint64(bit); seq >= 1 && seq <= maxSeq {
				out = append(out, seq)
			}
		}
	}
	return out, nil
}

// CheckTerms reports grams of src whose bit for document seq is missing.
func CheckTerms(tx *bolt.Tx, seq uint64, src []byte) (missing int, err error) {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return 0, fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	set := newGramSet()
	set.add(src)
	group, bit := groupOf(seq)
	err = set.each(func(n int, gram uint32) error {
		v := b.Get(gramKey(group, n, gram))
		if len(v) != 8 || binary.LittleEndian.Uint64(v)&bit == 0 {
			missing++
		}
		return nil
	})
	return missing, err
}

// StrayTermBits counts set bits for sequence numbers above maxSeq or that
// are not in known: bits of documents that do not exist.
func StrayTermBits(tx *bolt.Tx, known func(seq uint64) bool) (int, error) {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return 0, fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	stray := 0
	err := b.ForEach(func(k, v []byte) error {
		if len(k) < 6 || len(v) != 8 {
			stray++
			return nil
		}
		group := uint64(binary.BigEndian.Uint32(k))
		word := binary.LittleEndian.Uint64(v)
		for word != 0 {
			bit := bits.TrailingZeros64(word)
			word &= word - 1
			if !known(group*GroupSize + uint64(bit)) {
				stray++
			}
		}
		return nil
	})
	return stray, err
}
