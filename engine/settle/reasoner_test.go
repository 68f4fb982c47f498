package settle

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// settleCase is one reasoner scenario: a source of typed records (line n of
// the source is lines[n-1]) and the expected outcome. Unless a case says
// otherwise the borrower is A, the lender B, the question "A B"; S is an
// intermediary and X an unrelated party.
type settleCase struct {
	name     string
	lines    []string
	question string // default "A B"
	status   Status
	debt     string   // debtString form, "" for none
	settled  string   // "num/den"
	evidence []uint64 // evidence line numbers, in order
	counted  []uint64 // lines added to settled
	flags    string   // flags() of the result
}

func runSettleCases(t *testing.T, cases []settleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t, tc.lines...)
			q := tc.question
			if q == "" {
				q = "A B"
			}
			got, err := EvaluateSettlement(s, q)
			require.NoError(t, err)
			requireSettlement(t, got, tc.status, tc.debt, tc.settled, tc.evidence)
			require.Equal(t, tc.counted, countedLines(got), "counted lines")
			require.Equal(t, tc.flags, flags(got), "flags")
			// The JSON agrees with the structured result.
			out, err := Query(s, q)
			require.NoError(t, err)
			require.Equal(t, got.JSON(), out)
			var j struct {
				Status   string           `json:"status"`
				Evidence []map[string]any `json:"evidence"`
			}
			require.NoError(t, json.Unmarshal(out, &j))
			require.Equal(t, string(tc.status), j.Status)
			require.Len(t, j.Evidence, len(tc.evidence))
		})
	}
}

