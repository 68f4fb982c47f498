package claimcheck

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// Fixed hex strings for the document SHA-256 and the receipt ID of every
// answer: Decide copies them, it never computes them.
const (
	docHex     = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	receiptHex = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
)

// rec builds one typed record line from its nine fields (CONTRACT 7.2).
func rec(fields ...string) string {
	if len(fields) != 9 {
		panic("rec needs nine fields")
	}
	return "@chronicle\t" + strings.Join(fields, "\t")
}

func borrowed(b, l, amount, cur string) string {
	return rec(b, engine.PredBorrowedFrom, l, amount, cur, "T1", "ASSERTED", "POSITIVE", "CONFIRMED")
}

func paid(p, to, amount, cur string) string {
	return rec(p, engine.PredPaidTo, to, amount, cur, "T2", "ASSERTED", "POSITIVE", "CONFIRMED")
}

// documents are the sources the decide tests answer on, by document name.
var documents = map[string][]string{
	// testdata/samples/alice-bob-en.txt: PARTIAL, 40/1 of 100/1 SAR.
	"alice": {
		"Opening prose about Alice and Bob.",
		"@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED",
		"Unrelated narrative line.",
		"@chronicle\tSaud\tINTERMEDIARY_FOR\tBob\t-\tSAR\tT2\tASSERTED\tPOSITIVE\tCONFIRMED",
		"@chronicle\tAlice\tPAID_TO\tSaud\t40\tSAR\tT3\tASSERTED\tPOSITIVE\tCONFIRMED",
		"@chronicle\tAlice\tTRANSFER_TO\tSaud\t60\tSAR\tT4\tUNCERTAIN\tPOSITIVE\tPENDING",
		"Closing line mentions Alice again.",
	},
	"supported": {borrowed("A", "B", "100", "SAR"), paid("A", "B", "100", "SAR")},
	// Reduced rationals, and a currency that reads like a number.
	"thirds": {borrowed("A", "B", "4/6", "840"), paid("A", "B", "2/6", "840")},
	// Overpaid: CONFLICT with the debt selected.
	"over": {borrowed("A", "B", "100", "SAR"), paid("A", "B", "150", "SAR")},
	// An established opposite record: CONFLICT, nothing counted.
	"contradicted": {borrowed("A", "B", "100", "SAR"),
		rec("A", engine.PredBorrowedFrom, "B", "100", "SAR", "T1", "ASSERTED", "NEGATIVE", "CONFIRMED"),
		paid("A", "B", "100", "SAR")},
	// UNKNOWN with the debt selected.
	"unpaid": {borrowed("A", "B", "100", "SAR")},
	"zero":   {borrowed("A", "B", "0", "SAR")},
	// Two different debts: UNKNOWN, no debt selected.
	"twodebts": {borrowed("A", "B", "100", "SAR"), borrowed("A", "B", "200", "SAR"), paid("A", "B", "100", "SAR")},
	"literal":  {"Alice owns Book.", "Bob owns Car.", "Alice owns Book.", "a/b owns 100%.", "_ owns x_y."},
	"lines":    {"line1 alpha", "line2 alpha beta", "line3 gamma", "line4 alpha", "a/b _ % x_y"},
	// Names that need identity encoding.
	"names": {borrowed("a/b", "_", "5", "SAR"), paid("a/b", "_", "5", "SAR"),
		borrowed("50%", "x%y", "7", "SAR"), paid("50%", "x%y", "7", "SAR")},
	// A currency the row protocol treats specially.
	"unknowncur": {borrowed("A", "B", "100", "unknown"), paid("A", "B", "100", "unknown")},
	// No currency: never settled (CONTRACT 9), UNKNOWN with the debt selected.
	"nocur": {borrowed("G", "H", "10", "-"), paid("G", "H", "10", "-")},
}

// Document names that resolve to no store (missing-result).
const (
	unknownDoc   = "no-such-document"
	ambiguousDoc = "ambiguous-prefix" // resolves, but to several documents
)

func newStore(t testing.TB, lines []string) *engine.Store {
	t.Helper()
	s, err := engine.NewStore([]byte(strings.Join(lines, "\n")+"\n"), 0)
	require.NoError(t, err)
	return s
}

// answer evaluates a result line on a store the way the archive does and
// fills the document and receipt with the fixed hex strings.
func answer(t testing.TB, s *engine.Store, line *ResultLine) *Answer {
	t.Helper()
	var a *Answer
	if line.Kind == FindResult {
		r, err := find.Search(s, line.Question)
		require.NoError(t, err)
		a = FindAnswer(r)
	} else {
		res, err := settle.Evaluate(s, line.Question)
		require.NoError(t, err)
		switch r := res.(type) {
		case *settle.Settlement:
			a = SettlementAnswer(r)
		case *settle.Claim:
			a = ClaimAnswer(r)
		}
	}
	require.NotNil(t, a)
	require.Equal(t, line.Kind, a.Kind, "the answer has the kind of its line")
	a.Document, a.Receipt = docHex, receiptHex
	return a
}

// answers answers every result line of f whose document is in documents.
func answers(t testing.TB, f *File) map[int64]*Answer {
	t.Helper()
	out := map[int64]*Answer{}
	for _, r := range f.Results {
		switch src, ok := documents[r.Document]; {
		case ok:
			out[r.Ordinal] = answer(t, newStore(t, src), r)
		case r.Document == ambiguousDoc:
			out[r.Ordinal] = &Answer{Found: false, Kind: r.Kind, Question: r.Question}
		}
	}
	return out
}

// TestDocuments pins what the test documents answer, so that a failing
// outcome below points at Decide, not at a document.
func TestDocuments(t *testing.T) {
	settlement := func(doc, q string) *settle.Settlement {
		res, err := settle.Evaluate(newStore(t, documents[doc]), q)
		require.NoError(t, err)
		return res.(*settle.Settlement)
	}
	tests := []struct {
		doc, question, status, debt, settled string
	}{
		{"alice", "Did Alice repay Bob?", "PARTIAL", "100/1 SAR Alice Bob", "40/1"},
		{"supported", "A B", "SUPPORTED", "100/1 SAR A B", "100/1"},
		{"supported", "B A", "UNKNOWN", "", "0/1"},
		{"thirds", "A B", "PARTIAL", "2/3 840 A B", "1/3"},
		{"over", "A B", "CONFLICT", "100/1 SAR A B", "150/1"},
		{"contradicted", "A B", "CONFLICT", "100/1 SAR A B", "0/1"},
		{"unpaid", "A B", "UNKNOWN", "100/1 SAR A B", "0/1"},
		{"zero", "A B", "UNKNOWN", "0/1 SAR A B", "0/1"},
		{"twodebts", "A B", "UNKNOWN", "", "0/1"},
		{"names", "a/b _", "SUPPORTED", "5/1 SAR a/b _", "5/1"},
		{"names", "@settlement\t50%\tx%y", "SUPPORTED", "7/1 SAR 50% x%y", "7/1"},
		{"unknowncur", "A B", "SUPPORTED", "100/1 unknown A B", "100/1"},
		{"nocur", "G H", "UNKNOWN", "10/1 - G H", "0/1"},
	}
	for _, tc := range tests {
		t.Run(tc.doc+"/"+tc.question, func(t *testing.T) {
			s := settlement(tc.doc, tc.question)
			require.Equal(t, tc.status, string(s.Status))
			debt := ""
			if s.Debt != nil {
				debt = fmt.Sprintf("%s %s %s %s", s.Debt.Amount, s.Debt.Currency, s.Debt.Borrower, s.Debt.Lender)
			}
			require.Equal(t, tc.debt, debt)
			require.Equal(t, tc.settled, s.Settled.String())
		})
	}
	claim, err := settle.Evaluate(newStore(t, documents["literal"]), "@claim\tAlice\towns\tBook")
	require.NoError(t, err)
	require.Equal(t, settle.ExactStated, claim.ResultStatus())
	claim, err = settle.Evaluate(newStore(t, documents["literal"]), "@claim\tAlice\towns\tCar")
	require.NoError(t, err)
	require.Equal(t, settle.Unresolved, claim.ResultStatus())
	r, err := find.Search(newStore(t, documents["lines"]), "alpha")
	require.NoError(t, err)
	require.Equal(t, 3, r.TotalMatchingLines)
}

