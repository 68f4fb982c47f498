package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
	"slices"

	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/klauspost/compress/s2"
)

// Scoring a document's lines from its line index record (the record's
// layout is in lines.go).

// LineScore is one line's score.
type LineScore struct {
	Line  int
	Score int
}

// LineScorer scores documents' lines; it keeps its buffers between
// documents, so one scorer serves one goroutine.
//
// Its per-line arrays are only ever non-zero on the lines the previous
// document touched, and are cleared there: a document's cost follows what
// its terms match, not its number of lines (a dictionary of 100,000 lines
// cleared per candidate was a visible share of a rare term's query).
type LineScorer struct {
	score     []uint8  // per line: its score (one term) or its set of terms (up to byteSets)
	sets16    []uint16 // per line: its set of terms (byteSets+1 to 16 terms: any query's)
	lineTerms []uint64 // per line: its set of terms (more than 16)
	touched   []uint32 // lines with a non-zero score, in first-touch order, unless dense
	// dense: more than touchedMax lines were touched; the touched list
	// stopped and the arrays are read whole.
	dense      bool
	touchedMax int
	// The block being scored.
	tokenTerms []uint64 // per token: the distinct terms it contains
	raw        []byte   // its decoded tokens (version 2)
	groups     []uint32 // its posting group offsets (version 2)
	// The query.
	terms []scoreTerm
	grams []uint64
	// byteTerms maps a byte to the one-byte terms it is (a bit per term):
	// a block's tokens are matched against all of them in one pass.
	byteTerms [256]uint64
	oneByte   uint64 // the terms of one byte
}

// scoreTerm is one distinct term of a query, its weight and its grams.
type scoreTerm struct {
	term   []byte
	weight uint8
	grams  []uint64
	finder termFinder // set by scoreTerms
}

// Score scores every line of the document for the query's terms (CONTRACT
// 11.3): it returns the number of lines with a non-zero score and the best
// max of them, by score descending then line ascending.
func (s *LineScorer) Score(l *Lines, q *find.Query, max int) (total int, top []LineScore, err error) {
	s.terms = s.terms[:0]
	for term, weight := range q.Distinct() {
		s.terms = append(s.terms, scoreTerm{term: term, weight: uint8(weight)})
	}
	return s.scoreTerms(l, s.terms, max)
}

// maxScoreTerms is the most distinct terms one pass scores (a bit each);
// find allows find.MaxTerms.
const maxScoreTerms = 64

// byteSets is the most distinct terms whose set per line fits the byte
// LineScorer.score keeps per line.
const byteSets = 8

// scoreTerms is Score for distinct terms of any bytes (the weights add up
// to at most 255). Each dictionary block that may hold a term by its
// filter is decoded once, every term that may be in it searched, and each
// token that contains any term has its posting decoded once, with the set
// of terms it contains.
func (s *LineScorer) scoreTerms(l *Lines, terms []scoreTerm, max int) (total int, top []LineScore, err error) {
	if len(terms) > maxScoreTerms {
		return 0, nil, fmt.Errorf("index: %d distinct terms, at most %d are scored at once", len(terms), maxScoreTerms)
	}
	if s.dense || len(s.touched) > len(s.score)/16 { // sequential beats scattered
		clear(s.score)
		clear(s.sets16)
		clear(s.lineTerms)
	} else {
		for _, ln := range s.touched {
			s.score[ln] = 0
			if int(ln) < len(s.sets16) {
				s.sets16[ln] = 0
			}
			if int(ln) < len(s.lineTerms) {
				s.lineTerms[ln] = 0
			}
		}
	}
	s.touched, s.dense = s.touched[:0], false
	// The sets of up to byteSets terms per line are kept in score, of up
	// to 16 (find.MaxTerms) in 2 bytes a line, of more in 8. The first touches of the memory
	// a query allocates are page faults of its process, and the bytes it
	// allocates bring the garbage collector (a multi-term query allocates
	// mostly these sets and the touched list).
	// The touched list is kept for at most a sixteenth of the lines, past
	// which the arrays are cleared and read whole anyway.
	n := l.NumLines + 1
	if len(s.score) < n {
		s.score = prefault(make([]uint8, n))
	}
	s.touchedMax = n/16 + 1
	if cap(s.touched) < s.touchedMax {
		s.touched = make([]uint32, 0, s.touchedMax)
	}
	switch {
	case len(terms) > 16:
		if len(s.lineTerms) < n {
			s.lineTerms = prefault(make([]uint64, n))
		}
	case len(terms) > byteSets:
		if len(s.sets16) < n {
			s.sets16 = prefault(make([]uint16, n))
		}
	}
	s.prepareTerms(terms)
	for b := range l.blocks {
		if err := s.scoreBlock(l, b, terms); err != nil {
			return 0, nil, err
		}
	}
	return s.best(terms, max, l.NumLines)
}

