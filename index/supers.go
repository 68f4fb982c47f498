package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Group summaries (schema 15). The group postings answer a query one group
// of 64 documents at a time, so a term absent from the archive still cost
// a lookup per gram per group: at 100,000 documents, 1,563 groups and
// thousands of pages touched by a process that finds nothing. The
// summaries are the same postings one level up: for each super-group of
// 64 groups (4,096 documents) and each gram, the 64-bit bitmap of the
// groups whose postings hold the gram. A query first intersects a term's
// grams at this level, and reads the group postings only of the groups
// left: an absent term reads one summary block per gram per 4,096
// documents, and a rare one also the few groups that hold all its grams.
//
// They are kept in their own bucket (bucketSupers) in the block format of
// the group postings (postings.go): key super (u32 BE) ‖ kind ‖ prefix,
// sealed values chained per super-group, the start entry marking the
// groups folded into the summary. Entries carry no counts (countsSize 0):
// line counts stay in the group postings, which the query reads next.
//
// A summary bit may be set for a group that no longer holds the gram (a
// repair cleared a posting, SetPosting): the summary is a superset, and an
// extra bit costs one group lookup, never a document. A missing bit would
// drop documents, so FoldTerms updates both levels in one transaction and
// check compares them (CheckSummaries).
//
// A document is in the summaries once folded, like the postings; the
// documents not folded yet (a batch in progress or interrupted) are
// answered from the group level, which returns them as candidates. The
// folded mark W (keyFolded, sealed) says that every document numbered
// below W is folded: the groups wholly below W are filtered by the
// summaries, the groups from W's on are read as before. W only moves past
// folded documents (advanceFolded), so a document left unfolded behind a
// damaged one keeps every group after it on the exact but slower path.
//
// Why this and not a global posting list per gram (FTS5's doclists in
// segments merged in the background, zoekt's per-shard trigram postings):
// both make a lookup cost one read per gram per segment or shard, as here
// per super-group, but they write postings in segments that must be
// merged (FTS5) or rebuilt (zoekt) as the archive grows. A summary block
// is rewritten only while its super-group fills, so ingest writes a
// bounded range at the end of the bucket whatever the archive's size, and
// a reader never waits for a merge. The cost is one lookup per gram per
// 4,096 documents: 25 at 100,000 documents, 245 at a million.

// SuperSize is the number of documents a group summary covers.
const SuperSize = GroupSize * GroupSize

var bucketSupers = []byte("gramgroups")

// keyFolded is the key of the folded mark: not a block key (4 bytes), and
// after every block key.
var keyFolded = []byte{0xFF, 0xFF, 0xFF, 0xFF}

// summaryUpdate collects what a fold adds to the summaries: each gram new
// to a group, packed as super (26 bits) ‖ kind ‖ gram (32 bits) ‖ group's
// bit in its super (6 bits), and the groups folded.
type summaryUpdate struct {
	grams  []uint64
	groups []uint32
}

func packSummary(group uint32, key uint32) uint64 {
	return uint64(group/GroupSize)<<38 | uint64(key)<<6 | uint64(group%GroupSize)
}

// folded notes that group had documents folded.
func (u *summaryUpdate) folded(group uint32) { u.groups = append(u.groups, group) }

// add notes the grams of block key bk with the given last bytes as new to
// group.
func (u *summaryUpdate) add(group uint32, bk []byte, lasts []byte) {
	var prefix uint32
	for _, c := range bk[5:] {
		prefix = prefix<<8 | uint32(c)
	}
	kind := uint32(bk[4])
	for _, last := range lasts {
		gram := prefix<<8 | uint32(last)
		if len(bk) == 5 { // a unigram: no prefix
			gram = uint32(last)
		}
		u.grams = append(u.grams, packSummary(group, kind<<24|gram))
	}
}

// SummaryBatch holds the summary writes of folds (FoldTermsDeferred) until
// Flush. The zero value is empty.
type SummaryBatch struct{ u summaryUpdate }

// Pending reports whether the batch holds writes.
func (s *SummaryBatch) Pending() bool { return len(s.u.groups) > 0 || len(s.u.grams) > 0 }

