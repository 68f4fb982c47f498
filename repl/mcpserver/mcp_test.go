package mcpserver_test

// End-to-end tests of `chronicle mcp`: the real binary, built once in
// TestMain, driven over stdio by the official Go SDK's client
// (mcp.CommandTransport) on an archive of testdata/samples (built in
// process, testarchive.Samples); every answer is compared with the CLI's
// canonical JSON for the same arguments (the command run in process, cli).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/internal/pagedamage"
	"github.com/casper-chronicle/chronicle/internal/testarchive"
	"github.com/casper-chronicle/chronicle/internal/testbin"
	"github.com/casper-chronicle/chronicle/repl"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

var chronicleBin string

func TestMain(m *testing.M) {
	// `chronicle mcp` runs the chronicle-mcp binary beside it.
	os.Exit(testbin.Main(m, map[string]*string{"chronicle": &chronicleBin, "chronicle-mcp": new(string), "chronicle-extract": new(string)}))
}

const (
	alice = "testdata/samples/alice-bob-en.txt"
	ahmed = "testdata/samples/ahmed-khalid-ar.txt"
)

// cli runs the CLI's command on the archive in process (repl.Exec, as
// `chronicle ARGS --db ARCHIVE` runs it with stdout and stderr pipes) and
// returns stdout and stderr.
func cli(t *testing.T, archive string, args ...string) (string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	repl.Exec(&repl.Env{Stdout: &stdout, Stderr: &stderr}, append(args, "--db", archive))
	return stdout.String(), stderr.String()
}

// connect starts `chronicle mcp` on the archive as a client named name.
func connect(t *testing.T, archive, name string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(chronicleBin, "mcp", "--db", archive)}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool that must succeed and returns its structured output.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.False(t, res.IsError, "%s: %v", tool, text(res))
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// callError calls a tool that must fail with a tool error and returns its text.
func callError(t *testing.T, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return err.Error() // a protocol error: the SDK refused the arguments
	}
	require.True(t, res.IsError, "%s: want an error, got %v", tool, text(res))
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var toolNames = []string{"check_claims", "docs", "entity", "find", "query", "settle", "show", "stats", "verify"}

// TestMCPToolsAndSchemas lists the tools and checks that every input and
// output schema is a concrete object schema: no boolean or empty schema
// (what a Go field typed any becomes) anywhere a strict client would
// reject it.
func TestMCPToolsAndSchemas(t *testing.T) {
	cs := connect(t, testarchive.Samples(t), "schema-test")
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		require.Contains(t, tool.Description, "never claims truth", tool.Name)
		for kind, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			b, err := json.Marshal(schema)
			require.NoError(t, err)
			var s map[string]any
			require.NoError(t, json.Unmarshal(b, &s), "%s %s schema %s", tool.Name, kind, b)
			require.Equal(t, "object", s["type"], "%s %s schema", tool.Name, kind)
			checkSchema(t, tool.Name+" "+kind, s)
		}
	}
	require.ElementsMatch(t, toolNames, names)
}

// checkSchema requires every subschema (properties, items) to be an object
// with a type.
func checkSchema(t *testing.T, where string, s map[string]any) {
	t.Helper()
	require.NotNil(t, s["type"], "%s: a schema without a type", where)
	if props, ok := s["properties"]; ok {
		m, ok := props.(map[string]any)
		require.True(t, ok, "%s: properties", where)
		for name, p := range m {
			sub, ok := p.(map[string]any)
			require.True(t, ok, "%s.%s: the schema %v", where, name, p)
			checkSchema(t, where+"."+name, sub)
		}
	}
	if items, ok := s["items"]; ok {
		sub, ok := items.(map[string]any)
		require.True(t, ok, "%s[]: the schema %v", where, items)
		checkSchema(t, where+"[]", sub)
	}
}

