package mcpserver_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/testarchive"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// oneEventArchive is an archive of one document, one.txt: one line, one
// event, naming Zed.
func oneEventArchive(t *testing.T) string {
	return testarchive.One(t, "one.txt", "@chronicle\tZed\tBORROWED_FROM\tYan\t5\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n")
}

// TestMCPSummaryCounts: the one-line summaries say "1 document", "1 line",
// "1 matching line", "1 event names", "1 claim" (and the resource listing
// "1 event"), and the plural for other counts.
func TestMCPSummaryCounts(t *testing.T) {
	one := connect(t, oneEventArchive(t), "summary-one")
	samples := connect(t, testarchive.Samples(t), "summary-samples")
	claim := `{"claim":1,"standing":"open","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.status","declaredValue":"PARTIAL"}`
	for _, tc := range []struct {
		name string
		cs   *mcp.ClientSession
		tool string
		args map[string]any
		want string // a regexp of the summary
	}{
		{"docs: one", one, "docs", map[string]any{}, `^1 document \(result `},
		{"docs: two", samples, "docs", map[string]any{}, `^2 documents \(result `},
		{"show: one line", one, "show", map[string]any{"document": "one.txt"}, `^1 line of one\.txt \(result `},
		{"show: three lines", samples, "show", map[string]any{"document": ahmed, "from": 2, "to": 4}, `^3 lines of testdata/samples/ahmed-khalid-ar\.txt \(result `},
		{"find: one document", one, "find", map[string]any{"terms": "Zed"}, `^MATCHES in 1 document \(result `},
		{"find: two documents", samples, "find", map[string]any{"terms": "40"}, `^MATCHES in 2 documents \(result `},
		{"find: no document", samples, "find", map[string]any{"terms": "Zed"}, `^NO_MATCH \(result `},
		{"find in a document: one line", one, "find", map[string]any{"terms": "Zed", "document": "one.txt"}, `^MATCHES 1 matching line \(result `},
		{"find in a document: three lines", samples, "find", map[string]any{"terms": "Saud", "document": alice}, `^MATCHES 3 matching lines \(result `},
		{"entity: one event", one, "entity", map[string]any{"name": "Zed"}, `^1 event names Zed \(result `},
		{"entity: three events", samples, "entity", map[string]any{"name": "Saud"}, `^3 events name Saud \(result `},
		{"entity: no event", samples, "entity", map[string]any{"name": "Zed"}, `^0 events name Zed \(result `},
		{"check_claims: one claim", one, "check_claims", map[string]any{"claims": []string{claim}}, `^1 claim: 0 supported, 0 contradicted, 1 unverified \(check `},
		{"check_claims: two claims", samples, "check_claims", map[string]any{"claims": []string{claim, strings.Replace(claim, `"claim":1`, `"claim":2`, 1)}}, `^2 claims: `},
	} {
		res, err := tc.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		require.NoError(t, err, tc.name)
		require.False(t, res.IsError, "%s: %s", tc.name, text(res))
		require.Regexp(t, tc.want, summary(res), tc.name)
	}
	for _, tc := range []struct {
		cs   *mcp.ClientSession
		want string
	}{
		{one, `^one\.txt: 70 bytes, 1 event, with line numbers$`},
		{samples, `^testdata/samples/alice-bob-en\.txt: 383 bytes, 5 events, with line numbers$`},
	} {
		rl, err := tc.cs.ListResources(context.Background(), nil)
		require.NoError(t, err)
		var descriptions []string
		for _, r := range rl.Resources {
			descriptions = append(descriptions, r.Description)
		}
		require.True(t, slices.ContainsFunc(descriptions, regexp.MustCompile(tc.want).MatchString), "no resource description matches %s: %q", tc.want, descriptions)
	}
}