// prepareTerms computes the grams and finders of terms and the scorer's
// table of one-byte terms.
func (s *LineScorer) prepareTerms(terms []scoreTerm) {
	// A term's grams stay valid when a later term's append moves s.grams:
	// the old array keeps them.
	s.grams = s.grams[:0]
	clear(s.byteTerms[:])
	s.oneByte = 0
	for t := range terms {
		from := len(s.grams)
		s.grams = termUnitGrams(terms[t].term, s.grams)
		terms[t].grams = s.grams[from:len(s.grams):len(s.grams)]
		terms[t].finder = newTermFinder(terms[t].term)
		if len(terms[t].term) == 1 {
			s.byteTerms[terms[t].term[0]] |= 1 << t
			s.oneByte |= 1 << t
		}
	}
}

// ScoreFirst is Score for a query of one distinct term whose number of
// matching lines in the document the caller knows exactly (the term
// index counts, for a term of up to three bytes, the lines holding it):
// it finds only the first max lines holding the term, the ones Score
// lists (their scores are equal, so they rank by line), reading each
// matching token's posting only while it can still add one. A common
// letter's lines are a union of thousands of long postings; their first
// lines are a few entries of each.
func (s *LineScorer) ScoreFirst(l *Lines, q *find.Query, max int) ([]LineScore, error) {
	s.terms = s.terms[:0]
	for term, weight := range q.Distinct() {
		s.terms = append(s.terms, scoreTerm{term: term, weight: uint8(weight)})
	}
	if len(s.terms) != 1 || max <= 0 {
		return nil, fmt.Errorf("index: ScoreFirst scores one term, not %d", len(s.terms))
	}
	s.prepareTerms(s.terms)
	first := make([]uint32, 0, max+1) // ascending, distinct
	for b := range l.blocks {
		v, masks, err := s.matchBlock(l, b, s.terms)
		if err != nil {
			return nil, err
		}
		// The posting walk is scoreBlock's, written out again: a shared
		// iterator (a call per line, too big to inline) made many
		// one-letter terms markedly slower there.
		var cur postingCursor
		for ord, mask := range masks {
			if mask == 0 {
				continue
			}
			body, line, err := v.posting(&cur, ord)
			if err != nil {
				return nil, err
			}
			for one := line != 0; one || len(body) > 0; one = false {
				if !one {
					d, k := binary.Uvarint(body)
					if k <= 0 || d == 0 {
						return nil, fmt.Errorf("%w: posting of token %d", ErrLineIndex, v.first+ord)
					}
					line += d
					body = body[k:]
				}
				if line > uint64(l.NumLines) {
					return nil, fmt.Errorf("%w: token %d on line %d of %d", ErrLineIndex, v.first+ord, line, l.NumLines)
				}
				if len(first) == max && uint32(line) >= first[max-1] {
					break // the posting ascends: the rest come later still
				}
				if i, found := slices.BinarySearch(first, uint32(line)); !found {
					first = slices.Insert(first, i, uint32(line))
					first = first[:min(len(first), max)]
				}
			}
		}
	}
	top := make([]LineScore, len(first))
	for i, ln := range first {
		top[i] = LineScore{Line: int(ln), Score: int(s.terms[0].weight)}
	}
	return top, nil
}

