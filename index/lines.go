package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/maphash"
	"math/bits"
	"slices"

	"chronicle/engine"
	"chronicle/engine/find"

	"github.com/klauspost/compress/s2"
)

// The line index of one document (see the package documentation): which
// lines every token of the document is on, so that find can score every
// line of a document without reading its source.
//
// A token is a maximal run of bytes outside the SPEC 11 separator set. A
// find term holds no separator either, so every occurrence of a term lies
// inside one token of its line: a line contains the term exactly when one
// of its tokens does. Scoring a document is then a substring search over
// its dictionary of distinct tokens (about a tenth of the source) and a
// union of the matching tokens' line lists. The source is read only for
// the few lines a result lists, chunk by chunk, each chunk checked against
// its SHA-256 kept here.
//
// Record layout (uvarint unless noted):
//
//	"CLX1"                           magic
//	crc32c (u32 LE)                  of every byte after it
//	sourceSize, chunkSize, lines     lines = number of physical lines
//	chunk digests                    32 bytes each, ceil(sourceSize/chunkSize)
//	checkpoints                      start offset of line 1+k·LineCheckpoint,
//	                                 k = 0.., as deltas
//	tokens                           number of distinct tokens
//	dictRaw, dictLen, dict           S2 block of the sorted tokens, each
//	                                 followed by LF
//	group offsets                    posting offset of token g·TokenGroup,
//	                                 as deltas
//	postingsLen, postings            per token: byte length, then its line
//	                                 numbers as deltas (ascending, ≥ 1)
const linesMagic = "CLX1"

// LineCheckpoint is the spacing of the line start offsets kept per
// document: reading line n scans at most this many lines from the
// checkpoint before it.
const LineCheckpoint = 32

// TokenGroup is the spacing of the posting offsets kept per document.
const TokenGroup = 64

// ErrLineIndex: a line index record is damaged or inconsistent.
var ErrLineIndex = errors.New("damaged line index")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// BuildLines returns the line index record of src stored in chunks of
// chunkSize bytes.
func BuildLines(src []byte, chunkSize int) []byte {
	var t tokenTable
	checkpoints, lines := t.scan(src)
	order := t.sorted(src)
	dictLen := 0
	for _, id := range order {
		tk := &t.toks[id]
		dictLen += int(tk.end-tk.start) + 1
	}
	// Each token's lines, in dictionary order, by a counting sort of the
	// occurrences (which arrive in line order).
	next := make([]uint32, len(t.toks))
	at := uint32(0)
	for _, id := range order {
		next[id] = at
		at += t.toks[id].lines
	}
	flat := make([]uint32, len(t.occID))
	for i, id := range t.occID {
		flat[next[id]] = t.occLine[i]
		next[id]++
	}

	dict := make([]byte, 0, dictLen)
	body := make([]byte, 0, len(flat)+len(flat)/2)
	var groups []byte
	prevGroup := 0
	at = 0
	for k, id := range order {
		tk := &t.toks[id]
		dict = append(dict, src[tk.start:tk.end]...)
		dict = append(dict, '\n')
		if k%TokenGroup == 0 {
			groups = binary.AppendUvarint(groups, uint64(len(body)-prevGroup))
			prevGroup = len(body)
		}
		ls := flat[at : at+tk.lines]
		at += tk.lines
		n, prev := 0, uint32(0)
		for _, l := range ls {
			n += uvarintLen(uint64(l - prev))
			prev = l
		}
		body = binary.AppendUvarint(body, uint64(n))
		prev = 0
		for _, l := range ls {
			body = binary.AppendUvarint(body, uint64(l-prev))
			prev = l
		}
	}
	tokens := order
	out := make([]byte, 8, 64+32*(len(src)/chunkSize+1)+3*len(checkpoints)+len(dict)/2+len(groups)+len(body))
	copy(out, linesMagic)
	out = binary.AppendUvarint(out, uint64(len(src)))
	out = binary.AppendUvarint(out, uint64(chunkSize))
	out = binary.AppendUvarint(out, uint64(lines))
	for i := 0; i < len(src); i += chunkSize {
		sum := sha256.Sum256(src[i:min(i+chunkSize, len(src))])
		out = append(out, sum[:]...)
	}
	prev := uint64(0)
	for _, c := range checkpoints {
		out = binary.AppendUvarint(out, c-prev)
		prev = c
	}
	out = binary.AppendUvarint(out, uint64(len(tokens)))
	enc := s2.Encode(nil, dict)
	out = binary.AppendUvarint(out, uint64(len(dict)))
	out = binary.AppendUvarint(out, uint64(len(enc)))
	out = append(out, enc...)
	out = append(out, groups...)
	out = binary.AppendUvarint(out, uint64(len(body)))
	out = append(out, body...)
	binary.LittleEndian.PutUint32(out[4:8], crc32.Checksum(out[8:], castagnoli))
	return out
}