// Step A — selecting the debt.
func TestStepASelectDebt(t *testing.T) {
	runSettleCases(t, []settleCase{
		{name: "single debt and a direct payment",
			lines:  []string{borrowed("A", "B", "100", "SAR", "T1"), paid("A", "B", "40", "SAR", "T2")},
			status: Partial, debt: "100/1 SAR A→B", settled: "40/1", evidence: []uint64{1, 2}, counted: []uint64{2}},
		{name: "identical repeated debts are one debt with several spans",
			lines: []string{borrowed("A", "B", "100", "SAR", "T1"), borrowed("A", "B", "100", "SAR", "T1"),
				paid("A", "B", "100", "SAR", "T2")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3}, counted: []uint64{3}},
		{name: "repeat with an equal amount written differently is the same debt",
			lines:  []string{borrowed("A", "B", "1/2", "SAR", "T1"), borrowed("A", "B", "2/4", "SAR", "T1")},
			status: Unknown, debt: "1/2 SAR A→B", settled: "0/1", evidence: []uint64{1, 2}},
		{name: "debts with different amounts are ambiguous and payments are not examined",
			lines: []string{borrowed("A", "B", "100", "SAR", "T1"), borrowed("A", "B", "200", "SAR", "T1"),
				paid("A", "B", "100", "SAR", "T2")},
			status: Unknown, settled: "0/1", evidence: []uint64{1, 2}, flags: "ambiguous"},
		{name: "debts differing only in time are ambiguous",
			lines:  []string{borrowed("A", "B", "100", "SAR", "T1"), borrowed("A", "B", "100", "SAR", "T9")},
			status: Unknown, settled: "0/1", evidence: []uint64{1, 2}, flags: "ambiguous"},
		{name: "debts differing only in currency are ambiguous",
			lines: []string{borrowed("A", "B", "100", "SAR", "T1"), borrowed("A", "B", "100", "USD", "T1"),
				borrowed("A", "B", "100", "SAR", "T1")},
			status: Unknown, settled: "0/1", evidence: []uint64{1, 2, 3}, flags: "ambiguous"},
		{name: "uncertain debt is not selected",
			lines:  []string{rec("A", "BORROWED_FROM", "B", "100", "SAR", "T1", "UNCERTAIN", "POSITIVE", "CONFIRMED"), paid("A", "B", "100", "SAR", "T2")},
			status: Unknown, settled: "0/1"},
		{name: "lower-case modality is not ASSERTED",
			lines:  []string{rec("A", "BORROWED_FROM", "B", "100", "SAR", "T1", "asserted", "POSITIVE", "CONFIRMED")},
			status: Unknown, settled: "0/1"},
		{name: "pending debt is not selected",
			lines:  []string{rec("A", "BORROWED_FROM", "B", "100", "SAR", "T1", "ASSERTED", "POSITIVE", "PENDING")},
			status: Unknown, settled: "0/1"},
		{name: "asserted-status debt is not established",
			lines:  []string{rec("A", "BORROWED_FROM", "B", "100", "SAR", "T1", "ASSERTED", "POSITIVE", "ASSERTED")},
			status: Unknown, settled: "0/1"},
		{name: "negative debt is not selected",
			lines:  []string{rec("A", "BORROWED_FROM", "B", "100", "SAR", "T1", "ASSERTED", "NEGATIVE", "CONFIRMED")},
			status: Unknown, settled: "0/1"},
		{name: "denied debt is not selected",
			lines:  []string{rec("A", "BORROWED_FROM", "B", "100", "SAR", "T1", "ASSERTED", "POSITIVE", "DENIED")},
			status: Unknown, settled: "0/1"},
		{name: "debt without amount is not selected",
			lines:  []string{borrowed("A", "B", "-", "SAR", "T1"), paid("A", "B", "100", "SAR", "T2")},
			status: Unknown, settled: "0/1"},
		{name: "an unestablished different debt does not make the selection ambiguous",
			lines: []string{borrowed("A", "B", "100", "SAR", "T1"),
				rec("A", "BORROWED_FROM", "B", "200", "SAR", "T1", "UNCERTAIN", "POSITIVE", "CONFIRMED"),
				paid("A", "B", "100", "SAR", "T2")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 3}, counted: []uint64{3}},
		{name: "reversed roles select nothing",
			lines:    []string{borrowed("A", "B", "100", "SAR", "T1"), paid("A", "B", "100", "SAR", "T2")},
			question: "B A", status: Unknown, settled: "0/1"},
		{name: "other debts of the lender are not selected",
			lines: []string{borrowed("A", "B", "100", "SAR", "T1"), borrowed("X", "B", "50", "SAR", "T1"),
				paid("A", "B", "100", "SAR", "T2")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 3}, counted: []uint64{3}},
		{name: "debt of zero alone is UNKNOWN with the debt printed",
			lines:  []string{borrowed("A", "B", "0", "SAR", "T1")},
			status: Unknown, debt: "0/1 SAR A→B", settled: "0/1", evidence: []uint64{1}},
	})
}

// TestEmptyQuestion: the empty question is valid (UNKNOWN, no error).
func TestEmptyQuestion(t *testing.T) {
	s := newStore(t, borrowed("A", "B", "100", "SAR", "T1"))
	out, err := Query(s, "")
	require.NoError(t, err)
	require.Equal(t, `{"status":"UNKNOWN","assessment":"DEBT_SETTLEMENT","question":"","debt":null,"settled":{"num":0,"den":1},"limits":"`+LimitsSettlement+`","evidence":[]}`, string(out))
}

