package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle"
	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/keys"
	"github.com/casper-chronicle/chronicle/engine/sign"
	"github.com/casper-chronicle/chronicle/internal/testbin"
	"github.com/casper-chronicle/chronicle/original"
	"github.com/casper-chronicle/chronicle/repl/mcpserver"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestTableEveryCommandHasHelp walks the command table: the CLI's table
// and package commands' list the same commands in the same order, and
// every command has a summary and an example that `help COMMAND` prints.
func TestTableEveryCommandHasHelp(t *testing.T) {
	var names []string
	for _, s := range commands.Table {
		names = append(names, s.Name)
	}
	require.Equal(t, names, Names(), "the CLI's commands are the table's")
	for _, c := range table {
		spec := commands.Lookup(c.name)
		require.NotNil(t, spec, c.name)
		require.NotEmpty(t, spec.Summary, c.name)
		require.NotEmpty(t, spec.Example, c.name)
		require.True(t, spec.Example == c.name || strings.HasPrefix(spec.Example, c.name+" "), "%s: the example runs the command: %q", c.name, spec.Example)
		var out, errOut bytes.Buffer
		code := Exec(&Env{Stdout: &out, Stderr: &errOut, Text: true}, []string{"help", c.name})
		require.Equal(t, ExitOK, code, "help %s: %s", c.name, errOut.String())
		help := strings.Join(strings.Fields(out.String()), " ")
		require.Contains(t, help, strings.Join(strings.Fields(spec.Summary), " "), "help %s", c.name)
		require.Contains(t, help, spec.Example, "help %s", c.name)
	}
}

// connectMCP serves the archive at path in-process and connects the MCP
// SDK's client to it.
func connectMCP(t *testing.T, path string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	srv := mcpserver.New(mcpserver.Options{DBPath: path, Wait: 5 * time.Second})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "table-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestTableReadCommandsHaveTools: every read command has an MCP tool or
// a stated reason it has none; the server lists exactly the table's
// tools, each described by its entry.
func TestTableReadCommandsHaveTools(t *testing.T) {
	var tools []string
	for _, s := range commands.Table {
		if s.Read {
			require.True(t, (s.Tool == "") != (s.NoTool == ""), "%s: a read command has an MCP tool or a reason it has none, not both", s.Name)
		}
		if s.Tool != "" {
			require.NotEmpty(t, s.Description, s.Name)
			tools = append(tools, s.Tool)
		}
	}
	cs := connectMCP(t, filepath.Join(t.TempDir(), "none.db"))
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var listed []string
	for _, tool := range res.Tools {
		listed = append(listed, tool.Name)
		spec := commands.ByTool(tool.Name)
		require.NotNil(t, spec, tool.Name)
		require.True(t, strings.HasPrefix(tool.Description, spec.Description), "%s: the description is the table's", tool.Name)
	}
	slices.Sort(tools)
	slices.Sort(listed)
	require.Equal(t, tools, listed)
}

// cliOnlyFlags are the flags of read commands that their MCP tools do
// not take, and why.
var cliOnlyFlags = map[string]string{
	"receipt": "a tool result always carries its receipt, and writes no file",
	"keep":    "the tools keep nothing but claim checks",
	"out":     "check_claims returns its rows, and writes no file",
	"verify":  "receipts has no tool",
	"key":     "the tools write no file, so they sign none",
	"trust":   "the verify tool takes a receipt's text; a proof bundle is a file checked offline by the CLI",
	"sign":    "log has no tool",
}

// toolField is the MCP input field a CLI flag is (its name, unless
// listed).
var toolField = map[string]map[string]string{
	"find":   {"doc": "document"},
	"settle": {"doc": "documents"},
}

// TestTableFlagsInEveryFrontEnd: every flag of a command with an MCP tool
// is a field of the tool's input schema, or a CLI-only flag with its
// reason, so that a new flag reaches the MCP server too.
func TestTableFlagsInEveryFrontEnd(t *testing.T) {
	cs := connectMCP(t, filepath.Join(t.TempDir(), "none.db"))
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	inputs := map[string]map[string]any{}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(b, &schema))
		inputs[tool.Name] = schema.Properties
	}
	for _, c := range table {
		spec := commands.Lookup(c.name)
		if spec.Tool == "" {
			continue
		}
		for _, f := range c.flags {
			if _, ok := cliOnlyFlags[f.Name]; ok {
				continue
			}
			field := f.Name
			if m, ok := toolField[c.name][f.Name]; ok {
				field = m
			}
			require.Contains(t, inputs[spec.Tool], field, "%s --%s: the %s tool has no input %q, and the flag is not listed as CLI-only", c.name, f.Name, spec.Tool, field)
		}
	}
}

