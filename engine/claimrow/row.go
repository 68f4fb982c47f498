package claimrow

// Outcomes and reasons of a row (engine/claimcheck/README.md §3.2).
const (
	Supported    = "supported"
	Contradicted = "contradicted"
	Unverified   = "unverified"

	NoConflict       = "no-conflict"
	NumericLeniency  = "numeric-leniency"
	Conflict         = "conflict"
	MissingCheck     = "missing-check"
	MalformedCheck   = "malformed-check"
	IneligibleNoise  = "ineligible-noise"
	MissingResult    = "missing-result"
	UnresolvedResult = "unresolved-result"
	EvidenceConflict = "evidence-conflict"
	NotAsserted      = "not-asserted"
)

// CheckerID and CheckerVersion name the checker in every row.
const (
	CheckerID      = "claim-pair"
	CheckerVersion = 1
	RuleVersion    = "1"
)

// Row is a claim-verification row as Chronicle's checker writes it.
type Row struct {
	Claim          Identity
	DeclaredOn     Value // "answer" or {"toolCallId": text}
	Standing       string
	Iteration      int64
	Turn           int64  // 0 when the claim gave none
	DeclaredResult string // result identity; "" when the claim gave none
	DeclaredRule   string // "" when the claim gave none
	DeclaredValue  Value
	Outcome        string
	Reason         string
	Resolved       *Resolved // compared rows only
}

// Resolved is the resolved block of a compared row: the archive's side of
// the comparison and where it came from.
type Resolved struct {
	Document  string // SHA-256 hex of the result's document
	Question  string // the question, or the find terms
	Receipt   string // ID of the archive receipt of the result
	SubjectID string
	Predicate string
	Value     Value // the archive value
}

// Value builds the row's JSON value; Canonical of it is the row's bytes.
func (r *Row) Value() (Value, error) {
	claimID, err := ClaimID(r.Claim)
	if err != nil {
		return Value{}, err
	}
	m := []Member{
		{"kind", StringValue("claim-verification")},
		{"claimId", StringValue(claimID)},
		{"declaredOn", r.DeclaredOn},
		{"standing", StringValue(r.Standing)},
		{"iteration", IntValue(r.Iteration)},
		{"checker", ObjectValue(Member{"id", StringValue(CheckerID)}, Member{"version", IntValue(CheckerVersion)})},
		{"declaredValue", r.DeclaredValue},
		{"outcome", StringValue(r.Outcome)},
		{"reason", StringValue(r.Reason)},
	}
	if r.Turn != 0 {
		m = append(m, Member{"turn", IntValue(r.Turn)})
	}
	if r.DeclaredResult != "" {
		m = append(m, Member{"declaredResult", StringValue(r.DeclaredResult)})
	}
	if r.DeclaredRule != "" {
		m = append(m, Member{"declaredRule", StringValue(r.DeclaredRule)})
	}
	if res := r.Resolved; res != nil {
		subject := ObjectValue(Member{"kind", StringValue("entity")}, Member{"id", StringValue(res.SubjectID)})
		assertion := func(v Value, provenance string) Value {
			return ObjectValue(Member{"subject", subject}, Member{"predicate", StringValue(res.Predicate)},
				Member{"value", v}, Member{"stratum", StringValue("asserted")}, Member{"provenance", StringValue(provenance)})
		}
		m = append(m, Member{"resolved", ObjectValue(
			Member{"resultId", StringValue(r.DeclaredResult)},
			Member{"rule", ObjectValue(Member{"id", StringValue(r.DeclaredRule)}, Member{"version", StringValue(RuleVersion)})},
			Member{"scope", ObjectValue(Member{"document", StringValue(res.Document)},
				Member{"question", StringValue(res.Question)}, Member{"receipt", StringValue(res.Receipt)})},
			Member{"coverage", ObjectValue(Member{"checked", ArrayValue(StringValue("document " + res.Document))})},
			Member{"evidence", assertion(res.Value, "result "+r.DeclaredResult)},
			Member{"claim", assertion(r.DeclaredValue, "rule "+r.DeclaredRule)},
		)})
	}
	return ObjectValue(m...), nil
}

// JSON returns the row's canonical bytes after holding them to the reader:
// a row Chronicle writes always passes ReadRow.
func (r *Row) JSON() ([]byte, error) {
	v, err := r.Value()
	if err != nil {
		return nil, err
	}
	b := Canonical(v)
	if _, err := ReadRow(b); err != nil {
		return nil, err
	}
	return b, nil
}