// Flush writes the batch into the summaries of tx, moves the folded mark,
// and empties the batch (whether or not the write succeeds: a failed one
// rolls tx back).
func (s *SummaryBatch) Flush(tx *bolt.Tx) error {
	if !s.Pending() {
		return nil
	}
	err := s.u.apply(tx)
	s.Discard()
	if err == nil {
		// The folded mark may have passed a super-group (packs.go).
		_, err = PackNext(tx)
	}
	return err
}

// Discard empties the batch (its transaction rolled back).
func (s *SummaryBatch) Discard() { s.u.grams, s.u.groups = s.u.grams[:0], s.u.groups[:0] }

// apply writes the update into the summaries and moves the folded mark.
func (u *summaryUpdate) apply(tx *bolt.Tx) error {
	b := tx.Bucket(bucketSupers)
	if b == nil {
		return fmt.Errorf("index: %s bucket missing", bucketSupers)
	}
	slices.Sort(u.grams)
	supers := make([]uint32, 0, len(u.groups)+1)
	for _, g := range u.groups {
		supers = append(supers, g/GroupSize)
	}
	for i, p := range u.grams {
		if i == 0 || p>>38 != u.grams[i-1]>>38 {
			supers = append(supers, uint32(p>>38))
		}
	}
	slices.Sort(supers)
	supers = slices.Compact(supers)
	grams := u.grams
	for _, s := range supers {
		n := 0
		for n < len(grams) && uint32(grams[n]>>38) == s {
			n++
		}
		var groupBits uint64
		for _, g := range u.groups {
			if g/GroupSize == s {
				groupBits |= 1 << (g % GroupSize)
			}
		}
		if err := foldSummary(b, s, groupBits, grams[:n]); err != nil {
			return err
		}
		grams = grams[n:]
	}
	return advanceFolded(tx)
}

// foldSummary sets, in super's summary, the start bits groupBits and the
// bits of grams (packed, sorted, all of super).
func foldSummary(b *bolt.Bucket, super uint32, groupBits uint64, grams []uint64) error {
	r := newLevelReader(b, superLevel)
	start, exists, err := r.startEntry(super)
	if err != nil {
		return err
	}
	// A new super-group's blocks are appended in key order: full pages.
	// Later folds insert among them, where bbolt's default split is best.
	b.FillPercent = bolt.DefaultFillPercent
	if !exists {
		b.FillPercent = fillAppend
	}
	w := &blockWriter{lv: superLevel, b: b, c: b.Cursor(), group: super, fresh: !exists}
	if !exists || start.Bitmap|groupBits != start.Bitmap {
		if err := w.write(startKey(super), replaceEntry(0, Posting{Bitmap: start.Bitmap | groupBits})); err != nil {
			return err
		}
	}
	var (
		blockKey []byte
		sets     []entry // the block's grams: last byte and group bits
		key      = make([]byte, 0, 8)
	)
	flushBlock := func() error {
		if len(sets) == 0 {
			return nil
		}
		err := w.write(blockKey, orEntries(sets))
		sets = sets[:0]
		return err
	}
	for i := 0; i < len(grams); {
		k := uint32(grams[i] >> 6)
		var groupsWith uint64
		for ; i < len(grams) && uint32(grams[i]>>6) == k; i++ {
			groupsWith |= 1 << (grams[i] & (GroupSize - 1))
		}
		key = appendGramKey(key[:0], super, int(k>>24), k&0xFFFFFF)
		bk, last := blockOf(key)
		if !bytes.Equal(bk, blockKey) {
			if err := flushBlock(); err != nil {
				return err
			}
			blockKey = append(blockKey[:0:0], bk...)
		}
		sets = append(sets, entry{last: last, Posting: Posting{Bitmap: groupsWith}})
	}
	if err := flushBlock(); err != nil {
		return err
	}
	return w.flush()
}

// orEntries is an update that ORs the bitmaps of add (ascending by last
// byte) into a summary block's entries.
func orEntries(add []entry) func([]entry) []entry {
	add = slices.Clone(add)
	return func(es []entry) []entry {
		out := make([]entry, 0, len(es)+len(add))
		i := 0
		for _, a := range add {
			for i < len(es) && es[i].last < a.last {
				out = append(out, es[i])
				i++
			}
			if i < len(es) && es[i].last == a.last {
				a.Bitmap |= es[i].Bitmap
				i++
			}
			out = append(out, a)
		}
		return append(out, es[i:]...)
	}
}