// resolvedWant is the archive side of a compared row.
type resolvedWant struct {
	question  string // the scope question
	subject   string // the subject id
	predicate string
	archive   string // the archive value, canonical JSON
}

// rowWant describes a row; rowJSON writes it as canonical JSON, key by
// key, independently of claimrow.Row.
type rowWant struct {
	ordinal   int64
	on        string // declaredOn, canonical JSON
	standing  string
	iteration int64
	turn      int64
	result    int64 // declaredResult ordinal, 0 for none
	rule      string
	value     string // declaredValue, canonical JSON
	outcome   string
	reason    string
	resolved  *resolvedWant
}

func rowJSON(w rowWant) string {
	resultID := fmt.Sprintf("claim-result/NS/RUN/%d", w.result)
	var b strings.Builder
	fmt.Fprintf(&b, `{"checker":{"id":"claim-pair","version":1},"claimId":"claim-verification/NS/RUN/%d","declaredOn":%s`, w.ordinal, w.on)
	if w.result != 0 {
		fmt.Fprintf(&b, `,"declaredResult":%q`, resultID)
	}
	if w.rule != "" {
		fmt.Fprintf(&b, `,"declaredRule":%s`, jsonString(w.rule))
	}
	fmt.Fprintf(&b, `,"declaredValue":%s,"iteration":%d,"kind":"claim-verification","outcome":%q,"reason":%q`,
		w.value, w.iteration, w.outcome, w.reason)
	if r := w.resolved; r != nil {
		subject := fmt.Sprintf(`{"id":%s,"kind":"entity"}`, jsonString(r.subject))
		assertion := func(provenance, value string) string {
			return fmt.Sprintf(`{"predicate":%s,"provenance":%s,"stratum":"asserted","subject":%s,"value":%s}`,
				jsonString(r.predicate), jsonString(provenance), subject, value)
		}
		fmt.Fprintf(&b, `,"resolved":{"claim":%s,"coverage":{"checked":["document %s"]},"evidence":%s,"resultId":%q,"rule":{"id":%s,"version":"1"},"scope":{"document":%q,"question":%s,"receipt":%q}}`,
			assertion("rule "+w.rule, w.value), docHex, assertion("result "+resultID, r.archive), resultID,
			jsonString(w.rule), docHex, jsonString(r.question), receiptHex)
	}
	fmt.Fprintf(&b, `,"standing":%q`, w.standing)
	if w.turn != 0 {
		fmt.Fprintf(&b, `,"turn":%d`, w.turn)
	}
	b.WriteString("}")
	return b.String()
}

// decideRow decides claim c and returns the row's bytes after checking
// that they pass the saved-row reader and that deciding again gives the
// same bytes.
func decideRow(t *testing.T, f *File, c *ClaimLine, ans map[int64]*Answer) string {
	t.Helper()
	row, err := Decide(f, c, ans)
	require.NoError(t, err)
	b, err := row.JSON()
	require.NoError(t, err)
	_, err = claimrow.ReadRow(b)
	require.NoError(t, err, "the row passes the saved-row reader: %s", b)
	again, err := Decide(f, c, ans)
	require.NoError(t, err)
	b2, err := again.JSON()
	require.NoError(t, err)
	require.Equal(t, string(b), string(b2), "Decide is deterministic")
	return string(b)
}

// decideCase is one claim on one result line (ordinal 1) of a document.
type decideCase struct {
	name     string
	doc      string // document name of the result line
	query    string // the result line's query, or
	find     string // its find terms
	standing string // default fact
	rule     string // "" for none
	value    string // declaredValue, canonical JSON
	noResult bool   // the claim has no declaredResult
	outcome  string // default unverified
	reason   string
	// Compared rows: the subject id, predicate and archive value (the
	// scope question is the result line's).
	subject, predicate, archive string
}

func runDecideCases(t *testing.T, tests []decideCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			standing := tc.standing
			if standing == "" {
				standing = "fact"
			}
			result := fmt.Sprintf(`{"result":1,"document":%s,"query":%s}`, jsonString(tc.doc), jsonString(tc.query))
			question := tc.query
			if tc.find != "" {
				result = fmt.Sprintf(`{"result":1,"document":%s,"find":%s}`, jsonString(tc.doc), jsonString(tc.find))
				question = tc.find
			}
			claim := fmt.Sprintf(`{"claim":1,"standing":%q,"iteration":0,"declaredOn":"answer","declaredValue":%s`, standing, tc.value)
			if !tc.noResult {
				claim += `,"declaredResult":1`
			}
			if tc.rule != "" {
				claim += `,"declaredRule":` + jsonString(tc.rule)
			}
			claim += "}"
			f, err := ParseFile(lines(header, result, claim))
			require.NoError(t, err)
			w := rowWant{ordinal: 1, on: `"answer"`, standing: standing, rule: tc.rule, value: tc.value,
				outcome: tc.outcome, reason: tc.reason}
			if w.outcome == "" {
				w.outcome = claimrow.Unverified
			}
			if !tc.noResult {
				w.result = 1
			}
			if tc.subject != "" {
				w.resolved = &resolvedWant{question: question, subject: tc.subject, predicate: tc.predicate, archive: tc.archive}
			}
			require.Equal(t, rowJSON(w), decideRow(t, f, f.Claims[0], answers(t, f)))
		})
	}
}

const (
	supported    = claimrow.Supported
	contradicted = claimrow.Contradicted
)

