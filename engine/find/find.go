package find

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/canonjson"
)

// Limits of CONTRACT 11 and 12.
const (
	// MaxTermsBytes is the longest accepted terms string.
	MaxTermsBytes = 1024
	// MaxTerms is the largest number of terms after splitting.
	MaxTerms = 16
	// MaxMatches is the number of matches a result lists.
	MaxMatches = 8
)

// Result statuses (CONTRACT 5.3).
const (
	StatusMatches = "MATCHES"
	StatusNoMatch = "NO_MATCH"
)

// ErrTerms is wrapped by every error about the terms string.
var ErrTerms = errors.New("invalid find terms")

// IsSeparator reports whether c separates terms (CONTRACT 11.2). The set is
// ASCII only: a non-ASCII mark such as the Arabic question mark is part of a
// term. The archive's line index splits lines into tokens with the same set.
func IsSeparator(c byte) bool { return separators[c] }

var separators = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\r.,;:?!") {
		t[c] = true
	}
	return t
}()

// Terms splits terms into the maximal runs of non-separator bytes, in order
// and with duplicates. It rejects (with an error wrapping ErrTerms) an empty
// string, a string longer than MaxTermsBytes, a string that is not strict
// UTF-8, and a split giving zero or more than MaxTerms terms.
func Terms(terms string) ([]string, error) {
	spans, err := split(terms)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = terms[sp[0]:sp[1]]
	}
	return out, nil
}