// readFolded returns the folded mark: every document numbered below it is
// folded into both levels. An archive without one (a new or rebuilt index)
// has 1: no document is trusted to the summaries.
func readFolded(b *bolt.Bucket) (uint64, error) {
	v := b.Get(keyFolded)
	if v == nil {
		return 1, nil
	}
	if len(v) != 8+sealLen || binary.LittleEndian.Uint64(v[8:]) != sealOf(keyFolded, v[:8]) {
		return 0, fmt.Errorf("%w: the term index summary's folded mark does not match its digest (run `chronicle check`, then `chronicle reindex`)", ErrDamaged)
	}
	return max(binary.BigEndian.Uint64(v), 1), nil
}

// Folded returns the folded mark of the term index: every document
// numbered below it is in the postings and their summaries.
func Folded(tx *bolt.Tx) (uint64, error) {
	b := tx.Bucket(bucketSupers)
	if b == nil {
		return 0, fmt.Errorf("index: %s bucket missing", bucketSupers)
	}
	return readFolded(b)
}

// advanceFolded moves the folded mark past the documents folded since: it
// stops at the first document the group postings do not mark folded (one
// not folded yet, or not ingested yet).
func advanceFolded(tx *bolt.Tx) error {
	sb, gb := tx.Bucket(bucketSupers), tx.Bucket(bucketGrams)
	w, err := readFolded(sb)
	if err != nil {
		return err
	}
	from := w
	r := newTermReader(gb)
	for {
		group, _ := groupOf(w)
		start, err := r.start(group)
		if err != nil {
			return err
		}
		off := w % GroupSize
		ones := uint64(bits.TrailingZeros64(^(start.Bitmap >> off)))
		w += ones
		if ones == 0 || w%GroupSize != 0 {
			break
		}
	}
	if w == from {
		return nil
	}
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 8+sealLen), w)
	v = binary.LittleEndian.AppendUint64(v, sealOf(keyFolded, v))
	return sb.Put(keyFolded, v)
}

// summaryFilter answers, for the groups wholly below the folded mark,
// which of them may hold a query's terms, a super-group at a time.
type summaryFilter struct {
	r      *termReader
	folded uint64 // groups numbered below it are wholly folded
	key    []byte
	// ordered: each term's grams, the ones fewest groups of the current
	// super-group hold first (set by groups).
	ordered [][][2]uint32
	held    []heldGram
}

// heldGram is a gram and how many groups of a super-group hold it.
type heldGram struct {
	gram   [2]uint32
	groups int
}

func newSummaryFilter(tx *bolt.Tx) (*summaryFilter, error) {
	b := tx.Bucket(bucketSupers)
	if b == nil {
		return nil, fmt.Errorf("index: %s bucket missing", bucketSupers)
	}
	w, err := readFolded(b)
	if err != nil {
		return nil, err
	}
	return &summaryFilter{r: newLevelReader(b, superLevel), folded: w / GroupSize}, nil
}

// trusted reports whether group is answered by the summaries.
func (f *summaryFilter) trusted(group uint32) bool { return uint64(group) < f.folded }

// groups returns the bitmap of super's groups that hold every gram of at
// least one of terms (each a term's grams).
func (f *summaryFilter) groups(super uint32, terms [][][2]uint32) (uint64, error) {
	start, exists, err := f.r.startEntry(super)
	if err != nil {
		return 0, err
	}
	if !exists {
		return 0, superLevel.damaged(super, "lacks its start entry")
	}
	var any uint64
	f.ordered = slices.Grow(f.ordered[:0], len(terms))[:len(terms)]
	for ti, grams := range terms {
		all := start.Bitmap
		f.held = f.held[:0]
		for _, g := range grams {
			f.key = appendGramKey(f.key[:0], super, int(g[0]), g[1])
			bm, _, found, err := f.r.lookup(f.key, false)
			if err != nil {
				return 0, err
			}
			if !found {
				bm = 0
			}
			f.held = append(f.held, heldGram{g, bits.OnesCount64(bm)})
			if all &= bm; all == 0 {
				break
			}
		}
		any |= all
		order := f.ordered[ti][:0]
		if all != 0 { // every gram was looked up: rarest first
			slices.SortStableFunc(f.held, func(x, y heldGram) int { return x.groups - y.groups })
			for _, h := range f.held {
				order = append(order, h.gram)
			}
		} else {
			order = append(order, grams...)
		}
		f.ordered[ti] = order
	}
	return any, nil
}