// TestDecidePrecedence walks the outcome table (README.md §3.2) in order: each
// case meets the conditions of a later rule too, and the first one wins.
func TestDecidePrecedence(t *testing.T) {
	const q = "A B" // SUPPORTED on "supported"
	runDecideCases(t, []decideCase{
		// 1: noise.
		{name: "1 noise without rule or result", doc: "supported", query: q, standing: "noise", value: `"SUPPORTED"`, noResult: true,
			reason: claimrow.IneligibleNoise},
		{name: "1 noise with a rule that would be supported", doc: "supported", query: q, standing: "noise", rule: RuleStatus, value: `"SUPPORTED"`,
			reason: claimrow.IneligibleNoise},
		{name: "1 noise before malformed-check and missing-result", doc: unknownDoc, query: q, standing: "noise", rule: "made.up", value: `null`,
			reason: claimrow.IneligibleNoise},
		// 2: no rule.
		{name: "2 no rule and no result", doc: "supported", query: q, value: `"SUPPORTED"`, noResult: true, reason: claimrow.MissingCheck},
		{name: "2 no rule with a result", doc: "supported", query: q, value: `"SUPPORTED"`, reason: claimrow.MissingCheck},
		{name: "2 no rule before an uncomparable value", doc: "supported", query: q, value: `null`, reason: claimrow.MissingCheck},
		{name: "2 no rule before not-asserted", doc: "supported", query: q, standing: "open", value: `1`, reason: claimrow.MissingCheck},
		{name: "2 no rule on an unknown document", doc: unknownDoc, query: q, standing: "ruled-out", value: `1`, reason: claimrow.MissingCheck},
		// 3: malformed check.
		{name: "3 unknown rule without result", doc: "supported", query: q, rule: "chronicle.settlement.amount", value: `100`, noResult: true,
			reason: claimrow.MalformedCheck},
		{name: "3 unknown rule with a result", doc: "supported", query: q, rule: "chronicle.settlement.amount", value: `100`,
			reason: claimrow.MalformedCheck},
		{name: "3 rule names are case-sensitive", doc: "supported", query: q, rule: "Chronicle.settlement.status", value: `"SUPPORTED"`,
			reason: claimrow.MalformedCheck},
		{name: "3 rule with a trailing space", doc: "supported", query: q, rule: RuleStatus + " ", value: `"SUPPORTED"`,
			reason: claimrow.MalformedCheck},
		{name: "3 find rule on a settlement query", doc: "supported", query: q, rule: RuleFindLines, value: `1`, reason: claimrow.MalformedCheck},
		{name: "3 claim rule on a settlement query", doc: "supported", query: q, rule: RuleClaim, value: `"EXACT_STATED"`, reason: claimrow.MalformedCheck},
		{name: "3 settlement rule on a find", doc: "lines", find: "alpha", rule: RuleStatus, value: `"SUPPORTED"`, reason: claimrow.MalformedCheck},
		{name: "3 settled rule on a literal claim", doc: "literal", query: "@claim\tAlice\towns\tBook", rule: RuleSettled, value: `"0/1"`,
			reason: claimrow.MalformedCheck},
		{name: "3 find rule on a literal claim", doc: "literal", query: "@claim\tAlice\towns\tBook", rule: RuleFindLines, value: `2`,
			reason: claimrow.MalformedCheck},
		{name: "3 claim rule on a find", doc: "lines", find: "alpha", rule: RuleClaim, value: `"EXACT_STATED"`, reason: claimrow.MalformedCheck},
		{name: "3 a kind mismatch is judged from the line, even on an unknown document", doc: unknownDoc, query: q, rule: RuleFindLines, value: `1`,
			reason: claimrow.MalformedCheck},
		{name: "3 declaredValue null", doc: "supported", query: q, rule: RuleStatus, value: `null`, reason: claimrow.MalformedCheck},
		{name: "3 declaredValue unknown", doc: "supported", query: q, rule: RuleStatus, value: `"unknown"`, reason: claimrow.MalformedCheck},
		{name: "3 declaredValue array", doc: "supported", query: q, rule: RuleSettled, value: `[100]`, reason: claimrow.MalformedCheck},
		{name: "3 declaredValue empty array", doc: "supported", query: q, rule: RuleSettled, value: `[]`, reason: claimrow.MalformedCheck},
		{name: "3 declaredValue object", doc: "supported", query: q, rule: RuleSettled, value: `{"den":1,"num":100}`, reason: claimrow.MalformedCheck},
		{name: "3 declaredValue empty object", doc: "supported", query: q, rule: RuleSettled, value: `{}`, reason: claimrow.MalformedCheck},
		{name: "3 declaredValue kind unknown", doc: "supported", query: q, rule: RuleSettled, value: `{"kind":"unknown"}`, reason: claimrow.MalformedCheck},
		{name: "3 declaredValue kind not-applicable", doc: "supported", query: q, rule: RuleSettled, value: `{"kind":"not-applicable"}`,
			reason: claimrow.MalformedCheck},
		{name: "3 uncomparable value before missing-result", doc: unknownDoc, query: q, rule: RuleStatus, value: `null`, reason: claimrow.MalformedCheck},
		{name: "3 uncomparable value without result", doc: "supported", query: q, rule: RuleStatus, value: `"unknown"`, noResult: true,
			reason: claimrow.MalformedCheck},
		{name: "3 unknown rule before not-asserted", doc: "supported", query: q, standing: "open", rule: "x", value: `1`, reason: claimrow.MalformedCheck},
		{name: "3 uncomparable value before unresolved-result", doc: "unpaid", query: q, rule: RuleSettled, value: `null`, reason: claimrow.MalformedCheck},
		{name: "3 uncomparable value before evidence-conflict", doc: "over", query: q, rule: RuleDebt, value: `[]`, reason: claimrow.MalformedCheck},
		// 4: missing result.
		{name: "4 no declaredResult", doc: "supported", query: q, rule: RuleStatus, value: `"SUPPORTED"`, noResult: true, reason: claimrow.MissingResult},
		{name: "4 unknown document", doc: unknownDoc, query: q, rule: RuleStatus, value: `"SUPPORTED"`, reason: claimrow.MissingResult},
		{name: "4 ambiguous document", doc: ambiguousDoc, query: q, rule: RuleStatus, value: `"SUPPORTED"`, reason: claimrow.MissingResult},
		{name: "4 unknown document of a find", doc: unknownDoc, find: "alpha", rule: RuleFindLines, value: `3`, reason: claimrow.MissingResult},
		{name: "4 unknown document of a literal claim", doc: unknownDoc, query: "@claim\tAlice\towns\tBook", rule: RuleClaim, value: `"EXACT_STATED"`,
			reason: claimrow.MissingResult},
		{name: "4 missing result before not-asserted", doc: "supported", query: q, standing: "open", rule: RuleStatus, value: `"SUPPORTED"`,
			noResult: true, reason: claimrow.MissingResult},
		{name: "4 unknown document before not-asserted", doc: unknownDoc, query: q, standing: "ruled-out", rule: RuleStatus, value: `"SUPPORTED"`,
			reason: claimrow.MissingResult},
		// 5: not asserted.
		{name: "5 open", doc: "supported", query: q, standing: "open", rule: RuleStatus, value: `"SUPPORTED"`, reason: claimrow.NotAsserted},
		{name: "5 ruled-out", doc: "supported", query: q, standing: "ruled-out", rule: RuleStatus, value: `"PARTIAL"`, reason: claimrow.NotAsserted},
		{name: "5 open before unresolved-result", doc: "unpaid", query: q, standing: "open", rule: RuleSettled, value: `0`, reason: claimrow.NotAsserted},
		{name: "5 ruled-out before evidence-conflict", doc: "over", query: q, standing: "ruled-out", rule: RuleSettled, value: `150`,
			reason: claimrow.NotAsserted},
		{name: "5 open on a find", doc: "lines", find: "alpha", standing: "open", rule: RuleFindLines, value: `3`, reason: claimrow.NotAsserted},
		{name: "5 ruled-out on a literal claim", doc: "literal", query: "@claim\tAlice\towns\tCar", standing: "ruled-out", rule: RuleClaim,
			value: `"EXACT_STATED"`, reason: claimrow.NotAsserted},
	})
}

// TestDecideUnresolved is rule 6: the archive has no value.
func TestDecideUnresolved(t *testing.T) {
	var tests []decideCase
	for _, rule := range []string{RuleStatus, RuleSettled, RuleDebt, RuleCurrency} {
		for _, x := range []struct{ name, doc, q, value string }{
			{"status UNKNOWN, debt selected", "unpaid", "A B", `"UNKNOWN"`},
			{"status UNKNOWN, zero debt", "zero", "A B", `"0/1"`},
			{"no debt selected: reversed roles", "supported", "B A", `"SUPPORTED"`},
			{"no debt selected: unrelated question", "supported", "Did Carol repay Dan?", `100`},
			{"no debt selected: two debts", "twodebts", "A B", `"SAR"`},
			{"no debt selected: the empty selector", "alice", "@settlement\t\t", `"40/1"`},
			{"status UNKNOWN, a debt in currency -", "nocur", "G H", `"-"`},
		} {
			tests = append(tests, decideCase{name: rule + "/" + x.name, doc: x.doc, query: x.q, rule: rule, value: x.value,
				reason: claimrow.UnresolvedResult})
		}
	}
	tests = append(tests,
		decideCase{name: "literal UNRESOLVED", doc: "literal", query: "@claim\tAlice\towns\tCar", rule: RuleClaim, value: `"EXACT_STATED"`,
			reason: claimrow.UnresolvedResult},
		decideCase{name: "literal UNRESOLVED, declared UNRESOLVED", doc: "literal", query: "@claim\tAlice\towns\tCar", rule: RuleClaim, value: `"UNRESOLVED"`,
			reason: claimrow.UnresolvedResult},
		decideCase{name: "literal UNRESOLVED on a typed-only document", doc: "supported", query: "@claim\tA\tBORROWED_FROM\tB", rule: RuleClaim,
			value: `"EXACT_STATED"`, reason: claimrow.UnresolvedResult},
		// A find result always has a value: 0 matching lines is compared.
		decideCase{name: "find of no match is compared", doc: "lines", find: "zeta", rule: RuleFindLines, value: `0`,
			outcome: supported, reason: claimrow.NoConflict, subject: "terms/zeta", predicate: "matching-lines", archive: `0`},
	)
	runDecideCases(t, tests)
}