// split is Terms returning [start, end) offsets.
func split(terms string) ([][2]int, error) {
	switch {
	case len(terms) == 0:
		return nil, fmt.Errorf("%w: the terms string is empty (1..%d bytes required)", ErrTerms, MaxTermsBytes)
	case len(terms) > MaxTermsBytes:
		return nil, fmt.Errorf("%w: the terms string is %d bytes, the limit is %d", ErrTerms, len(terms), MaxTermsBytes)
	case !engine.ValidTextString(terms):
		return nil, fmt.Errorf("%w: the terms string is not strict UTF-8 text", ErrTerms)
	}
	var spans [][2]int
	for i := 0; i < len(terms); {
		if IsSeparator(terms[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(terms) && !IsSeparator(terms[j]) {
			j++
		}
		spans = append(spans, [2]int{i, j})
		i = j
	}
	switch {
	case len(spans) == 0:
		return nil, fmt.Errorf("%w: the terms string holds only separators (zero terms)", ErrTerms)
	case len(spans) > MaxTerms:
		return nil, fmt.Errorf("%w: the terms string splits into %d terms, the limit is %d", ErrTerms, len(spans), MaxTerms)
	}
	return spans, nil
}

// Score returns the number of terms, counted with repetition, that occur in
// line as a contiguous byte substring. It is the per-line score of CONTRACT 11.3
// when terms is a split terms list and line a physical line without its
// LF/CR; an empty line scores zero because terms are never empty.
func Score(line []byte, terms [][]byte) int {
	n := 0
	for _, t := range terms {
		if bytes.Contains(line, t) {
			n++
		}
	}
	return n
}

// Query is a split terms string, ready to search any number of sources.
type Query struct {
	text     string
	terms    [][]byte
	distinct []weighted
}

// weighted is one distinct term and how often it appears in the query.
type weighted struct {
	pat    pattern
	weight int
}

// NewQuery splits terms (see Terms) into a reusable query.
func NewQuery(terms string) (*Query, error) {
	spans, err := split(terms)
	if err != nil {
		return nil, err
	}
	q := &Query{text: terms, terms: make([][]byte, len(spans))}
	raw := []byte(terms)
next:
	for i, sp := range spans {
		t := raw[sp[0]:sp[1]:sp[1]]
		q.terms[i] = t
		for k := range q.distinct {
			if bytes.Equal(q.distinct[k].pat.term, t) {
				q.distinct[k].weight++
				continue next
			}
		}
		q.distinct = append(q.distinct, weighted{pat: newPattern(t), weight: 1})
	}
	return q, nil
}

// Text returns the terms string exactly as given.
func (q *Query) Text() string { return q.text }

// Terms returns the split terms with duplicates, in order. The slices are
// shared with the query and must not be modified.
func (q *Query) Terms() [][]byte { return q.terms }

// Distinct yields each distinct term once, in order of first appearance,
// with the number of times the query holds it (its weight in a line's
// score). The slices are shared with the query and must not be modified.
func (q *Query) Distinct() iter.Seq2[[]byte, int] {
	return func(yield func([]byte, int) bool) {
		for _, d := range q.distinct {
			if !yield(d.pat.term, d.weight) {
				return
			}
		}
	}
}

// Score is Score(line, q.Terms()), computed once per distinct term.
func (q *Query) Score(line []byte) int {
	n := 0
	for _, d := range q.distinct {
		if d.pat.index(line) >= 0 {
			n += d.weight
		}
	}
	return n
}

// Occurrences returns the byte spans, half-open and absolute (line starts
// at byte offset start of its document), of every occurrence of the
// query's distinct terms in line, sorted and merged where they overlap or
// touch: the bytes that make the line score (Score). Front-ends mark
// these rather than matching the text themselves, so a highlight is
// always what the engine matched.
func (q *Query) Occurrences(line []byte, start int) [][2]int {
	var out [][2]int
	for _, d := range q.distinct {
		for i := 0; i+len(d.pat.term) <= len(line); {
			j := d.pat.index(line[i:])
			if j < 0 {
				break
			}
			out = append(out, [2]int{start + i + j, start + i + j + len(d.pat.term)})
			i += j + 1
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 && s[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], s[1])
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// Match is one listed matching line.
type Match struct {
	Line         int      // 1-based physical line number
	ByteStart    uint64   // offset of the line's first byte
	ByteEnd      uint64   // offset past its last kept byte (LF and final CR excluded)
	MatchedTerms int      // the line's score
	SpanHash     [32]byte // SHA-256 of the line bytes ByteStart..ByteEnd
	Text         string   // the line bytes ByteStart..ByteEnd
}

// Result is a find result (CONTRACT 5.3).
type Result struct {
	Status             string // StatusMatches or StatusNoMatch
	Query              string // the terms string exactly as given
	Document           [32]byte
	TotalMatchingLines int     // every matching line, not capped
	Matches            []Match // at most MaxMatches, by score desc then ByteStart asc
}

// JSON returns the canonical result JSON of CONTRACT 5.3, without a newline.
func (r *Result) JSON() []byte {
	var j canonjson.Buf
	j.Raw("{")
	j.Key("status", true)
	j.Str(r.Status)
	j.Key("query", false)
	j.Str(r.Query)
	j.Key("document_sha256", false)
	j.Digest(r.Document)
	j.Key("total_matching_lines", false)
	j.Int(int64(r.TotalMatchingLines))
	j.Key("lexical_only", false)
	j.Raw("true")
	j.Key("matches", false)
	j.Raw("[")
	for i := range r.Matches {
		m := &r.Matches[i]
		if i > 0 {
			j.Raw(",")
		}
		j.Raw("{")
		j.Key("line", true)
		j.Int(int64(m.Line))
		j.Key("byte_start", false)
		j.Uint(m.ByteStart)
		j.Key("byte_end", false)
		j.Uint(m.ByteEnd)
		j.Key("matched_terms", false)
		j.Int(int64(m.MatchedTerms))
		j.Key("exact_span_sha256", false)
		j.Digest(m.SpanHash)
		j.Key("text", false)
		j.Str(m.Text)
		j.Raw("}")
	}
	j.Raw("]}")
	return j.Bytes()
}

// Find runs the find command's computation on a loaded store and returns the
// result JSON line (without newline). Terms errors wrap ErrTerms.
func Find(s *engine.Store, terms string) ([]byte, error) {
	r, err := Search(s, terms)
	if err != nil {
		return nil, err
	}
	return r.JSON(), nil
}

// Search is Find returning the structured result.
func Search(s *engine.Store, terms string) (*Result, error) {
	if s == nil {
		return nil, errors.New("find: nil store")
	}
	return SearchSource(s.Source, s.Document, terms)
}

// SearchSource searches the source bytes of a document whose SHA-256 is doc,
// without a store. The result equals Search on a store holding src.
func SearchSource(src []byte, doc [32]byte, terms string) (*Result, error) {
	q, err := NewQuery(terms)
	if err != nil {
		return nil, err
	}
	return q.Search(src, doc), nil
}

// hit is a matching line kept in the top buffer. Lines are identified by
// the offset of their LF (or the source length): that orders them exactly
// like their start offsets and is found with a forward SIMD byte search.
type hit struct {
	score int
	end   int // offset of the line's LF, or len(src) for a final line without LF
}

// better reports whether a ranks before b: score descending, then offset
// ascending.
func better(a, b hit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.end < b.end
}

// cursor walks the lines containing one distinct term, in source order.
type cursor struct {
	pat    pattern
	weight int
	end    int // LF offset (or len(src)) of the current line; -1 when exhausted
}

// advance moves c to the first line at or after offset from (a line start)
// that contains the term. Terms hold no LF and no CR, so an occurrence lies
// inside one line's kept span.
func (c *cursor) advance(src []byte, from int) {
	c.end = -1
	if from >= len(src) {
		return
	}
	p := c.pat.index(src[from:])
	if p < 0 {
		return
	}
	p += from + len(c.pat.term)
	c.end = len(src)
	if e := bytes.IndexByte(src[p:], '\n'); e >= 0 {
		c.end = p + e
	}
}

// Search runs the query over src, the bytes of the document whose SHA-256 is
// doc (CONTRACT 11.3–11.6).
//
// Each distinct term (weighted by its repetitions) is searched through the
// whole source with a SIMD byte search on its rarest byte, and the per-term
// streams of matching lines are merged in source order: lines that match
// nothing cost no per-line work, and nothing is allocated per line. The best
// MaxMatches lines are kept in a small sorted buffer while the total counts
// every line; line numbers are counted only for the listed matches.
func (q *Query) Search(src []byte, doc [32]byte) *Result {
	var cursBuf [MaxTerms]cursor
	curs := cursBuf[:len(q.distinct)]
	for i, d := range q.distinct {
		curs[i] = cursor{pat: d.pat, weight: d.weight}
		curs[i].advance(src, 0)
	}
	var topBuf [MaxMatches]hit
	top := topBuf[:0]
	total := 0
	for {
		line := -1
		for i := range curs {
			if e := curs[i].end; e >= 0 && (line < 0 || e < line) {
				line = e
			}
		}
		if line < 0 {
			break
		}
		h := hit{end: line}
		for i := range curs {
			if c := &curs[i]; c.end == line {
				h.score += c.weight
				c.advance(src, line+1)
			}
		}
		total++
		// Lines arrive by ascending offset, so a newcomer ranks after every
		// kept line of equal score.
		if len(top) == MaxMatches && !better(h, top[MaxMatches-1]) {
			continue
		}
		if len(top) < MaxMatches {
			top = append(top, h)
		}
		k := len(top) - 1
		for k > 0 && better(h, top[k-1]) {
			top[k] = top[k-1]
			k--
		}
		top[k] = h
	}
	r := &Result{Status: StatusNoMatch, Query: q.text, Document: doc, TotalMatchingLines: total}
	if total > 0 {
		r.Status = StatusMatches
		r.Matches = make([]Match, len(top))
		for i, h := range top {
			start := bytes.LastIndexByte(src[:h.end], '\n') + 1
			end := h.end
			if end > start && src[end-1] == '\r' {
				end--
			}
			text := src[start:end]
			r.Matches[i] = Match{
				ByteStart:    uint64(start),
				ByteEnd:      uint64(end),
				MatchedTerms: h.score,
				SpanHash:     sha256.Sum256(text),
				Text:         string(text),
			}
		}
		numberLines(src, r.Matches)
	}
	return r
}

// numberLines fills in the 1-based line numbers of the matches by counting
// LF bytes before each line start, visiting them in offset order so the
// source is counted through at most once.
func numberLines(src []byte, ms []Match) {
	var orderBuf [MaxMatches]int
	order := orderBuf[:0]
	for i := range ms {
		k := len(order)
		order = append(order, i)
		for k > 0 && ms[order[k-1]].ByteStart > ms[i].ByteStart {
			order[k] = order[k-1]
			k--
		}
		order[k] = i
	}
	line, at := 1, 0
	for _, i := range order {
		start := int(ms[i].ByteStart)
		line += bytes.Count(src[at:start], []byte{'\n'})
		at = start
		ms[i].Line = line
	}
}
