package claimcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/settle"
	"github.com/casper-chronicle/chronicle/internal/mdtable"
)

// README.md beside this file documents the claims file, the rules, the
// outcome table and the row. These tests hold it to the code; the worked
// example is held by readme_example_test.go (it needs an archive).

const readmePath = "README.md"

func readReadme(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	return strings.Split(string(data), "\n")
}

// afterMarker returns the lines that follow the line "<!-- marker... -->".
func afterMarker(t *testing.T, doc []string, marker string) []string {
	t.Helper()
	for i, l := range doc {
		if strings.HasPrefix(l, "<!-- "+marker) && strings.HasSuffix(l, "-->") {
			return doc[i+1:]
		}
	}
	require.Fail(t, "no marker", "%s has no <!-- %s --> line", readmePath, marker)
	return nil
}

// readmeTable returns the cells of the Markdown table right after the
// marker, without its header and separator rows.
func readmeTable(t *testing.T, marker string) [][]string {
	t.Helper()
	rows := mdtable.Body(afterMarker(t, readReadme(t), marker))
	require.NotEmpty(t, rows, "the table after <!-- %s --> (a header, a rule, rows)", marker)
	return rows
}

// readmeBlock returns the first fenced block after the marker, as the
// bytes of a file (each line ended by LF).
func readmeBlock(t *testing.T, doc []string, marker string) string {
	t.Helper()
	rest := afterMarker(t, doc, marker)
	require.NotEmpty(t, rest)
	require.True(t, strings.HasPrefix(rest[0], "```"), "a fenced block right after <!-- %s -->", marker)
	var b strings.Builder
	for _, l := range rest[1:] {
		if l == "```" {
			return b.String()
		}
		b.WriteString(l + "\n")
	}
	require.Fail(t, "unterminated block", "after <!-- %s -->", marker)
	return ""
}

func unquote(cell string) string { return strings.Trim(cell, "`") }

// TestReadmeRules: the rule table of section 3.1 is the code's, in the
// order of Rules(): the kind each rule fits, the subject id, the predicate
// and whether numeric leniency applies.
func TestReadmeRules(t *testing.T) {
	rows := readmeTable(t, "rules:")
	var names []string
	for _, row := range rows {
		require.Len(t, row, 6, "%q", row)
		name := unquote(row[0])
		names = append(names, name)
		r, ok := rules[name]
		require.True(t, ok, "the README lists rule %q, the code has no such rule", name)
		require.Equal(t, r.fits.String(), row[1], name)
		// The subject id of an answer whose names are the placeholders.
		a := &Answer{Kind: r.fits, Debt: &settle.Debt{Borrower: "<b>", Lender: "<l>"},
			Subject: "<s>", Predicate: "<p>", Object: "<o>", Question: "<t>"}
		require.Equal(t, a.subjectID(), unquote(row[2]), name)
		require.Equal(t, r.predicate, unquote(row[3]), name)
		require.Equal(t, map[bool]string{true: "yes", false: "no"}[r.numeric], row[5], name)
	}
	require.Equal(t, Rules(), names, "the README lists every rule once, in the order of Rules()")
}

// outcomeWitnesses are, for each row of the outcome table in order, a
// claim that meets the row's condition and, where it can, a later row's
// too (so the row's precedence shows).
var outcomeWitnesses = []decideCase{
	{name: "noise with a rule that would be supported", doc: "supported", query: "A B", standing: "noise", rule: RuleStatus, value: `"SUPPORTED"`},
	{name: "no rule, an uncomparable value, an unknown document", doc: unknownDoc, query: "A B", value: `null`},
	{name: "unknown rule on an unknown document, open", doc: unknownDoc, query: "A B", standing: "open", rule: "chronicle.settlement.amount", value: `100`},
	{name: "a rule that does not fit a find", doc: "lines", find: "alpha", rule: RuleStatus, value: `"SUPPORTED"`},
	{name: "an uncomparable value", doc: "supported", query: "A B", rule: RuleStatus, value: `"unknown"`},
	{name: "unknown document, ruled-out", doc: unknownDoc, query: "A B", standing: "ruled-out", rule: RuleStatus, value: `"SUPPORTED"`},
	{name: "no declaredResult", doc: "supported", query: "A B", rule: RuleStatus, value: `"SUPPORTED"`, noResult: true},
	{name: "open on an UNKNOWN settlement", doc: "unpaid", query: "A B", standing: "open", rule: RuleSettled, value: `0`},
	{name: "UNKNOWN settlement", doc: "unpaid", query: "A B", rule: RuleSettled, value: `"0/1"`},
	{name: "literal UNRESOLVED", doc: "literal", query: "@claim\tAlice\towns\tCar", rule: RuleClaim, value: `"EXACT_STATED"`},
	{name: "CONFLICT, debt", doc: "over", query: "A B", rule: RuleDebt, value: `"100/1"`},
	{name: "equal", doc: "alice", query: "Did Alice repay Bob?", rule: RuleSettled, value: `"40/1"`},
	{name: "equal as numbers", doc: "alice", query: "Did Alice repay Bob?", rule: RuleSettled, value: `40`},
	{name: "equal as numbers, a find", doc: "lines", find: "alpha", rule: RuleFindLines, value: `"3"`},
	{name: "different", doc: "alice", query: "Did Alice repay Bob?", rule: RuleSettled, value: `"100/1"`},
	{name: "not a number, so not lenient", doc: "alice", query: "Did Alice repay Bob?", rule: RuleSettled, value: `"4e1"`},
}