// TestDecideEvidenceConflict is rule 7: CONFLICT makes the settled, debt
// and currency values no answer; the status itself is compared.
func TestDecideEvidenceConflict(t *testing.T) {
	status := func(value, outcome, reason string) decideCase {
		return decideCase{doc: "over", query: "A B", rule: RuleStatus, value: value, outcome: outcome, reason: reason,
			subject: "debt/A/B", predicate: "settlement-status", archive: `"CONFLICT"`}
	}
	tests := []decideCase{
		{name: "overpaid settled", doc: "over", query: "A B", rule: RuleSettled, value: `150`, reason: claimrow.EvidenceConflict},
		{name: "overpaid settled as the archive spells it", doc: "over", query: "A B", rule: RuleSettled, value: `"150/1"`, reason: claimrow.EvidenceConflict},
		{name: "overpaid debt", doc: "over", query: "A B", rule: RuleDebt, value: `"100/1"`, reason: claimrow.EvidenceConflict},
		{name: "overpaid currency", doc: "over", query: "A B", rule: RuleCurrency, value: `"SAR"`, reason: claimrow.EvidenceConflict},
		{name: "contradicted settled", doc: "contradicted", query: "A B", rule: RuleSettled, value: `0`, reason: claimrow.EvidenceConflict},
		{name: "contradicted debt", doc: "contradicted", query: "A B", rule: RuleDebt, value: `"999"`, reason: claimrow.EvidenceConflict},
		{name: "contradicted currency", doc: "contradicted", query: "Did A repay B?", rule: RuleCurrency, value: `true`, reason: claimrow.EvidenceConflict},
	}
	for _, x := range []struct {
		name string
		c    decideCase
	}{
		{"status CONFLICT declared CONFLICT", status(`"CONFLICT"`, supported, claimrow.NoConflict)},
		{"status CONFLICT declared SUPPORTED", status(`"SUPPORTED"`, contradicted, claimrow.Conflict)},
		{"status CONFLICT declared conflict", status(`"conflict"`, contradicted, claimrow.Conflict)},
	} {
		x.c.name = x.name
		tests = append(tests, x.c)
	}
	c := status(`"CONFLICT"`, supported, claimrow.NoConflict)
	c.name, c.doc = "contradicted status compared", "contradicted"
	tests = append(tests, c)
	runDecideCases(t, tests)
}

// TestDecideCompared covers rules 8 to 10 on every rule of the table.
func TestDecideCompared(t *testing.T) {
	const aliceQ = "Did Alice repay Bob?"
	alice := func(rule, predicate, archive, value, outcome, reason string) decideCase {
		return decideCase{doc: "alice", query: aliceQ, rule: rule, value: value, outcome: outcome, reason: reason,
			subject: "debt/Alice/Bob", predicate: predicate, archive: archive}
	}
	settled := func(value, outcome, reason string) decideCase {
		return alice(RuleSettled, "settled", `"40/1"`, value, outcome, reason)
	}
	debt := func(doc, archive, value, outcome, reason string) decideCase {
		return decideCase{doc: doc, query: "A B", rule: RuleDebt, value: value, outcome: outcome, reason: reason,
			subject: "debt/A/B", predicate: "debt", archive: archive}
	}
	lines3 := func(value, outcome, reason string) decideCase {
		return decideCase{doc: "lines", find: "alpha", rule: RuleFindLines, value: value, outcome: outcome, reason: reason,
			subject: "terms/alpha", predicate: "matching-lines", archive: `3`}
	}
	lines0 := func(value, outcome, reason string) decideCase {
		return decideCase{doc: "lines", find: "zeta omega", rule: RuleFindLines, value: value, outcome: outcome, reason: reason,
			subject: "terms/zeta omega", predicate: "matching-lines", archive: `0`}
	}
	literal := func(value, outcome, reason string) decideCase {
		return decideCase{doc: "literal", query: "@claim\tAlice\towns\tBook", rule: RuleClaim, value: value, outcome: outcome, reason: reason,
			subject: "statement/Alice/owns/Book", predicate: "stated", archive: `"EXACT_STATED"`}
	}
	currency := func(doc, q, subject, archive, value, outcome, reason string) decideCase {
		return decideCase{doc: doc, query: q, rule: RuleCurrency, value: value, outcome: outcome, reason: reason,
			subject: subject, predicate: "debt-currency", archive: archive}
	}
	ok, lenient, conflict := claimrow.NoConflict, claimrow.NumericLeniency, claimrow.Conflict
	named := []struct {
		name string
		c    decideCase
	}{
		// status: exact only.
		{"status PARTIAL", alice(RuleStatus, "settlement-status", `"PARTIAL"`, `"PARTIAL"`, supported, ok)},
		{"status SUPPORTED against PARTIAL", alice(RuleStatus, "settlement-status", `"PARTIAL"`, `"SUPPORTED"`, contradicted, conflict)},
		{"status is case-sensitive", alice(RuleStatus, "settlement-status", `"PARTIAL"`, `"partial"`, contradicted, conflict)},
		{"status with a space", alice(RuleStatus, "settlement-status", `"PARTIAL"`, `"PARTIAL "`, contradicted, conflict)},
		{"status Unknown is comparable", alice(RuleStatus, "settlement-status", `"PARTIAL"`, `"Unknown"`, contradicted, conflict)},
		{"status boolean is comparable", alice(RuleStatus, "settlement-status", `"PARTIAL"`, `true`, contradicted, conflict)},
		{"status integer is comparable", alice(RuleStatus, "settlement-status", `"PARTIAL"`, `40`, contradicted, conflict)},
		{"status SUPPORTED", decideCase{doc: "supported", query: "A B", rule: RuleStatus, value: `"SUPPORTED"`, outcome: supported, reason: ok,
			subject: "debt/A/B", predicate: "settlement-status", archive: `"SUPPORTED"`}},
		// settled: numeric.
		{"settled exact", settled(`"40/1"`, supported, ok)},
		{"settled integer 40", settled(`40`, supported, lenient)},
		{"settled string 40", settled(`"40"`, supported, lenient)},
		{"settled 80/2", settled(`"80/2"`, supported, lenient)},
		{"settled 40.0", settled(`"40.0"`, supported, lenient)},
		{"settled 40.000", settled(`"40.000"`, supported, lenient)},
		{"settled 040", settled(`"040"`, supported, lenient)},
		{"settled 0040/001", settled(`"0040/001"`, supported, lenient)},
		{"settled huge fraction", settled(`"4000000000000000000000000000/100000000000000000000000000"`, supported, lenient)},
		{"settled 41", settled(`41`, contradicted, conflict)},
		{"settled 41 as a string", settled(`"41"`, contradicted, conflict)},
		{"settled 40.5", settled(`"40.5"`, contradicted, conflict)},
		{"settled 40/0 is not a number", settled(`"40/0"`, contradicted, conflict)},
		{"settled 0/0 is not a number", settled(`"0/0"`, contradicted, conflict)},
		{"settled 4 0 is not a number", settled(`"4 0"`, contradicted, conflict)},
		{"settled 0x28 is not a number", settled(`"0x28"`, contradicted, conflict)},
		{"settled leading space is not a number", settled(`" 40"`, contradicted, conflict)},
		{"settled trailing space is not a number", settled(`"40 "`, contradicted, conflict)},
		{"settled plus sign is not a number", settled(`"+40"`, contradicted, conflict)},
		{"settled exponent is not a number", settled(`"4e1"`, contradicted, conflict)},
		{"settled bare point is not a number", settled(`"40."`, contradicted, conflict)},
		{"settled decimal fraction is not a number", settled(`"80.0/2"`, contradicted, conflict)},
		{"settled double fraction is not a number", settled(`"80/2/1"`, contradicted, conflict)},
		{"settled Arabic-Indic digits are not a number", settled(`"٤٠"`, contradicted, conflict)},
		{"settled full-width digits are not a number", settled(`"４０"`, contradicted, conflict)},
		{"settled words are not a number", settled(`"forty"`, contradicted, conflict)},
		{"settled with a currency is not a number", settled(`"40 SAR"`, contradicted, conflict)},
		{"settled empty string", settled(`""`, contradicted, conflict)},
		{"settled negative integer", settled(`-40`, contradicted, conflict)},
		{"settled negative string", settled(`"-40"`, contradicted, conflict)},
		{"settled negative fraction", settled(`"-80/2"`, contradicted, conflict)},
		{"settled negative denominator is not a number", settled(`"80/-2"`, contradicted, conflict)},
		{"settled boolean", settled(`true`, contradicted, conflict)},
		{"settled false", settled(`false`, contradicted, conflict)},
		// debt: numeric, reduced rationals.
		{"debt exact", alice(RuleDebt, "debt", `"100/1"`, `"100/1"`, supported, ok)},
		{"debt integer", alice(RuleDebt, "debt", `"100/1"`, `100`, supported, lenient)},
		{"debt 100.00", alice(RuleDebt, "debt", `"100/1"`, `"100.00"`, supported, lenient)},
		{"debt is not settled", alice(RuleDebt, "debt", `"100/1"`, `40`, contradicted, conflict)},
		{"debt reduced 2/3", debt("thirds", `"2/3"`, `"2/3"`, supported, ok)},
		{"debt 4/6 as written in the document", debt("thirds", `"2/3"`, `"4/6"`, supported, lenient)},
		{"debt 0.666 is not 2/3", debt("thirds", `"2/3"`, `"0.666"`, contradicted, conflict)},
		{"debt 3/2 is not 2/3", debt("thirds", `"2/3"`, `"3/2"`, contradicted, conflict)},
		{"debt zero", debt("supported", `"100/1"`, `0`, contradicted, conflict)},
		{"settled reduced 1/3", decideCase{doc: "thirds", query: "A B", rule: RuleSettled, value: `"1/3"`, outcome: supported, reason: ok,
			subject: "debt/A/B", predicate: "settled", archive: `"1/3"`}},
		{"settled 2/6 as written", decideCase{doc: "thirds", query: "A B", rule: RuleSettled, value: `"2/6"`, outcome: supported, reason: lenient,
			subject: "debt/A/B", predicate: "settled", archive: `"1/3"`}},
		{"settled 0.5 is not 1/3", decideCase{doc: "thirds", query: "A B", rule: RuleSettled, value: `"0.5"`, outcome: contradicted, reason: conflict,
			subject: "debt/A/B", predicate: "settled", archive: `"1/3"`}},
		// currency: exact only, even when it reads like a number.
		{"currency SAR", currency("alice", aliceQ, "debt/Alice/Bob", `"SAR"`, `"SAR"`, supported, ok)},
		{"currency is case-sensitive", currency("alice", aliceQ, "debt/Alice/Bob", `"SAR"`, `"sar"`, contradicted, conflict)},
		{"currency USD", currency("alice", aliceQ, "debt/Alice/Bob", `"SAR"`, `"USD"`, contradicted, conflict)},
		{"numeric currency exact", currency("thirds", "A B", "debt/A/B", `"840"`, `"840"`, supported, ok)},
		{"no leniency for currency: integer", currency("thirds", "A B", "debt/A/B", `"840"`, `840`, contradicted, conflict)},
		{"no leniency for currency: 840.0", currency("thirds", "A B", "debt/A/B", `"840"`, `"840.0"`, contradicted, conflict)},
		{"no leniency for currency: 0840", currency("thirds", "A B", "debt/A/B", `"840"`, `"0840"`, contradicted, conflict)},
		// literal claim: exact only.
		{"claim EXACT_STATED", literal(`"EXACT_STATED"`, supported, ok)},
		{"claim UNRESOLVED against EXACT_STATED", literal(`"UNRESOLVED"`, contradicted, conflict)},
		{"claim true", literal(`true`, contradicted, conflict)},
		{"claim lower case", literal(`"exact_stated"`, contradicted, conflict)},
		// find lines: numeric, the archive value an integer.
		{"find lines exact", lines3(`3`, supported, ok)},
		{"find lines string 3", lines3(`"3"`, supported, lenient)},
		{"find lines 3/1", lines3(`"3/1"`, supported, lenient)},
		{"find lines 6/2", lines3(`"6/2"`, supported, lenient)},
		{"find lines 3.0", lines3(`"3.0"`, supported, lenient)},
		{"find lines 03", lines3(`"03"`, supported, lenient)},
		{"find lines 4", lines3(`4`, contradicted, conflict)},
		{"find lines -3", lines3(`-3`, contradicted, conflict)},
		{"find lines 3 with a space", lines3(`"3 "`, contradicted, conflict)},
		{"find lines three", lines3(`"three"`, contradicted, conflict)},
		{"find lines true", lines3(`true`, contradicted, conflict)},
		{"find lines 3/0", lines3(`"3/0"`, contradicted, conflict)},
		{"find lines zero exact", lines0(`0`, supported, ok)},
		{"find lines zero as a string", lines0(`"0"`, supported, lenient)},
		{"find lines zero as 0/7", lines0(`"0/7"`, supported, lenient)},
		{"find lines zero as -0", lines0(`"-0"`, supported, lenient)},
		{"find lines zero as 0.0", lines0(`"0.0"`, supported, lenient)},
		{"find lines zero against false", lines0(`false`, contradicted, conflict)},
		{"find lines zero against 1", lines0(`1`, contradicted, conflict)},
	}
	var tests []decideCase
	for _, x := range named {
		x.c.name = x.name
		tests = append(tests, x.c)
	}
	runDecideCases(t, tests)
}