// TestMCPToolsMatchCLI calls each tool on the sample archive and compares
// it with the CLI's canonical JSON for the same arguments.
func TestMCPToolsMatchCLI(t *testing.T) {
	archive := testarchive.Samples(t)
	cs := connect(t, archive, "cli-compare")
	line := func(s string) string { return strings.TrimSuffix(s, "\n") }

	// docs
	out := call(t, cs, "docs", nil)
	docsJSON, _ := cli(t, archive, "docs", "--json")
	docs := out["documents"].([]any)
	require.Len(t, docs, 2)
	for i, l := range strings.Split(line(docsJSON), "\n") {
		var want map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &want))
		got := docs[i].(map[string]any)
		require.Equal(t, "chronicle://doc/"+want["document_sha256"].(string), got["uri"])
		delete(got, "uri")
		require.Equal(t, want, got)
	}
	ns := "claim-result/cli-compare/"
	require.True(t, strings.HasPrefix(out["resultId"].(string), ns), out["resultId"])
	require.True(t, strings.HasSuffix(out["resultId"].(string), "-1/1"), out["resultId"])

	// show
	out = call(t, cs, "show", map[string]any{"document": ahmed, "from": 2, "to": 4})
	showJSON, _ := cli(t, archive, "show", ahmed, "2-4", "--json")
	var wantLines []any
	for _, l := range strings.Split(line(showJSON), "\n") {
		var v any
		require.NoError(t, json.Unmarshal([]byte(l), &v))
		wantLines = append(wantLines, v)
	}
	require.Equal(t, wantLines, out["lines"])
	require.True(t, strings.HasSuffix(out["resultId"].(string), "/2"))

	// query: settlement and @claim
	for _, q := range []string{"Did Alice repay Bob?", "@claim\tAlice\towns\tBook"} {
		out = call(t, cs, "query", map[string]any{"document": alice, "question": q})
		want, _ := cli(t, archive, "query", alice, q)
		require.Equal(t, line(want), out["canonical"], q)
		var decoded map[string]any
		require.NoError(t, json.Unmarshal([]byte(line(want)), &decoded))
		require.Equal(t, decoded, out["result"])
		rec, _ := cli(t, archive, "query", alice, q, "--receipt", "-")
		require.True(t, strings.HasSuffix(rec, out["receipt"].(string)), "receipt of %q", q)
		require.Equal(t, fmt.Sprintf("%x", sha256.Sum256([]byte(out["receipt"].(string)))), out["receiptId"])
		v := call(t, cs, "verify", map[string]any{"receipt": out["receipt"]})
		require.Equal(t, "VALID", v["verdict"])
	}

	// find on one document and across the archive
	out = call(t, cs, "find", map[string]any{"terms": "Saud", "document": alice})
	want, _ := cli(t, archive, "find", "Saud", "--doc", alice)
	require.Equal(t, line(want), out["canonical"])
	out = call(t, cs, "find", map[string]any{"terms": "Saud"})
	want, _ = cli(t, archive, "find", "Saud")
	hits := out["hits"].([]any)
	wantHits := strings.Split(line(want), "\n")
	require.Len(t, hits, len(wantHits))
	for i, h := range hits {
		var w map[string]any
		require.NoError(t, json.Unmarshal([]byte(wantHits[i]), &w))
		hit := h.(map[string]any)
		require.Equal(t, w["result"], hit["result"])
		require.Equal(t, w["document_sha256"], hit["document_sha256"])
		canon, _ := cli(t, archive, "find", "Saud", "--doc", w["document_sha256"].(string))
		require.Equal(t, line(canon), hit["canonical"])
	}
	require.Equal(t, "VALID", call(t, cs, "verify", map[string]any{"receipt": out["receipt"]})["verdict"])

	// settle
	out = call(t, cs, "settle", map[string]any{"question": "Did Alice repay Bob?"})
	want, _ = cli(t, archive, "settle", "Did Alice repay Bob?")
	require.Equal(t, line(want), out["canonical"])
	require.Equal(t, "VALID", call(t, cs, "verify", map[string]any{"receipt": out["receipt"]})["verdict"])

	// entity
	out = call(t, cs, "entity", map[string]any{"name": "Saud"})
	want, _ = cli(t, archive, "entity", "Saud")
	var got []string
	for _, h := range out["hits"].([]any) {
		got = append(got, h.(map[string]any)["canonical"].(string))
	}
	require.Equal(t, strings.Split(line(want), "\n"), got)
	require.Equal(t, "VALID", call(t, cs, "verify", map[string]any{"receipt": out["receipt"]})["verdict"])

	// verify: a changed receipt is INVALID
	q := call(t, cs, "query", map[string]any{"document": alice, "question": "Did Alice repay Bob?"})
	bad := strings.Replace(q["receipt"].(string), "kind:QUERY", "kind:FIND", 1)
	v := call(t, cs, "verify", map[string]any{"receipt": bad})
	require.Equal(t, "INVALID", v["verdict"])
	require.NotEmpty(t, v["problem"])

	// resources: every document with line numbers, as `show` prints it
	rl, err := cs.ListResources(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, rl.Resources, 2)
	for _, r := range rl.Resources {
		rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: r.URI})
		require.NoError(t, err)
		shown, _ := cli(t, archive, "show", strings.TrimPrefix(r.URI, "chronicle://doc/"), "--text")
		require.Equal(t, shown, rr.Contents[0].Text, r.URI)
	}
	// a document the archive does not hold is the protocol's "not found"
	// (db.ErrUnknownDoc through the guard), not a failed read
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "chronicle://doc/" + strings.Repeat("0", 64)})
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr)
	require.Equal(t, int64(mcp.CodeResourceNotFound), rpcErr.Code, rpcErr.Message)
}

