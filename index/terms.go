package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/casper-chronicle/chronicle/engine/find"

	bolt "go.etcd.io/bbolt"
)

// GroupSize is the number of documents sharing one posting bitmap.
const GroupSize = 64

// Page fill of the index buckets (bbolt's Bucket.FillPercent, set on every
// write): full pages where keys only grow, a little room where keys land
// near the end of a range. The gram postings keep bbolt's default: every
// document rewrites its group's postings, and fuller pages measured worse.
const (
	fillAppend       = 1.0
	fillMostlyAppend = 0.9
)

var (
	bucketGrams    = []byte("grams")
	bucketEntities = []byte("entities")
	bucketSpans    = []byte("spans")
)

// Buckets lists the buckets the index owns.
var Buckets = [][]byte{bucketGrams, bucketPacks, bucketSupers, bucketEntities, bucketSpans, bucketLines, bucketEntityCounts}

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

// gramKey is group ‖ n ‖ gram (gramBytes(n) bytes): the name of one gram's
// posting, which lives in the block blockOf names.
func gramKey(group uint32, n int, gram uint32) []byte {
	return appendGramKey(make([]byte, 0, 8), group, n, gram)
}

// startKey is the key of group's start entry: group ‖ 0, before every block
// key of the group.
func startKey(group uint32) []byte { return gramKey(group, 0, 0) }

func groupOf(seq uint64) (uint32, uint64) {
	return uint32(seq / GroupSize), 1 << (seq % GroupSize)
}

// Posting is one gram's decoded posting: the group's documents holding it
// and their line counts. Every group with a document has a start entry
// (startKey, alone in its block) whose bitmap marks the documents folded
// into the postings, each counted with its number of distinct grams.
type Posting struct {
	Bitmap uint64
	Counts []uint32 // one per set bit of Bitmap, in ascending bit order
	// Follows: a trigram's follow masks (FollowBit), one per set bit, or
	// nil (other grams, and trigrams folded before schema 21).
	Follows []uint8
}

// withCount sets bit's count to lines, setting the bit if needed.
func (p *Posting) withCount(bit uint64, lines uint32) {
	i := bits.OnesCount64(p.Bitmap & (bit - 1))
	if p.Bitmap&bit != 0 {
		p.Counts[i] = lines
		return
	}
	p.Bitmap |= bit
	p.Counts = slices.Insert(p.Counts, i, lines)
}

// withFollow is withCount of a trigram, with its follow mask. A posting
// whose documents have no mask yet (folded before schema 21) gets
// AllFollow for them: any byte may follow.
func (p *Posting) withFollow(bit uint64, lines uint32, follow uint8) {
	if len(p.Follows) != len(p.Counts) || p.Follows == nil {
		p.Follows = make([]uint8, len(p.Counts), len(p.Counts)+1)
		for i := range p.Follows {
			p.Follows[i] = AllFollow
		}
	}
	i := bits.OnesCount64(p.Bitmap & (bit - 1))
	if p.Bitmap&bit != 0 {
		p.Counts[i], p.Follows[i] = lines, follow
		return
	}
	p.withCount(bit, lines)
	p.Follows = slices.Insert(p.Follows, i, follow)
}

// AllFollow is the follow mask that rules nothing out.
const AllFollow uint8 = 0xFF

// postingCount returns the line count for bit in the count bytes of a
// posting with bitmap bm, and whether it is set.
func postingCount(bm uint64, counts []byte, bit uint64) (uint32, bool) {
	if bm&bit == 0 {
		return 0, false
	}
	for range bits.OnesCount64(bm & (bit - 1)) {
		_, n := binary.Uvarint(counts)
		if n <= 0 {
			return 0, false
		}
		counts = counts[n:]
	}
	c, n := binary.Uvarint(counts)
	if n <= 0 || c > math.MaxUint32 {
		return 0, false
	}
	return uint32(c), true
}

// postingFollow returns the follow mask of bit (set) in the count bytes of
// a posting with bitmap bm (checked by the lookup that read them):
// AllFollow when the posting keeps none.
func postingFollow(bm uint64, counts []byte, bit uint64) uint8 {
	docs := bits.OnesCount64(bm)
	for range docs {
		_, n := binary.Uvarint(counts)
		counts = counts[n:]
	}
	if len(counts) != docs {
		return AllFollow
	}
	return counts[bits.OnesCount64(bm&(bit-1))]
}

// damaged is the error of a group posting that is damaged or missing.
func damaged(group uint32, format string, args ...any) error {
	return groupLevel.damaged(group, format, args...)
}

// level is one level of the term index: the group postings (a bit per
// document of a group of 64) or the group summaries (a bit per group of a
// super-group of 64 groups; supers.go). Both keep the same sealed, chained
// blocks, keyed by the unit's number (u32 BE) ‖ kind ‖ prefix.
type level struct {
	bucket []byte
	docs   uint64 // documents per unit
	// counted: entries hold a line count per set bit (group postings);
	// the summaries' entries hold none.
	counted bool
	what    string // what a damage message calls the level
}

var (
	groupLevel = &level{bucket: bucketGrams, docs: GroupSize, counted: true, what: "term index"}
	superLevel = &level{bucket: bucketSupers, docs: SuperSize, what: "term index summary"}
)