// TestDecideSubjectEncoding: every field of a subject id goes through
// encodeIdentityField, and the scope question is copied as asked.
func TestDecideSubjectEncoding(t *testing.T) {
	enc := claimrow.EncodeIdentityField
	require.Equal(t, "debt/a%2Fb/%5F", "debt/"+enc("a/b")+"/"+enc("_"))
	tests := []decideCase{
		{name: "debt names with / and _", doc: "names", query: "a/b _", rule: RuleSettled, value: `5`, outcome: supported,
			reason: claimrow.NumericLeniency, subject: "debt/a%2Fb/%5F", predicate: "settled", archive: `"5/1"`},
		{name: "debt names with %, by the selector question", doc: "names", query: "@settlement\t50%\tx%y", rule: RuleStatus, value: `"SUPPORTED"`,
			outcome: supported, reason: claimrow.NoConflict, subject: "debt/50%25/x%25y", predicate: "settlement-status", archive: `"SUPPORTED"`},
		{name: "statement fields with /, % and _", doc: "literal", query: "@claim\ta/b\towns\t100%", rule: RuleClaim, value: `"EXACT_STATED"`,
			outcome: supported, reason: claimrow.NoConflict, subject: "statement/a%2Fb/owns/100%25", predicate: "stated", archive: `"EXACT_STATED"`},
		{name: "statement subject _ and an inner _", doc: "literal", query: "@claim\t_\towns\tx_y", rule: RuleClaim, value: `"UNRESOLVED"`,
			outcome: contradicted, reason: claimrow.Conflict, subject: "statement/%5F/owns/x_y", predicate: "stated", archive: `"EXACT_STATED"`},
		{name: "terms /", doc: "lines", find: "a/b", rule: RuleFindLines, value: `1`, outcome: supported, reason: claimrow.NoConflict,
			subject: "terms/a%2Fb", predicate: "matching-lines", archive: `1`},
		{name: "terms _", doc: "lines", find: "_", rule: RuleFindLines, value: `1`, outcome: supported, reason: claimrow.NoConflict,
			subject: "terms/%5F", predicate: "matching-lines", archive: `1`},
		{name: "terms with _ among others are not the absent spelling", doc: "lines", find: "_ x_y", rule: RuleFindLines, value: `1`,
			outcome: supported, reason: claimrow.NoConflict, subject: "terms/_ x_y", predicate: "matching-lines", archive: `1`},
		{name: "terms %", doc: "lines", find: "%", rule: RuleFindLines, value: `"1"`, outcome: supported, reason: claimrow.NumericLeniency,
			subject: "terms/%25", predicate: "matching-lines", archive: `1`},
		{name: "terms with separators are kept as given", doc: "lines", find: " alpha\tbeta? ", rule: RuleFindLines, value: `3`,
			outcome: supported, reason: claimrow.NoConflict, subject: "terms/ alpha\tbeta? ", predicate: "matching-lines", archive: `3`},
		{name: "non-ASCII terms", doc: "lines", find: "é/\U0001F600", rule: RuleFindLines, value: `0`,
			outcome: supported, reason: claimrow.NoConflict, subject: "terms/é%2F\U0001F600", predicate: "matching-lines", archive: `0`},
	}
	runDecideCases(t, tests)
}