// matchBlock opens block b if its filter lets a term in, and marks for
// each of its tokens the terms it contains (masks, nil when the block is
// not opened).
func (s *LineScorer) matchBlock(l *Lines, b int, terms []scoreTerm) (blockView, []uint64, error) {
	blk := &l.blocks[b]
	var may uint64
	for t := range terms {
		if filterMay(blk.filter, l.probes, terms[t].grams) {
			may |= 1 << t
		}
	}
	if may == 0 {
		return blockView{}, nil, nil
	}
	v, err := s.open(l, b)
	if err != nil {
		return v, nil, err
	}
	if cap(s.tokenTerms) < v.tokens {
		s.tokenTerms = make([]uint64, v.tokens)
	}
	masks := s.tokenTerms[:v.tokens]
	clear(masks)
	// One-byte terms are matched in one pass over the block, unless a
	// single one is rare in it: that one is searched like a longer term,
	// IndexByte skipping the tokens without it many bytes at a time (the
	// pass reads every byte). Where the byte is in most tokens, the pass
	// is cheaper than a search stopping at each of them (`e`); counting
	// the byte first costs little beside the pass.
	if one := may & s.oneByte; one != 0 && (one&(one-1) != 0 || s.byteCommon(v.raw, terms[bits.TrailingZeros64(one)].term[0])) {
		if err := s.matchBytes(v, masks, one); err != nil {
			return v, nil, fmt.Errorf("%w: %v", ErrLineIndex, err)
		}
		may &^= one
	}
	for m := may; m != 0; m &= m - 1 {
		t := bits.TrailingZeros64(m)
		if err := eachMatchingToken(v.raw, &terms[t].finder, func(ord int) error {
			if ord >= v.tokens {
				return fmt.Errorf("%w: token %d of %d", ErrLineIndex, v.first+ord, l.tokens)
			}
			masks[ord] |= 1 << t
			return nil
		}); err != nil {
			return v, nil, err
		}
	}
	return v, masks, nil
}

// scoreBlock scores the lines of the tokens of block b that hold a term.
func (s *LineScorer) scoreBlock(l *Lines, b int, terms []scoreTerm) error {
	v, masks, err := s.matchBlock(l, b, terms)
	if err != nil || masks == nil {
		return err
	}
	// One term (the common case) needs no set per line: a line's score is
	// the term's weight or zero, which OR-ing the weight keeps.
	single, small, mid := len(terms) == 1, len(terms) <= byteSets, len(terms) <= 16
	var cur postingCursor
	for ord, mask := range masks {
		if mask == 0 {
			continue
		}
		body, line, err := v.posting(&cur, ord)
		if err != nil {
			return err
		}
		var bad uint64
		switch {
		case single:
			bad = markLines(s, s.score, terms[0].weight, body, line, l.NumLines)
		case small: // the line's score is summed from its set once, in best
			bad = markLines(s, s.score, uint8(mask), body, line, l.NumLines)
		case mid:
			bad = markLines(s, s.sets16, uint16(mask), body, line, l.NumLines)
		default:
			bad = markLines(s, s.lineTerms, mask, body, line, l.NumLines)
		}
		if bad == badDelta {
			return fmt.Errorf("%w: posting of token %d", ErrLineIndex, v.first+ord)
		}
		if bad != 0 {
			return fmt.Errorf("%w: token %d on line %d of %d", ErrLineIndex, v.first+ord, bad, l.NumLines)
		}
	}
	return nil
}

// badDelta is markLines' report of an undecodable or zero line delta.
const badDelta = ^uint64(0)

