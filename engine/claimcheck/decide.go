package claimcheck

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// The rules (README.md §3.1 in this directory).
const (
	RuleStatus     = "chronicle.settlement.status"
	RuleSettled    = "chronicle.settlement.settled"
	RuleDebt       = "chronicle.settlement.debt"
	RuleCurrency   = "chronicle.settlement.currency"
	RuleClaim      = "chronicle.claim.status"
	RuleFindLines  = "chronicle.find.lines"
	predicateLines = "matching-lines"
)

// rule is one row of the rule table.
type rule struct {
	fits      ResultKind
	predicate string
	numeric   bool // numeric leniency applies (rule 9)
	// value is the archive value, ok false when the archive has none
	// (rule 6).
	value func(a *Answer) (claimrow.Value, bool)
	// conflictBlind: on a CONFLICT settlement the value is not the
	// archive's answer (rule 7).
	conflictBlind bool
}

var rules = map[string]rule{
	RuleStatus: {fits: SettlementResult, predicate: "settlement-status",
		value: func(a *Answer) (claimrow.Value, bool) { return claimrow.StringValue(a.Status), true }},
	RuleSettled: {fits: SettlementResult, predicate: "settled", numeric: true, conflictBlind: true,
		value: func(a *Answer) (claimrow.Value, bool) { return claimrow.StringValue(reduced(a.Settled)), true }},
	RuleDebt: {fits: SettlementResult, predicate: "debt", numeric: true, conflictBlind: true,
		value: func(a *Answer) (claimrow.Value, bool) { return claimrow.StringValue(reduced(a.Debt.Amount)), true }},
	RuleCurrency: {fits: SettlementResult, predicate: "debt-currency", conflictBlind: true,
		value: func(a *Answer) (claimrow.Value, bool) { return claimrow.StringValue(a.Debt.Currency), true }},
	RuleClaim: {fits: LiteralResult, predicate: "stated",
		value: func(a *Answer) (claimrow.Value, bool) {
			return claimrow.StringValue(a.Status), a.Status != string(settle.Unresolved)
		}},
	RuleFindLines: {fits: FindResult, predicate: predicateLines, numeric: true,
		value: func(a *Answer) (claimrow.Value, bool) { return claimrow.IntValue(a.Lines), true }},
}

// Rules lists the rule names, for help and completion.
func Rules() []string {
	return []string{RuleStatus, RuleSettled, RuleDebt, RuleCurrency, RuleClaim, RuleFindLines}
}

// Answer is what the archive answered for one result line.
type Answer struct {
	Found    bool   // the document resolved; false: unknown or ambiguous
	Document string // SHA-256 hex of the document
	Receipt  string // ID (hex) of the archive receipt issued for the result
	Kind     ResultKind
	Question string

	// Settlement: Status, and Debt when one debt was selected.
	Status  string
	Debt    *settle.Debt
	Settled engine.Rational
	// Literal claim: the statement's fields (and Status).
	Subject, Predicate, Object string
	// Find: the total of matching lines.
	Lines int64
}

// SettlementAnswer is the Answer of a settlement result.
func SettlementAnswer(s *settle.Settlement) *Answer {
	return &Answer{Found: true, Kind: SettlementResult, Question: s.Question, Status: string(s.Status), Debt: s.Debt, Settled: s.Settled}
}

// ClaimAnswer is the Answer of a literal claim result.
func ClaimAnswer(c *settle.Claim) *Answer {
	return &Answer{Found: true, Kind: LiteralResult, Question: c.Question, Status: string(c.Status),
		Subject: c.Subject, Predicate: c.Predicate, Object: c.Object}
}

// FindAnswer is the Answer of a find result.
func FindAnswer(r *find.Result) *Answer {
	return &Answer{Found: true, Kind: FindResult, Question: r.Query, Lines: int64(r.TotalMatchingLines)}
}

// subjectID is the entity a rule's value is about (README.md §3.1).
func (a *Answer) subjectID() string {
	enc := claimrow.EncodeIdentityField
	switch a.Kind {
	case SettlementResult:
		return "debt/" + enc(a.Debt.Borrower) + "/" + enc(a.Debt.Lender)
	case LiteralResult:
		return "statement/" + enc(a.Subject) + "/" + enc(a.Predicate) + "/" + enc(a.Object)
	}
	return "terms/" + enc(a.Question)
}