// witnessRow is the table row each witness above illustrates.
var witnessRow = []int{1, 2, 3, 3, 3, 4, 4, 5, 6, 6, 7, 8, 9, 9, 10, 10}

// TestReadmeOutcomes: the outcome table of section 3.2 numbers its rows 1
// to 10, names every reason of the row protocol once, and each row's
// outcome and reason are what Decide gives for claims meeting its
// condition.
func TestReadmeOutcomes(t *testing.T) {
	rows := readmeTable(t, "outcomes:")
	require.Len(t, witnessRow, len(outcomeWitnesses))
	var reasons []string
	for i, row := range rows {
		require.Len(t, row, 4, "%q", row)
		require.Equal(t, fmt.Sprint(i+1), row[0], "rows are numbered in order")
		reasons = append(reasons, unquote(row[3]))
		if row[2] == claimrow.Unverified {
			require.Contains(t, claimrow.UnverifiedReasons, unquote(row[3]))
		}
	}
	want := append(slices.Clone(claimrow.UnverifiedReasons), claimrow.NoConflict, claimrow.NumericLeniency, claimrow.Conflict)
	require.ElementsMatch(t, want, reasons, "every reason once")

	seen := map[int]bool{}
	for i, w := range outcomeWitnesses {
		n := witnessRow[i]
		seen[n] = true
		row := rows[n-1]
		t.Run(fmt.Sprintf("%d %s", n, w.name), func(t *testing.T) {
			f, err := ParseFile(w.file())
			require.NoError(t, err)
			got, err := Decide(f, f.Claims[0], answers(t, f))
			require.NoError(t, err)
			require.Equal(t, [2]string{row[2], unquote(row[3])}, [2]string{got.Outcome, got.Reason}, "row %d: %s", n, row[1])
		})
	}
	require.Len(t, seen, len(rows), "every row has a witness")
}

// file is the claims file of a decideCase (as runDecideCases builds it).
func (tc decideCase) file() []byte {
	standing := tc.standing
	if standing == "" {
		standing = "fact"
	}
	result := fmt.Sprintf(`{"result":1,"document":%s,"query":%s}`, jsonString(tc.doc), jsonString(tc.query))
	if tc.find != "" {
		result = fmt.Sprintf(`{"result":1,"document":%s,"find":%s}`, jsonString(tc.doc), jsonString(tc.find))
	}
	claim := fmt.Sprintf(`{"claim":1,"standing":%q,"iteration":0,"declaredOn":"answer","declaredValue":%s`, standing, tc.value)
	if !tc.noResult {
		claim += `,"declaredResult":1`
	}
	if tc.rule != "" {
		claim += `,"declaredRule":` + jsonString(tc.rule)
	}
	return lines(header, result, claim+"}")
}

// TestReadmeFormatExample: the example of section 2.2 is the file the
// parser tests read, and it parses.
func TestReadmeFormatExample(t *testing.T) {
	got := readmeBlock(t, readReadme(t), "example: format")
	require.Equal(t, exampleFile, got)
	f, err := ParseFile([]byte(got))
	require.NoError(t, err)
	require.Len(t, f.Results, 2)
	require.Len(t, f.Claims, 2)
}

// TestReadmeRefusals: each refusal quoted in section 2.3 is what ParseFile
// says of one of the files of testdata/claims/refused.
func TestReadmeRefusals(t *testing.T) {
	quoted := strings.Split(strings.TrimSuffix(readmeBlock(t, readReadme(t), "refusals:"), "\n"), "\n")
	require.NotEmpty(t, quoted)
	files, err := filepath.Glob("../../testdata/claims/refused/*.jsonl")
	require.NoError(t, err)
	said := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		_, err = ParseFile(data)
		require.Error(t, err, f)
		said[err.Error()] = true
	}
	for _, q := range quoted {
		require.True(t, said[q], "no file of testdata/claims/refused is refused with %q", q)
	}
}

// TestReadmeLimits: the bounds of section 4.4 are the code's.
func TestReadmeLimits(t *testing.T) {
	var rows [][]string
	doc := readReadme(t)
	for i, l := range doc {
		if l == "## 4. The claim-verification row" {
			doc = doc[i:]
			break
		}
	}
	for i, l := range doc {
		if strings.HasPrefix(l, "| ROW_BYTES") {
			for _, cells := range mdtable.Rows(doc[i:]) {
				rows = append(rows, []string{cells[0], cells[1]})
			}
			break
		}
	}
	comma := func(n int) string {
		s := fmt.Sprint(n)
		if len(s) > 3 {
			s = s[:len(s)-3] + "," + s[len(s)-3:]
		}
		return s
	}
	want := []string{
		comma(claimrow.RowBytes) + " bytes",
		comma(claimrow.ValueBytes) + " bytes",
		comma(claimrow.ScopeBytes) + " bytes",
		fmt.Sprintf("1 to %d", claimrow.ScopeDimension),
		comma(claimrow.ResultIDText) + " UTF-16 units",
		comma(claimrow.IdentityText) + " UTF-16 units",
		"1 to " + comma(claimrow.TextBound) + " UTF-16 units",
	}
	require.Len(t, rows, len(want))
	for i, r := range rows {
		require.Equal(t, want[i], r[1], r[0])
	}
	require.Equal(t, claimrow.RowBytes, LineBytes, "a claims file line has the row bound")
}