// markLines ORs bits into sets at every line of one token's posting: the
// line one when it is not zero (a token on one line), else the ascending
// line numbers body holds as deltas. It returns 0, badDelta, or the
// first line past numLines. This loop is most of a query of many common
// terms (every posting of every candidate), so it is one tight loop per
// set width, the one-byte deltas decoded inline.
func markLines[T uint8 | uint16 | uint64](s *LineScorer, sets []T, bits T, body []byte, one uint64, numLines int) uint64 {
	if one != 0 {
		if one > uint64(numLines) {
			return one
		}
		if sets[one] == 0 {
			s.touch(uint32(one))
		}
		sets[one] |= bits
		return 0
	}
	line, max := uint64(0), uint64(numLines)
	for i := 0; i < len(body); {
		d := uint64(body[i])
		if d < 0x80 {
			i++
		} else if v, ok := uvarint2(body, i); ok {
			d, i = v, i+2
		} else {
			v, k := binary.Uvarint(body[i:])
			if k <= 0 {
				return badDelta
			}
			d, i = v, i+k
		}
		if d == 0 {
			return badDelta
		}
		if d > max-line { // past the last line (or past 2^64)
			if line+d < line {
				return badDelta
			}
			return line + d
		}
		line += d
		if sets[line] == 0 {
			s.touch(uint32(line))
		}
		sets[line] |= bits
	}
	return 0
}

// matchBytes marks in masks the one-byte terms (of want) each token of v
// contains, in one pass over the tokens: a query of many one-letter terms
// matches nearly every token, and a search per term read the dictionary
// once for each of them.
func (s *LineScorer) matchBytes(v blockView, masks []uint64, want uint64) error {
	ord, m := 0, uint64(0)
	for _, c := range v.raw {
		if c != '\n' {
			m |= s.byteTerms[c]
			continue
		}
		if m &= want; m != 0 {
			if ord >= v.tokens {
				return fmt.Errorf("token %d of %d", v.first+ord, v.tokens)
			}
			masks[ord] |= m
		}
		ord, m = ord+1, 0
	}
	return nil
}

// byteCommon reports whether byte c is frequent enough in the decoded
// block raw that matchBytes beats a search: a match found by search costs
// about as much as matchBytes spends on 20 bytes.
func (s *LineScorer) byteCommon(raw []byte, c byte) bool {
	return 20*bytes.Count(raw, []byte{c}) >= len(raw)
}

// blockView is an opened dictionary block: its tokens and postings.
type blockView struct {
	v1            bool // postings of version 1: byte lengths only
	first, tokens int
	raw           []byte   // tokens, each followed by LF
	groups        []uint32 // offset in body of the posting of token g·TokenGroup
	body          []byte
}

// open checks and decodes block b (version 2) into the scorer's buffers.
func (s *LineScorer) open(l *Lines, b int) (blockView, error) {
	blk := &l.blocks[b]
	v := blockView{first: blk.first, tokens: blk.tokens}
	if l.v1 != nil {
		v.v1, v.raw, v.groups, v.body = true, blk.dict, blk.groups, blk.postings
		return v, nil
	}
	if crc32.Update(crc32.Checksum(blk.dict, castagnoli), castagnoli, blk.postings) != blk.crc {
		return v, fmt.Errorf("%w: dictionary block %d checksum mismatch", ErrLineIndex, b)
	}
	if n, err := s2.DecodedLen(blk.dict); err != nil || n != blk.rawSize {
		return v, fmt.Errorf("%w: dictionary block %d does not decode to %d bytes", ErrLineIndex, b, blk.rawSize)
	}
	if cap(s.raw) < blk.rawSize {
		s.raw = make([]byte, blk.rawSize)
	}
	raw, err := s2.Decode(s.raw[:cap(s.raw)], blk.dict)
	if err != nil {
		return v, fmt.Errorf("%w: dictionary block %d: %v", ErrLineIndex, b, err)
	}
	// A token search stops at the LF after a match.
	if raw[len(raw)-1] != '\n' {
		return v, fmt.Errorf("%w: dictionary block %d: its last token has no LF", ErrLineIndex, b)
	}
	v.raw = raw
	r := &recordReader{b: blk.postings}
	s.groups = append(s.groups[:0], 0)
	off := uint64(0)
	for g := 1; g < (blk.tokens+TokenGroup-1)/TokenGroup; g++ {
		off += r.uvarint("group offset", uint64(len(blk.postings)))
		s.groups = append(s.groups, uint32(min(off, 1<<32-1)))
	}
	if r.err != nil {
		return v, fmt.Errorf("dictionary block %d: %w", b, r.err)
	}
	v.body = blk.postings[r.off:]
	if off > uint64(len(v.body)) {
		return v, fmt.Errorf("%w: dictionary block %d: group offsets outside its postings", ErrLineIndex, b)
	}
	v.groups = s.groups
	return v, nil
}

