package settle

import "github.com/casper-chronicle/chronicle/engine"

// EvaluateSettlement runs the debt-settlement reasoner of CONTRACT 9 for question
// over the events of s. It never dispatches claims: use Evaluate or Query
// for questions that may start with "@claim<TAB>" (under this function such
// a question selects nothing and is UNKNOWN). Every question is valid; the
// only errors are a nil store and an event span outside the source.
func EvaluateSettlement(s *engine.Store, question string) (*Settlement, error) {
	if s == nil {
		return nil, ErrNoStore
	}
	r := newReasoner(s.Events, question)
	st := r.run()
	evidence, err := collectEvidence(s, r.used, r.counted)
	if err != nil {
		return nil, err
	}
	out := r.settlement(st, evidence)
	out.Document = s.Document
	if out.Debt != nil {
		out.Debt.Index, out.Debt.Document = r.debt, s.Document
	}
	return out, nil
}

// run is the whole procedure of CONTRACT 9 over r.events: steps A to D.
func (r *reasoner) run() Status {
	r.selectDebt()    // step A
	r.checkDebt()     // step B
	r.countPayments() // step C
	return r.decide() // step D
}

// settlement is the answer of a finished run with its evidence; the caller
// fills in the documents (Settlement.Document, Debt.Index, Debt.Document).
func (r *reasoner) settlement(st Status, evidence []Evidence) *Settlement {
	out := &Settlement{
		Question:     r.question,
		Status:       st,
		Settled:      r.settled,
		Evidence:     evidence,
		Ambiguous:    r.ambiguous,
		Contradicted: r.contradicted,
		Overflow:     r.overflow,
		Duplicate:    r.dup,
		Related:      r.related,
		Payments:     r.payments,
	}
	if d := r.debtEvent(); d != nil {
		out.Debt = &Debt{Index: r.debt, Amount: d.Amount, Currency: d.Currency,
			Borrower: d.Subject, Lender: d.Object}
	}
	return out
}

// Event predicates of CONTRACT 9. String comparisons are exact bytes.

// established: modality ASSERTED and status CONFIRMED.
func established(e *engine.Event) bool {
	return e.Modality == engine.ModalityAsserted && e.Status == engine.StatusConfirmed
}

// positive: polarity POSITIVE and status not DENIED.
func positive(e *engine.Event) bool {
	return e.Polarity == engine.PolarityPositive && e.Status != engine.StatusDenied
}

// payment: predicate PAID_TO or TRANSFER_TO.
func payment(e *engine.Event) bool {
	return e.Predicate == engine.PredPaidTo || e.Predicate == engine.PredTransferTo
}

// eligible: a positive, established payment with an amount.
func eligible(e *engine.Event) bool {
	return payment(e) && positive(e) && established(e) && e.AmountPresent
}

// tupleKey is what same_tuple compares: subject, predicate, object,
// amount_present, currency, time and, when present, the amount. Modality,
// polarity and status are not part of it. Amounts are reduced (an engine
// invariant), so equal values have equal Num/Den.
type tupleKey struct {
	subject, predicate, object, currency, time string
	present                                    bool
	amount                                     engine.Rational
}

func tupleOf(e *engine.Event) tupleKey {
	k := tupleKey{subject: e.Subject, predicate: e.Predicate, object: e.Object,
		currency: e.Currency, time: e.Time, present: e.AmountPresent}
	if e.AmountPresent {
		k.amount = e.Amount
	}
	return k
}

// sameTuple is same_tuple(a, b) of CONTRACT 9.
func sameTuple(a, b *engine.Event) bool { return tupleOf(a) == tupleOf(b) }

// paymentKey is what the duplicate test of step C.7 compares: subject,
// object, amount value, currency and time (not the predicate).
type paymentKey struct {
	subject, object, currency, time string
	amount                          engine.Rational
}

