package settle

import (
	"errors"
	"fmt"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/canonjson"
)

// Status is the "status" value of a result (CONTRACT 5.1, 5.2, 9 step D, 10).
type Status string

// Settlement statuses (CONTRACT 9 step D) and claim statuses (CONTRACT 10).
const (
	Supported   Status = "SUPPORTED"    // the payments settle the debt exactly, nothing unresolved
	Partial     Status = "PARTIAL"      // some positive amount counted, less than the debt
	Conflict    Status = "CONFLICT"     // contradiction, overflow or overpayment
	Unknown     Status = "UNKNOWN"      // no single debt, nothing counted, or an exact sum with loose ends
	ExactStated Status = "EXACT_STATED" // a literal claim with at least one matching statement
	Unresolved  Status = "UNRESOLVED"   // a literal claim with no matching statement
)

// Assessments and the constant limits strings of CONTRACT 5.1/5.2.
const (
	AssessmentSettlement = "DEBT_SETTLEMENT"
	AssessmentClaim      = "LITERAL_RETRIEVAL"
	LimitsSettlement     = "bounded source grammar; question selects exact entities; status evaluates debt settlement, not question truth; integrity is not truth"
	LimitsClaim          = "three-token literal retrieval; no inference or truth guarantee"
)

// Errors of evaluation.
var (
	// ErrClaimSyntax: a question starting with "@claim<TAB>" is not exactly
	// three fields of 1..127 bytes free of bytes below 0x20 and 0x7F.
	ErrClaimSyntax = errors.New("malformed claim question")
	// ErrSpan: an evidence event's span lies outside the store's source
	// (never happens for stores accepted by engine.Load or built by
	// engine.NewStore).
	ErrSpan = errors.New("event span outside the source")
	// ErrNoStore: the store is nil.
	ErrNoStore = errors.New("no store")
)

// Result is a structured answer to one question: *Settlement or *Claim.
type Result interface {
	// JSON returns the canonical result bytes (no trailing newline).
	JSON() []byte
	// ResultStatus returns the status of the result.
	ResultStatus() Status
}

// Evidence is one event used by an answer, with its exact span text.
type Evidence struct {
	Index    int          // position of the event in its document's Store.Events
	Event    engine.Event // copy of the event
	Text     string       // the span bytes, source[ByteStart:ByteEnd]
	Counted  bool         // settlement only: this payment was added to Settled
	Document [32]byte     // SHA-256 of the event's document (its evidence object's document_sha256)
}

// Debt is the debt a settlement question selected (CONTRACT 9 step A): the first
// selected BORROWED_FROM event; identical repeats are further evidence.
type Debt struct {
	Index    int      // position of the first selected debt event in its document's Store.Events
	Document [32]byte // SHA-256 of that event's document
	Amount   engine.Rational
	Currency string
	Borrower string // the event's subject
	Lender   string // the event's object
}

// Settlement is the answer to a debt-settlement question (CONTRACT 5.1, 9).
type Settlement struct {
	Question string
	Status   Status
	Debt     *Debt           // nil when no single debt was selected
	Settled  engine.Rational // sum of counted payments, reduced; 0/1 when none
	Document [32]byte        // SHA-256 of the store's source; for a sequence (EvaluateSequence) the one document it was drawn from, zero when several
	Evidence []Evidence      // every used event, in source (sequence) order

	// Why the status came out as it did (not part of the JSON).
	Ambiguous    bool // several different debts matched the question
	Contradicted bool // an established opposite record contradicts the debt, a link or a payment
	Overflow     bool // the checked sum overflowed and the payment scan stopped
	Duplicate    bool // a linked payment repeated an earlier eligible one
	Related      bool // a linked payment was pending, uncertain, amountless or in another currency
	Payments     int  // number of payments added to Settled
}

// Claim is the answer to a literal claim question (CONTRACT 5.2, 10).
type Claim struct {
	Question  string // the full "@claim<TAB>S<TAB>P<TAB>O" question
	Status    Status
	Subject   string
	Predicate string
	Object    string
	Document  [32]byte
	Evidence  []Evidence // every matching literal event, in source order
}

// ResultStatus implements Result.
func (s *Settlement) ResultStatus() Status { return s.Status }

// ResultStatus implements Result.
func (c *Claim) ResultStatus() Status { return c.Status }

