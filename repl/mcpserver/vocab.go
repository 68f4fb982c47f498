package mcpserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"

	"github.com/google/jsonschema-go/jsonschema"
)

// The values results carry, taken from the packages that produce them.
// An agent declares what a description told it: a status spelt out by
// hand that the code does not produce is checked as contradicted, and the
// row is kept. So every description naming a status, verdict, rule,
// outcome or reason is built from these lists, and
// TestMCPDescriptionsNameRealValues checks the whole listing against the
// engine's own values.
var (
	settlementStatuses  = statuses(settle.SettlementStatuses)
	claimStatuses       = statuses(settle.ClaimStatuses)
	findStatuses        = []string{find.StatusMatches, find.StatusNoMatch}
	verdicts            = []string{receipt.Valid.String(), receipt.Invalid.String(), receipt.Unsupported.String()}
	outcomes            = []string{claimrow.Supported, claimrow.Contradicted, claimrow.Unverified}
	supportedReasons    = []string{claimrow.NoConflict, claimrow.NumericLeniency}
	contradictedReasons = []string{claimrow.Conflict}
	// claimFields are the members of a claim line (engine/claimcheck/README.md
	// §2.2); the test
	// checks that claimcheck.ParseFile knows each.
	claimFields = []string{"claim", "standing", "iteration", "turn", "declaredOn", "declaredResult", "declaredRule", "declaredValue"}
)

func statuses(list []settle.Status) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = string(s)
	}
	return out
}

// oneOf words a list for a description: "A", "A or B", "A, B or C".
func oneOf(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// Descriptions that name values, used by addTools and the schemas below.
var (
	queryDescription = fmt.Sprintf("Answer a debt-settlement question on one document (status %s; debt and settled amounts as exact fractions; every cited evidence span), "+
		"or a literal claim question '@claim<TAB>S<TAB>P<TAB>O' (status %s). The status evaluates what the document records about the debt, not whether the question is true.",
		oneOf(settlementStatuses), oneOf(claimStatuses))
	settleDescription = fmt.Sprintf("Answer a debt-settlement question across documents (every document, or the chosen ones): the same reasoner as query over the events of all of them (status %s), each evidence span naming its document.",
		oneOf(settlementStatuses))
	findDescription = fmt.Sprintf("Lexical search: the lines containing the terms, in one document or across the archive (best documents first); status %s. "+
		"Lexical only: a match is not a fact and no match is not an absence of the fact.", oneOf(findStatuses))
	verifyDescription = fmt.Sprintf("Verify a receipt's text against the archive: rebuild the store, replay it, run the question again and compare digests (verdict %s). "+
		"%s means the result is exactly what the archived bytes give, not that they are true.", oneOf(verdicts), receipt.Valid)
	checkDescription = fmt.Sprintf("Check the claims of your answer against the results this session returned. Give claim lines (JSON objects): "+
		`{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":"<a resultId or its ordinal>","declaredRule":%q,"declaredValue":%q}. `+
		"Rules: %s on query settlement results (status: %s); %s on @claim results (%s); %s on find results on one document. "+
		"Returns one claim-verification row per claim, its outcome %s: %s with reason %s, %s with reason %s, %s with reason %s (%s: a result this session never returned). "+
		"The check and the receipts of compared results are kept in the archive; the check ends the run, later results get a new runId.",
		claimcheck.RuleStatus, settle.Partial,
		oneOf([]string{claimcheck.RuleStatus, claimcheck.RuleSettled, claimcheck.RuleDebt, claimcheck.RuleCurrency}), oneOf(settlementStatuses),
		claimcheck.RuleClaim, oneOf(claimStatuses), claimcheck.RuleFindLines,
		oneOf(outcomes), claimrow.Supported, oneOf(supportedReasons), claimrow.Contradicted, oneOf(contradictedReasons),
		claimrow.Unverified, oneOf(claimrow.UnverifiedReasons), claimrow.MissingResult)
)

// prop describes one property of a schema in code, where a struct tag
// cannot: path is its JSON name, dotted through objects and array items
// ("rows.outcome"); enum, when set, is the only values it takes.
type prop struct {
	path string
	desc string
	enum []string
}

// schemaOf is the schema the SDK infers for T (jsonschema.For, as
// mcp.AddTool does), with props described in code. A path that names no
// property panics: New runs at start-up and in every test.
func schemaOf[T any](props ...prop) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	for _, p := range props {
		sub := s
		for name := range strings.SplitSeq(p.path, ".") {
			if sub.Items != nil {
				sub = sub.Items
			}
			if sub = sub.Properties[name]; sub == nil {
				panic(fmt.Sprintf("schema of %T: no property %s", *new(T), p.path))
			}
		}
		sub.Description = p.desc
		for _, v := range p.enum {
			sub.Enum = append(sub.Enum, v)
		}
	}
	return s
}

// The schemas whose descriptions name values (built per server: the SDK
// keeps the schema it is given).
func verifyIn() *jsonschema.Schema {
	return schemaOf[VerifyIn](prop{path: "receipt",
		desc: fmt.Sprintf("the exact text of an archive receipt (%s), or a set receipt (%s) of find, entity or settle", db.ReceiptHeader, db.SetReceiptHeader)})
}

func verifyOut() *jsonschema.Schema {
	return schemaOf[VerifyOut](
		prop{path: "verdict", desc: oneOf(verdicts), enum: verdicts},
		prop{path: "problem", desc: "why it is not " + receipt.Valid.String()})
}

func checkIn() *jsonschema.Schema {
	return schemaOf[CheckIn](prop{path: "claims",
		desc: fmt.Sprintf("claim lines, each one JSON object (%s); declaredResult is a resultId this session returned or its ordinal", strings.Join(claimFields, ", "))})
}

func checkOut() *jsonschema.Schema {
	reasons := fmt.Sprintf("%s: %s; %s: %s; %s: %s", claimrow.Supported, oneOf(supportedReasons),
		claimrow.Contradicted, oneOf(contradictedReasons), claimrow.Unverified, oneOf(claimrow.UnverifiedReasons))
	return schemaOf[CheckOut](
		prop{path: "rows.outcome", desc: oneOf(outcomes), enum: outcomes},
		prop{path: "rows.reason", desc: reasons, enum: slices.Concat(supportedReasons, contradictedReasons, claimrow.UnverifiedReasons)})
}