// cliJSON runs a command line with --json in-process and returns its
// stdout lines, each decoded.
func cliJSON(t *testing.T, path string, args ...string) []map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Exec(&Env{DBPath: path, Stdout: &out, Stderr: &errOut}, append(args, "--json"))
	require.Equal(t, ExitOK, code, "%v: %s", args, errOut.String())
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		lines = append(lines, decodeJSON(t, l))
	}
	return lines
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	require.NoError(t, d.Decode(&m), s)
	return m
}

// callTool calls an MCP tool and returns its structured result.
func callTool(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.False(t, res.IsError, "%s: %v", tool, res.Content)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	return decodeJSON(t, string(b))
}

// without is m less the members an MCP result adds to the CLI's line
// (its resultId, a document's resource URI).
func without(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// TestTableSameJSON: for the commands whose run function is shared
// (package commands), the CLI's --json output and the MCP tool's
// structured result are the same JSON.
func TestTableSameJSON(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", epoch)
	t.Chdir("..") // original receipts name their stores from the repository's root
	dir := t.TempDir()
	path := filepath.Join(dir, "chronicle.db")
	var out bytes.Buffer
	require.Equal(t, ExitOK, Exec(&Env{DBPath: path, Stdout: &out, Stderr: &out}, []string{"ingest", "testdata/samples"}), out.String())
	cs := connectMCP(t, path)
	const alice = "testdata/samples/alice-bob-en.txt"

	t.Run("docs", func(t *testing.T) {
		for _, page := range [][]string{nil, {"--limit", "1"}, {"--sort", "size"}} {
			args := map[string]any{}
			for i := 0; i < len(page); i += 2 {
				args[strings.TrimPrefix(page[i], "--")] = page[i+1]
			}
			if _, ok := args["limit"]; ok {
				args["limit"] = 1
			}
			want := cliJSON(t, path, append([]string{"docs"}, page...)...)
			got := callTool(t, cs, "docs", args)
			docs := got["documents"].([]any)
			require.Len(t, docs, len(want), "%v", page)
			for i, d := range docs {
				require.Equal(t, want[i], without(d.(map[string]any), "uri"), "%v", page)
			}
		}
	})
	t.Run("show", func(t *testing.T) {
		want := cliJSON(t, path, "show", alice, "2-3")
		got := callTool(t, cs, "show", map[string]any{"document": alice, "from": 2, "to": 3})
		lines := got["lines"].([]any)
		require.Len(t, lines, len(want))
		for i, l := range lines {
			require.Equal(t, want[i], l)
		}
	})
	t.Run("stats", func(t *testing.T) {
		want := cliJSON(t, path, "stats")
		require.Len(t, want, 1)
		require.Equal(t, want[0], without(callTool(t, cs, "stats", nil), "resultId"))
	})
	t.Run("find", func(t *testing.T) {
		want := cliJSON(t, path, "find", "Saud")
		got := callTool(t, cs, "find", map[string]any{"terms": "Saud"})
		hits := got["hits"].([]any)
		require.Len(t, hits, len(want))
		for i, h := range hits {
			require.Equal(t, want[i], without(h.(map[string]any), "resultId", "canonical"))
		}
		// in one document: the canonical line
		var line bytes.Buffer
		require.Equal(t, ExitOK, Exec(&Env{DBPath: path, Stdout: &line, Stderr: &line}, []string{"find", "Saud", "--doc", alice, "--json"}))
		got = callTool(t, cs, "find", map[string]any{"terms": "Saud", "document": alice})
		require.Equal(t, strings.TrimSuffix(line.String(), "\n"), got["canonical"])
		// the Go API: the same lines, less their names (the receipt binds them)
		a, err := chronicle.Open(path, &chronicle.Options{ReadOnly: true})
		require.NoError(t, err)
		defer a.Close()
		ans, err := a.Find("Saud", 0)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSuffix(string(ans.JSON), "\n"), "\n")
		require.Len(t, lines, len(want))
		for i, l := range lines {
			require.Equal(t, without(want[i], "names"), decodeJSON(t, l))
		}
	})
	t.Run("query and settle", func(t *testing.T) {
		for _, tc := range []struct {
			tool string
			args map[string]any
			cli  []string
		}{
			{"query", map[string]any{"document": alice, "question": "Did Alice repay Bob?"}, []string{"query", alice, "Did Alice repay Bob?"}},
			{"query", map[string]any{"document": alice, "question": "@claim\tAlice\towns\tBook"}, []string{"claim", alice, "Alice", "owns", "Book"}},
			{"settle", map[string]any{"question": "Did Alice repay Bob?"}, []string{"settle", "Did Alice repay Bob?"}},
		} {
			want := cliJSON(t, path, tc.cli...)
			require.Len(t, want, 1)
			got := callTool(t, cs, tc.tool, tc.args)
			require.Equal(t, want[0], got["result"], "%v", tc.cli)
		}
	})
	t.Run("entity", func(t *testing.T) {
		want := cliJSON(t, path, "entity", "Saud")
		got := callTool(t, cs, "entity", map[string]any{"name": "Saud"})
		hits := got["hits"].([]any)
		require.Len(t, hits, len(want))
		for i, h := range hits {
			require.Equal(t, want[i], h.(map[string]any)["event"])
		}
	})
	t.Run("the Go API", func(t *testing.T) {
		cliLine := func(args ...string) string {
			var out, errOut bytes.Buffer
			require.Equal(t, ExitOK, Exec(&Env{DBPath: path, Stdout: &out, Stderr: &errOut}, append(args, "--json")), errOut.String())
			return strings.TrimSuffix(out.String(), "\n")
		}
		a, err := chronicle.Open(path, &chronicle.Options{ReadOnly: true})
		require.NoError(t, err)
		defer a.Close()
		ans, err := a.Query(alice, "Did Alice repay Bob?")
		require.NoError(t, err)
		require.Equal(t, cliLine("query", alice, "Did Alice repay Bob?"), string(ans.JSON))
		ans, err = a.Claim(alice, "Alice", "owns", "Book")
		require.NoError(t, err)
		require.Equal(t, cliLine("claim", alice, "Alice", "owns", "Book"), string(ans.JSON))
		ans, err = a.FindIn(alice, "Saud")
		require.NoError(t, err)
		require.Equal(t, cliLine("find", "Saud", "--doc", alice), string(ans.JSON))
		set, err := a.Settle("Did Alice repay Bob?")
		require.NoError(t, err)
		require.Equal(t, cliLine("settle", "Did Alice repay Bob?"), strings.TrimSuffix(string(set.JSON), "\n"))
		// entity's lines, less their names (the receipt binds them)
		want := cliJSON(t, path, "entity", "Saud")
		set, err = a.Entity("Saud")
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSuffix(string(set.JSON), "\n"), "\n")
		require.Len(t, lines, len(want))
		for i, l := range lines {
			require.Equal(t, without(want[i], "names"), decodeJSON(t, l))
		}
		// the documents of docs
		want = cliJSON(t, path, "docs")
		docs, err := a.Documents()
		require.NoError(t, err)
		require.Len(t, docs, len(want))
		for i, d := range docs {
			require.Equal(t, want[i]["document_sha256"], d.SHA256)
			require.Equal(t, want[i]["imported"], commands.RFC3339(d.ImportedAt))
		}
		// a receipt's verdict
		v, err := a.Verify(ans.Receipt)
		require.NoError(t, err)
		rec := filepath.Join(dir, "api.receipt")
		require.NoError(t, os.WriteFile(rec, ans.Receipt, 0o644))
		require.Equal(t, cliJSON(t, path, "verify", rec)[0]["verdict"], string(v))
	})
	t.Run("verify", func(t *testing.T) {
		rec := filepath.Join(dir, "find.receipt")
		cliJSON(t, path, "find", "Saud", "--doc", alice, "--receipt", rec)
		data, err := os.ReadFile(rec)
		require.NoError(t, err)
		want := cliJSON(t, path, "verify", rec)
		require.Len(t, want, 1)
		require.Equal(t, rec, want[0]["file"])
		// the CLI also checks the signature beside the file (FILE.sig);
		// the tool is given the receipt's text alone
		require.Equal(t, testbin.TestKeyFingerprint, want[0]["signer"])
		require.Equal(t, without(want[0], "file", "signer"), without(callTool(t, cs, "verify", map[string]any{"receipt": string(data)}), "resultId"))
		// an original receipt: the CLI checks the .chronicle file beside
		// it, the tool the same store imported into the archive
		orig := "testdata/old/story.txt.chronicle"
		cliJSON(t, path, "import", orig)
		data, err = os.ReadFile(orig + ".receipt")
		require.NoError(t, err)
		want = cliJSON(t, path, "verify", orig+".receipt")
		got := callTool(t, cs, "verify", map[string]any{"receipt": string(data)})
		require.Equal(t, "VALID", got["verdict"])
		require.Equal(t, without(want[0], "file"), without(got, "resultId"))
	})
}

