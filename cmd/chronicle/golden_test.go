package main

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goldenCommand is one command of a golden transcript.
type goldenCommand struct {
	Argv   []string `json:"argv"`
	Exit   int      `json:"exit"`
	Stdout string   `json:"stdout"`
}

type goldenCase struct {
	name     string
	commands []goldenCommand
}

// goldenCases reads every golden case (g9, the legacy V1 store, only when
// withLegacy is set).
func goldenCases(t *testing.T, withLegacy bool) []goldenCase {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(goldenDir, "g[0-9]_*"))
	require.NoError(t, err)
	var cases []goldenCase
	for _, dir := range dirs {
		name := filepath.Base(dir)
		if strings.HasPrefix(name, "g9_") && !withLegacy {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "transcript.json"))
		require.NoError(t, err)
		var tr struct {
			Commands []goldenCommand `json:"commands"`
		}
		require.NoError(t, json.Unmarshal(data, &tr), name)
		cases = append(cases, goldenCase{name: name, commands: tr.Commands})
	}
	require.GreaterOrEqual(t, len(cases), 9)
	return cases
}

// archiveArgs translates a golden query/claim/find command on
// input.txt.chronicle into the chronicle command on document doc; ok is
// false for other commands.
func archiveArgs(c goldenCommand, doc string) ([]string, bool) {
	switch {
	case c.Argv[0] == "query" && len(c.Argv) == 3:
		return []string{"query", doc, c.Argv[2], "--json"}, true
	case c.Argv[0] == "claim" && len(c.Argv) == 5:
		return []string{"claim", doc, c.Argv[2], c.Argv[3], c.Argv[4], "--json"}, true
	case c.Argv[0] == "find" && len(c.Argv) == 3:
		return []string{"find", "--doc", doc, c.Argv[2], "--json"}, true
	}
	return nil, false
}

// requireGoldenAnswer runs one translated golden command and compares it
// with the original tool's JSON line (or failure).
func requireGoldenAnswer(t *testing.T, w *ws, c goldenCommand, args []string) {
	t.Helper()
	r := w.run(args...)
	switch c.Exit {
	case 0:
		require.Equal(t, 0, r.code, "%s", r)
		require.Equal(t, firstLine(c.Stdout), r.stdout)
	default:
		require.Equal(t, c.Exit, r.code, "%s", r)
		require.Empty(t, r.stdout)
	}
}

// TestGoldenCases: for every golden case but g9, ingest input.txt into a
// fresh archive, answer every golden question with the golden JSON line,
// and export the golden store with a receipt the original verifies.
func TestGoldenCases(t *testing.T) {
	t.Parallel()
	for _, gc := range goldenCases(t, false) {
		t.Run(gc.name, func(t *testing.T) {
			t.Parallel()
			w := newWS(t)
			w.copyGolden(gc.name, "input.txt", "input.txt")
			out := w.ok("ingest", "input.txt")
			require.Regexp(t, `^new +input\.txt +[0-9a-f]{12} +\d+ events?\n$`, out)

			answered := 0
			for i, c := range gc.commands {
				args, ok := archiveArgs(c, "input.txt")
				if !ok || (c.Exit != 0 && !(c.Exit == 1 && c.Argv[0] == "find")) {
					continue
				}
				answered++
				t.Run(strconv.Itoa(i)+"_"+c.Argv[0], func(t *testing.T) {
					requireGoldenAnswer(t, w, c, args)
				})
			}
			require.Positive(t, answered)

			out = w.ok("export", "input.txt", "out")
			require.Equal(t, "store=out/input.txt.chronicle\nreceipt=out/input.txt.chronicle.receipt\nsignature=out/input.txt.chronicle.receipt.sig\n", out)
			golden, err := os.ReadFile(filepath.Join(goldenDir, gc.name, "input.txt.chronicle"))
			require.NoError(t, err)
			require.Equal(t, golden, w.read("out/input.txt.chronicle"), "exported store differs from the golden store")

			r := w.casper("verify", "out/input.txt.chronicle.receipt")
			require.Equal(t, 0, r.code, "%s", r)
			require.Equal(t, "VALID\n", r.stdout)
			// chronicle verifies the original receipt format as well.
			r = w.run("verify", "out/input.txt.chronicle.receipt")
			require.Equal(t, 0, r.code, "%s", r)
			require.Equal(t, w.verifyText("out/input.txt.chronicle.receipt", "VALID"), r.stdout)

			// Exporting again is idempotent; the files are not rewritten.
			w.ok("export", "input.txt", "out")
			require.Equal(t, golden, w.read("out/input.txt.chronicle"))
		})
	}
}

