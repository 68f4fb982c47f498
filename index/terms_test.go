package index

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// openTestDB opens a fresh bbolt file holding the index buckets.
func openTestDB(t testing.TB) *bolt.DB {
	t.Helper()
	b, err := bolt.Open(filepath.Join(t.TempDir(), "index.db"), 0o600, &bolt.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	require.NoError(t, b.Update(CreateBuckets))
	return b
}

func TestGramKeyLayout(t *testing.T) {
	require.Equal(t, []byte{1, 2, 3, 4, 3, 0xAB, 0xCD, 0xEF}, gramKey(0x01020304, 3, 0xABCDEF))
	require.Equal(t, []byte{0, 0, 0, 7, 2, 0xD8, 0xB9}, gramKey(7, 2, 0xD8B9))
	require.Equal(t, []byte{0, 0, 0, 0, 1, 'a'}, gramKey(0, 1, 'a'))
	for _, c := range []struct {
		seq   uint64
		group uint32
		bit   uint64
	}{{0, 0, 1}, {1, 0, 2}, {63, 0, 1 << 63}, {64, 1, 1}, {65, 1, 2}, {128, 2, 1}, {1000, 15, 1 << 40}} {
		g, b := groupOf(c.seq)
		require.Equal(t, c.group, g, "seq %d", c.seq)
		require.Equal(t, c.bit, b, "seq %d", c.seq)
	}
}

func TestTermGrams(t *testing.T) {
	require.Equal(t, [][2]uint32{{1, 'a'}}, termGrams([]byte("a")))
	require.Equal(t, [][2]uint32{{2, 0xD8B9}}, termGrams([]byte("ع")))
	require.Equal(t, [][2]uint32{{3, 0xE282AC}}, termGrams([]byte("€")))
	// Repeated trigrams are looked up once.
	require.Equal(t, [][2]uint32{{3, 'a'<<16 | 'a'<<8 | 'a'}}, termGrams([]byte("aaaaa")))
	require.Equal(t, [][2]uint32{{3, 'a'<<16 | 'b'<<8 | 'a'}, {3, 'b'<<16 | 'a'<<8 | 'b'}}, termGrams([]byte("ababa")))
}

// gramsOf is the reference gram set of a text: every 1-, 2- and 3-byte
// substring.
func gramsOf(src []byte) map[string]bool {
	m := map[string]bool{}
	for n := 1; n <= 3; n++ {
		for i := 0; i+n <= len(src); i++ {
			m[string(src[i:i+n])] = true
		}
	}
	return m
}

// followsOf is the reference follow mask of every trigram of src: the
// FollowBit of each byte after one of its occurrences.
func followsOf(src []byte) map[string]uint8 {
	m := map[string]uint8{}
	for i := 0; i+3 < len(src); i++ {
		m[string(src[i:i+3])] |= FollowBit(src[i+3])
	}
	return m
}

// charsOf is the reference character split of the code-point trigrams:
// from the first byte that is not a continuation byte, as Go's range over
// a string decodes (an invalid sequence is one byte), up to a character
// cut short at the end.
func charsOf(src []byte) [][]byte {
	p := 0
	for p < len(src) && src[p]&0xC0 == 0x80 {
		p++
	}
	var out [][]byte
	s := string(src[p:])
	for i, r := range s {
		n := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, n = utf8.DecodeRuneInString(s[i:])
		}
		if !utf8.FullRuneInString(s[i:]) {
			break
		}
		out = append(out, src[p+i:p+i+n])
	}
	return out
}

// cpGramsOf is the reference set of hashed code-point trigrams of a text,
// each with the byte offset where it starts: three consecutive characters
// holding a byte ≥ 0x80 and no find separator.
func cpGramsOf(src []byte) map[uint32][]int {
	m := map[uint32][]int{}
	chars := charsOf(src)
	offs := make([]int, len(chars))
	off := 0
	for off < len(src) && src[off]&0xC0 == 0x80 {
		off++
	}
	for i, c := range chars {
		offs[i] = off
		off += len(c)
	}
	for i := 0; i+3 <= len(chars); i++ {
		g := bytes.Join(chars[i:i+3], nil)
		wide, sep := false, false
		for _, c := range g {
			wide = wide || c >= 0x80
			sep = sep || find.IsSeparator(c)
		}
		if wide && !sep {
			var v [3]uint32
			for k, c := range chars[i : i+3] {
				r, _ := utf8.DecodeRune(c)
				v[k] = uint32(r)
				if r == utf8.RuneError && len(c) == 1 {
					v[k] = 0x110000 + uint32(c[0]) // an invalid byte
				}
			}
			h := cpHash(v[0], v[1], v[2])
			m[h] = append(m[h], offs[i])
		}
	}
	return m
}