// tokenTable collects the distinct tokens of a source with an
// open-addressing hash table over their first occurrences (no allocation
// per token), and every (token, line) pair once.
type tokenTable struct {
	toks    []tokenInfo
	slots   []uint32 // token id + 1; 0 marks an empty slot
	mask    uint64
	seed    maphash.Seed
	occID   []uint32 // per distinct (token, line) pair, in line order
	occLine []uint32
}

type tokenInfo struct {
	start, end uint32 // the first occurrence in the source
	last       uint32 // the last line counted
	lines      uint32 // how many lines hold the token
}

// scan tokenizes src line by line; it returns the start offsets of every
// LineCheckpoint-th line and the number of lines.
func (t *tokenTable) scan(src []byte) (checkpoints []uint64, lines uint32) {
	t.seed = maphash.MakeSeed()
	t.slots = make([]uint32, 1024)
	t.mask = uint64(len(t.slots) - 1)
	t.occID = make([]uint32, 0, len(src)/8)
	t.occLine = make([]uint32, 0, len(src)/8)
	prevStart, prevEnd, prevID := 0, 0, uint32(0) // the last token seen
	for start := 0; start < len(src); {
		lines++
		if (lines-1)%LineCheckpoint == 0 {
			checkpoints = append(checkpoints, uint64(start))
		}
		end := len(src)
		if i := bytes.IndexByte(src[start:], '\n'); i >= 0 {
			end = start + i
		}
		for i := start; i < end; {
			for i < end && find.IsSeparator(src[i]) {
				i++
			}
			j := i
			for j < end && !find.IsSeparator(src[j]) {
				j++
			}
			if j == i {
				break
			}
			var id uint32
			// Repeated words ("word word word") skip the hash.
			if j-i == prevEnd-prevStart && prevEnd > prevStart && bytes.Equal(src[i:j], src[prevStart:prevEnd]) {
				id = prevID
			} else {
				id = t.intern(src, i, j)
			}
			prevStart, prevEnd, prevID = i, j, id
			if tk := &t.toks[id]; tk.last != lines {
				tk.last = lines
				tk.lines++
				t.occID = append(t.occID, id)
				t.occLine = append(t.occLine, lines)
			}
			i = j
		}
		start = end + 1
	}
	return checkpoints, lines
}

// intern returns the id of token src[i:j], adding it if new.
func (t *tokenTable) intern(src []byte, i, j int) uint32 {
	tok := src[i:j]
	for h := maphash.Bytes(t.seed, tok) & t.mask; ; h = (h + 1) & t.mask {
		s := t.slots[h]
		if s == 0 {
			id := uint32(len(t.toks))
			t.toks = append(t.toks, tokenInfo{start: uint32(i), end: uint32(j)})
			t.slots[h] = id + 1
			if len(t.toks)*2 > len(t.slots) {
				t.grow(src)
			}
			return id
		}
		if tk := &t.toks[s-1]; int(tk.end-tk.start) == len(tok) && bytes.Equal(src[tk.start:tk.end], tok) {
			return s - 1
		}
	}
}

func (t *tokenTable) grow(src []byte) {
	t.slots = make([]uint32, 2*len(t.slots))
	t.mask = uint64(len(t.slots) - 1)
	for id, tk := range t.toks {
		h := maphash.Bytes(t.seed, src[tk.start:tk.end]) & t.mask
		for t.slots[h] != 0 {
			h = (h + 1) & t.mask
		}
		t.slots[h] = uint32(id) + 1
	}
}

// sorted returns the token ids in byte order of the tokens.
func (t *tokenTable) sorted(src []byte) []uint32 {
	order := make([]uint32, len(t.toks))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int {
		a, b := &t.toks[x], &t.toks[y]
		return bytes.Compare(src[a.start:a.end], src[b.start:b.end])
	})
	return order
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Lines is a parsed line index record. It aliases the record except for the
// decompressed dictionary.
type Lines struct {
	LineLocator
	tokens   int
	dict     []byte   // sorted tokens, each followed by LF
	groups   []uint32 // posting offset of token g·TokenGroup
	postings []byte
}