// BuildSummaries writes the summaries of the group postings already in tx
// (an archive upgraded to schema 15), a super-group at a time, and sets
// the folded mark. Damaged postings stop it (ErrDamaged): check reports
// them and reindex rebuilds both levels.
func BuildSummaries(tx *bolt.Tx) error {
	if _, err := tx.CreateBucketIfNotExists(bucketSupers); err != nil {
		return err
	}
	return eachSuperSummary(tx, func(super uint32, u *summaryUpdate) error {
		return u.apply(tx)
	})
}

// eachSuperSummary calls fn with the summary the group postings of each
// super-group imply, in ascending order.
func eachSuperSummary(tx *bolt.Tx, fn func(super uint32, u *summaryUpdate) error) error {
	gb := tx.Bucket(bucketGrams)
	if gb == nil {
		return fmt.Errorf("index: %s bucket missing", bucketGrams)
	}
	below, err := Packed(tx)
	if err != nil {
		return err
	}
	var u summaryUpdate
	cur := uint32(math.MaxUint32)
	flush := func() error {
		if len(u.groups) == 0 && len(u.grams) == 0 {
			return nil
		}
		err := fn(cur, &u)
		u.grams, u.groups = u.grams[:0], u.groups[:0]
		return err
	}
	c := gb.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if !validBlockKey(k) {
			return damaged(binary.BigEndian.Uint32(append(k[:len(k):len(k)], 0, 0, 0, 0)), "has a key that is not a gram key")
		}
		group := binary.BigEndian.Uint32(k)
		if s := group / GroupSize; s != cur {
			if err := flush(); err != nil {
				return err
			}
			cur = s
			if s < below { // its blocks are in its packs
				if err := eachPackedBlock(tx, s, func(bk []byte, es []entry) error {
					u.add(binary.BigEndian.Uint32(bk), bk, nonEmpty(es))
					return nil
				}); err != nil {
					return err
				}
			}
		}
		_, es, ok := decodeBlock(k, v)
		if !ok {
			return damaged(group, "has an entry that does not match its digest")
		}
		if k[4] == kindStart {
			if len(es) == 1 && es[0].Bitmap != 0 {
				u.folded(group)
			}
			continue
		}
		u.add(group, k, nonEmpty(es))
	}
	return flush()
}

// nonEmpty is the last bytes of the entries of es that name a document.
func nonEmpty(es []entry) []byte {
	var lasts []byte
	for _, e := range es {
		if e.Bitmap != 0 {
			lasts = append(lasts, e.last)
		}
	}
	return lasts
}

// CheckSummaries compares the summaries with the group postings: missing
// counts the grams of a group the summary does not mark (which would drop
// documents), and damage in the summaries' chains and seals; a folded mark
// past a document not folded counts one. Damaged group postings are left
// to StrayTermBits.
func CheckSummaries(tx *bolt.Tx, maxSeq uint64) (missing int, err error) {
	sb := tx.Bucket(bucketSupers)
	if sb == nil {
		return 0, fmt.Errorf("index: %s bucket missing", bucketSupers)
	}
	missing, err = walkChains(sb, superLevel, 0, func([]byte, []entry) int { return 0 })
	if err != nil {
		return missing, err
	}
	key := make([]byte, 0, 8)
	err = eachSuperSummary(tx, func(super uint32, u *summaryUpdate) error {
		r := newLevelReader(sb, superLevel) // its cache holds one super-group
		start, _, err := r.startEntry(super)
		if err != nil {
			missing++
			return nil
		}
		for _, g := range u.groups {
			if start.Bitmap&(1<<(g%GroupSize)) == 0 {
				missing++
			}
		}
		for _, p := range u.grams {
			k := uint32(p >> 6)
			key = appendGramKey(key[:0], super, int(k>>24), k&0xFFFFFF)
			bm, _, found, err := r.lookup(key, false)
			if err != nil || !found || bm&(1<<(p&(GroupSize-1))) == 0 {
				missing++
			}
		}
		return nil
	})
	if err != nil {
		return missing, err
	}
	w, err := readFolded(sb)
	if err != nil {
		return missing + 1, nil
	}
	un, err := Unindexed(tx, maxSeq)
	if err != nil {
		return missing, err
	}
	if len(un) > 0 && w > un[0] {
		missing++
	}
	return missing, nil
}