// mayContain is the candidate rule spelled out: a document is a candidate
// for a term when it holds the whole term (< 3 bytes) or every trigram and
// every code-point trigram.
func mayContain(grams map[string]bool, follows map[string]uint8, cp map[uint32][]int, term []byte) bool {
	if len(term) < 3 {
		return grams[string(term)]
	}
	for i := 0; i+3 <= len(term); i++ {
		if !grams[string(term[i:i+3])] {
			return false
		}
		// The trigram followed, somewhere, by a byte of the same follow
		// bit as the term's next one.
		if i+3 < len(term) && follows[string(term[i:i+3])]&FollowBit(term[i+3]) == 0 {
			return false
		}
	}
	for h := range cpGramsOf(term) {
		if _, ok := cp[h]; !ok {
			return false
		}
	}
	return true
}

// pieces the random documents and terms are made of: ASCII, the bytes of
// 2-, 3- and 4-byte UTF-8 sequences, and raw bytes (the index is bytewise).
var randPieces = []string{
	"a", "b", "c", "A", "l", "i", " ", ".", "\t", "\r", "\n", "\r\n",
	"é", "ع", "ل", "ي", "€", "😀", "\xd8", "\xb9", "\x00", "\xff", "ab", "Ali", "علي",
}

func randBytes(r *rand.Rand, pieces int) []byte {
	var b []byte
	for range pieces {
		b = append(b, randPieces[r.IntN(len(randPieces))]...)
	}
	return b
}

// TestCandidatesRandom adds random documents to several 64-document groups
// (with gaps in the sequence numbers) and checks that Candidates returns
// exactly the documents that hold every gram of some term: never fewer
// (no document containing a term is missed) and no others.
func TestCandidatesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	db := openTestDB(t)
	docs := map[uint64][]byte{}
	const maxSeq = 200
	for seq := uint64(1); seq <= maxSeq; seq++ {
		if r.IntN(7) == 0 {
			docs[seq] = nil // a document without grams
			continue
		}
		docs[seq] = randBytes(r, r.IntN(60))
	}
	// A few documents per transaction, in random order, as Reindex does.
	seqs := make([]uint64, 0, len(docs))
	for s := range docs {
		seqs = append(seqs, s)
	}
	r.Shuffle(len(seqs), func(i, j int) { seqs[i], seqs[j] = seqs[j], seqs[i] })
	for len(seqs) > 0 {
		n := min(len(seqs), 1+r.IntN(20))
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			for _, s := range seqs[:n] {
				if err := AddTerms(tx, s, docs[s]); err != nil {
					return err
				}
			}
			return nil
		}))
		seqs = seqs[n:]
	}
	grams := map[uint64]map[string]bool{}
	follows := map[uint64]map[string]uint8{}
	cps := map[uint64]map[uint32][]int{}
	for s, src := range docs {
		grams[s], follows[s], cps[s] = gramsOf(src), followsOf(src), cpGramsOf(src)
	}
	var terms [][]byte
	for range 3000 {
		var term []byte
		if r.IntN(2) == 0 {
			term = randBytes(r, 1+r.IntN(3))
		} else if src := docs[uint64(1+r.IntN(maxSeq))]; len(src) > 0 {
			i := r.IntN(len(src))
			term = src[i:min(len(src), i+1+r.IntN(6))]
		} else {
			term = []byte("zz")
		}
		terms = append(terms, term)
	}
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for k := 0; k < len(terms); {
			set := terms[k:min(len(terms), k+1+r.IntN(4))]
			k += len(set)
			limit := uint64(maxSeq)
			if r.IntN(5) == 0 {
				limit = uint64(r.IntN(maxSeq + 10))
			}
			got, err := Candidates(tx, limit, set)
			if err != nil {
				return err
			}
			var want []uint64
			for s := uint64(1); s <= limit; s++ {
				g, ok := grams[s]
				if !ok {
					// Not in the index: a candidate for every query.
					want = append(want, s)
					continue
				}
				for _, term := range set {
					// A term holding a separator is not in the postings
					// (indexedGram): every document is its candidate.
					if slices.ContainsFunc(term, find.IsSeparator) || mayContain(g, follows[s], cps[s], term) {
						want = append(want, s)
						break
					}
				}
			}
			require.Equal(t, want, got, "terms %q maxSeq %d", set, limit)
			// The property that matters: no document holding a term is
			// left out.
			for s := uint64(1); s <= limit; s++ {
				for _, term := range set {
					if bytes.Contains(docs[s], term) {
						require.Contains(t, got, s, "%q holds %q", docs[s], term)
					}
				}
			}
			bounds, err := Bounds(tx, limit, set)
			if err != nil {
				return err
			}
			require.Len(t, bounds, len(got))
			for i, b := range bounds {
				require.Equal(t, got[i], b.Seq)
				terms, lines := exactKey(docs[b.Seq], set)
				require.GreaterOrEqual(t, b.Terms, terms, "terms %q document %d", set, b.Seq)
				require.GreaterOrEqual(t, b.Lines, lines, "terms %q document %d", set, b.Seq)
			}
			for s, src := range docs {
				for _, term := range set {
					if s <= limit && bytes.Contains(src, term) && !slices.Contains(got, s) {
						t.Fatalf("document %d holds %q but is not a candidate of %q", s, term, set)
					}
				}
			}
		}
		return nil
	}))
}