// TestGoldenOneArchive ingests every golden input into one archive; results
// stay golden, reopening changes nothing, and re-ingesting adds nothing and
// keeps the file size.
func TestGoldenOneArchive(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	cases := goldenCases(t, false)
	var paths []string
	for _, gc := range cases {
		p := gc.name + "/input.txt"
		w.copyGolden(gc.name, "input.txt", p)
		paths = append(paths, p)
	}
	out := w.ok(append([]string{"ingest"}, paths...)...)
	require.Len(t, lines(out), len(paths))

	answerAll := func(t *testing.T) {
		for _, gc := range cases {
			for _, c := range gc.commands {
				if args, ok := archiveArgs(c, gc.name+"/input.txt"); ok && (c.Exit == 0 || c.Argv[0] == "find") {
					requireGoldenAnswer(t, w, c, args)
				}
			}
		}
	}
	answerAll(t)
	st, err := os.Stat(w.db)
	require.NoError(t, err)
	before := st.Size()
	docsBefore := w.docs()
	receiptsBefore := w.receipts()

	out = w.ok(append([]string{"ingest"}, paths...)...)
	for _, line := range lines(out) {
		require.Regexp(t, `^reused +g\d_\w+/input\.txt +[0-9a-f]{12} +first imported 2025-06-15T15:06:40Z$`, line)
	}
	answerAll(t) // the same questions again: receipts are kept once
	st, err = os.Stat(w.db)
	require.NoError(t, err)
	require.Equal(t, before, st.Size(), "re-ingesting and re-asking grew the archive")
	require.Equal(t, docsBefore, w.docs())
	require.Equal(t, receiptsBefore, w.receipts())
	require.Contains(t, w.ok("check"), "ok: ")
}

// TestGoldenOriginalReceipts: `chronicle verify` gives the original verdict
// for every verify command of every golden transcript (V2 receipts VALID
// against their .chronicle files, g9's legacy receipt UNSUPPORTED), run
// next to a copy of the golden case files.
func TestGoldenOriginalReceipts(t *testing.T) {
	t.Parallel()
	for _, gc := range goldenCases(t, true) {
		t.Run(gc.name, func(t *testing.T) {
			t.Parallel()
			w := newWS(t)
			entries, err := os.ReadDir(filepath.Join(goldenDir, gc.name))
			require.NoError(t, err)
			for _, e := range entries {
				w.copyGolden(gc.name, e.Name(), e.Name())
			}
			verified := 0
			for _, c := range gc.commands {
				if c.Argv[0] != "verify" {
					continue
				}
				verified++
				r := w.run(c.Argv...)
				require.Equal(t, c.Exit, r.code, "verify %s\n%s", c.Argv[1], r)
				require.Equal(t, c.Stdout, r.stdout, "verify %s", c.Argv[1])
			}
			require.Positive(t, verified)
		})
	}
}

// TestLegacyReceiptUnsupported: g9's V1 receipt next to its V1 store is
// UNSUPPORTED (exit 3), as the original says.
func TestLegacyReceiptUnsupported(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	const g9 = "g9_legacy_v1_store"
	w.copyGolden(g9, "legacy-query.receipt", "legacy-query.receipt")
	w.copyGolden(g9, "input.txt.chronicle", "input.txt.chronicle")
	r := w.run("verify", "legacy-query.receipt")
	require.Equal(t, 3, r.code, "%s", r)
	require.Equal(t, "UNSUPPORTED\n", r.stdout)
	r = w.casper("verify", "legacy-query.receipt")
	require.Equal(t, 3, r.code, "%s", r)
	require.Equal(t, "UNSUPPORTED\n", r.stdout)
}

// TestExportPaths: the exported receipt records the store path as formed
// from the DIR argument, and the original verifies it from the same
// working directory.
func TestExportPaths(t *testing.T) {
	t.Parallel()
	const g0 = "g0_minimal_literal"
	golden, err := os.ReadFile(filepath.Join(goldenDir, g0, "input.txt.chronicle"))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, doc, dir, store string
	}{
		{"plain dir", "stories/input.txt", "out", "out/input.txt.chronicle"},
		{"trailing slash", "stories/input.txt", "out/", "out/input.txt.chronicle"},
		{"nested new dirs", "stories/input.txt", "a/b/c", "a/b/c/input.txt.chronicle"},
		{"dot", "stories/input.txt", ".", "./input.txt.chronicle"},
		{"by hash, base of first name", "36c5ab5b", "x", "x/input.txt.chronicle"},
		{"second name is not used", "alias", "y", "y/input.txt.chronicle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWS(t)
			w.copyGolden(g0, "input.txt", "stories/input.txt")
			w.ok("ingest", "stories/input.txt", "--name", "alias")
			out := w.ok("export", tc.doc, tc.dir)
			require.Equal(t, "store="+tc.store+"\nreceipt="+tc.store+".receipt\nsignature="+tc.store+".receipt.sig\n", out)
			require.Equal(t, golden, w.read(tc.store))
			r := w.casper("verify", tc.store+".receipt")
			require.Equal(t, 0, r.code, "%s", r)
			require.Equal(t, "VALID\n", r.stdout)
			require.Contains(t, string(w.read(tc.store+".receipt")), "store_path_hex:"+hex.EncodeToString([]byte(tc.store))+"\n")
		})
	}

	// An existing different file is never overwritten.
	w := newWS(t)
	w.copyGolden(g0, "input.txt", "input.txt")
	w.ok("ingest", "input.txt")
	w.write("out/input.txt.chronicle", "something else")
	r := w.run("export", "input.txt", "out")
	requireOneLineError(t, r, 1, "export", `out/input\.txt\.chronicle already exists with other content; nothing was overwritten`)
	require.Equal(t, "something else", string(w.read("out/input.txt.chronicle")))
	require.NoFileExists(t, filepath.Join(w.dir, "out/input.txt.chronicle.receipt"))
}