// TestMCPClaimSession queries, then checks supported, contradicted and
// unverified claims on the results the session received; the check is kept
// in the archive under the client's name and the session's runId.
func TestMCPClaimSession(t *testing.T) {
	archive := testarchive.Samples(t)
	cs := connect(t, archive, "agent-test")
	q := call(t, cs, "query", map[string]any{"document": alice, "question": "Did Alice repay Bob?"})
	f := call(t, cs, "find", map[string]any{"document": alice, "terms": "Saud"})
	c := call(t, cs, "query", map[string]any{"document": alice, "question": "@claim\tAlice\towns\tBook"})
	qid, fid, cid := q["resultId"].(string), f["resultId"].(string), c["resultId"].(string)
	runID := strings.Split(qid, "/")[2]
	claim := func(n int, standing string, result any, rule string, value any) string {
		m := map[string]any{"claim": n, "standing": standing, "iteration": 0, "declaredOn": "answer", "declaredValue": value}
		if result != nil {
			m["declaredResult"] = result
		}
		if rule != "" {
			m["declaredRule"] = rule
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	claims := []string{
		claim(1, "fact", qid, "chronicle.settlement.status", "PARTIAL"),                        // supported
		claim(2, "fact", qid, "chronicle.settlement.settled", "40"),                            // supported, numeric leniency
		claim(3, "fact", 1, "chronicle.settlement.status", "SETTLED"),                          // contradicted (by ordinal)
		claim(4, "fact", fid, "chronicle.find.lines", 3),                                       // supported
		claim(5, "fact", cid, "chronicle.claim.status", "EXACT_STATED"),                        // unverified: unresolved
		claim(6, "fact", 99, "chronicle.settlement.status", "PARTIAL"),                         // never received
		claim(7, "fact", "claim-result/other/run/1", "chronicle.settlement.status", "PARTIAL"), // another session
		claim(8, "open", qid, "chronicle.settlement.status", "PARTIAL"),                        // not asserted
		claim(9, "fact", qid, "", "PARTIAL"),                                                   // no rule
	}
	out := call(t, cs, "check_claims", map[string]any{"claims": claims})
	type row struct{ outcome, reason string }
	want := []row{{"supported", "no-conflict"}, {"supported", "numeric-leniency"}, {"contradicted", "conflict"},
		{"supported", "no-conflict"}, {"unverified", "unresolved-result"}, {"unverified", "missing-result"},
		{"unverified", "missing-result"}, {"unverified", "not-asserted"}, {"unverified", "missing-check"}}
	rows := out["rows"].([]any)
	require.Len(t, rows, len(want))
	var rowsFile bytes.Buffer
	for i, r := range rows {
		m := r.(map[string]any)
		require.Equal(t, want[i], row{m["outcome"].(string), m["reason"].(string)}, "claim %d: %s", i+1, m["row"])
		require.Equal(t, fmt.Sprintf("claim-verification/agent-test/%s/%d", runID, i+1), m["claimId"])
		rowsFile.WriteString(m["row"].(string) + "\n")
	}
	require.Equal(t, qid, rows[0].(map[string]any)["declaredResult"])
	require.Equal(t, 3.0, out["supported"])
	require.Equal(t, 1.0, out["contradicted"])
	require.Equal(t, 5.0, out["unverified"])

	// The rows pass the strict reader and recompute from the archive.
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	require.NoError(t, os.WriteFile(path, rowsFile.Bytes(), 0o600))
	stdout, stderr := cli(t, archive, "claims", "verify", path)
	// the rows came from the tool, not a file Chronicle wrote: unsigned
	require.Equal(t, "VALID\nunsigned (no "+path+".sig)\n", stdout, stderr)
	list, _ := cli(t, archive, "claims", "list", "--json")
	require.Contains(t, list, `"namespace":"agent-test"`)
	require.Contains(t, list, `"runId":"`+runID+`"`)

	// The check ended the run: the next result is ordinal 1 of a new run,
	// and a claim on the old run's result is missing-result.
	next := call(t, cs, "query", map[string]any{"document": alice, "question": "Did Alice repay Bob?"})
	require.Equal(t, out["nextRunId"], strings.Split(next["resultId"].(string), "/")[2])
	require.True(t, strings.HasSuffix(next["resultId"].(string), "/1"))
	out = call(t, cs, "check_claims", map[string]any{"claims": []string{
		claim(1, "fact", qid, "chronicle.settlement.status", "PARTIAL"),
		claim(2, "fact", next["resultId"], "chronicle.settlement.status", "PARTIAL")}})
	rows = out["rows"].([]any)
	require.Equal(t, "missing-result", rows[0].(map[string]any)["reason"])
	require.Equal(t, "no-conflict", rows[1].(map[string]any)["reason"])
}

// TestMCPHostile sends bad calls: none crashes the server or changes the
// archive, and the errors are the CLI's lines.
func TestMCPHostile(t *testing.T) {
	archive := testarchive.Samples(t)
	before, err := os.ReadFile(archive)
	require.NoError(t, err)
	cs := connect(t, archive, "hostile")

	require.Contains(t, callError(t, cs, "no_such_tool", map[string]any{}), "no_such_tool")
	callError(t, cs, "query", map[string]any{"document": 7, "question": true})
	callError(t, cs, "show", map[string]any{"document": alice, "from": "x"})
	callError(t, cs, "check_claims", map[string]any{"claims": "not a list"})

	// The same line as the CLI's stderr.
	for _, tc := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"query", map[string]any{"document": "nosuch", "question": "Did Alice repay Bob?"}, []string{"query", "nosuch", "Did Alice repay Bob?"}},
		{"query", map[string]any{"document": alice, "question": strings.Repeat("x", 70000)}, []string{"query", alice, strings.Repeat("x", 70000)}},
		{"query", map[string]any{"document": alice, "question": "a\x00b"}, []string{"query", alice, "a\x00b"}},
		{"entity", map[string]any{"name": strings.Repeat("n", 200)}, []string{"entity", strings.Repeat("n", 200)}},
		{"find", map[string]any{"terms": "   "}, []string{"find", "   "}},
		{"settle", map[string]any{"question": "@claim\tA\tB\tC"}, []string{"settle", "@claim\tA\tB\tC"}},
		{"show", map[string]any{"document": alice, "from": 99}, []string{"show", alice, "99-"}},
	} {
		got := callError(t, cs, tc.tool, tc.args)
		if strings.Contains(tc.cli[len(tc.cli)-1], "\x00") {
			// exec cannot pass a NUL: the CLI's message for it is fixed
			require.Equal(t, "chronicle query: the question is not valid UTF-8 text", got)
			continue
		}
		_, stderr := cli(t, archive, tc.cli...)
		require.Equal(t, strings.TrimSuffix(stderr, "\n"), got, "%s %v", tc.tool, tc.cli)
	}

	// Bad claims: refused as a whole, nothing kept.
	for _, claims := range [][]string{
		{`not json`},
		{`{"result":1,"document":"x","query":"q"}`},
		{`{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredValue":1,"extra":1}`},
		{`{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":"claim-result/a","declaredValue":1}`},
		{strings.Repeat("x", 70000)},
	} {
		msg := callError(t, cs, "check_claims", map[string]any{"claims": claims})
		require.True(t, strings.HasPrefix(msg, "chronicle claims check: "), msg)
	}
	list, _ := cli(t, archive, "claims", "list", "--json")
	require.Empty(t, list)

	require.NoError(t, cs.Ping(context.Background(), nil))
	after, err := os.ReadFile(archive)
	require.NoError(t, err)
	require.True(t, bytes.Equal(before, after), "the archive changed")
}