// recordReader decodes the record's fields; the first error sticks.
type recordReader struct {
	b   []byte
	off int
	err error
}

func (r *recordReader) uvarint(what string, max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = fmt.Errorf("%w: %s at byte %d is not a valid varint", ErrLineIndex, what, r.off)
		return 0
	}
	if v > max {
		r.err = fmt.Errorf("%w: %s at byte %d is %d, above %d", ErrLineIndex, what, r.off, v, max)
		return 0
	}
	r.off += n
	return v
}

func (r *recordReader) bytes(what string, n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.err = fmt.Errorf("%w: %s at byte %d needs %d bytes, %d left", ErrLineIndex, what, r.off, n, len(r.b)-r.off)
		return nil
	}
	out := r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return out
}

// maxSource bounds the sizes a record may declare: no archived source is
// larger, and the bound keeps every allocation a damaged record can ask
// for small.
const maxSource = engine.MaxSourceSize

// ParseLines checks a line index record (magic, checksum, every length and
// offset) and returns it parsed; dictBuf is reused for the dictionary when
// it is large enough. Line lists are checked as they are decoded.
func ParseLines(rec, dictBuf []byte) (*Lines, error) {
	if len(rec) < 8 || string(rec[:4]) != linesMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrLineIndex)
	}
	if crc32.Checksum(rec[8:], castagnoli) != binary.LittleEndian.Uint32(rec[4:8]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrLineIndex)
	}
	r := &recordReader{b: rec, off: 8}
	l := &Lines{}
	l.SourceSize = r.uvarint("source size", maxSource)
	l.ChunkSize = int(r.uvarint("chunk size", maxSource))
	l.NumLines = int(r.uvarint("line count", l.SourceSize))
	if r.err == nil && (l.ChunkSize == 0 || (l.SourceSize == 0) != (l.NumLines == 0)) {
		return nil, fmt.Errorf("%w: chunk size %d, %d lines for %d bytes", ErrLineIndex, l.ChunkSize, l.NumLines, l.SourceSize)
	}
	chunks := uint64(0)
	if r.err == nil {
		chunks = (l.SourceSize + uint64(l.ChunkSize) - 1) / uint64(l.ChunkSize)
	}
	l.digests = r.bytes("chunk digests", chunks*32)
	nCheck := (l.NumLines + LineCheckpoint - 1) / LineCheckpoint
	if r.err == nil && uint64(nCheck) > uint64(len(rec)) {
		return nil, fmt.Errorf("%w: %d lines cannot fit the record", ErrLineIndex, l.NumLines)
	}
	l.checkpoints = make([]uint64, 0, nCheck)
	at := uint64(0)
	for k := 0; k < nCheck && r.err == nil; k++ {
		d := r.uvarint("checkpoint", l.SourceSize)
		if at += d; r.err == nil && (at >= l.SourceSize || (k > 0 && d == 0)) {
			r.err = fmt.Errorf("%w: checkpoint %d at offset %d is out of order or outside the source", ErrLineIndex, k, at)
		}
		l.checkpoints = append(l.checkpoints, at)
	}
	l.tokens = int(r.uvarint("token count", uint64(len(rec))))
	dictRaw := r.uvarint("dictionary size", l.SourceSize+1)
	enc := r.bytes("dictionary", r.uvarint("dictionary block size", uint64(len(rec))))
	if r.err != nil {
		return nil, r.err
	}
	if n, err := s2.DecodedLen(enc); err != nil || uint64(n) != dictRaw {
		return nil, fmt.Errorf("%w: dictionary block does not decode to %d bytes", ErrLineIndex, dictRaw)
	}
	dict, err := s2.Decode(dictBuf[:cap(dictBuf)], enc)
	if err != nil {
		return nil, fmt.Errorf("%w: dictionary: %v", ErrLineIndex, err)
	}
	// Token searches stop at the LF after a match, so the last token must
	// have one. Counting the tokens here would read the whole dictionary
	// once more on every query: posting refuses an ordinal past the count.
	if len(dict) > 0 && dict[len(dict)-1] != '\n' {
		return nil, fmt.Errorf("%w: the dictionary's last token has no LF", ErrLineIndex)
	}
	l.dict = dict
	nGroups := (l.tokens + TokenGroup - 1) / TokenGroup
	l.groups = make([]uint32, 0, nGroups)
	off := uint64(0)
	for range nGroups {
		off += r.uvarint("group offset", uint64(len(rec)))
		l.groups = append(l.groups, uint32(min(off, 1<<32-1)))
	}
	l.postings = r.bytes("postings", r.uvarint("postings size", uint64(len(rec))))
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(rec) {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrLineIndex, len(rec)-r.off)
	}
	for g, o := range l.groups {
		if uint64(o) > uint64(len(l.postings)) || (g > 0 && o < l.groups[g-1]) {
			return nil, fmt.Errorf("%w: group offset %d outside the postings", ErrLineIndex, g)
		}
	}
	return l, nil
}