// TestDecideTheClaimsExample decides the example of README.md §2.2 on the
// sample document: the status claim is contradicted (the debt is PARTIAL),
// the settled claim supported with numeric leniency.
func TestDecideTheClaimsExample(t *testing.T) {
	data := strings.ReplaceAll(exampleFile, `"DOC"`, `"alice"`)
	f, err := ParseFile([]byte(data))
	require.NoError(t, err)
	ans := answers(t, f)
	require.Len(t, ans, 2)
	got := []string{decideRow(t, f, f.Claims[0], ans), decideRow(t, f, f.Claims[1], ans)}
	const q = "Did Alice repay Bob?"
	want := []string{
		rowJSON(rowWant{ordinal: 1, on: `"answer"`, standing: "fact", result: 1, rule: RuleStatus, value: `"SUPPORTED"`,
			outcome: contradicted, reason: claimrow.Conflict,
			resolved: &resolvedWant{question: q, subject: "debt/Alice/Bob", predicate: "settlement-status", archive: `"PARTIAL"`}}),
		rowJSON(rowWant{ordinal: 2, on: `{"toolCallId":"call_7"}`, standing: "fact", iteration: 1, turn: 2, result: 1, rule: RuleSettled,
			value: `40`, outcome: supported, reason: claimrow.NumericLeniency,
			resolved: &resolvedWant{question: q, subject: "debt/Alice/Bob", predicate: "settled", archive: `"40/1"`}}),
	}
	require.Equal(t, want, got)
	// The row of claim 1, spelled out once in full.
	require.Equal(t, `{"checker":{"id":"claim-pair","version":1},"claimId":"claim-verification/NS/RUN/1","declaredOn":"answer",`+
		`"declaredResult":"claim-result/NS/RUN/1","declaredRule":"chronicle.settlement.status","declaredValue":"SUPPORTED","iteration":0,`+
		`"kind":"claim-verification","outcome":"contradicted","reason":"conflict","resolved":{"claim":{"predicate":"settlement-status",`+
		`"provenance":"rule chronicle.settlement.status","stratum":"asserted","subject":{"id":"debt/Alice/Bob","kind":"entity"},"value":"SUPPORTED"},`+
		`"coverage":{"checked":["document `+docHex+`"]},"evidence":{"predicate":"settlement-status","provenance":"result claim-result/NS/RUN/1",`+
		`"stratum":"asserted","subject":{"id":"debt/Alice/Bob","kind":"entity"},"value":"PARTIAL"},"resultId":"claim-result/NS/RUN/1",`+
		`"rule":{"id":"chronicle.settlement.status","version":"1"},"scope":{"document":"`+docHex+`","question":"Did Alice repay Bob?",`+
		`"receipt":"`+receiptHex+`"}},"standing":"fact"}`, got[0])
}

// TestDecideCopiesTheClaim: declaredOn, standing, iteration, turn and the
// identities are copied into every row, compared or not; identity fields
// are encoded.
func TestDecideCopiesTheClaim(t *testing.T) {
	data := lines(headerWith("team/a", "_"),
		`{"result":7,"document":"alice","find":"Alice"}`,
		`{"claim":3,"standing":"fact","iteration":9,"turn":4,"declaredOn":{"toolCallId":"call/%_1"},"declaredResult":7,"declaredRule":"chronicle.find.lines","declaredValue":"5"}`,
		`{"claim":12,"standing":"open","iteration":0,"turn":1,"declaredOn":"answer","declaredResult":7,"declaredRule":"chronicle.find.lines","declaredValue":4}`,
		`{"claim":5,"standing":"noise","iteration":2,"declaredOn":{"toolCallId":"t"},"declaredValue":{"free":["form",null]}}`)
	f, err := ParseFile(data)
	require.NoError(t, err)
	ans := answers(t, f)
	var rows []string
	for _, c := range f.Claims {
		rows = append(rows, decideRow(t, f, c, ans))
	}
	rid := "claim-result/team%2Fa/%5F/7"
	require.Equal(t, []string{
		`{"checker":{"id":"claim-pair","version":1},"claimId":"claim-verification/team%2Fa/%5F/3","declaredOn":{"toolCallId":"call/%_1"},` +
			`"declaredResult":"` + rid + `","declaredRule":"chronicle.find.lines","declaredValue":"5","iteration":9,"kind":"claim-verification",` +
			`"outcome":"supported","reason":"numeric-leniency","resolved":{"claim":{"predicate":"matching-lines","provenance":"rule chronicle.find.lines",` +
			`"stratum":"asserted","subject":{"id":"terms/Alice","kind":"entity"},"value":"5"},"coverage":{"checked":["document ` + docHex + `"]},` +
			`"evidence":{"predicate":"matching-lines","provenance":"result ` + rid + `","stratum":"asserted","subject":{"id":"terms/Alice","kind":"entity"},` +
			`"value":5},"resultId":"` + rid + `","rule":{"id":"chronicle.find.lines","version":"1"},"scope":{"document":"` + docHex + `",` +
			`"question":"Alice","receipt":"` + receiptHex + `"}},"standing":"fact","turn":4}`,
		`{"checker":{"id":"claim-pair","version":1},"claimId":"claim-verification/team%2Fa/%5F/12","declaredOn":"answer",` +
			`"declaredResult":"` + rid + `","declaredRule":"chronicle.find.lines","declaredValue":4,"iteration":0,"kind":"claim-verification",` +
			`"outcome":"unverified","reason":"not-asserted","standing":"open","turn":1}`,
		`{"checker":{"id":"claim-pair","version":1},"claimId":"claim-verification/team%2Fa/%5F/5","declaredOn":{"toolCallId":"t"},` +
			`"declaredValue":{"free":["form",null]},"iteration":2,"kind":"claim-verification","outcome":"unverified","reason":"ineligible-noise",` +
			`"standing":"noise"}`,
	}, rows)
}