// TestMCPDamagedPage: a damaged page is the CLI's one line, word for
// word, whether the read that meets it runs on the tool call's goroutine
// (show: a panic recovered by db.Guard) or on one of db's workers (find:
// the worker's DamageError naming the document), never bbolt's text.
func TestMCPDamagedPage(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := range 3 { // documents large enough that every bucket has pages of its own
		var b strings.Builder
		for j := range 3000 {
			fmt.Fprintf(&b, "line %d of ledger %d: Alice paid Bob %d SAR at the market\n", j, i, (i+1)*j)
		}
		name := filepath.Join(dir, fmt.Sprintf("ledger%d.txt", i))
		require.NoError(t, os.WriteFile(name, []byte(b.String()), 0o600))
		names = append(names, name)
	}
	archive := filepath.Join(dir, "chronicle.db")
	_, stderr := cli(t, archive, "ingest", dir)
	require.Empty(t, stderr)

	for _, tc := range []struct {
		bucket string
		tool   string
		args   map[string]any
		cli    []string
		want   string // %s: the archive
	}{
		{"chunks", "show", map[string]any{"document": names[1], "from": 2, "to": 3}, []string{"show", names[1], "2-3"},
			"chronicle show: archive %s is damaged: a page could not be read; `chronicle check` lists the problems it can find"},
		{"lines", "find", map[string]any{"terms": "Alice"}, []string{"find", "Alice"},
			"chronicle find: archive %s: document #1: archive corruption: a page could not be read; `chronicle check` lists the problems it can find"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			damaged := pagedamage.ZeroRoot(t, archive, tc.bucket)
			want := fmt.Sprintf(tc.want, damaged)
			_, stderr := cli(t, damaged, tc.cli...)
			require.Equal(t, want+"\n", stderr, "the CLI")
			cs := connect(t, damaged, "damage")
			require.Equal(t, want, callError(t, cs, tc.tool, tc.args), "the MCP server")
			require.Equal(t, want, callError(t, cs, tc.tool, tc.args), "the server survives it")
		})
	}
}