// touch records that line ln got its first term.
func (s *LineScorer) touch(ln uint32) {
	if s.dense {
		return
	}
	if len(s.touched) == s.touchedMax {
		s.dense = true
		return
	}
	s.touched = append(s.touched, ln)
}

// best returns the number of scored lines and the best max of them.
func (s *LineScorer) best(terms []scoreTerm, max, lines int) (total int, top []LineScore, err error) {
	// With several terms a line's score is the weight of its set of
	// terms: a count of bits when every weight is 1 (no term repeated).
	unit := len(terms) > 1
	for _, t := range terms {
		unit = unit && t.weight == 1
	}
	mid, wide := len(terms) > byteSets && len(terms) <= 16, len(terms) > 16
	lineScore := func(ln uint32) int {
		if len(terms) == 1 {
			return int(s.score[ln])
		}
		set := uint64(s.score[ln])
		switch {
		case mid:
			set = uint64(s.sets16[ln])
		case wide:
			set = s.lineTerms[ln]
		}
		if unit {
			return bits.OnesCount64(set)
		}
		score := 0
		for ; set != 0; set &= set - 1 {
			score += int(terms[bits.TrailingZeros64(set)].weight)
		}
		return score
	}
	if !s.dense {
		for _, ln := range s.touched {
			top = offer(top, LineScore{Line: int(ln), Score: lineScore(ln)}, max)
		}
		return len(s.touched), top, nil
	}
	// Once the first max lines all have the highest score a line can
	// have, no later line can enter them (lines of equal score rank by
	// number): the rest of the lines are only counted. A single term's
	// lines all score the same, so a common word stops scoring after its
	// first max lines.
	highest := 0
	for _, t := range terms {
		highest += int(t.weight)
	}
	ln := 1
	for ; ln <= lines && (len(top) < max || top[max-1].Score < highest); ln++ {
		if s.score[ln] == 0 && (!mid || s.sets16[ln] == 0) && (!wide || s.lineTerms[ln] == 0) {
			continue
		}
		total++
		top = offer(top, LineScore{Line: ln, Score: lineScore(uint32(ln))}, max)
	}
	if ln <= lines {
		switch {
		case mid:
			total += countNonZero(s.sets16[ln : lines+1])
		case wide:
			total += countNonZero(s.lineTerms[ln : lines+1])
		default:
			total += countNonZero(s.score[ln : lines+1])
		}
	}
	return total, top, nil
}

// countNonZero counts the non-zero elements of sets.
func countNonZero[T uint8 | uint16 | uint64](sets []T) int {
	n := 0
	for _, v := range sets {
		if v != 0 {
			n++
		}
	}
	return n
}

// offer inserts h in top, the best max lines so far in order, if it
// ranks among them.
func offer(top []LineScore, h LineScore, max int) []LineScore {
	if len(top) == max && !h.before(top[max-1]) {
		return top
	}
	if len(top) < max {
		top = append(top, h)
	}
	i := len(top) - 1
	for i > 0 && h.before(top[i-1]) {
		top[i] = top[i-1]
		i--
	}
	top[i] = h
	return top
}