// TestDecideRowBounds is the last note of README.md §3.2: a compared row that would
// break a bound of the saved-row reader is unverified / malformed-check.
// Through ParseFile and the archive these bounds are out of reach (find
// terms are at most 1024 bytes, a question that selects a debt names two
// names of at most 127 bytes, a statement three fields of at most 127), so
// the answers are built by hand.
func TestDecideRowBounds(t *testing.T) {
	debt := &settle.Debt{Amount: engine.Rational{Num: 100, Den: 1}, Currency: "SAR", Borrower: "A", Lender: "B"}
	settlementAnswer := func(question string, d *settle.Debt) *Answer {
		return SettlementAnswer(&settle.Settlement{Question: question, Status: settle.Partial, Debt: d,
			Settled: engine.Rational{Num: 40, Den: 1}})
	}
	findAnswer := func(terms string) *Answer {
		return FindAnswer(&find.Result{Status: find.StatusMatches, Query: terms, TotalMatchingLines: 3})
	}
	// The scope {"document":D,"question":Q,"receipt":R} is 170 bytes
	// besides the escaped question.
	const scopeRoom = claimrow.ScopeBytes - 170
	tests := []struct {
		name     string
		kind     ResultKind
		rule     string
		answer   *Answer
		subject  string // "" when the row falls back to malformed-check
		archive  string
		question string
	}{
		{name: "scope of exactly SCOPE_BYTES", kind: SettlementResult, rule: RuleSettled,
			answer: settlementAnswer(strings.Repeat("q", scopeRoom), debt), subject: "debt/A/B", archive: `"40/1"`},
		{name: "scope one byte over SCOPE_BYTES", kind: SettlementResult, rule: RuleSettled,
			answer: settlementAnswer(strings.Repeat("q", scopeRoom+1), debt)},
		{name: "a question of 9000 bytes", kind: SettlementResult, rule: RuleStatus,
			answer: settlementAnswer(strings.Repeat("Did A repay B? ", 600), debt)},
		{name: "escaped control characters at the bound", kind: FindResult, rule: RuleFindLines,
			answer: findAnswer(strings.Repeat("\x01", scopeRoom/6)), subject: "terms/" + strings.Repeat("\x01", scopeRoom/6), archive: `3`},
		{name: "escaped control characters over the bound", kind: FindResult, rule: RuleFindLines,
			answer: findAnswer(strings.Repeat("\x01", scopeRoom/6+1))},
		{name: "terms subject id of 4096 units", kind: FindResult, rule: RuleFindLines,
			answer: findAnswer(strings.Repeat("t", 4090)), subject: "terms/" + strings.Repeat("t", 4090), archive: `3`},
		{name: "terms subject id of 4097 units", kind: FindResult, rule: RuleFindLines,
			answer: findAnswer(strings.Repeat("t", 4091))},
		{name: "terms subject id over 4096 by encoding", kind: FindResult, rule: RuleFindLines,
			answer: findAnswer(strings.Repeat("/", 1364))},
		{name: "terms subject id under 4096 with encoding", kind: FindResult, rule: RuleFindLines,
			answer: findAnswer(strings.Repeat("/", 1363)), subject: "terms/" + strings.Repeat("%2F", 1363), archive: `3`},
		{name: "debt subject id of 4097 units", kind: SettlementResult, rule: RuleCurrency,
			answer: settlementAnswer("A B", &settle.Debt{Amount: engine.Rational{Num: 1, Den: 1}, Currency: "SAR",
				Borrower: strings.Repeat("b", 2046), Lender: strings.Repeat("l", 2045)})},
		{name: "debt subject id of 4096 units", kind: SettlementResult, rule: RuleCurrency,
			answer: settlementAnswer("A B", &settle.Debt{Amount: engine.Rational{Num: 1, Den: 1}, Currency: "SAR",
				Borrower: strings.Repeat("b", 2045), Lender: strings.Repeat("l", 2045)}),
			subject: "debt/" + strings.Repeat("b", 2045) + "/" + strings.Repeat("l", 2045), archive: `"SAR"`},
		{name: "statement subject id of 4097 units", kind: LiteralResult, rule: RuleClaim,
			answer: ClaimAnswer(&settle.Claim{Question: "@claim\tS\tP\tO", Status: settle.ExactStated,
				Subject: strings.Repeat("s", 4000), Predicate: "p", Object: strings.Repeat("o", 84)})},
		{name: "statement subject id of 4096 units", kind: LiteralResult, rule: RuleClaim,
			answer: ClaimAnswer(&settle.Claim{Question: "@claim\tS\tP\tO", Status: settle.ExactStated,
				Subject: strings.Repeat("s", 4000), Predicate: "p", Object: strings.Repeat("o", 83)}),
			subject: "statement/" + strings.Repeat("s", 4000) + "/p/" + strings.Repeat("o", 83), archive: `"EXACT_STATED"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.answer.Document, tc.answer.Receipt = docHex, receiptHex
			value := map[string]string{RuleSettled: `"40/1"`, RuleStatus: `"PARTIAL"`, RuleFindLines: `3`, RuleCurrency: `"SAR"`,
				RuleClaim: `"EXACT_STATED"`}[tc.rule]
			v, err := claimrow.ParseLine([]byte(value), claimrow.ValueBytes)
			require.NoError(t, err)
			f := &File{Namespace: "NS", RunID: "RUN",
				Results: []*ResultLine{{Ordinal: 1, Line: 2, Document: "D", Question: tc.answer.Question, Kind: tc.kind}}}
			c := &ClaimLine{Ordinal: 1, Line: 3, Standing: "fact", DeclaredOn: claimrow.StringValue("answer"), DeclaredResult: 1,
				DeclaredRule: tc.rule, DeclaredValue: v}
			f.Claims = []*ClaimLine{c}
			w := rowWant{ordinal: 1, on: `"answer"`, standing: "fact", result: 1, rule: tc.rule, value: value,
				outcome: claimrow.Unverified, reason: claimrow.MalformedCheck}
			if tc.subject != "" {
				w.outcome, w.reason = supported, claimrow.NoConflict
				w.resolved = &resolvedWant{question: tc.answer.Question, subject: tc.subject,
					predicate: rules[tc.rule].predicate, archive: tc.archive}
			}
			require.Equal(t, rowJSON(w), decideRow(t, f, c, map[int64]*Answer{1: tc.answer}))
		})
	}
}

// TestDecideArchiveValueUnknown: a currency spelled "unknown" does not
// participate in the row protocol, so a compared row would break the
// reader; the claim is unverified / malformed-check, never compared.
func TestDecideArchiveValueUnknown(t *testing.T) {
	runDecideCases(t, []decideCase{
		{name: "currency unknown declared SAR", doc: "unknowncur", query: "A B", rule: RuleCurrency, value: `"SAR"`, reason: claimrow.MalformedCheck},
		{name: "currency unknown declared Unknown", doc: "unknowncur", query: "A B", rule: RuleCurrency, value: `"Unknown"`, reason: claimrow.MalformedCheck},
		{name: "the other rules of that debt are compared", doc: "unknowncur", query: "A B", rule: RuleDebt, value: `100`,
			outcome: supported, reason: claimrow.NumericLeniency, subject: "debt/A/B", predicate: "debt", archive: `"100/1"`},
	})
}

// TestDecideInconsistentAnswer: an answer of another kind than its result
// line, or with an invalid rational, is the caller's error, not a row and
// not a panic.
func TestDecideInconsistentAnswer(t *testing.T) {
	f, err := ParseFile(lines(header,
		`{"result":1,"document":"D","find":"alpha"}`,
		`{"result":2,"document":"D","query":"@claim\tA\tB\tC"}`,
		`{"result":3,"document":"D","query":"A B"}`,
		`{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.find.lines","declaredValue":1}`,
		`{"claim":2,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":2,"declaredRule":"chronicle.claim.status","declaredValue":"EXACT_STATED"}`,
		`{"claim":3,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":3,"declaredRule":"chronicle.settlement.settled","declaredValue":1}`,
		`{"claim":4,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":3,"declaredRule":"chronicle.settlement.debt","declaredValue":1}`))
	require.NoError(t, err)
	noDebt := &Answer{Found: true, Kind: SettlementResult, Status: "PARTIAL", Document: docHex, Receipt: receiptHex}
	zeroSettled := &Answer{Found: true, Kind: SettlementResult, Status: "PARTIAL", Document: docHex, Receipt: receiptHex,
		Debt: &settle.Debt{Amount: engine.Rational{Num: 1, Den: 1}, Currency: "SAR", Borrower: "A", Lender: "B"}}
	zeroDebt := &Answer{Found: true, Kind: SettlementResult, Status: "PARTIAL", Document: docHex, Receipt: receiptHex,
		Settled: engine.Zero, Debt: &settle.Debt{Currency: "SAR", Borrower: "A", Lender: "B"}}
	tests := []struct {
		name   string
		claim  int
		answer *Answer
		errMsg string
	}{
		{"a settlement answer on a find line", 0, noDebt, "claimcheck: result 1 is a find, its answer a settlement query"},
		{"a settlement answer on a literal line", 1, noDebt, "claimcheck: result 2 is a literal claim query, its answer a settlement query"},
		{"a find answer on a settlement line", 2, &Answer{Found: true, Kind: FindResult, Document: docHex, Receipt: receiptHex},
			"claimcheck: result 3 is a settlement query, its answer a find"},
		{"an answer of no kind", 2, &Answer{Found: true, Document: docHex, Receipt: receiptHex},
			"claimcheck: result 3 is a settlement query, its answer of kind 0"},
		{"a zero-value settled amount", 2, zeroSettled, "claimcheck: result 3: settled 0/0 is not a rational (zero denominator)"},
		{"a zero-value debt amount", 3, zeroDebt, "claimcheck: result 3: debt 0/0 is not a rational (zero denominator)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := f.Claims[tc.claim]
			row, err := Decide(f, c, map[int64]*Answer{c.DeclaredResult: tc.answer})
			require.Nil(t, row)
			require.EqualError(t, err, tc.errMsg)
		})
	}
	// The same answers are never looked at when an earlier rule decides.
	open := *f.Claims[0]
	open.Standing = "open"
	row, err := Decide(f, &open, map[int64]*Answer{1: noDebt})
	require.NoError(t, err)
	require.Equal(t, claimrow.NotAsserted, row.Reason)
}