// Decide applies the outcome table (README.md §3.2) to claim c of file f, with
// answers holding the Answer of each result ordinal (nil or missing when
// the result was not resolved). The row always passes claimrow.ReadRow: a
// compared row that would break one of its bounds is unverified /
// malformed-check instead.
func Decide(f *File, c *ClaimLine, answers map[int64]*Answer) (*claimrow.Row, error) {
	row := &claimrow.Row{
		Claim:      claimrow.Identity{Namespace: f.Namespace, RunID: f.RunID, Ordinal: c.Ordinal},
		DeclaredOn: c.DeclaredOn, Standing: c.Standing, Iteration: c.Iteration, Turn: c.Turn,
		DeclaredRule: c.DeclaredRule, DeclaredValue: c.DeclaredValue, Outcome: claimrow.Unverified,
	}
	var result *ResultLine
	if c.DeclaredResult != 0 {
		result = f.Result(c.DeclaredResult)
		id, err := claimrow.ResultID(claimrow.Identity{Namespace: f.Namespace, RunID: f.RunID, Ordinal: c.DeclaredResult})
		if err != nil {
			return nil, err
		}
		row.DeclaredResult = id
	}
	r, known := rules[c.DeclaredRule]
	answer := answers[c.DeclaredResult]
	switch {
	case c.Standing == "noise":
		row.Reason = claimrow.IneligibleNoise
	case c.DeclaredRule == "":
		row.Reason = claimrow.MissingCheck
	case !known || (result != nil && r.fits != result.Kind) || !claimrow.Comparable(c.DeclaredValue):
		row.Reason = claimrow.MalformedCheck
	case result == nil || answer == nil || !answer.Found:
		row.Reason = claimrow.MissingResult
	case c.Standing != "fact":
		row.Reason = claimrow.NotAsserted
	case answer.Kind != result.Kind:
		// The caller's error: without it a settlement answer on a find or
		// literal line dereferenced its nil Debt.
		return nil, fmt.Errorf("claimcheck: result %d is %s, its answer %s", c.DeclaredResult, describeKind(result.Kind), describeKind(answer.Kind))
	case r.fits == SettlementResult && (answer.Status == string(settle.Unknown) || answer.Debt == nil):
		row.Reason = claimrow.UnresolvedResult
	case r.conflictBlind && answer.Status == string(settle.Conflict):
		row.Reason = claimrow.EvidenceConflict
	default:
		if err := validRationals(c.DeclaredRule, answer); err != nil {
			return nil, fmt.Errorf("claimcheck: result %d: %w", c.DeclaredResult, err)
		}
		value, ok := r.value(answer)
		if !ok {
			row.Reason = claimrow.UnresolvedResult
			break
		}
		row.Outcome, row.Reason = compare(c.DeclaredValue, value, r.numeric)
		row.Resolved = &claimrow.Resolved{Document: answer.Document, Question: answer.Question, Receipt: answer.Receipt,
			SubjectID: answer.subjectID(), Predicate: r.predicate, Value: value}
		if _, err := row.JSON(); err != nil {
			row.Outcome, row.Reason, row.Resolved = claimrow.Unverified, claimrow.MalformedCheck, nil
		}
	}
	if _, err := row.JSON(); err != nil {
		return nil, err
	}
	return row, nil
}

// describeKind names a result kind for an error ("a find").
func describeKind(k ResultKind) string {
	if k < SettlementResult || k > FindResult {
		return fmt.Sprintf("of kind %d", k)
	}
	return "a " + k.String()
}

// validRationals refuses the zero-value Rational (0/0) that reduced would
// panic on, in the amount the rule reads.
func validRationals(rule string, a *Answer) error {
	x, name := a.Settled, "settled"
	switch rule {
	case RuleDebt:
		x, name = a.Debt.Amount, "debt"
	case RuleSettled:
	default:
		return nil
	}
	if x.Den == 0 {
		return fmt.Errorf("%s %d/%d is not a rational (zero denominator)", name, x.Num, x.Den)
	}
	return nil
}

// compare is rules 8 to 10.
func compare(declared, archive claimrow.Value, numeric bool) (outcome, reason string) {
	if string(claimrow.Canonical(declared)) == string(claimrow.Canonical(archive)) {
		return claimrow.Supported, claimrow.NoConflict
	}
	if numeric {
		d, ok1 := exact(declared)
		a, ok2 := exact(archive)
		if ok1 && ok2 && d.Cmp(a) == 0 {
			return claimrow.Supported, claimrow.NumericLeniency
		}
	}
	return claimrow.Contradicted, claimrow.Conflict
}

var numberPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?[0-9]+(?:\.[0-9]+|/[0-9]+)?$`) })

// exact reads a number exactly: an integer, or a string holding an
// integer, a decimal or an N/D fraction (D > 0), all in base 10 (leading
// zeros are decimal, never octal). Anything else is not a number, so it is
// never leniently equal to one.
func exact(v claimrow.Value) (*big.Rat, bool) {
	switch v.Kind {
	case claimrow.Int:
		return new(big.Rat).SetInt64(v.Int), true
	case claimrow.String:
		if !numberPattern().MatchString(v.Str) {
			return nil, false
		}
	default:
		return nil, false
	}
	s, neg := strings.CutPrefix(v.Str, "-")
	digits := func(s string) *big.Int { n, _ := new(big.Int).SetString(s, 10); return n }
	var r *big.Rat
	if whole, frac, ok := strings.Cut(s, "."); ok {
		den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
		num := new(big.Int).Add(new(big.Int).Mul(digits(whole), den), digits(frac))
		r = new(big.Rat).SetFrac(num, den)
	} else if num, den, ok := strings.Cut(s, "/"); ok {
		d := digits(den)
		if d.Sign() == 0 {
			return nil, false
		}
		r = new(big.Rat).SetFrac(digits(num), d)
	} else {
		r = new(big.Rat).SetInt(digits(s))
	}
	if neg {
		r.Neg(r)
	}
	return r, true
}

// reduced renders a rational in lowest terms as "N/D".
func reduced(r engine.Rational) string {
	x := big.NewRat(r.Num, r.Den)
	return x.Num().String() + "/" + strconv.FormatInt(x.Denom().Int64(), 10)
}
