package db

import (
	"bytes"
	"fmt"

	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/index"

	bolt "go.etcd.io/bbolt"
)

// A query of one short term (up to three bytes) knows each candidate's
// number of matching lines from the term index (index.Bound.Exact), and
// lists the first find.MaxMatches of them. Where the term is common in the
// document, those lines are near its start: reading the first chunks is
// cheaper than decoding every dictionary block for the tokens holding the
// term (a letter is in most blocks of a document). The scan stops after
// sourceScanBudget bytes; the line index finds the lines then.
const sourceScanBudget = 64 << 10

// firstLinesFromSource returns the first want lines of document seq that
// hold the query's only term, read through loc from its checked chunks,
// with the document's record; ok is false when they are not within
// sourceScanBudget bytes or the term is too rare in the document for a
// scan to be likely to find them.
func (a *Archive) firstLinesFromSource(tx *bolt.Tx, seq uint64, loc *index.LineLocator, q *find.Query, total int) (d *Document, top []index.LineScore, ok bool, err error) {
	want := min(total, find.MaxMatches)
	// The want-th matching line is expected about want·size/total bytes
	// into the document.
	if want == 0 || uint64(want)*loc.SourceSize > uint64(total)*sourceScanBudget/2 {
		return nil, nil, false, nil
	}
	var term []byte
	weight := 0
	for t, w := range q.Distinct() {
		term, weight = t, w
	}
	if d, err = docBySeq(tx, seq); err != nil {
		return nil, nil, false, err
	}
	if err := a.checkLocator(tx, d, loc); err != nil {
		return nil, nil, false, err
	}
	r := newLineReader(a, tx, d, loc)
	defer r.release()
	for n, pos := 1, uint64(0); n <= loc.NumLines && len(top) < want; n++ {
		if pos > sourceScanBudget {
			return d, nil, false, nil
		}
		end, text, err := r.scan(pos, true)
		if err != nil {
			return nil, nil, false, err
		}
		// A term holds no LF and no CR: it is in the line or not.
		if bytes.Contains(text, term) {
			top = append(top, index.LineScore{Line: n, Score: weight})
		}
		pos = end + 1
	}
	if len(top) != want {
		return nil, nil, false, fmt.Errorf("document %s (%s): %w: the term index counts %d lines holding the term, its source has %d", d.Label(), d.SHA256, ErrCorrupt, total, len(top))
	}
	return d, top, true, nil
}