// damaged is the error of an entry of unit (a group or a super-group) that
// is damaged or missing.
func (lv *level) damaged(unit uint32, format string, args ...any) error {
	lo := uint64(unit) * lv.docs
	return fmt.Errorf("%w: the %s of documents #%d..#%d %s (run `chronicle check`, then `chronicle reindex`)",
		ErrDamaged, lv.what, max(lo, 1), lo+lv.docs-1, fmt.Sprintf(format, args...))
}

// termReader looks up postings and proves absent ones absent. It checks a
// block once and keeps its entries for the other grams of the same block.
type termReader struct {
	lv    *level
	c     *bolt.Cursor
	cache map[string]checkedBlock
	// packs: the group postings' packed super-groups (packs.go); nil
	// for the summaries, and for readers of start entries only.
	packs *packReader
}

// checkedBlock is a block whose seal was checked (found), or whose
// absence the chain proved.
type checkedBlock struct {
	entries []byte
	found   bool
}

func newTermReader(b *bolt.Bucket) *termReader { return newLevelReader(b, groupLevel) }

func newLevelReader(b *bolt.Bucket, lv *level) *termReader {
	return &termReader{lv: lv, c: b.Cursor(), cache: map[string]checkedBlock{}}
}

// newGramReader is a reader of the group postings of tx, packed
// super-groups included.
func newGramReader(tx *bolt.Tx) (*termReader, error) {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return nil, fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	p, err := newPackReader(tx)
	if err != nil {
		return nil, err
	}
	r := newTermReader(b)
	r.packs = p
	return r, nil
}

// block returns the checked entries of block key bk, found false when the
// chain proves the block absent. Any other case is an error wrapping
// ErrDamaged.
func (r *termReader) block(bk []byte) (entries []byte, found bool, err error) {
	if cb, ok := r.cache[string(bk)]; ok {
		return cb.entries, cb.found, nil
	}
	if r.packs.packed(binary.BigEndian.Uint32(bk)) && bk[4] != kindStart {
		entries, found, err = r.packs.groupBlock(bk)
	} else {
		entries, found, err = r.seekBlock(bk)
	}
	if err == nil {
		r.cache[string(bk)] = checkedBlock{entries, found}
	}
	return entries, found, err
}

func (r *termReader) seekBlock(bk []byte) (entries []byte, found bool, err error) {
	group := binary.BigEndian.Uint32(bk)
	k, v := r.c.Seek(bk)
	if k != nil && bytes.Equal(k, bk) {
		_, entries, ok := openBlock(k, v)
		if !ok {
			return nil, false, r.lv.damaged(group, "has an entry that does not match its digest")
		}
		return entries, true, nil
	}
	if k != nil && bytes.Compare(k, bk) < 0 {
		return nil, false, r.lv.damaged(group, "has its entries out of order")
	}
	var pk, pv []byte
	if k == nil {
		pk, pv = r.c.Last()
	} else {
		pk, pv = r.c.Prev()
	}
	if pk == nil || len(pk) < 5 || !bytes.Equal(pk[:4], bk[:4]) || bytes.Compare(pk, bk) >= 0 {
		return nil, false, r.lv.damaged(group, "lacks its start entry")
	}
	link, _, ok := openBlock(pk, pv)
	if !ok {
		return nil, false, r.lv.damaged(group, "has an entry that does not match its digest")
	}
	want := endLink
	if k != nil && len(k) >= 5 && bytes.Equal(k[:4], bk[:4]) {
		want = k[4:]
	}
	if !bytes.Equal(link, want) {
		return nil, false, r.lv.damaged(group, "lacks an entry")
	}
	return nil, false, nil
}

// lookup returns the checked posting of gram key key (its bitmap and count
// bytes), found false when the key is proved absent. With full set, the
// count bytes are checked to hold exactly one count per document. Any
// other case is an error wrapping ErrDamaged.
func (r *termReader) lookup(key []byte, full bool) (bm uint64, counts []byte, found bool, err error) {
	group := binary.BigEndian.Uint32(key)
	bk, last := blockOf(key)
	entries, found, err := r.block(bk)
	if err != nil || !found {
		return 0, nil, false, err
	}
	e, found, ok := findEntry(entries, last)
	if ok && found && full && r.lv.counted {
		ok = validCounts(e)
	}
	if !ok {
		return 0, nil, false, r.lv.damaged(group, "has an entry that cannot be read")
	}
	if !found {
		return 0, nil, false, nil
	}
	return e.bitmap, e.counts, true, nil
}

// AddTerms records every gram of src, with its line count, for document
// seq.
func AddTerms(tx *bolt.Tx, seq uint64, src []byte) error {
	return FoldTerms(tx, []*DocGrams{CountGrams(src).Compact(seq)})
}

// Grams is the gram line counts of one text, computed before (and outside)
// the write transaction that records them.
type Grams struct{ counts *gramCounts }

// CountGrams counts the grams of src.
func CountGrams(src []byte) *Grams { return &Grams{countGrams(src)} }

// DocGrams is one document's grams in key order, compact (8 bytes a gram),
// waiting to be folded into the postings: a batch ingest records the
// postings of many documents in one pass over their group (FoldTerms)
// instead of rewriting the group's postings for every document.
type DocGrams struct {
	Seq uint64
	// entries: (kind<<24 | gram) << 32 | line count, ascending.
	entries []uint64
	// follows: each entry's follow mask (trigrams; 0 for other grams).
	follows []uint8
}

