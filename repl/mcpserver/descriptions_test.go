package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"
	"github.com/casper-chronicle/chronicle/internal/testarchive"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// The values the engine produces, read from its packages (not from the
// server's lists, which this test checks).
var (
	settlementStatuses = statusStrings(settle.SettlementStatuses)
	claimStatuses      = statusStrings(settle.ClaimStatuses)
	findStatuses       = []string{find.StatusMatches, find.StatusNoMatch}
	verdicts           = []string{receipt.Valid.String(), receipt.Invalid.String(), receipt.Unsupported.String()}
	rowOutcomes        = []string{claimrow.Supported, claimrow.Contradicted, claimrow.Unverified}
	rowReasons         = append([]string{claimrow.NoConflict, claimrow.NumericLeniency, claimrow.Conflict}, claimrow.UnverifiedReasons...)
)

func statusStrings(list []settle.Status) []string {
	var out []string
	for _, s := range list {
		out = append(out, string(s))
	}
	return out
}

// Words of the descriptions that look like values but are prose: formats,
// encodings and the spec's names. None of them is a status, verdict or
// reason a result carries.
var (
	proseCaps   = []string{"JSON", "UTF-8", "SHA-256", "RFC", "UTC", "TAB", "URI", "ID", "CLI", "CASPER-CHRON"}
	proseHyphen = []string{"debt-settlement", "claim-verification", "claim-result"}
)

var (
	capsWord   = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:[-_][A-Z0-9]+)*\b`)
	ruleWord   = regexp.MustCompile(`\bchronicle\.[A-Za-z_.]*[A-Za-z_]`)
	hyphenWord = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b`)
	fieldWord  = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)
)

// described is one text an agent reads in the listing: a tool's
// description, a property's, or a property's enum.
type described struct {
	where string
	text  string
}

// listingTexts lists the tools with the client and returns every
// description and enum in them, and the property names of every schema.
func listingTexts(t *testing.T, cs *mcp.ClientSession) ([]described, map[string]bool) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var texts []described
	props := map[string]bool{}
	var walk func(where string, s map[string]any)
	walk = func(where string, s map[string]any) {
		if d, ok := s["description"].(string); ok {
			texts = append(texts, described{where, d})
		}
		if e, ok := s["enum"].([]any); ok {
			for _, v := range e {
				texts = append(texts, described{where + " enum", fmt.Sprint(v)})
			}
		}
		if m, ok := s["properties"].(map[string]any); ok {
			for name, p := range m {
				props[name] = true
				walk(where+"."+name, p.(map[string]any))
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(where+"[]", items)
		}
	}
	for _, tool := range res.Tools {
		texts = append(texts, described{tool.Name, tool.Description})
		for kind, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			b, err := json.Marshal(schema)
			require.NoError(t, err)
			var s map[string]any
			require.NoError(t, json.Unmarshal(b, &s))
			walk(tool.Name+" "+kind, s)
		}
	}
	sort.Slice(texts, func(i, j int) bool { return texts[i].where < texts[j].where })
	return texts, props
}

// isClaimField reports whether the claims reader takes name as a member
// of a claim line: a line with it is not refused as an unknown key.
func isClaimField(name string) bool {
	header := fmt.Sprintf(`{"chronicle-claims":%d,"namespace":"n","runId":"r"}`, claimcheck.Version)
	result := `{"result":1,"document":"` + strings.Repeat("0", 64) + `","query":"q"}`
	claim := map[string]any{"claim": 1, "standing": "fact", "iteration": 0, "declaredOn": "answer", "declaredValue": 1}
	if _, ok := claim[name]; ok {
		return true
	}
	claim[name] = "x"
	b, _ := json.Marshal(claim)
	_, err := claimcheck.ParseFile([]byte(header + "\n" + result + "\n" + string(b) + "\n"))
	var fe *claimcheck.FileError
	return !(errors.As(err, &fe) && fe.Field == name && strings.HasPrefix(fe.Reason, "unknown key"))
}

// TestMCPDescriptionsNameRealValues reads every description of the tool
// listing as a real client gets it (tools, and every property of every
// input and output schema, enums included) and checks each word that
// names a value against the code: an ALL-CAPS word is a status, verdict
// or receipt header the engine has; a chronicle.* word is a rule of
// claimcheck; a hyphenated word is a row reason or standing; a camelCase
// or snake_case word is a property of the listing or a member of a claim
// line. Then each tool must name every value its results can carry.
func TestMCPDescriptionsNameRealValues(t *testing.T) {
	cs := connect(t, testarchive.Samples(t), "description-test")
	texts, props := listingTexts(t, cs)
	require.NotEmpty(t, texts)

	// The claims reader tells claim members from other words (else the
	// field check below would pass anything).
	require.True(t, isClaimField("declaredRule"))
	require.False(t, isClaimField("declaredAnswer"))

	caps := slices.Concat(settlementStatuses, claimStatuses, findStatuses, verdicts, []string{db.ReceiptHeader, db.SetReceiptHeader}, proseCaps)
	hyphens := slices.Concat(rowReasons, claimrow.StandingValues, proseHyphen)
	for _, d := range texts {
		for _, w := range capsWord.FindAllString(d.text, -1) {
			if len(w) > 1 { // S, P, O of '@claim<TAB>S<TAB>P<TAB>O'
				require.Contains(t, caps, w, "%s names %s, which the code does not produce: %q", d.where, w, d.text)
			}
		}
		for _, w := range ruleWord.FindAllString(d.text, -1) {
			require.Contains(t, claimcheck.Rules(), w, "%s names the rule %s, which claimcheck does not have: %q", d.where, w, d.text)
		}
		for _, w := range hyphenWord.FindAllString(d.text, -1) {
			require.Contains(t, hyphens, w, "%s names %s, which is no reason or standing of a row: %q", d.where, w, d.text)
		}
		for _, w := range fieldWord.FindAllString(d.text, -1) {
			require.True(t, props[w] || isClaimField(w), "%s names the field %s, which no schema of the listing has and no claim line takes: %q", d.where, w, d.text)
		}
	}

	// Each tool names every value its results can carry.
	text := func(where string) string {
		var parts []string
		for _, d := range texts {
			if d.where == where {
				parts = append(parts, d.text)
			}
		}
		require.NotEmpty(t, parts, "the listing has no %s", where)
		return strings.Join(parts, "\n")
	}
	for _, tc := range []struct {
		where  string
		values []string
	}{
		{"query", slices.Concat(settlementStatuses, claimStatuses)},
		{"settle", settlementStatuses},
		{"find", findStatuses},
		{"verify", verdicts},
		{"verify output.verdict enum", verdicts},
		{"check_claims", slices.Concat(claimcheck.Rules(), settlementStatuses, claimStatuses, rowOutcomes, rowReasons)},
		{"check_claims output.rows[].outcome enum", rowOutcomes},
		{"check_claims output.rows[].reason enum", rowReasons},
	} {
		got := text(tc.where)
		for _, v := range tc.values {
			require.Regexp(t, `\b`+regexp.QuoteMeta(v)+`\b`, got, "%s does not name %s", tc.where, v)
		}
	}
}