// Dict returns the decompressed dictionary (to reuse its buffer).
func (l *Lines) Dict() []byte { return l.dict }

// LineLocator is the part of a line index that finds lines in the source:
// its size and chunking, the chunk digests and the line checkpoints.
type LineLocator struct {
	SourceSize  uint64
	ChunkSize   int
	NumLines    int
	digests     []byte   // 32 bytes per chunk
	checkpoints []uint64 // start offset of line 1+k·LineCheckpoint
}

// Locator returns a copy of the record's locator that does not alias the
// record (it outlives the transaction that read the record).
func (l *Lines) Locator() *LineLocator {
	c := l.LineLocator
	c.digests = bytes.Clone(c.digests)
	return &c
}

// Chunks returns the number of source chunks.
func (l *LineLocator) Chunks() int { return len(l.digests) / 32 }

// ChunkDigest returns the SHA-256 of source chunk i.
func (l *LineLocator) ChunkDigest(i int) (d [32]byte) {
	copy(d[:], l.digests[32*i:])
	return d
}

// Checkpoint returns the nearest kept line at or before line n (1-based)
// and its start offset.
func (l *LineLocator) Checkpoint(n int) (line int, offset uint64) {
	k := (n - 1) / LineCheckpoint
	return 1 + k*LineCheckpoint, l.checkpoints[k]
}

// LineScore is one line's score.
type LineScore struct {
	Line  int
	Score int
}

// LineScorer scores documents' lines; it keeps its buffers between
// documents, so one scorer serves one goroutine.
type LineScorer struct {
	score   []uint8  // per line: the score so far
	stamp   []uint16 // per line: 1 + the last distinct term that counted it
	touched []uint32 // lines with a non-zero score, in first-touch order
	lines   []uint32
	// One pass over the postings for 2..64 distinct terms (scoreMasks).
	tokenTerms []uint64 // per token: the distinct terms it contains
	lineTerms  []uint64 // per line: the distinct terms counted on it
}

// Score scores every line of the document for the query's terms (SPEC
// 11.3): it returns the number of lines with a non-zero score and the best
// max of them, by score descending then line ascending.
func (s *LineScorer) Score(l *Lines, q *find.Query, max int) (total int, top []LineScore, err error) {
	n := l.NumLines + 1
	if cap(s.score) < n {
		s.score = make([]uint8, n)
		s.stamp = make([]uint16, n)
	}
	s.score, s.stamp = s.score[:n], s.stamp[:n]
	clear(s.score)
	clear(s.stamp)
	s.touched = s.touched[:0]
	if n, err := s.scoreMasks(l, q); err != nil {
		return 0, nil, err
	} else if n {
		return s.best(max)
	}
	mark := uint16(0)
	for term, weight := range q.Distinct() {
		w := uint8(weight)
		mark++
		var cur postingCursor
		if err := l.eachMatchingToken(term, func(ord int) error {
			lines, err := l.posting(&cur, ord, s.lines[:0])
			s.lines = lines
			if err != nil {
				return err
			}
			for _, ln := range lines {
				if s.stamp[ln] == mark {
					continue
				}
				s.stamp[ln] = mark
				if s.score[ln] == 0 {
					s.touched = append(s.touched, ln)
				}
				s.score[ln] += w
			}
			return nil
		}); err != nil {
			return 0, nil, err
		}
	}
	return s.best(max)
}