// exactKey is the find ranking key of src for terms, computed the long
// way: the best line score and the number of lines scoring at least one,
// over the LF-separated lines (a final CR kept, which can only raise both).
func exactKey(src []byte, terms [][]byte) (best int, lines uint64) {
	for _, line := range bytes.Split(src, []byte("\n")) {
		score := 0
		for _, t := range terms {
			if bytes.Contains(line, t) {
				score++
			}
		}
		best = max(best, score)
		if score > 0 {
			lines++
		}
	}
	return best, lines
}

// TestBoundsExactForShortTerms: for terms of at most three bytes the line
// bound of one term is exact (and marked so when it is the query's only
// distinct term), and the LF count caps the sum.
func TestBoundsExactForShortTerms(t *testing.T) {
	db := openTestDB(t)
	src := []byte("the cat\nthe the\nno\nxthe\n\nothe")
	require.NoError(t, db.Update(func(tx *bolt.Tx) error { return AddTerms(tx, 1, src) }))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, c := range []struct {
			terms []string
			want  Bound
		}{
			// One distinct term of up to three bytes: its count is exact.
			{[]string{"the"}, Bound{1, 1, 4, true}},
			{[]string{"o"}, Bound{1, 1, 2, true}},
			{[]string{"the", "the"}, Bound{1, 2, 4, true}},
			{[]string{"the", "t", "h", "e"}, Bound{1, 4, 6, false}}, // 5 LF: at most 6 lines
			{[]string{"cat", "zz"}, Bound{1, 1, 1, false}},
			{[]string{"othe"}, Bound{1, 1, 1, false}}, // the smaller of "oth" (1 line) and "the" (4)
		} {
			var terms [][]byte
			for _, s := range c.terms {
				terms = append(terms, []byte(s))
			}
			got, err := Bounds(tx, 1, terms)
			require.NoError(t, err)
			require.Equal(t, []Bound{c.want}, got, "terms %q", c.terms)
		}
		got, err := Bounds(tx, 1, [][]byte{[]byte("theo")}) // no "heo"
		require.NoError(t, err)
		require.Empty(t, got)
		return nil
	}))
}

// TestCandidatesShortTermsExact: a 1- or 2-byte term uses its own gram, so
// its candidates are exactly the documents that contain it.
func TestCandidatesShortTermsExact(t *testing.T) {
	db := openTestDB(t)
	docs := map[uint64]string{
		1:  "Ali",
		2:  "ع",     // D8 B9
		3:  "\xd8x", // the lead byte alone
		63: "a\r\nb",
		64: "é",
		65: "ab",
		66: "",
		70: "b\ra",
	}
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for s := uint64(1); s <= 70; s++ { // the others are empty documents
			if err := AddTerms(tx, s, []byte(docs[s])); err != nil {
				return err
			}
		}
		return nil
	}))
	for _, c := range []struct {
		term string
		want []uint64
	}{
		{"a", []uint64{63, 65, 70}},
		{"ab", []uint64{65}},
		{"ba", nil},
		{"\xd8", []uint64{2, 3}},
		{"\xb9", []uint64{2}},
		{"ع", []uint64{2}},
		{"é", []uint64{64}},
		{"\xa9", []uint64{64}},
		// Separators are not in the postings (find never asks them): every
		// document is a candidate.
		{"\r", every(70)},
		{"\r\n", every(70)},
		{"b\ra", every(70)},
		{"Ali", []uint64{1}},
		{"Alice", nil},
		{"\xd8x", []uint64{3}},
	} {
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			got, err := Candidates(tx, 70, [][]byte{[]byte(c.term)})
			require.NoError(t, err)
			require.Equal(t, c.want, got, "term %q", c.term)
			return nil
		}))
	}
	// Several terms: the union, ascending, each document once.
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		got, err := Candidates(tx, 70, [][]byte{[]byte("b"), []byte("a"), []byte("b"), []byte("é")})
		require.NoError(t, err)
		require.Equal(t, []uint64{63, 64, 65, 70}, got)
		// maxSeq cuts the documents issued later.
		got, err = Candidates(tx, 64, [][]byte{[]byte("a"), []byte("é")})
		require.NoError(t, err)
		require.Equal(t, []uint64{63, 64}, got)
		got, err = Candidates(tx, 0, [][]byte{[]byte("a")})
		require.NoError(t, err)
		require.Empty(t, got)
		return nil
	}))
}

