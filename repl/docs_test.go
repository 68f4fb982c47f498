package repl

// `docs` pages (issue 26): --limit, --after and --sort give the rows of
// the whole listing in pieces; the readable view names the next page;
// wrong values are clear errors.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/casper-chronicle/chronicle/commands"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// docsEnv is an archive of the samples and 12 small documents.
func docsEnv(t *testing.T) *Env {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(dir, "samples"), os.DirFS("../testdata/samples")))
	for i := 0; i < 12; i++ {
		name := filepath.Join(dir, "gen", fmt.Sprintf("g%02d.txt", (i*5)%12))
		require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, os.WriteFile(name, []byte(fmt.Sprintf("line %d\n%s\n", i, strings.Repeat("y", i%4))), 0o644))
	}
	t.Chdir(dir)
	t.Setenv("SOURCE_DATE_EPOCH", epoch)
	t.Setenv("CHRONICLE_DB", "")
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, DBPath: filepath.Join(dir, "a.db")}
	require.Equal(t, ExitOK, Exec(env, []string{"ingest", "samples", "gen"}))
	return env
}

// docsRun runs `docs args...` and returns the exit code, stdout and stderr.
func docsRun(env *Env, text bool, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	e := *env
	e.Stdout, e.Stderr, e.StdoutTTY = &out, &errb, text
	code := Exec(&e, append([]string{"docs"}, args...))
	return code, out.String(), errb.String()
}

func TestDocsPages(t *testing.T) {
	env := docsEnv(t)
	for _, sort := range append([]string{""}, commands.DocsSorts...) {
		var extra []string
		if sort != "" {
			extra = []string{"--sort", sort}
		}
		code, full, _ := docsRun(env, false, append([]string{"--json"}, extra...)...)
		require.Equal(t, ExitOK, code)
		lines := strings.SplitAfter(full, "\n")
		lines = lines[:len(lines)-1]
		require.Len(t, lines, 14, "sort %q", sort)
		for _, limit := range []int{1, 3, 14, 20} {
			var got strings.Builder
			after := ""
			for pages := 0; ; pages++ {
				require.Less(t, pages, 20, "paging must end")
				args := append([]string{"--json", "--limit", fmt.Sprint(limit)}, extra...)
				if after != "" {
					args = append(args, "--after", after)
				}
				code, page, stderr := docsRun(env, false, args...)
				require.Equal(t, ExitOK, code, stderr)
				if page == "" {
					break
				}
				got.WriteString(page)
				rows := strings.Split(strings.TrimSuffix(page, "\n"), "\n")
				require.LessOrEqual(t, len(rows), limit)
				var row struct {
					SHA256 string `json:"document_sha256"`
				}
				require.NoError(t, json.Unmarshal([]byte(rows[len(rows)-1]), &row))
				after = row.SHA256
			}
			require.Equal(t, full, got.String(), "sort %q, limit %d", sort, limit)
		}
	}

	// The readable view: a header, the rows, then the next page's command,
	// which continues where the page stopped.
	code, all, _ := docsRun(env, true, "--sort", "name")
	require.Equal(t, ExitOK, code)
	allRows := strings.Split(strings.TrimSuffix(all, "\n"), "\n")
	require.Len(t, allRows, 15)
	require.True(t, strings.HasPrefix(allRows[0], "SHA256 "))
	next := regexp.MustCompile(`^\(more: docs (--after [0-9a-f]{12} --limit 5 --sort name)\)$`)
	args := []string{"--limit", "5", "--sort", "name"}
	var rows []string
	for {
		code, page, stderr := docsRun(env, true, args...)
		require.Equal(t, ExitOK, code, stderr)
		lines := strings.Split(strings.TrimSuffix(page, "\n"), "\n")
		require.Equal(t, allRows[0], lines[0], "each page has the header")
		m := next.FindStringSubmatch(lines[len(lines)-1])
		if m == nil {
			rows = append(rows, lines[1:]...)
			break
		}
		rows = append(rows, lines[1:len(lines)-1]...)
		args = strings.Fields(m[1])
	}
	require.Equal(t, allRows[1:], rows)

	// After the last row: nothing more.
	last := strings.Fields(allRows[len(allRows)-1])[0]
	code, out, _ := docsRun(env, true, "--sort", "name", "--after", last)
	require.Equal(t, ExitOK, code)
	require.Equal(t, fmt.Sprintf("(no documents after %s)\n", last), out)
	code, out, _ = docsRun(env, false, "--json", "--sort", "name", "--after", last)
	require.Equal(t, ExitOK, code)
	require.Empty(t, out)

	// --after takes a name too.
	code, out, _ = docsRun(env, false, "--json", "--after", "samples/ahmed-khalid-ar.txt", "--limit", "1")
	require.Equal(t, ExitOK, code)
	require.Contains(t, out, `"names":["samples/alice-bob-en.txt"]`)
}

func TestDocsFlagErrors(t *testing.T) {
	env := docsEnv(t)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--limit", "0"}, ExitUsage, `chronicle docs: --limit wants a positive integer, got "0"`},
		{[]string{"--limit", "-3"}, ExitUsage, `chronicle docs: --limit wants a positive integer, got "-3"`},
		{[]string{"--limit", "ten"}, ExitUsage, `chronicle docs: --limit wants a positive integer, got "ten"`},
		{[]string{"--limit"}, ExitUsage, `chronicle docs: --limit needs N`},
		{[]string{"--sort", "date"}, ExitUsage, `chronicle docs: --sort "date": want import, newest, name, size or events`},
		{[]string{"--after", "nosuch.txt"}, ExitFailure, `chronicle docs: --after "nosuch.txt": no such document`},
		{[]string{"--after", "ffffffffffff"}, ExitFailure, `chronicle docs: --after "ffffffffffff": no such document`},
	} {
		code, out, stderr := docsRun(env, true, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		require.Empty(t, out, "%v", tc.args)
		require.True(t, strings.HasPrefix(stderr, tc.msg), "%v: %s", tc.args, stderr)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
	}
}