// Compact returns the grams of g for document seq. g's tables are released:
// g must not be used again.
func (g *Grams) Compact(seq uint64) *DocGrams {
	size := g.counts.tri.n + g.counts.cp.n + 1024
	d := &DocGrams{Seq: seq, entries: make([]uint64, 0, size), follows: make([]uint8, 0, size)}
	g.counts.each(func(n int, gram, lines uint32, follow uint8) error {
		if indexedGram(n, gram) {
			d.entries = append(d.entries, uint64(uint32(n)<<24|gram)<<32|uint64(lines))
			d.follows = append(d.follows, follow)
		}
		return nil
	})
	g.counts.release()
	g.counts = nil
	return d
}

// indexedGram reports whether the postings keep grams of kind n like gram.
// A find term holds no separator (CONTRACT 11), so a gram holding one is never
// looked up: about a third of an English text's distinct byte grams, and
// their postings, are left out. The LF unigram stays: its line count
// bounds a document's number of lines (Bounds). Code-point grams never
// hold a separator.
func indexedGram(n int, gram uint32) bool {
	sep := func(b uint32) bool { return find.IsSeparator(byte(b)) }
	switch n {
	case 1:
		return gram == '\n' || !sep(gram)
	case 2:
		return !sep(gram>>8) && !sep(gram)
	case 3:
		return !sep(gram>>16) && !sep(gram>>8) && !sep(gram)
	}
	return true
}

// Len is the number of distinct grams of the document.
func (d *DocGrams) Len() int { return len(d.entries) }

// FoldTerms records the grams of docs (each document at most once) in the
// postings, one pass over each group they belong to, and marks them
// indexed in their group's start entry in the same write. A document the
// start entry already marks indexed (folded by another writer meanwhile)
// is skipped. Until it is folded, a document is not in the term index:
// Bounds returns it as a candidate for every query.
func FoldTerms(tx *bolt.Tx, docs []*DocGrams) error {
	var sums SummaryBatch
	if err := FoldTermsDeferred(tx, docs, &sums); err != nil {
		return err
	}
	return sums.Flush(tx)
}

// FoldTermsDeferred is FoldTerms with the group summaries' writes added to
// sums: folds of many groups in one transaction write each summary block
// once, at sums.Flush, which must run before the transaction commits.
func FoldTermsDeferred(tx *bolt.Tx, docs []*DocGrams, sums *SummaryBatch) error {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	docs = slices.Clone(docs)
	slices.SortFunc(docs, func(x, y *DocGrams) int { return cmpUint(x.Seq, y.Seq) })
	sum := &sums.u
	for i := 0; i < len(docs); {
		group, _ := groupOf(docs[i].Seq)
		j := i + 1
		for j < len(docs) && docs[j].Seq/GroupSize == uint64(group) {
			j++
		}
		if err := foldGroup(b, group, docs[i:j], sum); err != nil {
			return err
		}
		i = j
	}
	return nil
}