// TestCandidatesIgnoresSeqZero: bit 0 of group 0 is no document (sequence
// numbers start at 1) and is never returned.
func TestCandidatesIgnoresSeqZero(t *testing.T) {
	db := openTestDB(t)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for s := range uint64(11) {
			src := ""
			if s == 0 {
				src = "zero"
			}
			if err := AddTerms(tx, s, []byte(src)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		got, err := Candidates(tx, 10, [][]byte{[]byte("zero")})
		require.NoError(t, err)
		require.Empty(t, got)
		stray, err := StrayTermBits(tx, func(seq uint64) bool { return seq != 0 })
		require.NoError(t, err)
		require.Equal(t, len(gramsOf([]byte("zero")))+1, stray) // and #0's bit in the start entry
		return nil
	}))
}

func TestCheckTermsAndStrayBits(t *testing.T) {
	db := openTestDB(t)
	docs := map[uint64][]byte{5: []byte("Alice owes Bob"), 70: []byte("أحمد"), 71: []byte("Alice")}
	for s := uint64(1); s <= 71; s++ {
		if docs[s] == nil {
			docs[s] = []byte{} // empty documents between them
		}
	}
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for s, src := range docs {
			if err := AddTerms(tx, s, src); err != nil {
				return err
			}
		}
		return nil
	}))
	known := func(seq uint64) bool { _, ok := docs[seq]; return ok }
	check := func() (missing map[uint64]int, stray int) {
		missing = map[uint64]int{}
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			for s, src := range docs {
				n, wrong, pending, err := CheckTerms(tx, s, src)
				require.NoError(t, err)
				require.Zero(t, wrong)
				require.False(t, pending)
				missing[s] = n
			}
			var err error
			stray, err = StrayTermBits(tx, known)
			return err
		}))
		return missing, stray
	}
	missing, stray := check()
	// missingOf is the expected result: 0 for every document but those set.
	missingOf := func(set map[uint64]int) map[uint64]int {
		m := map[uint64]int{}
		for s := range docs {
			m[s] = set[s]
		}
		return m
	}
	require.Equal(t, missingOf(nil), missing)
	require.Zero(t, stray)

	// Clear document 71's bit everywhere (it shares group 1 with 70).
	_, bit71 := groupOf(71)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketGrams)
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if binary.BigEndian.Uint32(k) != 1 || k[4] == kindStart {
				continue // the start entry still marks #71 indexed
			}
			if err := b.Put(bytes.Clone(k), withoutBit(t, k, v, bit71)); err != nil {
				return err
			}
		}
		return nil
	}))
	missing, stray = check()
	require.Equal(t, missingOf(map[uint64]int{71: len(gramsOf(docs[71]))}), missing)
	require.Zero(t, stray)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		got, err := Candidates(tx, 71, [][]byte{[]byte("Alice")})
		require.NoError(t, err)
		require.Equal(t, []uint64{5}, got)
		return nil
	}))

	// Bits of documents that do not exist, and a malformed value.
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketGrams)
		if err := AddTerms(tx, 200, []byte("xy")); err != nil { // 3 grams
			return err
		}
		k := gramKey(0, 1, 'A')
		p, ok := getPosting(t, tx, k)
		require.True(t, ok)
		p.withCount(1<<6, 1) // seq 6 unknown
		if err := SetPosting(tx, k, p.Bitmap, p.Counts); err != nil {
			return err
		}
		if err := AddTerms(tx, 9*GroupSize+1, nil); err != nil { // group 9's start entry
			return err
		}
		// Malformed (and so out of group 9's chain: its start entry names
		// no next key).
		bk, _ := blockOf(gramKey(9, 3, 0x616263))
		return b.Put(bk, []byte{1, 2, 3})
	}))
	known = func(seq uint64) bool { _, ok := docs[seq]; return ok || seq == 9*GroupSize+1 }
	_, stray = check()
	require.Equal(t, 3+1+3, stray) // 3 bits of #200, #6's bit, the malformed value and the chain breaks around it

	// DropBuckets empties the index.
	require.NoError(t, db.Update(DropBuckets))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		require.Zero(t, tx.Bucket(bucketGrams).Stats().KeyN)
		require.Zero(t, tx.Bucket(bucketEntities).Stats().KeyN)
		// Document 5 is no longer marked indexed: nothing to compare, and
		// Bounds returns it for every query.
		n, wrong, pending, err := CheckTerms(tx, 5, docs[5])
		require.NoError(t, err)
		require.True(t, pending)
		require.Zero(t, n)
		require.Zero(t, wrong)
		bounds, err := Bounds(tx, 5, [][]byte{[]byte("no such term")})
		require.NoError(t, err)
		require.Len(t, bounds, 5)
		return nil
	}))
}