// Step B — a contradicted debt.
func TestStepBDebtConflict(t *testing.T) {
	negDebt := func(mod, status, time string) string {
		return rec("A", "BORROWED_FROM", "B", "100", "SAR", time, mod, "NEGATIVE", status)
	}
	runSettleCases(t, []settleCase{
		{name: "established NEGATIVE record contradicts the debt; payments are not examined",
			lines: []string{borrowed("A", "B", "100", "SAR", "T1"), negDebt("ASSERTED", "CONFIRMED", "T1"),
				paid("A", "B", "100", "SAR", "T2")},
			status: Conflict, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2}, flags: "contradicted"},
		{name: "contradiction before the debt counts too",
			lines:  []string{negDebt("ASSERTED", "CONFIRMED", "T1"), borrowed("A", "B", "100", "SAR", "T1")},
			status: Conflict, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2}, flags: "contradicted"},
		{name: "uncertain NEGATIVE record does not conflict",
			lines: []string{borrowed("A", "B", "100", "SAR", "T1"), negDebt("UNCERTAIN", "CONFIRMED", "T1"),
				paid("A", "B", "100", "SAR", "T2")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 3}, counted: []uint64{3}},
		{name: "pending NEGATIVE record does not conflict",
			lines: []string{borrowed("A", "B", "100", "SAR", "T1"), negDebt("ASSERTED", "PENDING", "T1"),
				paid("A", "B", "100", "SAR", "T2")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 3}, counted: []uint64{3}},
		{name: "NEGATIVE record with another time does not conflict",
			lines: []string{borrowed("A", "B", "100", "SAR", "T1"), negDebt("ASSERTED", "CONFIRMED", "T2"),
				paid("A", "B", "100", "SAR", "T2")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 3}, counted: []uint64{3}},
		{name: "ambiguous debts are not checked for contradictions",
			lines: []string{borrowed("A", "B", "100", "SAR", "T1"), borrowed("A", "B", "200", "SAR", "T1"),
				negDebt("ASSERTED", "CONFIRMED", "T1")},
			status: Unknown, settled: "0/1", evidence: []uint64{1, 2}, flags: "ambiguous"},
	})
}

// Step C.1–C.4 — which payments are visible and how they are linked.
func TestStepCPaymentLinks(t *testing.T) {
	debt := borrowed("A", "B", "100", "SAR", "T1")
	negLink := rec("S", "INTERMEDIARY_FOR", "B", "-", "-", "T2", "ASSERTED", "NEGATIVE", "CONFIRMED")
	runSettleCases(t, []settleCase{
		{name: "payment by someone other than the borrower is invisible",
			lines:  []string{debt, paid("X", "B", "100", "SAR", "T2")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1}},
		{name: "NEGATIVE payment is invisible",
			lines:  []string{debt, rec("A", "PAID_TO", "B", "40", "SAR", "T2", "ASSERTED", "NEGATIVE", "CONFIRMED")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1}},
		{name: "DENIED payment is invisible",
			lines:  []string{debt, rec("A", "PAID_TO", "B", "40", "SAR", "T2", "ASSERTED", "POSITIVE", "DENIED")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1}},
		{name: "payment to an unlinked third party is invisible",
			lines:  []string{debt, paid("A", "S", "100", "SAR", "T2")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1}},
		{name: "an intermediary record links a payment to the lender",
			lines:  []string{debt, intermediary("S", "B", "T2"), paid("A", "S", "100", "SAR", "T3")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3}, counted: []uint64{3}},
		{name: "an intermediary record after the payment links it too",
			lines:  []string{debt, paid("A", "S", "100", "SAR", "T3"), intermediary("S", "B", "T4")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3}, counted: []uint64{2}},
		{name: "TRANSFER_TO through an intermediary counts like PAID_TO",
			lines: []string{debt, intermediary("S", "B", "T2"),
				rec("A", "TRANSFER_TO", "S", "100", "SAR", "T3", "ASSERTED", "POSITIVE", "CONFIRMED")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3}, counted: []uint64{3}},
		{name: "an intermediary for someone else does not link",
			lines:  []string{debt, intermediary("S", "X", "T2"), paid("A", "S", "100", "SAR", "T3")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1}},
		{name: "a reversed intermediary record does not link",
			lines:  []string{debt, intermediary("B", "S", "T2"), paid("A", "S", "100", "SAR", "T3")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1}},
		{name: "pending link record is evidence, the payment through it is not",
			lines: []string{debt, rec("S", "INTERMEDIARY_FOR", "B", "-", "-", "T2", "UNCERTAIN", "POSITIVE", "PENDING"),
				paid("A", "S", "100", "SAR", "T3")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2}},
		{name: "negative link record is evidence, the payment through it is not",
			lines:  []string{debt, negLink, paid("A", "S", "100", "SAR", "T3")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2}},
		{name: "denied link record is evidence, the payment through it is not",
			lines: []string{debt, rec("S", "INTERMEDIARY_FOR", "B", "-", "-", "T2", "ASSERTED", "POSITIVE", "DENIED"),
				paid("A", "S", "100", "SAR", "T3")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2}},
		{name: "link records are not examined without a payment to the intermediary",
			lines:  []string{debt, intermediary("S", "B", "T2")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1}},
		{name: "contradicted link: CONFLICT, the payment is evidence but not counted",
			lines:  []string{debt, intermediary("S", "B", "T2"), negLink, paid("A", "S", "100", "SAR", "T3")},
			status: Conflict, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2, 3, 4}, flags: "contradicted"},
		{name: "contradicted beats confirmed",
			lines: []string{debt, intermediary("S", "B", "T2"), intermediary("S", "B", "T5"),
				rec("S", "INTERMEDIARY_FOR", "B", "-", "-", "T5", "ASSERTED", "NEGATIVE", "CONFIRMED"),
				paid("A", "S", "100", "SAR", "T3")},
			status: Conflict, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2, 3, 4, 5}, flags: "contradicted"},
		{name: "a direct payment does not look at link records",
			lines:  []string{debt, intermediary("S", "B", "T2"), negLink, paid("A", "B", "100", "SAR", "T3")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 4}, counted: []uint64{4}},
		{name: "the scan goes on after a contradiction; settled can be non-zero under CONFLICT",
			lines: []string{debt, intermediary("S", "B", "T2"), negLink, paid("A", "S", "40", "SAR", "T3"),
				paid("A", "B", "60", "SAR", "T4")},
			status: Conflict, debt: "100/1 SAR A→B", settled: "60/1", evidence: []uint64{1, 2, 3, 4, 5}, counted: []uint64{5},
			flags: "contradicted"},
	})
}

