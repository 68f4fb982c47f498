package repl

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/internal/pagedamage"

	"github.com/stretchr/testify/require"
)

// complete runs the completer on line (cursor at the end) and returns the
// continuations as strings and the length of the word being completed.
func complete(c *completer, line string) ([]string, int) {
	cands, n := c.Do([]rune(line), len([]rune(line)))
	out := make([]string, len(cands))
	for i, r := range cands {
		out[i] = string(r)
	}
	return out, n
}

func TestComplete(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(dir, "samples"), os.DirFS("../testdata/samples")))
	t.Chdir(dir)
	t.Setenv("SOURCE_DATE_EPOCH", epoch)
	t.Setenv("CHRONICLE_DB", "")
	env := &Env{Stdout: io.Discard, Stderr: io.Discard, DBPath: filepath.Join(dir, "a.db")}
	c := &completer{s: newSession(env)}

	// Before the archive exists: commands and paths still complete.
	got, _ := complete(c, "show sam")
	require.Empty(t, got)
	got, _ = complete(c, "ingest sam")
	require.Equal(t, []string{"ples/"}, got)

	require.Equal(t, ExitOK, Exec(env, []string{"ingest", "samples"}))
	require.Equal(t, ExitOK, Exec(env, []string{"ingest", "samples/alice-bob-en.txt", "--name", "my story.txt"}))

	for _, tc := range []struct {
		line string
		want []string
		n    int
	}{
		{"sh", []string{"ow "}, 2},
		{"qu", []string{"ery ", "it "}, 2},
		{".m", []string{"ode "}, 2},
		{".mode j", []string{"son "}, 1},
		{"help qu", []string{"ery ", "it "}, 2},
		{"frobnicate x", nil, 1},
		{"show samples/al", []string{"ice-bob-en.txt "}, 10},
		{"show sam", []string{"ples/ahmed-khalid-ar.txt ", "ples/alice-bob-en.txt "}, 3},
		{"show 'samples/al", []string{"ice-bob-en.txt' "}, 11},
		{`show "samples/al`, []string{`ice-bob-en.txt" `}, 11},
		{"show my", []string{`\ story.txt `}, 2},
		{"show 'my", []string{` story.txt' `}, 3},
		{"show 5755", []string{"af8bbd9e "}, 4},
		{"show 5755af8bbd9e6", []string{"8ed6a03c59484f57a58895191f6bedf2c08a3cd9c0a1dcc3632 "}, 13},
		{"show samples/alice-bob-en.txt ", nil, 0},
		{"export samples/alice-bob-en.txt sam", []string{"ples/"}, 3},
		{"ingest samples/a", []string{"hmed-khalid-ar.txt ", "lice-bob-en.txt "}, 9},
		{"ingest samples/ahmed-khalid-ar.txt samples/al", []string{"ice-bob-en.txt "}, 10},
		{"ingest --name x samples/al", []string{"ice-bob-en.txt "}, 10},
		{"find --doc samples/al", []string{"ice-bob-en.txt "}, 10},
		{"find --d", []string{"oc ", "b "}, 3},
		{"find Sa", nil, 2},
		{"entity أ", []string{"حمد "}, 1},
		{"entity Al", []string{"ice "}, 2},
		{"claim samples/alice-bob-en.txt Al", []string{"ice "}, 2},
		{"claim samples/alice-bob-en.txt Alice owns B", []string{"ob "}, 1},
		{"query --db " + env.DBPath + " samples/al", []string{"ice-bob-en.txt "}, 10},
		{"show samples/al\\", nil, 0},
		{"claims ", []string{"check ", "read ", "verify ", "list "}, 0},
		{"claims v", []string{"erify "}, 1},
		{"claims check sam", []string{"ples/"}, 3},
		{"claims check --out sam", []string{"ples/"}, 3},
		{"claims --o", []string{"ut "}, 3},
	} {
		got, n := complete(c, tc.line)
		require.ElementsMatch(t, tc.want, got, "%q", tc.line)
		if len(tc.want) > 0 {
			require.Equal(t, tc.n, n, "%q", tc.line)
		}
	}

	// Every command of the table completes, and every one with
	// arguments says what they are.
	for _, name := range Names() {
		got, _ := complete(c, name[:len(name)-1])
		require.Contains(t, got, name[len(name)-1:]+" ", name)
		if cmd := lookup(name); cmd.max != 0 && name != "find" && name != "migrate" {
			require.NotEmpty(t, cmd.spec.Kinds, "completion kinds for %s %s", name, cmd.args)
		}
	}
}

func TestPagerDecision(t *testing.T) {
	require.False(t, needsPager([]byte("a\nb\n"), 80, 3))
	require.True(t, needsPager([]byte("a\nb\nc\n"), 80, 3), "one row stays for the prompt")
	require.False(t, needsPager([]byte("a\nb\nc\n"), 80, 0), "unknown height: no pager")

	dir := t.TempDir()
	pager := filepath.Join(dir, "pager.sh")
	require.NoError(t, os.WriteFile(pager, []byte("#!/bin/sh\nsed 's/^/| /'\n"), 0o755))
	var out, errOut bytes.Buffer
	page([]byte("a\nb\nc\n"), pager, &out, &errOut, 80, 3)
	require.Equal(t, "| a\n| b\n| c\n", out.String())
	out.Reset()
	page([]byte("a\n"), pager, &out, &errOut, 80, 3)
	require.Equal(t, "a\n", out.String(), "short output is printed directly")
	out.Reset()
	page([]byte("a\nb\nc\n"), filepath.Join(dir, "missing-pager"), &out, &errOut, 80, 3)
	require.Equal(t, "a\nb\nc\n", out.String(), "a pager that does not run: printed directly")
	require.Contains(t, errOut.String(), "did not run")
}

// TestSessionReadsDamage: the prompt, the guide and Tab completion read
// the archive between commands, under db.Guard as commands do: on a
// damaged page they say "unreadable" or offer nothing, and the session
// goes on (the page's panic would end it).
func TestSessionReadsDamage(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.db")
	a, err := db.Open(path, db.Options{})
	require.NoError(t, err)
	for i := range 60 { // enough that the names and docs buckets have pages of their own
		_, err := a.Ingest([]byte(fmt.Sprintf("Document %d: Alice paid Bob %d SAR.\n", i, i)), 1700000000, fmt.Sprintf("doc-%02d.txt", i))
		require.NoError(t, err)
	}
	require.NoError(t, a.Close())

	names := newSession(&Env{DBPath: pagedamage.ZeroRoot(t, path, "names"), Stdout: io.Discard, Stderr: io.Discard})
	got, _ := complete(&completer{s: names}, "show doc-0")
	require.Empty(t, got)
	docs := newSession(&Env{DBPath: pagedamage.ZeroRoot(t, path, "docs"), Stdout: io.Discard, Stderr: io.Discard})
	require.Equal(t, "unreadable", docs.archiveInfo().status)
	require.Equal(t, 60, docs.promptInfo().count, "the totals are not on the damaged page")

	whole := newSession(&Env{DBPath: path, Stdout: io.Discard, Stderr: io.Discard})
	got, _ = complete(&completer{s: whole}, "show doc-0")
	require.Len(t, got, 10, "the undamaged archive completes")
}