func TestMissingBuckets(t *testing.T) {
	b, err := bolt.Open(filepath.Join(t.TempDir(), "empty.db"), 0o600, nil)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.Update(func(tx *bolt.Tx) error {
		require.Error(t, AddTerms(tx, 1, []byte("x")))
		require.Error(t, AddEntities(tx, 1, SpanDoc{}, nil, nil))
		_, err := Candidates(tx, 1, [][]byte{[]byte("x")})
		require.Error(t, err)
		_, _, _, err = CheckTerms(tx, 1, nil)
		require.Error(t, err)
		_, err = Bounds(tx, 1, [][]byte{[]byte("x")})
		require.Error(t, err)
		_, err = StrayTermBits(tx, func(uint64) bool { return true })
		require.Error(t, err)
		_, err = Entity(tx, "x")
		require.Error(t, err)
		_, err = EntityNames(tx, "")
		require.Error(t, err)
		_, err = CheckEntities(tx, 1, SpanDoc{}, nil, nil)
		require.Error(t, err)
		_, err = StrayEntities(tx, nil)
		require.Error(t, err)
		return nil
	}))
}

// linesAt is the number of distinct lines holding the offsets.
func linesAt(src []byte, offs []int) uint32 {
	lines := map[int]bool{}
	for _, o := range offs {
		lines[bytes.Count(src[:o], []byte("\n"))] = true
	}
	return uint32(len(lines))
}

// lineCountsOf is the reference line count of every gram of a text: the
// number of LF-terminated lines (the LF included) in which the gram starts.
func lineCountsOf(src []byte) map[string]uint32 {
	m := map[string]uint32{}
	start := 0
	for start < len(src) {
		end := bytes.IndexByte(src[start:], '\n') + 1
		if end == 0 {
			end = len(src) - start
		}
		seen := map[string]bool{}
		for n := 1; n <= 3; n++ {
			for i := start; i < start+end && i+n <= len(src); i++ {
				seen[string(src[i:i+n])] = true
			}
		}
		for g := range seen {
			m[g]++
		}
		start += end
	}
	return m
}