// Step C.5–C.8 — which linked payments are counted.
func TestStepCPaymentCounting(t *testing.T) {
	debt := borrowed("A", "B", "100", "SAR", "T1")
	pending := rec("A", "TRANSFER_TO", "B", "60", "SAR", "T3", "UNCERTAIN", "POSITIVE", "PENDING")
	runSettleCases(t, []settleCase{
		{name: "pending transfer is related and does not stop PARTIAL",
			lines:  []string{debt, paid("A", "B", "40", "SAR", "T2"), pending},
			status: Partial, debt: "100/1 SAR A→B", settled: "40/1", evidence: []uint64{1, 2, 3}, counted: []uint64{2}, flags: "related"},
		{name: "pending transfer turns an exact settlement into UNKNOWN",
			lines:  []string{debt, paid("A", "B", "100", "SAR", "T2"), pending},
			status: Unknown, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3}, counted: []uint64{2}, flags: "related"},
		{name: "wrong currency is related and not counted",
			lines:  []string{debt, paid("A", "B", "100", "USD", "T2")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2}, flags: "related"},
		{name: "wrong currency next to an exact settlement gives UNKNOWN",
			lines:  []string{debt, paid("A", "B", "100", "SAR", "T2"), paid("A", "B", "5", "USD", "T3")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3}, counted: []uint64{2}, flags: "related"},
		{name: "payment currency - is related",
			lines:  []string{debt, paid("A", "B", "100", "-", "T2")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2}, flags: "related"},
		{name: "payment without amount is related",
			lines:  []string{debt, paid("A", "B", "-", "SAR", "T2"), paid("A", "B", "30", "SAR", "T3")},
			status: Partial, debt: "100/1 SAR A→B", settled: "30/1", evidence: []uint64{1, 2, 3}, counted: []uint64{3}, flags: "related"},
		{name: "contradicted payment: CONFLICT, not counted",
			lines: []string{debt, paid("A", "B", "100", "SAR", "T2"),
				rec("A", "PAID_TO", "B", "100", "SAR", "T2", "ASSERTED", "NEGATIVE", "CONFIRMED")},
			status: Conflict, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2, 3}, flags: "contradicted"},
		{name: "contradiction by a TRANSFER_TO record needs the same predicate",
			lines: []string{debt, paid("A", "B", "100", "SAR", "T2"),
				rec("A", "TRANSFER_TO", "B", "100", "SAR", "T2", "ASSERTED", "NEGATIVE", "CONFIRMED")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2}, counted: []uint64{2}},
		{name: "uncertain NEGATIVE payment record does not contradict",
			lines: []string{debt, paid("A", "B", "100", "SAR", "T2"),
				rec("A", "PAID_TO", "B", "100", "SAR", "T2", "UNCERTAIN", "NEGATIVE", "CONFIRMED")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2}, counted: []uint64{2}},
		{name: "duplicate payment is counted once; the exact sum becomes UNKNOWN",
			lines: []string{debt, paid("A", "B", "50", "SAR", "T2"), paid("A", "B", "50", "SAR", "T2"),
				paid("A", "B", "50", "SAR", "T3")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3, 4}, counted: []uint64{2, 4}, flags: "duplicate"},
		{name: "a duplicate does not stop PARTIAL; TRANSFER_TO duplicates PAID_TO",
			lines: []string{debt, paid("A", "B", "50", "SAR", "T2"),
				rec("A", "TRANSFER_TO", "B", "50", "SAR", "T2", "ASSERTED", "POSITIVE", "CONFIRMED")},
			status: Partial, debt: "100/1 SAR A→B", settled: "50/1", evidence: []uint64{1, 2, 3}, counted: []uint64{2}, flags: "duplicate"},
		{name: "equal values written differently are duplicates",
			lines:  []string{borrowed("A", "B", "1", "SAR", "T1"), paid("A", "B", "1/2", "SAR", "T2"), paid("A", "B", "2/4", "SAR", "T2")},
			status: Partial, debt: "1/1 SAR A→B", settled: "1/2", evidence: []uint64{1, 2, 3}, counted: []uint64{2}, flags: "duplicate"},
		{name: "same amount at another time is not a duplicate",
			lines:  []string{debt, paid("A", "B", "50", "SAR", "T2"), paid("A", "B", "50", "SAR", "T3")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3}, counted: []uint64{2, 3}},
		{name: "an eligible payment before the debt line is counted and duplicated",
			lines:  []string{paid("A", "B", "50", "SAR", "T2"), debt, paid("A", "B", "50", "SAR", "T2")},
			status: Partial, debt: "100/1 SAR A→B", settled: "50/1", evidence: []uint64{1, 2, 3}, counted: []uint64{1}, flags: "duplicate"},
		{name: "an earlier non-eligible identical payment is not a duplicate",
			lines: []string{borrowed("A", "B", "200", "SAR", "T1"),
				rec("A", "PAID_TO", "B", "100", "SAR", "T2", "UNCERTAIN", "POSITIVE", "CONFIRMED"),
				paid("A", "B", "100", "SAR", "T2")},
			status: Partial, debt: "200/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3}, counted: []uint64{3}, flags: "related"},
		{name: "an earlier identical payment to another payee is no duplicate",
			lines: []string{debt, intermediary("S", "B", "T0"), paid("A", "S", "50", "SAR", "T2"),
				paid("A", "B", "50", "SAR", "T2")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3, 4}, counted: []uint64{3, 4}},
		{name: "a contradicted earlier payment still makes a later identical one a duplicate",
			lines: []string{debt, paid("A", "B", "50", "SAR", "T2"),
				rec("A", "PAID_TO", "B", "50", "SAR", "T2", "ASSERTED", "NEGATIVE", "CONFIRMED"),
				rec("A", "TRANSFER_TO", "B", "50", "SAR", "T2", "ASSERTED", "POSITIVE", "CONFIRMED")},
			status: Conflict, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2, 3, 4}, flags: "contradicted duplicate"},
		{name: "fractions add exactly (CONTRACT 9.1, g7)",
			lines: []string{borrowed("A", "B", "6/8", "SAR", "T1"), paid("A", "B", "1/4", "SAR", "T2"),
				paid("A", "B", "002/4", "SAR", "T3")},
			status: Supported, debt: "3/4 SAR A→B", settled: "3/4", evidence: []uint64{1, 2, 3}, counted: []uint64{2, 3}},
		{name: "overflow of the common denominator is CONFLICT and stops the scan (g7)",
			lines: []string{borrowed("C", "D", "1", "SAR", "T1"), paid("C", "D", "1/4611686018427387904", "SAR", "T2"),
				paid("C", "D", "1/3", "SAR", "T3"), paid("C", "D", "1/5", "SAR", "T4")},
			question: "C D", status: Conflict, debt: "1/1 SAR C→D", settled: "1/4611686018427387904",
			evidence: []uint64{1, 2, 3}, counted: []uint64{2}, flags: "overflow"},
		{name: "nothing after the overflow is examined: links and extras stay out",
			lines: []string{borrowed("C", "D", "1", "SAR", "T1"), paid("C", "D", "1/4611686018427387904", "SAR", "T2"),
				paid("C", "D", "1/3", "SAR", "T3"),
				rec("S", "INTERMEDIARY_FOR", "D", "-", "-", "T4", "UNCERTAIN", "POSITIVE", "PENDING"),
				paid("C", "S", "1/5", "SAR", "T5"), paid("C", "D", "1", "USD", "T6")},
			question: "C D", status: Conflict, debt: "1/1 SAR C→D", settled: "1/4611686018427387904",
			evidence: []uint64{1, 2, 3}, counted: []uint64{2}, flags: "overflow"},
		{name: "overflow of the numerator sum",
			lines: []string{borrowed("A", "B", "9223372036854775807", "SAR", "T1"),
				paid("A", "B", "9223372036854775807", "SAR", "T2"), paid("A", "B", "1", "SAR", "T3")},
			status: Conflict, debt: "9223372036854775807/1 SAR A→B", settled: "9223372036854775807/1",
			evidence: []uint64{1, 2, 3}, counted: []uint64{2}, flags: "overflow"},
		{name: "a debt in currency - is never settled and its payments are not evidence (g8)",
			lines:    []string{borrowed("G", "H", "10", "-", "T1"), paid("G", "H", "10", "-", "T2")},
			question: "G H", status: Unknown, debt: "10/1 - G→H", settled: "0/1", evidence: []uint64{1}},
	})
}