// JSON renders the settlement as CONTRACT 5.1: status, assessment, question,
// debt, settled, limits, evidence.
func (s *Settlement) JSON() []byte {
	var j canonjson.Buf
	j.Raw("{")
	j.Key("status", true)
	j.Str(string(s.Status))
	j.Key("assessment", false)
	j.Str(AssessmentSettlement)
	j.Key("question", false)
	j.Str(s.Question)
	j.Key("debt", false)
	if s.Debt == nil {
		j.Raw("null")
	} else {
		j.Raw("{")
		j.Key("num", true)
		j.Int(s.Debt.Amount.Num)
		j.Key("den", false)
		j.Int(s.Debt.Amount.Den)
		j.Key("currency", false)
		j.Str(s.Debt.Currency)
		j.Key("borrower", false)
		j.Str(s.Debt.Borrower)
		j.Key("lender", false)
		j.Str(s.Debt.Lender)
		j.Raw("}")
	}
	j.Key("settled", false)
	j.Fraction(s.Settled.Num, s.Settled.Den)
	j.Key("limits", false)
	j.Str(LimitsSettlement)
	j.Key("evidence", false)
	writeEvidence(&j, s.Document, s.Evidence)
	j.Raw("}")
	return j.Bytes()
}

// JSON renders the claim as CONTRACT 5.2: status, assessment, question, subject,
// predicate, object, limits, evidence.
func (c *Claim) JSON() []byte {
	var j canonjson.Buf
	j.Raw("{")
	j.Key("status", true)
	j.Str(string(c.Status))
	j.Key("assessment", false)
	j.Str(AssessmentClaim)
	j.Key("question", false)
	j.Str(c.Question)
	j.Key("subject", false)
	j.Str(c.Subject)
	j.Key("predicate", false)
	j.Str(c.Predicate)
	j.Key("object", false)
	j.Str(c.Object)
	j.Key("limits", false)
	j.Str(LimitsClaim)
	j.Key("evidence", false)
	writeEvidence(&j, c.Document, c.Evidence)
	j.Raw("}")
	return j.Bytes()
}

// writeEvidence appends the evidence array; object key order is CONTRACT 5.1.
func writeEvidence(j *canonjson.Buf, doc [32]byte, evidence []Evidence) {
	j.Raw("[")
	for i := range evidence {
		if i > 0 {
			j.Raw(",")
		}
		d := doc
		if evidence[i].Document != ([32]byte{}) {
			d = evidence[i].Document // an event of a sequence names its own document
		}
		AppendEvidence(j, d, &evidence[i].Event, evidence[i].Text)
	}
	j.Raw("]")
}

// AppendEvidence appends one evidence object (CONTRACT 5.1 key order: event_id,
// evidence_span_id, document_sha256, byte_start, byte_end, line_start,
// line_end, exact_span_sha256, text) for event e whose span bytes are text.
func AppendEvidence(j *canonjson.Buf, doc [32]byte, e *engine.Event, text string) {
	j.Raw("{")
	j.Key("event_id", true)
	j.Digest(e.ID)
	j.Key("evidence_span_id", false)
	j.Digest(e.SpanID)
	j.Key("document_sha256", false)
	j.Digest(doc)
	j.Key("byte_start", false)
	j.Uint(e.ByteStart)
	j.Key("byte_end", false)
	j.Uint(e.ByteEnd)
	j.Key("line_start", false)
	j.Uint(e.LineStart)
	j.Key("line_end", false)
	j.Uint(e.LineEnd)
	j.Key("exact_span_sha256", false)
	j.Digest(e.SpanHash)
	j.Key("text", false)
	j.Str(text)
	j.Raw("}")
}

// collectEvidence returns the flagged events of s in source order with their
// span text; counted marks payments added to the sum (may be nil).
func collectEvidence(s *engine.Store, used, counted []bool) ([]Evidence, error) {
	out := []Evidence{}
	for i, u := range used {
		if !u {
			continue
		}
		e := &s.Events[i]
		if e.ByteStart > e.ByteEnd || e.ByteEnd > uint64(len(s.Source)) {
			return nil, fmt.Errorf("%w: event %d (line %d) spans bytes %d..%d of a %d-byte source",
				ErrSpan, i, e.LineStart, e.ByteStart, e.ByteEnd, len(s.Source))
		}
		out = append(out, Evidence{
			Index:    i,
			Event:    *e,
			Text:     string(s.Source[e.ByteStart:e.ByteEnd]),
			Counted:  counted != nil && counted[i],
			Document: s.Document,
		})
	}
	return out, nil
}