// TestGramCountsEach: each visits every distinct gram once, by length then
// gram value, with the number of lines it starts in.
func TestGramCountsEach(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 2))
	srcs := [][]byte{
		[]byte("abcab\xd8\xb9\x00\xff"), nil, []byte("\n"), []byte("\n\n\n"), []byte("ab\nab\nab"),
		[]byte("the the\nthe\r\n\nxthe"), []byte("a\nb\nc"),
	}
	for range 200 {
		srcs = append(srcs, randBytes(r, r.IntN(400)))
	}
	// Enough distinct trigrams to grow the hash table several times.
	big := make([]byte, 200000)
	for i := range big {
		big[i] = byte(r.IntN(64)) + ' '
		if r.IntN(50) == 0 {
			big[i] = '\n'
		}
	}
	srcs = append(srcs, big)
	for _, src := range srcs {
		var got []string
		gotCounts := map[string]uint32{}
		gotFollows := map[string]uint8{}
		require.NoError(t, countGrams(src).each(func(n int, gram, lines uint32, follow uint8) error {
			k := gramKey(0, n, gram)
			got = append(got, string(k[4:]))
			gotCounts[string(k[4:])] = lines
			if follow != 0 {
				gotFollows[string(k[4:])] = follow
			}
			return nil
		}))
		// Each byte trigram's follow mask: the bits of the bytes after
		// its occurrences, counted here the slow way.
		wantFollows := map[string]uint8{}
		for p := 0; p+3 < len(src); p++ {
			if k := gramKey(0, 3, uint32(src[p])<<16|uint32(src[p+1])<<8|uint32(src[p+2])); indexedGram(3, uint32(src[p])<<16|uint32(src[p+1])<<8|uint32(src[p+2])) {
				wantFollows[string(k[4:])] |= FollowBit(src[p+3])
			}
		}
		require.Equal(t, wantFollows, gotFollows, "src %q", src)
		var want []string
		for g := range gramsOf(src) {
			if len(g) == 3 && strings.ContainsFunc(g, func(r rune) bool { return r < 0x80 && find.IsSeparator(byte(r)) }) {
				continue // never looked up, so not counted (indexedGram)
			}
			want = append(want, string(rune(len(g)))+g)
		}
		cp := cpGramsOf(src)
		for h := range cp {
			want = append(want, string(gramKey(0, kindCP, h)[4:]))
		}
		slices.Sort(want) // kind, then gram bytes: the key order
		if len(want) == 0 {
			want = nil
		}
		require.Equal(t, want, got, "src %q", src)
		wantCounts := map[string]uint32{}
		for g, c := range lineCountsOf(src) {
			if len(g) == 3 && !indexedGram(3, uint32(g[0])<<16|uint32(g[1])<<8|uint32(g[2])) {
				continue
			}
			wantCounts[string(rune(len(g)))+g] = c
		}
		for h, offs := range cp {
			wantCounts[string(gramKey(0, kindCP, h)[4:])] = linesAt(src, offs)
		}
		require.Equal(t, wantCounts, gotCounts, "src %q", src)
	}
}

// withoutBit removes bit and its counts from every entry of block v of key
// k, resealing it.
func withoutBit(t testing.TB, k, v []byte, bit uint64) []byte {
	link, es, ok := decodeBlock(k, v)
	require.True(t, ok)
	for i := range es {
		p := &es[i].Posting
		if p.Bitmap&bit != 0 {
			j := bits.OnesCount64(p.Bitmap & (bit - 1))
			p.Counts = slices.Delete(p.Counts, j, j+1)
			if p.Follows != nil {
				p.Follows = slices.Delete(p.Follows, j, j+1)
			}
		}
		p.Bitmap &^= bit
	}
	return encodeBlock(nil, k, link, es)
}

// getPosting returns the posting of gram key k, ok false when it has none.
func getPosting(t testing.TB, tx *bolt.Tx, k []byte) (Posting, bool) {
	bk, last := blockOf(k)
	v := tx.Bucket(bucketGrams).Get(bk)
	if v == nil {
		return Posting{}, false
	}
	_, es, ok := decodeBlock(bk, v)
	require.True(t, ok)
	for _, e := range es {
		if e.last == last {
			return e.Posting, true
		}
	}
	return Posting{}, false
}

// randomBlock is a block of random entries: short and bitmap forms, counts
// of every uvarint length.
func randomBlock(r *rand.Rand) []entry {
	var es []entry
	for last := range 256 {
		if r.IntN(4) != 0 {
			continue
		}
		e := entry{last: byte(last)}
		docs := 1 + r.IntN(9)
		if r.IntN(4) == 0 {
			docs = 1 + r.IntN(64)
		}
		for range docs {
			e.withCount(1<<r.IntN(64), uint32(r.IntN(3))<<(7*r.IntN(5)))
		}
		es = append(es, e)
	}
	return es
}

// every is the sequence numbers 1..n.
func every(n uint64) []uint64 {
	var out []uint64
	for s := uint64(1); s <= n; s++ {
		out = append(out, s)
	}
	return out
}