func (h LineScore) before(o LineScore) bool {
	if h.Score != o.Score {
		return h.Score > o.Score
	}
	return h.Line < o.Line
}

// eachMatchingToken calls fn with the ordinal of every token of d (tokens
// each followed by LF) containing f's term, in order.
func eachMatchingToken(d []byte, f *termFinder, fn func(ord int) error) error {
	ord, counted := 0, 0 // tokens before offset counted
	for from := 0; from < len(d); {
		p := f.index(d[from:])
		if p < 0 {
			return nil
		}
		p += from
		start := bytes.LastIndexByte(d[counted:p], '\n') + 1 + counted
		ord += bytes.Count(d[counted:start], []byte{'\n'})
		end := p + bytes.IndexByte(d[p:], '\n') // the dictionary ends with LF
		if err := fn(ord); err != nil {
			return err
		}
		ord++
		counted = end + 1
		from = end + 1
	}
	return nil
}

// postingCursor is where the last posting read ended: the token ord and
// the offset of its posting. The tokens of one term come in ascending
// order, so each read resumes there instead of skipping again from its
// group's start (a one-letter term matches nearly every token).
type postingCursor struct {
	ord, off int
	valid    bool
}

// posting returns the posting of the block's token ord: its one line, or
// (one = 0) its line numbers as deltas. It resumes at c when c is at or
// before ord in the same group, and leaves c after ord.
func (v *blockView) posting(c *postingCursor, ord int) (body []byte, one uint64, err error) {
	if ord >= v.tokens {
		return nil, 0, fmt.Errorf("%w: token %d past its block's %d", ErrLineIndex, v.first+ord, v.tokens)
	}
	p := v.body
	from, off := ord-ord%TokenGroup, int(v.groups[ord/TokenGroup])
	if c.valid && c.ord >= from && c.ord <= ord {
		from, off = c.ord, c.off
	}
	for at := from; ; at++ {
		h, k := uint64(0), 0
		if off < len(p) && p[off] < 0x80 { // most heads take one or two bytes
			h, k = uint64(p[off]), 1
		} else if v, ok := uvarint2(p, off); ok {
			h, k = v, 2
		} else {
			h, k = binary.Uvarint(p[off:])
		}
		if v.v1 { // no flag: the byte length
			h <<= 1
		}
		n := uint64(0)
		if h&1 == 0 {
			n = h >> 1
		}
		if k <= 0 || h < 2 || n > uint64(len(p)-off-k) {
			return nil, 0, fmt.Errorf("%w: posting of token %d", ErrLineIndex, v.first+at)
		}
		if at == ord {
			*c = postingCursor{ord: ord + 1, off: off + k + int(n), valid: true}
			if h&1 == 1 {
				return nil, h >> 1, nil
			}
			return p[off+k : off+k+int(n)], 0, nil
		}
		off += k + int(n)
	}
}

// uvarint2 decodes the uvarint at b[i] when it takes two bytes (b[i] is
// not its last byte); ok is false for a longer one or one cut short.
// Inline, it saves binary.Uvarint's loop where postings spend most: the
// line deltas of tokens a few hundred lines apart and the heads of
// postings (a byte length, or a token's one line, flagged) mostly take
// one or two bytes, and a query of many short terms reads one per posting
// of nearly every token.
func uvarint2(b []byte, i int) (uint64, bool) {
	if i+1 < len(b) && b[i+1] < 0x80 {
		return uint64(b[i]&0x7f) | uint64(b[i+1])<<7, true
	}
	return 0, false
}

// prefault writes the zeros of a fresh per-line array before its first
// read. A large allocation can be pages the kernel has not mapped yet:
// reading one first maps the shared zero page, and the write after it
// then copies the page and flushes the TLB of every CPU running the
// process (an inter-processor interrupt, a trap on a VM). Writing first
// maps each page once.
func prefault[T any](s []T) []T {
	clear(s)
	return s
}