// Step D — the status rules, in order.
func TestStepDStatus(t *testing.T) {
	debt := borrowed("A", "B", "100", "SAR", "T1")
	runSettleCases(t, []settleCase{
		{name: "rule 1: conflict wins over an exact settlement",
			lines: []string{debt, paid("A", "B", "100", "SAR", "T2"), paid("A", "B", "7", "SAR", "T3"),
				rec("A", "PAID_TO", "B", "7", "SAR", "T3", "ASSERTED", "NEGATIVE", "CONFIRMED")},
			status: Conflict, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3, 4}, counted: []uint64{2}, flags: "contradicted"},
		{name: "rule 2: debt but nothing counted",
			lines:  []string{debt},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1}},
		{name: "rule 3: overpaid is CONFLICT",
			lines:  []string{debt, paid("A", "B", "60", "SAR", "T2"), paid("A", "B", "60", "SAR", "T3")},
			status: Conflict, debt: "100/1 SAR A→B", settled: "120/1", evidence: []uint64{1, 2, 3}, counted: []uint64{2, 3}},
		{name: "rule 3 beats duplicates and related payments",
			lines: []string{debt, paid("A", "B", "120", "SAR", "T2"), paid("A", "B", "120", "SAR", "T2"),
				paid("A", "B", "1", "USD", "T3")},
			status: Conflict, debt: "100/1 SAR A→B", settled: "120/1", evidence: []uint64{1, 2, 3, 4}, counted: []uint64{2},
			flags: "duplicate related"},
		{name: "rule 4: exact and clean is SUPPORTED",
			lines:  []string{debt, paid("A", "B", "30", "SAR", "T2"), paid("A", "B", "70", "SAR", "T3")},
			status: Supported, debt: "100/1 SAR A→B", settled: "100/1", evidence: []uint64{1, 2, 3}, counted: []uint64{2, 3}},
		{name: "rule 5: a counted payment of zero against a positive debt is UNKNOWN",
			lines:  []string{debt, paid("A", "B", "0", "SAR", "T2")},
			status: Unknown, debt: "100/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2}, counted: []uint64{2}},
		{name: "debt 0 plus a counted payment of 0 is SUPPORTED",
			lines:  []string{borrowed("A", "B", "0", "SAR", "T1"), paid("A", "B", "0", "SAR", "T2")},
			status: Supported, debt: "0/1 SAR A→B", settled: "0/1", evidence: []uint64{1, 2}, counted: []uint64{2}},
		{name: "debt 0 with a positive payment is CONFLICT",
			lines:  []string{borrowed("A", "B", "0", "SAR", "T1"), paid("A", "B", "1/2", "SAR", "T2")},
			status: Conflict, debt: "0/1 SAR A→B", settled: "1/2", evidence: []uint64{1, 2}, counted: []uint64{2}},
	})
}