// TestPostingBlocks: blocks decode to what was encoded, every gram is
// found or proved absent, and damaged or malformed values are refused.
func TestPostingBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 3))
	k := []byte{0, 0, 0, 3, 3, 'a', 'b'}
	for range 300 {
		es := randomBlock(r)
		link := []byte{3, 'a', 'c'}
		if r.IntN(3) == 0 {
			link = nil
		}
		v := encodeBlock(nil, k, link, es)
		gotLink, got, ok := decodeBlock(k, v)
		require.True(t, ok)
		if link == nil {
			link = endLink
		}
		require.Equal(t, link, gotLink)
		require.Equal(t, len(es), len(got))
		for i := range es {
			require.Equal(t, es[i].last, got[i].last)
			require.Equal(t, es[i].Bitmap, got[i].Bitmap)
			require.Equal(t, es[i].Counts, got[i].Counts)
		}
		require.Equal(t, v, encodeBlock(nil, k, gotLink, got))
		_, body, ok := openBlock(k, v)
		require.True(t, ok)
		byLast := map[byte]entry{}
		for _, e := range es {
			byLast[e.last] = e
		}
		for last := range 256 {
			e, found, ok := findEntry(body, byte(last))
			require.True(t, ok)
			want, in := byLast[byte(last)]
			require.Equal(t, in, found, "last byte %d", last)
			if !in {
				continue
			}
			require.Equal(t, want.Bitmap, e.bitmap)
			for i, bit := 0, want.Bitmap; bit != 0; bit &= bit - 1 {
				c, ok := postingCount(e.bitmap, e.counts, bit&-bit)
				require.True(t, ok)
				require.Equal(t, want.Counts[i], c)
				i++
			}
		}
		// Any flipped byte, in the value or the key, breaks the seal.
		at := r.IntN(len(v))
		bad := bytes.Clone(v)
		bad[at] ^= byte(1 + r.IntN(255))
		_, _, ok = openBlock(k, bad)
		require.False(t, ok, "flip at %d", at)
		_, _, ok = openBlock([]byte{0, 0, 0, 3, 3, 'a', 'c'}, v)
		require.False(t, ok)
	}
	// Sealed but malformed: entries out of order, a short form out of
	// order, a bitmap whose bits disagree with its count, counts that do
	// not fill their bytes, a truncated entry.
	seal := func(body []byte) []byte {
		v := append([]byte{0}, body...)
		return binary.LittleEndian.AppendUint64(v, sealOf(k, v))
	}
	for _, body := range [][]byte{
		{'b', 1, 5, 1, 1, 'a', 1, 5, 1, 1},
		{'a', 2, 9, 5, 2, 1, 1},
		{'a', 8, 0xFF, 0, 0, 0, 0, 0, 0, 1, 8, 1, 1, 1, 1, 1, 1, 1, 1},
		{'a', 1, 5, 2, 1, 1, 1},
		{'a', 1, 5, 1},
		{'a', 65},
	} {
		_, _, ok := decodeBlock(k, seal(body))
		require.False(t, ok, "%x", body)
	}
	for _, bad := range [][]byte{nil, {1, 2, 3}, {0xFF, 0, 0, 0, 0, 0, 0, 0, 0}} {
		_, _, ok := openBlock(k, bad)
		require.False(t, ok, "%x", bad)
	}
	// The short form is used up to shortDocs documents, the bitmap after.
	for docs, size := range map[int]int{1: 2 + 1 + 1 + 1, shortDocs: 2 + shortDocs + 1 + shortDocs, shortDocs + 1: 2 + 8 + 1 + shortDocs + 1} {
		p := Posting{Bitmap: 1<<docs - 1, Counts: make([]uint32, docs)}
		require.Len(t, appendEntry(nil, entry{'a', p}), size, "%d documents", docs)
	}
}

// FuzzPostingBlock: no value, however malformed, panics a reader, and what
// decodes re-encodes to the same bytes.
func FuzzPostingBlock(f *testing.F) {
	k := []byte{0, 0, 0, 3, 3, 'a', 'b'}
	r := rand.New(rand.NewPCG(1, 2))
	for range 4 {
		f.Add(encodeBlock(nil, k, []byte{3, 'a', 'c'}, randomBlock(r)), false)
	}
	f.Add([]byte{0, 'a', 1, 5, 1, 1}, true)
	f.Fuzz(func(t *testing.T, v []byte, reseal bool) {
		if reseal && len(v) > 0 {
			// Seal the bytes so that the parser past the seal is reached.
			v = binary.LittleEndian.AppendUint64(bytes.Clone(v), sealOf(k, v))
		}
		link, body, ok := openBlock(k, v)
		if !ok {
			return
		}
		for last := range 256 {
			if e, found, ok := findEntry(body, byte(last)); ok && found {
				decodeCounts(e)
			}
		}
		if _, es, ok := decodeBlock(k, v); ok {
			require.Equal(t, v, encodeBlock(nil, k, link, es))
		}
	})
}

