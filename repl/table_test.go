package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle"
	"github.com/casper-chronicle/chronicle/commands"
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
	t.Run("verify", func(t *testing.T) {
		rec := filepath.Join(dir, "find.receipt")
		cliJSON(t, path, "find", "Saud", "--doc", alice, "--receipt", rec)
		data, err := os.ReadFile(rec)
		require.NoError(t, err)
		want := cliJSON(t, path, "verify", rec)
		require.Len(t, want, 1)
		require.Equal(t, rec, want[0]["file"])
		require.Equal(t, without(want[0], "file"), without(callTool(t, cs, "verify", map[string]any{"receipt": string(data)}), "resultId"))
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