// TestArabicProseSettlement runs the reasoner over Arabic sentences, whose
// link form has currency "-" and whose transfer form is UNCERTAIN/PENDING.
func TestArabicProseSettlement(t *testing.T) {
	runSettleCases(t, []settleCase{
		{name: "receipt through a confirmed intermediary and a pending transfer",
			lines: []string{
				"أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.",
				"أكد خالد أن سعود وسيط عنه في اليوم الثاني.",
				"أكد سعود استلام مبلغ 100 ريال سعودي من أحمد في اليوم الثاني.",
				"حوّل أحمد إلى سعود مبلغ 60 ريال سعودي في اليوم الثالث ولم يثبت وصول الحوالة.",
			},
			question: "هل سدد أحمد دين خالد؟", status: Unknown, debt: "100/1 SAR أحمد→خالد", settled: "100/1",
			evidence: []uint64{1, 2, 3, 4}, counted: []uint64{3}, flags: "related"},
		{name: "a denied link contradicts the confirmed one",
			lines: []string{
				"اقترض أحمد من خالد مبلغ ١٠٠ SAR في اليوم الأول.",
				"أكد خالد أن سعود وسيط عنه في اليوم الثاني.",
				"نفى خالد أن سعود وسيط عنه في اليوم الثاني.",
				"أكد سعود استلام مبلغ 40 SAR من أحمد في اليوم الثاني.",
			},
			question: "أحمد خالد", status: Conflict, debt: "100/1 SAR أحمد→خالد", settled: "0/1",
			evidence: []uint64{1, 2, 3, 4}, flags: "contradicted"},
		{name: "a denied receipt contradicts the confirmed one",
			lines: []string{
				"اقترض أحمد من خالد مبلغ 100 USD في اليوم الأول.",
				"أكد خالد استلام مبلغ 100 USD من أحمد في اليوم الثاني.",
				"نفى خالد استلام مبلغ 100 USD من أحمد في اليوم الثاني.",
			},
			question: "ما حالة سداد دين أحمد إلى خالد؟", status: Conflict, debt: "100/1 USD أحمد→خالد", settled: "0/1",
			evidence: []uint64{1, 2, 3}, flags: "contradicted"},
	})
}