// TestMCPPageLoop: a page tree that loops ends the server as it ends the
// CLI (TestPageLoopIsOneLine): the archive's one line on stderr, from the
// stack watch chronicle-mcp starts, not the runtime's stack dump.
func TestMCPPageLoop(t *testing.T) {
	dir := t.TempDir()
	for i := range 60 { // the chunks bucket's root is then a branch page
		var b strings.Builder
		for j := range 4000 {
			fmt.Fprintf(&b, "line %d of document %d, Alice owes Bob %d\n", j, i, i*j)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%02d.txt", i)), []byte(b.String()), 0o600))
	}
	archive := filepath.Join(t.TempDir(), "chronicle.db")
	_, stderr := cli(t, archive, "ingest", dir)
	require.Empty(t, stderr)
	damaged, _ := pagedamage.LoopRoot(t, archive, "chunks")

	// A file, not a buffer: the server writes its last line as it exits,
	// with no goroutine of this process copying it.
	log, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer log.Close()
	cmd := exec.Command(chronicleBin, "mcp", "--db", damaged)
	cmd.Stderr = log
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "loop", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer cs.Close()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "show", Arguments: map[string]any{"document": filepath.Join(dir, "d00.txt"), "from": 1, "to": 1}})
	require.Error(t, err, "the server ended")
	want := fmt.Sprintf("chronicle: archive %s is damaged: a page tree loops (a page points back into its own path), and the read could not end; `chronicle check` lists the problems\n", damaged)
	require.Eventually(t, func() bool {
		got, _ := os.ReadFile(log.Name())
		return string(got) == want
	}, 10*time.Second, 50*time.Millisecond, "the server's stderr is the archive's one line")
}

// TestMCPServerBinaryMissing: `chronicle mcp` without chronicle-mcp beside
// it says what is missing and how to get it.
func TestMCPServerBinaryMissing(t *testing.T) {
	dir := t.TempDir()
	lone := filepath.Join(dir, "chronicle")
	data, err := os.ReadFile(chronicleBin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(lone, data, 0o755))
	out, err := exec.Command(lone, "mcp", "--db", filepath.Join(dir, "a.db")).CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 1, exit.ExitCode())
	require.Contains(t, string(out), filepath.Join(dir, "chronicle-mcp")+" is missing")
	require.Contains(t, string(out), "make build")
}