// TestDecideAnswersOfOtherResults: a claim reads only the answer of its own
// declaredResult.
func TestDecideAnswersOfOtherResults(t *testing.T) {
	f, err := ParseFile(lines(header,
		`{"result":1,"document":"supported","query":"A B"}`,
		`{"result":2,"document":"alice","query":"Did Alice repay Bob?"}`,
		`{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":2,"declaredRule":"chronicle.settlement.status","declaredValue":"PARTIAL"}`))
	require.NoError(t, err)
	ans := answers(t, f)
	row, err := Decide(f, f.Claims[0], ans)
	require.NoError(t, err)
	require.Equal(t, claimrow.Supported, row.Outcome)
	require.Equal(t, "debt/Alice/Bob", row.Resolved.SubjectID)
	delete(ans, 2)
	row, err = Decide(f, f.Claims[0], ans)
	require.NoError(t, err)
	require.Equal(t, claimrow.MissingResult, row.Reason)
	row, err = Decide(f, f.Claims[0], nil)
	require.NoError(t, err)
	require.Equal(t, claimrow.MissingResult, row.Reason)
}

// TestDecideDeterministic decides a whole file twice, from separately
// built stores and answers, and compares the bytes.
func TestDecideDeterministic(t *testing.T) {
	data := lines(header,
		`{"result":1,"document":"alice","query":"Did Alice repay Bob?"}`,
		`{"result":2,"document":"alice","find":"Saud Alice"}`,
		`{"result":3,"document":"literal","query":"@claim\tAlice\towns\tBook"}`,
		`{"result":4,"document":"nowhere","query":"A B"}`,
		`{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.debt","declaredValue":"200/2"}`,
		`{"claim":2,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":2,"declaredRule":"chronicle.find.lines","declaredValue":5}`,
		`{"claim":3,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":3,"declaredRule":"chronicle.claim.status","declaredValue":"EXACT_STATED"}`,
		`{"claim":4,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":4,"declaredRule":"chronicle.settlement.status","declaredValue":"SUPPORTED"}`,
		`{"claim":5,"standing":"noise","iteration":0,"declaredOn":"answer","declaredValue":null}`)
	decideAll := func() []string {
		f, err := ParseFile(data)
		require.NoError(t, err)
		ans := answers(t, f)
		var out []string
		for _, c := range f.Claims {
			row, err := Decide(f, c, ans)
			require.NoError(t, err)
			b, err := row.JSON()
			require.NoError(t, err)
			out = append(out, string(b))
		}
		return out
	}
	first := decideAll()
	require.Len(t, first, 5)
	for range 3 {
		require.Equal(t, first, decideAll())
	}
	var reasons []string
	for _, r := range first {
		v, err := claimrow.ReadRow([]byte(r))
		require.NoError(t, err)
		reasons = append(reasons, v.Get("outcome").Str+"/"+v.Get("reason").Str)
	}
	require.Equal(t, []string{"supported/numeric-leniency", "contradicted/conflict", "supported/no-conflict",
		"unverified/missing-result", "unverified/ineligible-noise"}, reasons)
}

// TestCompareAndExact test rules 8 to 10 and the exact number reader
// directly, including that leniency is off for the non-numeric rules.
func TestCompareAndExact(t *testing.T) {
	s, i, b := claimrow.StringValue, claimrow.IntValue, func(x bool) claimrow.Value { return claimrow.Value{Kind: claimrow.Bool, Bool: x} }
	compares := []struct {
		declared, archive claimrow.Value
		numeric           bool
		outcome, reason   string
	}{
		{s("40/1"), s("40/1"), true, supported, claimrow.NoConflict},
		{s("40/1"), s("40/1"), false, supported, claimrow.NoConflict},
		{i(40), s("40/1"), true, supported, claimrow.NumericLeniency},
		{i(40), s("40/1"), false, contradicted, claimrow.Conflict},
		{s("40"), s("40/1"), false, contradicted, claimrow.Conflict},
		{s("3"), i(3), true, supported, claimrow.NumericLeniency},
		{s("3"), i(3), false, contradicted, claimrow.Conflict},
		{i(3), i(3), true, supported, claimrow.NoConflict},
		{i(-3), i(3), true, contradicted, claimrow.Conflict},
		{b(true), b(true), false, supported, claimrow.NoConflict},
		{b(true), s("true"), true, contradicted, claimrow.Conflict},
		{b(false), i(0), true, contradicted, claimrow.Conflict},
		{s("\u2028"), s("\u2028"), false, supported, claimrow.NoConflict},
	}
	for _, tc := range compares {
		o, r := compare(tc.declared, tc.archive, tc.numeric)
		require.Equal(t, tc.outcome+"/"+tc.reason, o+"/"+r, "compare(%s, %s, %v)",
			claimrow.Canonical(tc.declared), claimrow.Canonical(tc.archive), tc.numeric)
	}
	numbers := []struct {
		in   claimrow.Value
		want string // big.Rat String, "" when not a number
	}{
		{i(40), "40/1"}, {i(-7), "-7/1"}, {i(0), "0/1"}, {i(claimrow.MaxSafeInteger), "9007199254740991/1"},
		{s("40"), "40/1"}, {s("040"), "40/1"}, {s("-40"), "-40/1"}, {s("-0"), "0/1"}, {s("80/2"), "40/1"}, {s("4/6"), "2/3"},
		{s("40.0"), "40/1"}, {s("0.5"), "1/2"}, {s("-0.25"), "-1/4"}, {s("1.000000000000000000001"), "1000000000000000000001/1000000000000000000000"},
		{s("0/5"), "0/1"}, {s("99999999999999999999999/3"), "33333333333333333333333/1"},
		{s("40/0"), ""}, {s("4 0"), ""}, {s("0x28"), ""}, {s(" 40"), ""}, {s("40 "), ""}, {s("+40"), ""}, {s(""), ""}, {s("-"), ""},
		{s("."), ""}, {s(".5"), ""}, {s("5."), ""}, {s("/2"), ""}, {s("2/"), ""}, {s("1/2/3"), ""}, {s("1.5/2"), ""}, {s("4e1"), ""},
		{s("٤٠"), ""}, {s("40\n"), ""}, {s("--1"), ""}, {s("1/-2"), ""}, {s("NaN"), ""}, {s("Infinity"), ""},
		{b(true), ""}, {claimrow.Value{Kind: claimrow.Null}, ""}, {claimrow.ArrayValue(i(1)), ""},
	}
	for _, tc := range numbers {
		r, ok := exact(tc.in)
		if tc.want == "" {
			require.False(t, ok, "exact(%s) is not a number", claimrow.Canonical(tc.in))
			continue
		}
		require.True(t, ok, "exact(%s)", claimrow.Canonical(tc.in))
		require.Equal(t, tc.want, r.String(), "exact(%s)", claimrow.Canonical(tc.in))
	}
	for _, tc := range []struct {
		r    engine.Rational
		want string
	}{{engine.Rational{Num: 40, Den: 1}, "40/1"}, {engine.Rational{Num: 4, Den: 6}, "2/3"}, {engine.Zero, "0/1"},
		{engine.Rational{Num: 0, Den: 9}, "0/1"}, {engine.Rational{Num: 1<<62 + 1, Den: 1 << 62}, big.NewRat(1<<62+1, 1<<62).String()}} {
		require.Equal(t, tc.want, reduced(tc.r))
	}
}

// TestRules: the rule table (README.md §3.1).
func TestRules(t *testing.T) {
	require.Equal(t, []string{"chronicle.settlement.status", "chronicle.settlement.settled", "chronicle.settlement.debt",
		"chronicle.settlement.currency", "chronicle.claim.status", "chronicle.find.lines"}, Rules())
	require.Len(t, rules, len(Rules()))
	for name, want := range map[string]struct {
		fits      ResultKind
		predicate string
		numeric   bool
	}{
		RuleStatus:    {SettlementResult, "settlement-status", false},
		RuleSettled:   {SettlementResult, "settled", true},
		RuleDebt:      {SettlementResult, "debt", true},
		RuleCurrency:  {SettlementResult, "debt-currency", false},
		RuleClaim:     {LiteralResult, "stated", false},
		RuleFindLines: {FindResult, "matching-lines", true},
	} {
		r, ok := rules[name]
		require.True(t, ok, name)
		require.Equal(t, want.fits, r.fits, name)
		require.Equal(t, want.predicate, r.predicate, name)
		require.Equal(t, want.numeric, r.numeric, name)
	}
}
