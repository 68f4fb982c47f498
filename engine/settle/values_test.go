package settle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStatusLists: every Status constant of the package is in exactly one
// of SettlementStatuses and ClaimStatuses, and the lists hold nothing else,
// so a status added to result.go cannot be missing from what front-ends
// tell their readers.
func TestStatusLists(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var declared []Status
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Status" {
					continue
				}
				for _, v := range vs.Values {
					s, err := strconv.Unquote(v.(*ast.BasicLit).Value)
					require.NoError(t, err)
					declared = append(declared, Status(s))
				}
			}
		}
	}
	require.NotEmpty(t, declared)
	listed := slices.Concat(SettlementStatuses, ClaimStatuses)
	require.ElementsMatch(t, declared, listed, "the Status constants and the two lists")
}
