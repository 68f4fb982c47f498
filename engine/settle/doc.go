// Package settle answers questions about a canonical store: the
// debt-settlement reasoner (CONTRACT 8 and 9) and literal claims (CONTRACT 10). It
// turns a loaded *engine.Store and a question string into a structured
// result whose JSON method yields the exact canonical result bytes of CONTRACT
// 5.1/5.2, the bytes a receipt hashes.
//
// # Basics
//
// Query is the whole contract in one call: a question that starts with
// "@claim<TAB>" is a literal claim (EvaluateClaim), anything else — including
// the empty string — is a debt-settlement question (EvaluateSettlement), and
// the result is rendered with JSON. Evaluate does the same dispatch but
// returns the structured Result, so that callers (the archive's human view)
// can render status, debt, settled amount and evidence themselves.
//
// A settlement question selects debts through Selects: either the exact
// selector "@settlement<TAB>B<TAB>L", or one of nine fixed frames ("B L",
// "Did B repay L?", "هل سدد B دين L؟", …) when both stored names are plain
// names (PlainName). The reasoner then runs four documented steps over the
// events in source order:
//
//	A  select the debt (identical repeats are one debt; differing ones are ambiguous)
//	B  a debt contradicted by an established opposite record is a conflict
//	C  count the borrower's linked, eligible, non-duplicate payments with
//	   checked rational sums; an overflow is a conflict and ends the scan
//	D  derive the status from conflict, payments, settled and the debt amount
//
// Every event a step looks at in a way CONTRACT 9 calls "mark used" becomes
// evidence; evidence is reported once per event, in source order.
//
// # Caveats
//
// The package is pure and deterministic: results depend only on the store's
// source and events and on the question bytes. It trusts the engine's
// invariants for loaded stores (amounts reduced with a positive denominator,
// spans inside the source); a span outside the source is reported as an error
// wrapping ErrSpan rather than a panic.
//
// Questions are not validated as UTF-8 here: the command line rejects invalid
// UTF-8 (exit 2) and questions of 2048 bytes or more (exit 1, receipt limit)
// before or after calling Query. Any other string is a valid settlement
// question; only claim questions can be malformed (ErrClaimSyntax).
//
// The status describes the settlement of the selected debt, not the truth of
// the question: a question that selects nothing is UNKNOWN with a null debt,
// never an error.
package settle