// index groups the events once per evaluation so that contradictions,
// intermediary links and duplicates are map lookups instead of scans.
type index struct {
	byTuple       map[tupleKey][]int  // same_tuple classes, source order
	links         map[[2]string][]int // INTERMEDIARY_FOR by (subject, object), source order
	firstEligible map[paymentKey]int  // earliest eligible payment per paymentKey
}

func buildIndex(events []engine.Event) *index {
	ix := &index{
		byTuple:       make(map[tupleKey][]int),
		links:         make(map[[2]string][]int),
		firstEligible: make(map[paymentKey]int),
	}
	for i := range events {
		e := &events[i]
		k := tupleOf(e)
		ix.byTuple[k] = append(ix.byTuple[k], i)
		if e.Predicate == engine.PredIntermediaryFor {
			lk := [2]string{e.Subject, e.Object}
			ix.links[lk] = append(ix.links[lk], i)
		}
		if eligible(e) {
			pk := paymentKey{e.Subject, e.Object, e.Currency, e.Time, e.Amount}
			if _, seen := ix.firstEligible[pk]; !seen {
				ix.firstEligible[pk] = i
			}
		}
	}
	return ix
}

// reasoner is the working state of CONTRACT 9 ("Keep:"): the used flags, the
// debt, the ambiguity and conflict flags, the checked sum and its count, and
// the dup and related flags.
type reasoner struct {
	events   []engine.Event
	question string
	ix       *index // built on first use (only when a debt was selected)

	used    []bool // evidence flags
	counted []bool // payments added to settled

	debt         int // index of the debt event, -1 for none
	ambiguous    bool
	contradicted bool // conflict through a contradiction (steps B, C.2, C.6)
	overflow     bool // conflict through an overflowing sum (step C.8)
	settled      engine.Rational
	payments     int
	dup          bool
	related      bool
}

func newReasoner(events []engine.Event, question string) *reasoner {
	return &reasoner{
		events:   events,
		question: question,
		used:     make([]bool, len(events)),
		counted:  make([]bool, len(events)),
		debt:     -1,
		settled:  engine.Zero,
	}
}

func (r *reasoner) index() *index {
	if r.ix == nil {
		r.ix = buildIndex(r.events)
	}
	return r.ix
}

// conflict is the conflict flag of CONTRACT 9.
func (r *reasoner) conflict() bool { return r.contradicted || r.overflow }

func (r *reasoner) debtEvent() *engine.Event {
	if r.debt < 0 {
		return nil
	}
	return &r.events[r.debt]
}

// contradictions marks every event e ≠ f with same_tuple(e, f), established(e)
// and polarity(e) ≠ polarity(f), and reports whether there was any.
func (r *reasoner) contradictions(f int) bool {
	fe := &r.events[f]
	found := false
	for _, e := range r.index().byTuple[tupleOf(fe)] {
		ee := &r.events[e]
		if e != f && established(ee) && ee.Polarity != fe.Polarity {
			r.used[e] = true
			found = true
		}
	}
	return found
}

// selectDebt is step A. Every positive, established BORROWED_FROM event with
// an amount whose stored names the question selects is marked used. The
// first becomes the debt; a later one that is not same_tuple with it makes
// the selection ambiguous, and an ambiguous selection has no debt (the marks
// stay, so every matching debt is evidence).
func (r *reasoner) selectDebt() {
	for i := range r.events {
		e := &r.events[i]
		if e.Predicate != engine.PredBorrowedFrom || !positive(e) || !e.AmountPresent ||
			!established(e) || !Selects(r.question, e.Subject, e.Object) {
			continue
		}
		r.used[i] = true
		if r.debt < 0 {
			r.debt = i
		} else if !sameTuple(e, &r.events[r.debt]) {
			r.ambiguous = true
		}
	}
	if r.ambiguous {
		r.debt = -1
	}
}

// checkDebt is step B: a debt with any contradiction (marked used) is a
// conflict.
func (r *reasoner) checkDebt() {
	if r.debt >= 0 && r.contradictions(r.debt) {
		r.contradicted = true
	}
}

