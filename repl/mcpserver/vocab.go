package mcpserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/casper-chronicle/chronicle/db"
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
		desc: fmt.Sprintf("the exact text of an archive receipt (%s), a set receipt (%s) of find, entity or settle, or an original receipt whose store was imported into the archive", db.ReceiptHeader, db.SetReceiptHeader)})
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
