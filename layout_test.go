package chronicle_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeLayout: every package of the repository is in the README's
// layout table, so that a newcomer finds the room for a change there. A
// package is named by its own row (`db/fileio`), in a row that lists it
// beside others (`engine/receipt`, `engine/canonjson`), or inside its
// parent's row as `name` (the `internal/` row names `jsontext`), or in
// passing in a row's text (`cmd/internal/benchtool`).
func TestReadmeLayout(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	text := string(raw)
	start := strings.Index(text, "| path | what it is |")
	require.GreaterOrEqual(t, start, 0, "README.md has no layout table")
	end := strings.Index(text[start:], "\n\n")
	require.Greater(t, end, 0)
	code := regexp.MustCompile("`([^`]+)`")
	named := map[string]bool{}     // paths in a row's first cell
	inRow := map[string][]string{} // a parent's row: every `word` in it
	for _, row := range strings.Split(text[start:start+end], "\n")[2:] {
		cells := strings.Split(row, "|")
		require.GreaterOrEqual(t, len(cells), 3, "row %q", row)
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			p := strings.TrimSuffix(strings.Fields(m[1])[0], "/")
			named[p] = true
			for _, w := range code.FindAllStringSubmatch(cells[2], -1) {
				inRow[p] = append(inRow[p], w[1])
			}
		}
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			if strings.Contains(m[1], "/") && !strings.Contains(m[1], ".") {
				named[m[1]] = true // a package named in passing: `cmd/internal/benchtool`
			}
		}
	}
	var packages []string
	require.NoError(t, filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			packages = append(packages, filepath.ToSlash(filepath.Dir(path)))
		}
		return nil
	}))
	require.Contains(t, packages, "repl/mcpserver", "the walk finds the packages")
	for _, p := range packages {
		if named[p] {
			continue
		}
		parent, base := filepath.ToSlash(filepath.Dir(p)), filepath.Base(p)
		require.Contains(t, inRow[parent], base, "package %s is not in README.md's layout table", p)
	}
}