// TestCheckTermsCounts: a lowered or raised line count is reported.
func TestCheckTermsCounts(t *testing.T) {
	db := openTestDB(t)
	src := []byte("Alice paid\nAlice owes\nBob\n")
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		if err := AddTerms(tx, 3, []byte("Alice")); err != nil {
			return err
		}
		return AddTerms(tx, 5, src)
	}))
	for _, c := range []uint32{1, 3, 0} {
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			k := gramKey(0, 3, 'l'<<16|'i'<<8|'c')
			p, ok := getPosting(t, tx, k)
			require.True(t, ok)
			p.withCount(1<<5, c)
			return SetPosting(tx, k, p.Bitmap, p.Counts)
		}))
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			missing, wrong, _, err := CheckTerms(tx, 5, src)
			require.NoError(t, err)
			require.Zero(t, missing)
			require.Equal(t, 1, wrong, "count %d", c)
			return nil
		}))
	}
}

// bucketDump is every key and value of the grams bucket.
func bucketDump(t *testing.T, db *bolt.DB) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketGrams).ForEach(func(k, v []byte) error {
			m[string(k)] = string(v)
			return nil
		})
	}))
	return m
}

// TestFoldTermsEqualsOneByOne: folding documents in batches of any size
// and order writes exactly the postings that adding them one at a time
// writes, and a document not folded yet is a candidate for every query.
func TestFoldTermsEqualsOneByOne(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 3))
	docs := map[uint64][]byte{}
	const last = 150
	for s := uint64(1); s <= last; s++ {
		docs[s] = randBytes(r, r.IntN(80))
	}
	one := openTestDB(t)
	require.NoError(t, one.Update(func(tx *bolt.Tx) error {
		for s := uint64(1); s <= last; s++ {
			if err := AddTerms(tx, s, docs[s]); err != nil {
				return err
			}
		}
		return nil
	}))
	batched := openTestDB(t)
	var pending []*DocGrams
	for s := uint64(1); s <= last; s++ {
		pending = append(pending, CountGrams(docs[s]).Compact(s))
		if r.IntN(10) != 0 && s != last {
			continue
		}
		r.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		require.NoError(t, batched.View(func(tx *bolt.Tx) error {
			// Before the fold, the waiting documents are candidates of
			// an absent term, and Unindexed lists them.
			bounds, err := Bounds(tx, s, [][]byte{[]byte("\x01absent\x02")})
			require.NoError(t, err)
			require.Len(t, bounds, len(pending))
			un, err := Unindexed(tx, s)
			require.NoError(t, err)
			require.Len(t, un, len(pending))
			return nil
		}))
		require.NoError(t, batched.Update(func(tx *bolt.Tx) error { return FoldTerms(tx, pending) }))
		// Folding again changes nothing (another writer folded them).
		before := bucketDump(t, batched)
		require.NoError(t, batched.Update(func(tx *bolt.Tx) error { return FoldTerms(tx, pending[:1]) }))
		require.Equal(t, before, bucketDump(t, batched))
		pending = nil
	}
	require.Equal(t, bucketDump(t, one), bucketDump(t, batched))
	require.NoError(t, batched.View(func(tx *bolt.Tx) error {
		un, err := Unindexed(tx, last)
		require.NoError(t, err)
		require.Empty(t, un)
		stray, err := StrayTermBits(tx, func(seq uint64) bool { return seq >= 1 && seq <= last })
		require.NoError(t, err)
		require.Zero(t, stray)
		return nil
	}))
}

// TestCodePointTrigramsRuleOutArabic: byte trigrams of Arabic letters are
// shared by nearly every Arabic text; three whole letters are not, so a
// rare word's documents are the only candidates.
func TestCodePointTrigramsRuleOutArabic(t *testing.T) {
	db := openTestDB(t)
	docs := []string{
		"", // #0 is no document
		"مستودع الكلمات هنا",
		"الكلمات تودع في مس", // every byte trigram of مستودع, not the word
		"سدد أحمد دين خالد",  // other words
	}
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		for s := 1; s < len(docs); s++ {
			if err := AddTerms(tx, uint64(s), []byte(docs[s])); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for _, c := range []struct {
			term string
			want []uint64
		}{
			{"مستودع", []uint64{1}},
			{"تودع", []uint64{1, 2}},
			{"دين", []uint64{3}},
			{"ع", []uint64{1, 2}},
			{"تود\xd8", []uint64{1, 2}}, // a cut character ends the term's grams
			{"\xb3تودع", []uint64{1}},   // a leading continuation byte is skipped
		} {
			got, err := Candidates(tx, 3, [][]byte{[]byte(c.term)})
			require.NoError(t, err)
			require.Equal(t, c.want, got, "term %q", c.term)
		}
		return nil
	}))
}