// link is the outcome of step C.2 for one payment.
type link int

const (
	notLinked    link = iota // paid to neither the lender nor a confirmed intermediary
	linked                   // paid to the lender or through a confirmed intermediary
	contradicted             // an intermediary record for the payee is contradicted
)

// linkOf is step C.2. A payment to the lender is linked. Otherwise every
// INTERMEDIARY_FOR record X with X.subject = payee and X.object = lender is
// marked used whatever its status; X counts only when positive and
// established; a counted X with contradictions (marked) is a conflict and
// contradicts the link, otherwise it confirms it. Contradicted beats
// confirmed.
func (r *reasoner) linkOf(p *engine.Event, debt *engine.Event) link {
	if p.Object == debt.Object {
		return linked
	}
	confirmed, contra := false, false
	for _, x := range r.index().links[[2]string{p.Object, debt.Object}] {
		r.used[x] = true
		xe := &r.events[x]
		if !positive(xe) || !established(xe) {
			continue
		}
		if r.contradictions(x) {
			r.contradicted = true
			contra = true
		} else {
			confirmed = true
		}
	}
	switch {
	case contra:
		return contradicted
	case confirmed:
		return linked
	}
	return notLinked
}

// countPayments is step C. It runs only for a debt without conflict whose
// currency is not "-", and scans every event P in source order:
//
//  1. P must be a positive payment by the borrower (else skipped, unmarked);
//  2. P must be linked to the lender (linkOf; else skipped, unmarked);
//  3. P is marked used;
//  4. a contradicted link: P is evidence but never counted;
//  5. P not eligible or in another currency: related;
//  6. P contradicted (marked): conflict;
//  7. an earlier eligible payment with the same subject, object, amount,
//     currency and time: duplicate;
//  8. settled += P.amount with checked arithmetic; an overflow is a conflict
//     and stops the scan at once (later events are neither examined nor
//     marked).
func (r *reasoner) countPayments() {
	debt := r.debtEvent()
	if debt == nil || r.conflict() || debt.Currency == engine.NoValue {
		return
	}
	for i := range r.events {
		p := &r.events[i]
		if !payment(p) || !positive(p) || p.Subject != debt.Subject { // C.1
			continue
		}
		l := r.linkOf(p, debt) // C.2
		if l == notLinked {    // C.3
			continue
		}
		r.used[i] = true
		if l == contradicted { // C.4
			continue
		}
		if !eligible(p) || p.Currency != debt.Currency { // C.5
			r.related = true
			continue
		}
		if r.contradictions(i) { // C.6
			r.contradicted = true
			continue
		}
		pk := paymentKey{p.Subject, p.Object, p.Currency, p.Time, p.Amount}
		if r.index().firstEligible[pk] < i { // C.7
			r.dup = true
			continue
		}
		sum, err := r.settled.Add(p.Amount) // C.8
		if err != nil {
			r.overflow = true
			return
		}
		r.settled = sum
		r.payments++
		r.counted[i] = true
	}
}

// decide is step D: the first rule that applies gives the status.
//
//  1. conflict → CONFLICT
//  2. no debt (including ambiguous) or nothing counted → UNKNOWN
//  3. settled > debt → CONFLICT
//  4. settled = debt → UNKNOWN if a duplicate or related payment was seen,
//     else SUPPORTED
//  5. settled > 0 → PARTIAL, else UNKNOWN
func (r *reasoner) decide() Status {
	debt := r.debtEvent()
	switch {
	case r.conflict():
		return Conflict
	case debt == nil || r.payments == 0:
		return Unknown
	}
	switch r.settled.Cmp(debt.Amount) {
	case 1:
		return Conflict
	case 0:
		if r.dup || r.related {
			return Unknown
		}
		return Supported
	}
	if r.settled.Num > 0 {
		return Partial
	}
	return Unknown
}