// scoreMasks scores the lines of a query of 2 to 64 distinct terms in one
// pass over the postings: each token that contains any term has its
// posting decoded once, with the set of terms it contains, where scoring
// term by term decodes it once per term (a query of one-letter terms
// matches nearly every token). It reports false, having done nothing,
// for other queries.
func (s *LineScorer) scoreMasks(l *Lines, q *find.Query) (bool, error) {
	var weights []uint8
	for _, weight := range q.Distinct() {
		weights = append(weights, uint8(weight))
	}
	if len(weights) < 2 || len(weights) > 64 {
		return false, nil
	}
	if cap(s.tokenTerms) < l.tokens {
		s.tokenTerms = make([]uint64, l.tokens)
	}
	s.tokenTerms = s.tokenTerms[:l.tokens]
	clear(s.tokenTerms)
	if n := len(s.score); cap(s.lineTerms) < n {
		s.lineTerms = make([]uint64, n)
	}
	s.lineTerms = s.lineTerms[:len(s.score)]
	clear(s.lineTerms)
	t := 0
	for term := range q.Distinct() {
		bit := uint64(1) << t
		if err := l.eachMatchingToken(term, func(ord int) error {
			if ord >= l.tokens {
				return fmt.Errorf("%w: token %d of %d", ErrLineIndex, ord, l.tokens)
			}
			s.tokenTerms[ord] |= bit
			return nil
		}); err != nil {
			return true, err
		}
		t++
	}
	var cur postingCursor
	for ord, terms := range s.tokenTerms {
		if terms == 0 {
			continue
		}
		lines, err := l.posting(&cur, ord, s.lines[:0])
		s.lines = lines
		if err != nil {
			return true, err
		}
		for _, ln := range lines {
			added := terms &^ s.lineTerms[ln]
			if added == 0 {
				continue
			}
			if s.lineTerms[ln] == 0 {
				s.touched = append(s.touched, ln)
			}
			s.lineTerms[ln] |= added
			for ; added != 0; added &= added - 1 {
				s.score[ln] += weights[bits.TrailingZeros64(added)]
			}
		}
	}
	return true, nil
}

// best returns the number of scored lines and the best max of them.
func (s *LineScorer) best(max int) (total int, top []LineScore, err error) {
	for _, ln := range s.touched {
		h := LineScore{Line: int(ln), Score: int(s.score[ln])}
		if len(top) == max && !h.before(top[max-1]) {
			continue
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
	}
	return len(s.touched), top, nil
}

func (h LineScore) before(o LineScore) bool {
	if h.Score != o.Score {
		return h.Score > o.Score
	}
	return h.Line < o.Line
}

// eachMatchingToken calls fn with the ordinal of every dictionary token
// containing term, in dictionary order.
func (l *Lines) eachMatchingToken(term []byte, fn func(ord int) error) error {
	d := l.dict
	ord, counted := 0, 0 // tokens before offset counted
	for from := 0; from < len(d); {
		p := bytes.Index(d[from:], term)
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

// posting appends the line numbers of token ord to buf, resuming at c when
// c is at or before ord in the same group, and leaves c after ord.
func (l *Lines) posting(c *postingCursor, ord int, buf []uint32) ([]uint32, error) {
	if ord >= l.tokens {
		return buf, fmt.Errorf("%w: token %d of %d", ErrLineIndex, ord, l.tokens)
	}
	p := l.postings
	from, off := ord-ord%TokenGroup, int(l.groups[ord/TokenGroup])
	if c.valid && c.ord >= from && c.ord <= ord {
		from, off = c.ord, c.off
	}
	for range ord - from {
		n, k := binary.Uvarint(p[off:])
		if k <= 0 || n > uint64(len(p)-off-k) {
			return buf, fmt.Errorf("%w: posting of token %d", ErrLineIndex, ord)
		}
		off += k + int(n)
	}
	n, k := binary.Uvarint(p[off:])
	if k <= 0 || n == 0 || n > uint64(len(p)-off-k) {
		return buf, fmt.Errorf("%w: posting of token %d", ErrLineIndex, ord)
	}
	body := p[off+k : off+k+int(n)]
	*c = postingCursor{ord: ord + 1, off: off + k + int(n), valid: true}
	line := uint64(0)
	for len(body) > 0 {
		d, k := binary.Uvarint(body)
		if k <= 0 || d == 0 {
			return buf, fmt.Errorf("%w: posting of token %d", ErrLineIndex, ord)
		}
		if line += d; line > uint64(l.NumLines) {
			return buf, fmt.Errorf("%w: token %d on line %d of %d", ErrLineIndex, ord, line, l.NumLines)
		}
		buf = append(buf, uint32(line))
		body = body[k:]
	}
	return buf, nil
}