// TestTableFlagsEverywhere walks the command table: every flag of every
// command (its own and the global ones) has help, is in `help COMMAND`
// and `help COMMAND --json`, is accepted by the parser, is offered by
// Tab completion and by `chronicle __complete`, which each shell's
// completion script asks; the value of a flag that names a file
// completes as a path. So a flag declared in the table reaches every one
// of them.
func TestTableFlagsEverywhere(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("a-file.txt", nil, 0o644))
	env := &Env{DBPath: filepath.Join(dir, "none.db"), Stdout: io.Discard, Stderr: io.Discard, Text: true}
	tab := &completer{s: newSession(env)}
	for _, sh := range commands.Shells {
		script, ok := completionScripts[sh]
		require.True(t, ok, "no completion script for %s", sh)
		require.Contains(t, script, " "+completeCommand+" -- ", "%s: the script asks the binary for its candidates", sh)
	}
	for _, spec := range commands.Table {
		c := lookup(spec.Name)
		require.NotNil(t, c, spec.Name)
		var help, helpJSON bytes.Buffer
		require.Equal(t, ExitOK, Exec(&Env{Stdout: &help, Stderr: &help, Text: true}, []string{"help", spec.Name}), help.String())
		require.Equal(t, ExitOK, Exec(&Env{Stdout: &helpJSON, Stderr: &helpJSON}, []string{"help", spec.Name, "--json"}), helpJSON.String())
		var entry helpEntry
		require.NoError(t, json.Unmarshal(helpJSON.Bytes(), &entry))
		var jsonFlags []string
		for _, f := range entry.Flags {
			jsonFlags = append(jsonFlags, f.Name)
		}
		var flags []string
		for _, f := range spec.FlagsOf() {
			flags = append(flags, "--"+f.Name)
			what := spec.Name + " --" + f.Name
			require.NotEmpty(t, f.Help, what)
			require.Contains(t, strings.Join(strings.Fields(help.String()), " "), strings.Join(strings.Fields(f.Help), " "), "help %s", what)

			args := []string{"--" + f.Name}
			if f.Value != "" {
				args = append(args, "v")
			}
			p, err := parseArgs(args, c.flags)
			require.NoError(t, err, what)
			require.True(t, p.has(f.Name), what)

			prefix := "--" + f.Name[:1]
			got, _ := complete(tab, spec.Name+" "+prefix)
			require.Contains(t, got, strings.TrimPrefix("--"+f.Name, prefix)+" ", "Tab: %s", what)
			require.Contains(t, shellComplete(t, env, spec.Name, prefix), "--"+f.Name, "__complete: %s", what)
			if f.Kind == commands.ArgPath {
				require.Contains(t, shellComplete(t, env, spec.Name, "--"+f.Name, "a-"), "a-file.txt", "the value of %s", what)
			}
		}
		require.Equal(t, flags, jsonFlags, "help %s --json", spec.Name)
	}
	// a global flag before the command (`chronicle --db <Tab>`)
	for _, f := range commands.GlobalFlags {
		if f.Kind == commands.ArgPath {
			require.Contains(t, shellComplete(t, env, "--"+f.Name, "a-"), "a-file.txt", "the value of --%s before the command", f.Name)
		}
	}
}