func cmpUint(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// foldGroup folds docs (ascending, all of group) into the group's
// postings, and notes in sum the grams new to the group.
func foldGroup(b *bolt.Bucket, group uint32, docs []*DocGrams, sum *summaryUpdate) error {
	r := newTermReader(b)
	start, exists, err := r.startEntry(group)
	if err != nil {
		return err
	}
	var add []*DocGrams
	for _, d := range docs {
		if _, bit := groupOf(d.Seq); start.Bitmap&bit == 0 && (len(add) == 0 || add[len(add)-1].Seq != d.Seq) {
			add = append(add, d)
		}
	}
	if len(add) == 0 {
		return nil
	}
	sum.folded(group)
	// The start entry: its bitmap marks the indexed documents, each with
	// its number of distinct grams as its count.
	for _, d := range add {
		_, bit := groupOf(d.Seq)
		start.withCount(bit, uint32(min(len(d.entries), math.MaxUint32)))
	}
	b.FillPercent = fillAppend
	w := &blockWriter{lv: groupLevel, b: b, c: b.Cursor(), group: group, fresh: !exists}
	if err := w.write(startKey(group), replaceEntry(0, start)); err != nil {
		return err
	}
	// A merge of the documents' gram lists, in key order: every key once,
	// with the bit and count of each document holding it, gathered by
	// block and written a block at a time.
	pos := make([]int, len(add))
	var blk blockUpdate
	blockKey := make([]byte, 0, 8)
	key := make([]byte, 0, 8)
	for {
		next := uint32(math.MaxUint32)
		for i, d := range add {
			if pos[i] < len(d.entries) {
				next = min(next, uint32(d.entries[pos[i]]>>32))
			}
		}
		if next == math.MaxUint32 {
			break
		}
		key = appendGramKey(key[:0], group, int(next>>24), next&0xFFFFFF)
		bk, last := blockOf(key)
		if !bytes.Equal(bk, blockKey) {
			if len(blk.grams) > 0 {
				if err := w.write(blockKey, blk.merge); err != nil {
					return err
				}
				sum.add(group, blockKey, blk.created)
			}
			blk.reset()
			blockKey = append(blockKey[:0], bk...)
			blk.trigrams = next>>24 == 3
		}
		from := len(blk.sets)
		for i, d := range add {
			if pos[i] < len(d.entries) && uint32(d.entries[pos[i]]>>32) == next {
				_, bit := groupOf(d.Seq)
				blk.sets = append(blk.sets, bitLines{bit, uint32(d.entries[pos[i]]), d.follows[pos[i]]})
				pos[i]++
			}
		}
		blk.grams = append(blk.grams, gramSets{last, from, len(blk.sets)})
	}
	if len(blk.grams) > 0 {
		if err := w.write(blockKey, blk.merge); err != nil {
			return err
		}
		sum.add(group, blockKey, blk.created)
	}
	return w.flush()
}

// bitLines is one document's bit in its group, its line count and its
// follow mask (trigrams).
type bitLines struct {
	bit    uint64
	lines  uint32
	follow uint8
}

// blockUpdate is the grams of one block a fold adds: for each gram
// (ascending last byte) the documents' bits and counts in sets[from:to].
type blockUpdate struct {
	grams []gramSets
	sets  []bitLines
	// created: the last bytes of the grams merge added to the block (new
	// to the group), for the group summaries.
	created []byte
	// trigrams: the block's grams are byte trigrams, whose postings keep
	// follow masks.
	trigrams bool
}

type gramSets struct {
	last     byte
	from, to int
}

func (u *blockUpdate) reset() { u.grams, u.sets, u.created = u.grams[:0], u.sets[:0], u.created[:0] }

// merge returns es (a block's entries) with the update's bits set.
func (u *blockUpdate) merge(es []entry) []entry {
	out := make([]entry, 0, len(es)+len(u.grams))
	i := 0
	for _, g := range u.grams {
		for i < len(es) && es[i].last < g.last {
			out = append(out, es[i])
			i++
		}
		var e entry
		if i < len(es) && es[i].last == g.last {
			e = es[i]
			i++
		} else {
			e = entry{last: g.last, Posting: Posting{Counts: make([]uint32, 0, g.to-g.from)}}
			u.created = append(u.created, g.last)
		}
		for _, s := range u.sets[g.from:g.to] {
			if u.trigrams {
				e.withFollow(s.bit, s.lines, s.follow)
			} else {
				e.withCount(s.bit, s.lines)
			}
		}
		out = append(out, e)
	}
	return append(out, es[i:]...)
}

// replaceEntry is an update that sets the posting of last byte last to p.
func replaceEntry(last byte, p Posting) func([]entry) []entry {
	return func(es []entry) []entry {
		i, found := slices.BinarySearchFunc(es, last, func(e entry, b byte) int { return int(e.last) - int(b) })
		if found {
			es[i].Posting = p
			return es
		}
		return slices.Insert(es, i, entry{last, p})
	}
}

// startEntry returns the checked start entry of group, and whether the
// group has any entry: a group with no entry at all has no document
// indexed yet (its bitmap is 0); a group with entries but no start entry is
// damage.
func (r *termReader) startEntry(group uint32) (p Posting, exists bool, err error) {
	key := startKey(group)
	k, v := r.c.Seek(key)
	if k != nil && bytes.Equal(k, key) {
		_, es, ok := decodeLevelBlock(k, v, r.lv.counted)
		if !ok || len(es) != 1 || es[0].last != 0 {
			return p, true, r.lv.damaged(group, "has an entry that does not match its digest")
		}
		return es[0].Posting, true, nil
	}
	if k != nil && len(k) >= 4 && bytes.Equal(k[:4], key[:4]) {
		return Posting{}, true, r.lv.damaged(group, "lacks its start entry")
	}
	return Posting{}, false, nil
}

// start returns the checked start entry of group (see startEntry).
func (r *termReader) start(group uint32) (Posting, error) {
	p, _, err := r.startEntry(group)
	return p, err
}

// SetPosting writes the posting of gram key k with the given bitmap and
// counts, keeping its group's chain and seals: for repairs and tests that
// need a consistent index with chosen contents.
func SetPosting(tx *bolt.Tx, k []byte, bitmap uint64, counts []uint32) error {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	if !validGramKey(k) || k[4] == kindStart || bits.OnesCount64(bitmap) != len(counts) {
		return fmt.Errorf("index: %x is not a gram key with %d counts", k, len(counts))
	}
	group := binary.BigEndian.Uint32(k)
	if p, err := newPackReader(tx); err != nil || p.packed(group) {
		return cmp.Or(err, ErrPacked)
	}
	r := newTermReader(b)
	start, err := r.start(group)
	if err != nil {
		return err
	}
	w := &blockWriter{lv: groupLevel, b: b, c: b.Cursor(), group: group}
	if err := w.write(startKey(group), replaceEntry(0, start)); err != nil {
		return err
	}
	bk, last := blockOf(k)
	if err := w.write(bytes.Clone(bk), replaceEntry(last, Posting{Bitmap: bitmap, Counts: slices.Clone(counts)})); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	// The summary keeps a superset: a cleared posting leaves its bit.
	var sum summaryUpdate
	if bitmap != 0 {
		sum.add(group, bk, []byte{last})
	}
	return sum.apply(tx)
}

// EachPosting calls fn with every posting of the term index: its gram key
// (group ‖ n ‖ gram, the start entries' included) and its contents. For
// tests and repairs; a damaged block is an error.
func EachPosting(tx *bolt.Tx, fn func(k []byte, p Posting) error) error {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	below, err := Packed(tx)
	if err != nil {
		return err
	}
	each := func(bk []byte, es []entry) error {
		for _, e := range es {
			k := bytes.Clone(bk)
			if bk[4] != kindStart {
				k = append(k, e.last)
			}
			if err := fn(k, e.Posting); err != nil {
				return err
			}
		}
		return nil
	}
	// A packed super-group's postings, in key order: its start entries
	// from the group postings, its blocks from its packs.
	type block struct {
		k  []byte
		es []entry
	}
	var packed []block
	flushPacked := func() error {
		slices.SortFunc(packed, func(x, y block) int { return bytes.Compare(x.k, y.k) })
		for _, p := range packed {
			if err := each(p.k, p.es); err != nil {
				return err
			}
		}
		packed = packed[:0]
		return nil
	}
	cur := uint32(math.MaxUint32)
	err = b.ForEach(func(bk, v []byte) error {
		_, es, ok := decodeBlock(bk, v)
		if !validBlockKey(bk) || !ok {
			return damaged(binary.BigEndian.Uint32(bk), "has an entry that does not match its digest")
		}
		super := binary.BigEndian.Uint32(bk) / GroupSize
		if super >= below {
			if err := flushPacked(); err != nil {
				return err
			}
			return each(bk, es)
		}
		packed = append(packed, block{bytes.Clone(bk), es})
		if super == cur {
			return nil
		}
		cur = super
		return eachPackedBlock(tx, super, func(bk []byte, es []entry) error {
			packed = append(packed, block{bytes.Clone(bk), es})
			return nil
		})
	})
	if err != nil {
		return err
	}
	return flushPacked()
}

// blockWriter writes blocks of one group (keys in ascending order, the
// start entry first), inserting missing keys into the group's chain. Every
// existing block read is checked against its seal: a damaged one stops the
// write (reindex rebuilds the index). It holds back only the last written
// block, whose link the next new key may change, so a group of any size is
// written in constant memory beyond bbolt's own.
type blockWriter struct {
	lv    *level
	b     *bolt.Bucket
	c     *bolt.Cursor
	group uint32
	held  *heldBlock
	// fresh: the group had no entry, so every key is new and links to
	// the next one written (no lookups).
	fresh bool
	buf   []byte // values are carved from it: bbolt keeps them until commit
}

type heldBlock struct {
	key, link []byte
	entries   []entry
}

func (w *blockWriter) inGroup(k []byte) bool {
	return len(k) >= 5 && binary.BigEndian.Uint32(k) == w.group
}

func (w *blockWriter) load(k, v []byte) (link []byte, es []entry, err error) {
	link, es, ok := decodeLevelBlock(k, v, w.lv.counted)
	if !ok {
		return nil, nil, w.lv.damaged(w.group, "has an entry that does not match its digest")
	}
	return bytes.Clone(link), es, nil
}

// write updates the block of key bk (its entries, none for a new block)
// with update.
func (w *blockWriter) write(bk []byte, update func([]entry) []entry) error {
	if w.fresh {
		if w.held != nil {
			w.held.link = bytes.Clone(bk[4:])
		}
		if err := w.flush(); err != nil {
			return err
		}
		w.held = &heldBlock{key: bytes.Clone(bk), entries: update(nil)}
		return nil
	}
	c := w.c
	k, v := c.Seek(bk)
	h := &heldBlock{key: bytes.Clone(bk)}
	if k != nil && bytes.Equal(k, bk) {
		var err error
		if h.link, h.entries, err = w.load(k, v); err != nil {
			return err
		}
	} else {
		// A new key: it links to the key after it, and the key before it
		// in the merged chain links to it.
		h.link = endLink
		if w.inGroup(k) {
			h.link = bytes.Clone(k[4:])
		}
		var pk, pv []byte
		if k == nil {
			pk, pv = c.Last()
		} else {
			pk, pv = c.Prev()
		}
		switch {
		case w.held != nil && (!w.inGroup(pk) || bytes.Compare(w.held.key, pk) >= 0):
			w.held.link = bytes.Clone(bk[4:])
		case w.inGroup(pk):
			_, es, err := w.load(pk, pv)
			if err != nil {
				return err
			}
			if err := w.flush(); err != nil {
				return err
			}
			w.held = &heldBlock{key: bytes.Clone(pk), link: bytes.Clone(bk[4:]), entries: es}
		}
	}
	h.entries = update(h.entries)
	if err := w.flush(); err != nil {
		return err
	}
	w.held = h
	return nil
}

// flush writes the held block.
func (w *blockWriter) flush() error {
	if w.held == nil {
		return nil
	}
	h := w.held
	w.held = nil
	if cap(w.buf)-len(w.buf) < 4<<10 {
		w.buf = make([]byte, 0, 256<<10)
	}
	v := encodeBlock(w.buf, h.key, h.link, h.entries)
	if len(v) > cap(w.buf) {
		w.buf = w.buf[:0] // v was reallocated; keep the arena for the next
	} else {
		w.buf = v[len(v):]
		v = v[:len(v):len(v)]
	}
	return w.b.Put(h.key, v)
}

// termGrams returns the grams that every document containing term holds:
// its trigrams and code-point trigrams, or the term itself when it is
// shorter than three bytes.
func termGrams(term []byte) [][2]uint32 {
	if len(term) < 3 {
		var g uint32
		for _, c := range term {
			g = g<<8 | uint32(c)
		}
		return [][2]uint32{{uint32(len(term)), g}}
	}
	seen := map[[2]uint32]bool{}
	var out [][2]uint32
	add := func(g [2]uint32) {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	for i := 0; i+2 < len(term); i++ {
		add([2]uint32{3, uint32(term[i])<<16 | uint32(term[i+1])<<8 | uint32(term[i+2])})
	}
	eachCPGram(term, func(_ int, h uint32) { add([2]uint32{kindCP, h}) })
	return out
}

// termFollows returns, for each byte trigram of term that a byte follows
// in it, the follow mask every document holding term has for it: the
// bits of the bytes after each of its places in term.
func termFollows(term []byte) map[uint32]uint8 {
	out := map[uint32]uint8{}
	for i := 0; i+3 < len(term); i++ {
		out[uint32(term[i])<<16|uint32(term[i+1])<<8|uint32(term[i+2])] |= FollowBit(term[i+3])
	}
	return out
}

// Bound is a candidate document with upper bounds of its find ranking key:
// no line of it matches more than Terms terms (counted with repetition),
// and at most Lines of its lines match at all.
type Bound struct {
	Seq   uint64
	Terms int
	Lines uint64
	// Exact: Lines is the document's number of lines holding the query's
	// only distinct term, not a bound. A gram's count is the number of
	// lines it starts in, and a term of up to three bytes is its own gram
	// and holds no LF, so it lies wholly in each of those lines.
	Exact bool
}

// Candidates returns, in ascending order, the sequence numbers (1..maxSeq)
// of the documents that may contain at least one of the terms. Every
// document whose bytes contain a term is returned; others may be too.
func Candidates(tx *bolt.Tx, maxSeq uint64, terms [][]byte) ([]uint64, error) {
	bounds, err := Bounds(tx, maxSeq, terms)
	if err != nil {
		return nil, err
	}
	var out []uint64
	for _, b := range bounds {
		out = append(out, b.Seq)
	}
	return out, nil
}

// Bounds returns the candidates of Candidates, in ascending order, each with
// upper bounds of its find result: Terms is the number of terms (with
// repetition) all of whose grams the document holds, which bounds every
// line's score; Lines is the sum over the distinct terms of the smallest
// line count of the term's grams, capped by the document's number of lines,
// which bounds total_matching_lines.
//
// Every posting used is checked against its seal and every absent one
// proved absent by its group's chain (see openPosting): a damaged index
// fails (ErrDamaged) rather than drop a document.
func Bounds(tx *bolt.Tx, maxSeq uint64, terms [][]byte) ([]Bound, error) {
	return BoundsOfSupers(tx, maxSeq, terms, 0, math.MaxUint32)
}

// BoundsOfSupers is Bounds over the documents of super-groups from..to-1
// (SuperSize documents each) only: the bounds of a large archive are
// computed a range of super-groups per core, each in a read transaction
// of its own, and joined in order.
func BoundsOfSupers(tx *bolt.Tx, maxSeq uint64, terms [][]byte, from, to uint32) ([]Bound, error) {
	r, err := newGramReader(tx)
	if err != nil {
		return nil, err
	}
	type weighted struct {
		grams   [][2]uint32
		follows map[uint32]uint8 // each trigram's required follow mask
		weight  int
	}
	var distinct []weighted
	seen := map[string]int{}
	// A term holding a separator (find never asks one) has grams the
	// postings leave out (indexedGram): every document may hold it.
	unindexed := false
	for _, t := range terms {
		if i, ok := seen[string(t)]; ok {
			distinct[i].weight++
			continue
		}
		seen[string(t)] = len(distinct)
		distinct = append(distinct, weighted{termGrams(t), termFollows(t), 1})
		unindexed = unindexed || slices.ContainsFunc(t, find.IsSeparator)
	}
	weight := 0
	for _, d := range distinct {
		weight += d.weight
	}
	// One distinct term that is its own gram of at most three bytes: its
	// posting's line count is exact (see Bound.Exact).
	exact := len(distinct) == 1 && len(distinct[0].grams) == 1 && distinct[0].grams[0][0] <= 3
	sum, err := newSummaryFilter(tx)
	if err != nil {
		return nil, err
	}
	termGrams := make([][][2]uint32, len(distinct))
	for i, d := range distinct {
		termGrams[i] = d.grams
	}
	// Room for every document at once: a common term's bounds would
	// otherwise be copied at each growth, and in a fresh process each
	// copy faults in new pages; untouched capacity costs nothing.
	first, end := uint64(from)*SuperSize, uint64(to)*SuperSize
	if to >= math.MaxUint32/SuperSize || end > maxSeq+1 {
		end = maxSeq + 1
	}
	out := make([]Bound, 0, min(end-min(first, end), 1<<22))
	key := make([]byte, 0, 8)
	var summary uint64 // the groups of the current super-group the summary leaves
	for group := uint32(first / GroupSize); maxSeq > 0 && uint64(group)*GroupSize <= maxSeq && uint64(group)*GroupSize < end; group++ {
		// Groups wholly folded are read only if their super-group's
		// summary says they may hold a term (supers.go).
		if !unindexed && sum.trusted(group) {
			if group%GroupSize == 0 { // trusted groups are a prefix: each super-group starts here
				if summary, err = sum.groups(group/GroupSize, termGrams); err != nil {
					return nil, err
				}
			}
			if summary&(1<<(group%GroupSize)) == 0 {
				continue
			}
		}
		live := groupLive(group, maxSeq)
		// A group below the folded mark has all its documents folded (the
		// mark is sealed): its start entry need not be read.
		start := Posting{Bitmap: live}
		if unindexed || !sum.trusted(group) {
			if start, err = r.start(group); err != nil {
				return nil, err
			}
		}
		// Documents not folded into the postings yet (an ingest batch in
		// progress or interrupted) may hold any term.
		pending := live &^ start.Bitmap
		if unindexed {
			pending = live
		}
		var any uint64
		var ubTerms [GroupSize]int
		var ubLines [GroupSize]uint64
		for di, d := range distinct {
			if start.Bitmap&live == 0 {
				break // no document of the group is in the postings
			}
			grams := d.grams
			if !unindexed && sum.trusted(group) {
				grams = sum.ordered[di] // rarest first: the AND empties sooner
			}
			all := start.Bitmap
			var mins [GroupSize]uint32
			for gi, g := range grams {
				key = appendGramKey(key[:0], group, int(g[0]), g[1])
				bm, p, found, err := r.lookup(key, false)
				if err != nil {
					return nil, err
				}
				if !found {
					all = 0
					break
				}
				if all &= bm; all == 0 {
					break
				}
				for w := bm; w != 0; w &= w - 1 {
					bit := bits.TrailingZeros64(w)
					c, n := binary.Uvarint(p)
					if n <= 0 || c > math.MaxUint32 {
						return nil, damaged(group, "has an entry with unreadable line counts")
					}
					p = p[n:]
					if all&(1<<bit) != 0 && (gi == 0 || uint32(c) < mins[bit]) {
						mins[bit] = uint32(c)
					}
				}
				// Then nothing, or a follow mask per document: a
				// document that never has this trigram followed by the
				// term's next byte does not hold the term.
				switch docs := bits.OnesCount64(bm); {
				case len(p) == docs && g[0] == 3:
					if want := d.follows[g[1]]; want != 0 {
						i := 0
						for w := bm; w != 0; w &= w - 1 {
							if p[i]&want != want {
								all &^= w & -w
							}
							i++
						}
					}
				case len(p) != 0:
					return nil, damaged(group, "has an entry with unreadable line counts")
				}
				if all == 0 {
					break
				}
			}
			any |= all
			for w := all; w != 0; w &= w - 1 {
				bit := bits.TrailingZeros64(w)
				ubTerms[bit] += d.weight
				ubLines[bit] += uint64(mins[bit])
			}
		}
		any &= live
		if any|pending == 0 {
			continue
		}
		// A document has at most one line more than it has LF bytes, and
		// the LF unigram's line count is its number of LF bytes.
		// Decoded once per group: a document's count is the bit's
		// position among the set bits.
		var lfBM uint64
		var lfCounts [GroupSize]uint32
		if any != 0 {
			key = appendGramKey(key[:0], group, 1, '\n')
			bm, lf, _, err := r.lookup(key, true)
			if err != nil {
				return nil, err
			}
			lfBM = bm
			for w := bm; w != 0; w &= w - 1 {
				c, n := binary.Uvarint(lf)
				lfCounts[bits.TrailingZeros64(w)], lf = uint32(c), lf[n:] // checked by lookup (full)
			}
		}
		for w := any | pending; w != 0; w &= w - 1 {
			bit := bits.TrailingZeros64(w)
			seq := uint64(group)*GroupSize + uint64(bit)
			if pending&(1<<bit) != 0 {
				out = append(out, Bound{Seq: seq, Terms: weight, Lines: math.MaxUint64})
				continue
			}
			lines := ubLines[bit]
			if lfBM&(1<<bit) != 0 {
				lines = min(lines, uint64(lfCounts[bit])+1)
			} else {
				lines = min(lines, 1)
			}
			out = append(out, Bound{Seq: seq, Terms: ubTerms[bit], Lines: lines, Exact: exact})
		}
	}
	return out, nil
}

// groupLive is the bitmap of group's documents numbered 1..maxSeq.
func groupLive(group uint32, maxSeq uint64) uint64 {
	lo := uint64(group) * GroupSize
	if maxSeq < lo {
		return 0
	}
	m := ^uint64(0)
	if maxSeq-lo < GroupSize-1 {
		m = 1<<(maxSeq-lo+1) - 1
	}
	if lo == 0 {
		m &^= 1 // there is no document #0
	}
	return m
}

// Unindexed returns, in ascending order, the documents #1..#maxSeq whose
// grams are not in the postings yet (see FoldTerms).
func Unindexed(tx *bolt.Tx, maxSeq uint64) ([]uint64, error) {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return nil, fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	r := newTermReader(b)
	var out []uint64
	for group := uint32(0); maxSeq > 0 && uint64(group)*GroupSize <= maxSeq; group++ {
		start, err := r.start(group)
		if err != nil {
			return nil, err
		}
		for w := groupLive(group, maxSeq) &^ start.Bitmap; w != 0; w &= w - 1 {
			out = append(out, uint64(group)*GroupSize+uint64(bits.TrailingZeros64(w)))
		}
	}
	return out, nil
}

// appendGramKey appends gramKey(group, n, gram) to k.
func appendGramKey(k []byte, group uint32, n int, gram uint32) []byte {
	k = binary.BigEndian.AppendUint32(k, group)
	k = append(k, byte(n))
	for i := gramBytes(byte(n)) - 1; i >= 0; i-- {
		k = append(k, byte(gram>>(8*i)))
	}
	return k
}

// CheckTerms compares the postings with the grams of src: missing counts
// grams whose bit for document seq is missing (or whose posting is damaged
// or lost from its group's chain), miscounted those whose line count
// differs from the document's (a count below the truth could drop the
// document from a limited find). A document not folded into the postings
// yet (pending) has nothing to compare: StrayTermBits reports postings
// that hold it anyway.
func CheckTerms(tx *bolt.Tx, seq uint64, src []byte) (missing, miscounted int, pending bool, err error) {
	r, err := newGramReader(tx)
	if err != nil {
		return 0, 0, false, err
	}
	group, bit := groupOf(seq)
	start, err := r.start(group)
	if err != nil {
		return 0, 0, false, err
	}
	if start.Bitmap&bit == 0 {
		return 0, 0, true, nil
	}
	distinct := 0
	counts := countGrams(src)
	defer counts.release()
	err = counts.each(func(n int, gram, lines uint32, follow uint8) error {
		if !indexedGram(n, gram) {
			return nil
		}
		distinct++
		bm, counts, found, err := r.lookup(gramKey(group, n, gram), true)
		if err != nil || !found || bm&bit == 0 {
			missing++
		} else if c, ok := postingCount(bm, counts, bit); !ok || c != lines {
			miscounted++
		} else if f := postingFollow(bm, counts, bit); f&follow != follow {
			// A mask without a byte the text has after the trigram
			// would drop the document from a find of a term.
			miscounted++
		}
		return nil
	})
	// The start entry counts the document's distinct grams.
	if start.Counts[bits.OnesCount64(start.Bitmap&(bit-1))] != uint32(min(distinct, math.MaxUint32)) {
		miscounted++
	}
	return missing, miscounted, false, err
}

// StrayTermBits counts set bits for sequence numbers that are not known
// (bits of documents that do not exist), and malformed postings (one each):
// keys that are no gram key, values that do not match their seal, and
// breaks of a group's chain (a group without its start entry, or a key
// that does not name the next key of its group).
func StrayTermBits(tx *bolt.Tx, known func(seq uint64) bool) (int, error) {
	b := tx.Bucket(bucketGrams)
	if b == nil {
		return 0, fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	below, err := Packed(tx)
	if err != nil {
		return 1, nil // the mark is damaged: nothing packed can be trusted
	}
	var indexed uint64 // the current group's start entry bitmap
	current := uint64(math.MaxUint64)
	starts := map[uint64]uint64{} // of the packed groups
	count := func(k []byte, es []entry) int {
		stray := 0
		group := uint64(binary.BigEndian.Uint32(k))
		if group != current {
			indexed, current = starts[group], group
		}
		for _, e := range es {
			word := e.Bitmap
			if k[4] == kindStart {
				indexed = word
				if group/GroupSize < uint64(below) {
					starts[group] = word
				}
			} else if word&^indexed != 0 {
				// Bits of documents the start entry does not mark indexed.
				stray += bits.OnesCount64(word &^ indexed)
				word &= indexed
			}
			for word != 0 {
				bit := bits.TrailingZeros64(word)
				word &= word - 1
				if !known(group*GroupSize + uint64(bit)) {
					stray++
				}
			}
		}
		return stray
	}
	stray, err := walkChains(b, groupLevel, below, count)
	if err != nil {
		return stray, err
	}
	started := map[uint32]uint64{}
	for g := range starts {
		started[uint32(g/GroupSize)] |= 1 << (g % GroupSize)
	}
	n, err := walkPacks(tx, below, started, count)
	return stray + n, err
}

// walkChains checks every block of a level's bucket (b) and its unit's
// chain, and calls fn with each sound block (its key and entries), a
// unit's start block first; it returns the malformed blocks and chain
// breaks (one each) plus what fn returns.
func walkChains(b *bolt.Bucket, lv *level, packedBelow uint32, fn func(k []byte, es []entry) int) (int, error) {
	stray := 0
	var prev []byte // the previous key's unit ‖ link, nil at a unit's start
	// A packed group's chain is its start entry alone, linked packedLink.
	endOf := func(prev []byte) []byte {
		if binary.BigEndian.Uint32(prev)/GroupSize < packedBelow {
			return packedLink
		}
		return endLink
	}
	err := b.ForEach(func(k, v []byte) error {
		if lv == superLevel && bytes.Equal(k, keyFolded) {
			return nil // readFolded checks it
		}
		if !validBlockKey(k) {
			stray++
			return nil
		}
		if prev != nil && !bytes.Equal(prev[:4], k[:4]) {
			if !bytes.Equal(prev[4:], endOf(prev)) {
				stray++ // the unit's last key names a next one
			}
			prev = nil
		}
		if prev == nil && k[4] != kindStart {
			stray++ // a unit without its start entry
		}
		if prev != nil && !bytes.Equal(prev[4:], k[4:]) {
			stray++ // a key the previous one does not name
		}
		link, es, ok := decodeLevelBlock(k, v, lv.counted)
		if ok && (len(es) == 0 || k[4] == kindStart && (len(es) != 1 || es[0].last != 0)) {
			ok = false // an empty block, or a start block with other entries
		}
		if !ok {
			stray++
			prev = append(bytes.Clone(k[:4]), 0xFF) // matches no link
			return nil
		}
		prev = append(append(prev[:0:0], k[:4]...), link...)
		stray += fn(k, es)
		return nil
	})
	if prev != nil && !bytes.Equal(prev[4:], endOf(prev)) {
		stray++
	}
	return stray, err
}
