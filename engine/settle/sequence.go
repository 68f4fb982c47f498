package settle

import (
	"fmt"

	"github.com/casper-chronicle/chronicle/engine"
)

// SequenceEvent is one event of an event sequence drawn from several
// documents: the event, the document it belongs to, its position in that
// document's store and its exact span bytes.
type SequenceEvent struct {
	Document [32]byte // SHA-256 of the event's document
	Index    int      // position of the event in its document's Store.Events
	Event    engine.Event
	Text     string // the span bytes, source[ByteStart:ByteEnd] of its document
}

// EvaluateSequence runs the debt-settlement reasoner of CONTRACT 9, unchanged,
// over a sequence of events drawn from several documents, as if the
// sequence were one document's event table: question selection (CONTRACT 8),
// the debt, its contradictions, intermediary links, duplicates ("an
// earlier event" is earlier in the sequence) and the checked sum all work
// across documents. The caller orders the sequence (the archive: documents
// in import order, each one's events in source order).
//
// The result renders as CONTRACT 5.1 with each evidence object naming its own
// document; Evidence[i].Index and Debt.Index are positions in their own
// documents. Settlement.Document is the documents' digest when every event
// comes from one document, else zero. For the events of a single store,
// in order, the JSON is byte for byte that of EvaluateSettlement.
//
// Leaving out events whose subject is not a candidate borrower of the
// question and whose object is not a candidate lender (Candidates) does
// not change the result: the reasoner only looks at such events.
//
// The only error is a span text whose length differs from its event's
// span (wrapping ErrSpan).
func EvaluateSequence(events []SequenceEvent, question string) (*Settlement, error) {
	evs := make([]engine.Event, len(events))
	var doc [32]byte
	one := true
	for i := range events {
		e := &events[i]
		if e.Event.ByteStart > e.Event.ByteEnd || uint64(len(e.Text)) != e.Event.ByteEnd-e.Event.ByteStart {
			return nil, fmt.Errorf("%w: event %d of the sequence (line %d) spans bytes %d..%d but its text is %d bytes",
				ErrSpan, i, e.Event.LineStart, e.Event.ByteStart, e.Event.ByteEnd, len(e.Text))
		}
		evs[i] = e.Event
		if i == 0 {
			doc = e.Document
		} else if e.Document != doc {
			one = false
		}
	}
	r := newReasoner(evs, question)
	st := r.run()
	evidence := []Evidence{}
	for i, u := range r.used {
		if u {
			e := &events[i]
			evidence = append(evidence, Evidence{Index: e.Index, Event: e.Event, Text: e.Text,
				Counted: r.counted[i], Document: e.Document})
		}
	}
	out := r.settlement(st, evidence)
	if one {
		out.Document = doc
	}
	if out.Debt != nil {
		d := &events[r.debt]
		out.Debt.Index, out.Debt.Document = d.Index, d.Document
	}
	return out, nil
}

// Pair is a borrower and lender a question can select.
type Pair struct{ Borrower, Lender string }

// Candidates returns every (borrower, lender) pair the question selects
// when some debt event names them (Selects(question, b, l)), in a fixed
// order without repeats: the selector's pair, then each frame's splits.
// A frame like "B L" can be split more than one way ("Ann Lee Bob" is
// "Ann"/"Lee Bob" or "Ann Lee"/"Bob"), so there can be several; a
// question that selects nothing has none.
func Candidates(question string) []Pair {
	var out []Pair
	seen := map[Pair]bool{}
	add := func(b, l string) {
		p := Pair{b, l}
		if !seen[p] && Selects(question, b, l) {
			seen[p] = true
			out = append(out, p)
		}
	}
	if len(question) > len(SettlementSelector) && question[:len(SettlementSelector)] == SettlementSelector {
		rest := question[len(SettlementSelector):]
		for i := 0; i < len(rest); i++ {
			if rest[i] == '\t' {
				add(rest[:i], rest[i+1:])
			}
		}
	}
	for _, f := range frames {
		if len(question) < len(f.prefix)+len(f.sep)+len(f.suffix) ||
			question[:len(f.prefix)] != f.prefix || question[len(question)-len(f.suffix):] != f.suffix {
			continue
		}
		mid := question[len(f.prefix) : len(question)-len(f.suffix)]
		for i := 0; i+len(f.sep) <= len(mid); i++ {
			if mid[i:i+len(f.sep)] == f.sep {
				add(mid[:i], mid[i+len(f.sep):])
			}
		}
	}
	return out
}
