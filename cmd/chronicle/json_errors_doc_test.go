package main

// The guide's JSON error object (repl/GUIDE.md "Machine output": its
// fields table and its kinds table) and exit code table, held to the code.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/mdtable"
	"github.com/casper-chronicle/chronicle/repl"

	"github.com/stretchr/testify/require"
)

// guideTable returns the rows (cells, backticks kept) of the table of
// repl/GUIDE.md whose header row is header, without its header and
// separator.
func guideTable(t *testing.T, header string) [][]string {
	t.Helper()
	data, err := os.ReadFile(guidePath("repl/GUIDE.md"))
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	i := slices.Index(lines, header)
	require.GreaterOrEqual(t, i, 0, "repl/GUIDE.md has no table %q", header)
	rows := mdtable.Body(lines[i:])
	require.NotEmpty(t, rows, header)
	return rows
}

// errorKinds are the values of repl's kind constants (repl/machine.go),
// read from the source since they are not exported.
func errorKinds(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", "repl", "machine.go"), nil, 0)
	require.NoError(t, err)
	var kinds []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			for i, name := range v.Names {
				if !strings.HasPrefix(name.Name, "kind") || i >= len(v.Values) {
					continue
				}
				lit, ok := v.Values[i].(*ast.BasicLit)
				require.True(t, ok && lit.Kind == token.STRING, "%s is a string constant", name.Name)
				k, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				kinds = append(kinds, k)
			}
		}
	}
	require.GreaterOrEqual(t, len(kinds), 10, "the kind constants of repl/machine.go")
	return kinds
}

// TestJSONErrorObjectDocumented: the guide's kinds table lists every kind
// the code has, once, each with an exit code of the exit code table (the
// codes of their own for usage, no_archive, busy, interrupted and
// unsupported); and the JSON errors of a range of failures carry only the
// fields of the guide's fields table, all of them among them, with the
// code the kinds table gives their kind.
func TestJSONErrorObjectDocumented(t *testing.T) {
	t.Parallel()
	codeOf := map[string]int{}
	for _, row := range guideTable(t, "| kind | code | the error |") {
		require.Len(t, row, 3, "%q", row)
		kind := strings.Trim(row[0], "`")
		_, dup := codeOf[kind]
		require.False(t, dup, "kind %s twice", kind)
		code, err := strconv.Atoi(row[1])
		require.NoError(t, err, "%q", row)
		require.True(t, slices.ContainsFunc(repl.ExitCodes, func(c repl.ExitCode) bool { return c.Code == code }), "kind %s: code %d is not in the exit code table", kind, code)
		codeOf[kind] = code
	}
	var documented []string
	for k := range codeOf {
		documented = append(documented, k)
	}
	require.ElementsMatch(t, errorKinds(t), documented, "the guide's kinds table and repl/machine.go's kinds")
	for kind, code := range map[string]int{"usage": repl.ExitUsage, "no_archive": repl.ExitNoArchive, "busy": repl.ExitBusy,
		"interrupted": repl.ExitInterrupted, "unsupported": repl.ExitUnsupported} {
		require.Equal(t, code, codeOf[kind], kind)
	}

	fields := map[string]string{} // field → when present
	for _, row := range guideTable(t, "| field | present | holds |") {
		require.Len(t, row, 3, "%q", row)
		fields[strings.Trim(row[0], "`")] = row[1]
	}

	w := samplesWS(t)
	alice := "testdata/samples/alice-bob-en.txt"
	w.write("refused.jsonl", `{"chronicle-claims":1,"namespace":"n","runId":"r"}`+"\n"+`{"claim":1,"standing":"maybe"}`+"\n")
	w.write("rows.jsonl", `{"kind":"claim-verification"}`+"\n")
	w.write("exp/alice-bob-en.txt.chronicle", "other content\n")
	var errs []map[string]any
	collect := func(r result) {
		t.Helper()
		require.NotEqual(t, 0, r.code, "%s", r)
		objs := jsonLines(t, r.stderr)
		require.NotEmpty(t, objs, "%s", r)
		errs = append(errs, objs...)
	}
	collect(w.run("query", "nosuch.txt", g1Q, "--json"))
	collect(w.run("find", "Saud", "--limt", "3", "--json"))
	collect(w.run("fnd", "Saud", "--json"))
	collect(w.run("--json", "--limt", "3", "find", "x"))
	collect(w.raw(nil, "--db", filepath.Join(w.dir, "none.db"), "docs", "--json"))
	collect(w.run("claims", "check", "nosuch.jsonl", "--json"))
	collect(w.run("claims", "check", "refused.jsonl", "--json"))
	collect(w.run("claims", "read", "rows.jsonl", "--json"))
	collect(w.run("export", alice, "exp", "--json"))
	collect(w.stdin(".mode json\n.mode bogus\n.read nope.chr\n.mde\n", "--db="+w.db))

	seen := map[string]bool{}
	kinds := map[string]bool{}
	for _, e := range errs {
		for k := range e {
			_, ok := fields[k]
			require.True(t, ok, "field %q of %v is not in the guide's fields table", k, e)
			seen[k] = true
		}
		for k, when := range fields {
			if when == "always" {
				require.Contains(t, e, k, "%v", e)
			}
		}
		kind, _ := e["error"].(string)
		code, ok := codeOf[kind]
		require.True(t, ok, "kind %q of %v is not in the guide's kinds table", kind, e)
		require.Equal(t, float64(code), e["code"], "%v", e)
		kinds[kind] = true
	}
	for k := range fields {
		require.True(t, seen[k], "no error above shows the field %q; add one that does", k)
	}
	for _, k := range []string{"usage", "no_archive", "no_such_document", "no_such_file", "failure", "invalid", "exists"} {
		require.True(t, kinds[k], "no error above is of kind %q", k)
	}
}

// TestExitCodeTableRows: the guide's exit code table has one row per code
// of repl.ExitCodes, in its order, and no other.
func TestExitCodeTableRows(t *testing.T) {
	t.Parallel()
	var got []int
	for _, row := range guideTable(t, "| code | meaning |") {
		require.Regexp(t, regexp.MustCompile(`^\d+$`), row[0])
		code, err := strconv.Atoi(row[0])
		require.NoError(t, err)
		got = append(got, code)
	}
	var want []int
	for _, c := range repl.ExitCodes {
		want = append(want, c.Code)
	}
	require.Equal(t, want, got)
}