// shellComplete is what `chronicle __complete -- WORDS...` prints, one
// candidate an element.
func shellComplete(t *testing.T, env *Env, words ...string) []string {
	t.Helper()
	var out bytes.Buffer
	require.Equal(t, ExitOK, runComplete(&Env{DBPath: env.DBPath, Stdout: &out, Stderr: io.Discard}, append([]string{"--"}, words...)))
	return strings.Fields(out.String())
}

// lineJSON is v as the CLI prints it: one JSON line, decoded.
func lineJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return decodeJSON(t, string(b))
}

// withArchive opens the archive at path for the duration of fn (the CLI
// opens and closes it around each command).
func withArchive(t *testing.T, path string, fn func(a *db.Archive)) {
	t.Helper()
	a, err := db.Open(path, db.Options{MustExist: true})
	require.NoError(t, err)
	defer a.Close()
	fn(a)
}

// TestTableTypedResults: for each command whose result is typed in
// package commands and served by the CLI alone, the result's JSON (what a
// Go caller of package commands gets) is the CLI's --json line, field for
// field, so that the CLI only renders what the run function returned.
func TestTableTypedResults(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", epoch)
	t.Chdir("..")
	dir := t.TempDir()
	path := filepath.Join(dir, "chronicle.db")
	var out bytes.Buffer
	require.Equal(t, ExitOK, Exec(&Env{DBPath: path, Stdout: &out, Stderr: &out}, []string{"ingest", "testdata/samples"}), out.String())
	const alice = "testdata/samples/alice-bob-en.txt"
	const store = "testdata/old/story.txt.chronicle"

	t.Run("ingest", func(t *testing.T) {
		// A second ingest of the same files (every one reused): the CLI's
		// lines and the typed outcomes of db's batch are both what the
		// document records say, written out here by hand.
		want := cliJSON(t, path, "ingest", "testdata/samples")
		var got, records []map[string]any
		withArchive(t, path, func(a *db.Archive) {
			at, err := db.ImportTime()
			require.NoError(t, err)
			require.NoError(t, a.IngestPaths(context.Background(), db.WalkPaths([]string{"testdata/samples"}), db.IngestOptions{ImportedAt: at,
				Outcome: func(o db.PathOutcome) error {
					require.Equal(t, db.OutcomeReused, o.Kind, o.Path)
					got = append(got, lineJSON(t, commands.IngestedOf(o.Kind, o.Path, o.Result, false)))
					return nil
				}}))
			require.NoError(t, a.Hold(true, func() error { // IngestPaths leaves the archive released
				for _, line := range got {
					d, err := a.Resolve(line["path"].(string))
					require.NoError(t, err)
					records = append(records, map[string]any{"document_sha256": d.SHA256.String(), "events": json.Number(strconv.Itoa(d.EventCount)),
						"outcome": "reused", "path": line["path"]})
				}
				return nil
			}))
		})
		require.Len(t, records, len(want))
		require.Equal(t, records, want)
		require.Equal(t, records, got)
	})
	t.Run("import", func(t *testing.T) {
		want := cliJSON(t, path, "import", store)
		other := filepath.Join(dir, "other.db")
		a, err := db.Open(other, db.Options{})
		require.NoError(t, err)
		defer a.Close()
		rep, err := original.ImportFile(a, store)
		require.NoError(t, err)
		got := commands.ImportedOf(store, rep)
		require.Equal(t, []map[string]any{lineJSON(t, got)}, want)
		require.Equal(t, commands.OutcomeImported, got.Outcome)
	})
	cliJSON(t, path, "find", "Saud", "--keep")
	cliJSON(t, path, "query", alice, "Did Alice repay Bob?", "--keep")
	t.Run("receipts", func(t *testing.T) {
		for _, args := range [][]string{{"receipts"}, {"receipts", "--verify"}, {"receipts", alice}} {
			want := cliJSON(t, path, args...)
			in := commands.ReceiptsIn{Verify: slices.Contains(args, "--verify")}
			if len(args) == 2 && args[1] == alice {
				in.Document = &args[1]
			}
			var got []map[string]any
			withArchive(t, path, func(a *db.Archive) {
				sum, err := commands.Receipts(a, in, func(it commands.ReceiptItem) error {
					got = append(got, lineJSON(t, it.Line()))
					return nil
				})
				require.NoError(t, err)
				require.Equal(t, len(want), sum.Total)
			})
			require.Equal(t, want, got, "%v", args)
		}
	})
	t.Run("check", func(t *testing.T) {
		want := cliJSON(t, path, "check")
		withArchive(t, path, func(a *db.Archive) {
			got, problems, err := commands.Check(context.Background(), a, db.CheckOptions{}, func(db.Problem) error { return nil })
			require.NoError(t, err)
			require.Zero(t, problems)
			require.Equal(t, want, []map[string]any{lineJSON(t, got)})
		})
	})
	t.Run("export", func(t *testing.T) {
		exported := filepath.Join(dir, "exported")
		want := cliJSON(t, path, "export", alice, exported)
		withArchive(t, path, func(a *db.Archive) {
			// signed with the test key, as the CLI signs (the same key
			// signs the same bytes the same: nothing new is written)
			k, err := keys.Load("")
			require.NoError(t, err)
			got, err := commands.Export(a, commands.ExportIn{Document: alice, Dir: exported,
				Sign: func(data []byte) ([]byte, error) { return sign.Sign(k.Private, data) }})
			require.NoError(t, err)
			require.False(t, got.Created, "the same store is there")
			require.Equal(t, true, want[0]["created"])
			require.Equal(t, without(want[0], "created"), without(lineJSON(t, got), "created"))
		})
	})
	t.Run("migrate and reindex", func(t *testing.T) {
		want := cliJSON(t, path, "migrate")
		withArchive(t, path, func(a *db.Archive) {
			got, err := commands.Migrate(a)
			require.NoError(t, err)
			require.Equal(t, want, []map[string]any{lineJSON(t, got)})
		})
		want = cliJSON(t, path, "reindex")
		withArchive(t, path, func(a *db.Archive) {
			got, err := commands.Reindex(context.Background(), a, db.ReindexOptions{})
			require.NoError(t, err)
			require.Equal(t, want, []map[string]any{lineJSON(t, got)})
		})
	})
	t.Run("claims", func(t *testing.T) {
		const claims = "testdata/claims/agent-answer.jsonl"
		rows := filepath.Join(dir, "rows.jsonl")
		want := cliJSON(t, path, "claims", "check", claims, "--out", rows)
		data, err := os.ReadFile(claims)
		require.NoError(t, err)
		withArchive(t, path, func(a *db.Archive) {
			got, err := commands.ClaimsCheck(a, commands.ClaimsCheckIn{Claims: data}, db.ClaimOptions{})
			require.NoError(t, err)
			require.True(t, got.Report.Reused, "the CLI kept the same check")
			var lines []map[string]any
			for _, l := range strings.Split(strings.TrimSuffix(string(got.Rows()), "\n"), "\n") {
				lines = append(lines, decodeJSON(t, l))
			}
			require.Equal(t, want, lines)
		})
		rowBytes, err := os.ReadFile(rows)
		require.NoError(t, err)
		// the Go API checks the same file to the same rows
		api, err := chronicle.Open(path, nil)
		require.NoError(t, err)
		rep, err := api.CheckClaims(data)
		require.NoError(t, err)
		require.NoError(t, api.Close())
		require.Equal(t, string(rowBytes), string(bytes.Join(rep.Rows, []byte("\n")))+"\n")
		lines := bytes.Split(bytes.TrimSuffix(rowBytes, []byte("\n")), []byte("\n"))

		want = cliJSON(t, path, "claims", "read", rows)
		var read []map[string]any
		bad, err := commands.ClaimsRead(lines, func(r commands.RowRead) error { read = append(read, lineJSON(t, r)); return nil })
		require.NoError(t, err)
		require.Zero(t, bad)
		require.Equal(t, want, read)

		want = cliJSON(t, path, "claims", "verify", rows)
		// the CLI checks the signature beside the rows file (ROWS.sig)
		// before it recomputes the rows, and names its signer
		last := want[len(want)-1]
		require.Equal(t, testbin.TestKeyFingerprint, last["signer"])
		want[len(want)-1] = without(last, "signer")
		withArchive(t, path, func(a *db.Archive) {
			got, err := commands.ClaimsVerify(a, commands.ClaimsVerifyIn{Rows: lines})
			require.NoError(t, err)
			var verified []map[string]any
			for _, r := range got.Rows {
				verified = append(verified, lineJSON(t, r))
			}
			require.Equal(t, want, append(verified, lineJSON(t, got.Verdict)))
		})

		want = cliJSON(t, path, "claims", "list")
		withArchive(t, path, func(a *db.Archive) {
			got, err := commands.ClaimsList(a)
			require.NoError(t, err)
			var list []map[string]any
			for _, c := range got {
				list = append(list, lineJSON(t, c))
			}
			require.Equal(t, want, list)
		})
	})
}

// TestTableCommitEvery: the default that ingest's --commit-every states
// in the table is the one ingest uses.
func TestTableCommitEvery(t *testing.T) {
	require.Equal(t, commands.CommitEvery, groupFiles)
	f, ok := commands.Lookup("ingest").Flag("commit-every")
	require.True(t, ok)
	require.Contains(t, f.Help, fmt.Sprintf("(default %d)", groupFiles))
}
