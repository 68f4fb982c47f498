package main

// Machine output (README "Machine output", "Exit codes"): --json on every
// command prints JSON Lines on stdout, an error is one JSON object on
// stderr, the exit codes come from one table, --receipt - goes inside the
// JSON, and timestamps are RFC 3339.

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/repl"

	"github.com/stretchr/testify/require"
)

// jsonLines requires every line of out to be one JSON object and returns
// them.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	require.True(t, out == "" || strings.HasSuffix(out, "\n"), "output ends with a line feed: %q", out)
	var objs []map[string]any
	for _, line := range lines(out) {
		var obj map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &obj), "not a JSON object: %q", line)
		objs = append(objs, obj)
	}
	return objs
}

// requireJSONError checks a failure with --json: the exit code, stdout
// (empty, or with stdout JSON Lines: a verdict or outcomes printed there),
// and one JSON object on stderr with the code, the kind, the text message
// and the objects named.
func requireJSONError(t *testing.T, r result, code int, kind, cmd string, objects map[string]string, stdout bool) map[string]any {
	t.Helper()
	require.Equal(t, code, r.code, "%s", r)
	if stdout {
		require.NotEmpty(t, jsonLines(t, r.stdout), "a verdict or outcomes on stdout: %s", r)
	} else {
		require.Empty(t, r.stdout, "%s", r)
	}
	errs := jsonLines(t, r.stderr)
	require.Len(t, errs, 1, "one JSON error on stderr: %s", r)
	e := errs[0]
	require.Equal(t, float64(code), e["code"], "%s", r)
	require.Equal(t, kind, e["error"], "%s", r)
	require.Equal(t, cmd, e["command"], "%s", r)
	msg, _ := e["message"].(string)
	require.True(t, strings.HasPrefix(msg, "chronicle "+cmd+": "), "message %q", msg)
	for k, v := range objects {
		require.Equal(t, v, e[k], "object %s of %s", k, r)
	}
	return e
}

// TestJSONEveryCommand: with --json each command prints only JSON Lines on
// stdout and nothing on stderr.
func TestJSONEveryCommand(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	alice := "testdata/samples/alice-bob-en.txt"
	w.ok("query", alice, g1Q, "--receipt", "q.receipt")
	w.ok("export", alice, "old")
	w.ok("claims", "check", "testdata/claims/agent-answer.jsonl", "--out", "rows.jsonl")
	for _, tc := range []struct {
		argv []string
		n    int // lines expected; -1: at least one
	}{
		{[]string{"ingest", "testdata/samples"}, 2},
		{[]string{"docs"}, 2},
		{[]string{"show", alice, "1-3"}, 3},
		{[]string{"stats"}, 1},
		{[]string{"query", alice, g1Q}, 1},
		{[]string{"settle", g1Q}, 1},
		{[]string{"claim", alice, "Alice", "owns", "Book"}, 1},
		{[]string{"find", "Saud", "--doc", alice}, 1},
		{[]string{"find", "100"}, 2},
		{[]string{"entity", "Saud"}, -1},
		{[]string{"entities"}, -1},
		{[]string{"receipts"}, -1},
		{[]string{"receipts", alice, "--verify"}, -1},
		{[]string{"verify", "q.receipt"}, 1},
		{[]string{"export", alice, "out"}, 1},
		{[]string{"import", "old/alice-bob-en.txt.chronicle"}, 1},
		{[]string{"migrate"}, 1},
		{[]string{"reindex"}, 1},
		{[]string{"check"}, 1},
		{[]string{"claims", "check", "testdata/claims/agent-answer.jsonl"}, 8},
		{[]string{"claims", "read", "rows.jsonl"}, 8},
		{[]string{"claims", "verify", "rows.jsonl"}, 9},
		{[]string{"claims", "list"}, 1},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			r := w.run(append(tc.argv, "--json")...)
			require.Equal(t, 0, r.code, "%s", r)
			require.Empty(t, r.stderr)
			objs := jsonLines(t, r.stdout)
			if tc.n < 0 {
				require.NotEmpty(t, objs)
			} else {
				require.Len(t, objs, tc.n, "%s", r)
			}
		})
	}
	// The outcomes name what they did.
	require.Equal(t, map[string]any{"archive": w.db, "documents": float64(2), "ok": true}, jsonLines(t, w.ok("check", "--json"))[0])
	require.Equal(t, "VALID", jsonLines(t, w.ok("verify", "q.receipt", "--json"))[0]["verdict"])
	imp := jsonLines(t, w.ok("import", "old/alice-bob-en.txt.chronicle", "--json"))[0]
	require.Equal(t, "present", imp["outcome"])
	require.Equal(t, g1Prefix, imp["document_sha256"])
}

// TestJSONErrorsWithoutACommand: with --json, an error about a line that
// names no command (an unknown command, a misspelt leading flag) and the
// errors of a JSON-mode session's own commands are JSON objects too, with
// the object they name and the script location.
func TestJSONErrorsWithoutACommand(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	for _, tc := range []struct {
		argv    []string
		objects map[string]string
	}{
		{[]string{"fnd", "Saud", "--json"}, map[string]string{"command": "fnd"}},
		{[]string{"--json", "--limt", "3", "find", "x"}, map[string]string{"flag": "limt"}},
	} {
		r := w.run(tc.argv...)
		require.Equal(t, 2, r.code, "%s", r)
		errs := jsonLines(t, r.stderr)
		require.Len(t, errs, 1, "%s", r)
		require.Equal(t, float64(2), errs[0]["code"])
		require.Equal(t, "usage", errs[0]["error"])
		require.Contains(t, errs[0]["message"], "did you mean")
		for k, v := range tc.objects {
			require.Equal(t, v, errs[0][k], "%s", r)
		}
		require.Empty(t, r.stdout)
	}

	r := w.stdin(".mode json\nfnd Saud\n.mode bogus\n.read nope.chr\n", "--db="+w.db)
	require.Equal(t, 1, r.code, "%s", r)
	errs := jsonLines(t, r.stderr)
	require.Len(t, errs, 3, "%s", r)
	for i, want := range []struct {
		code     float64
		kind, at string
	}{{2, "usage", "line 2"}, {2, "usage", "line 3"}, {1, "no_such_file", "line 4"}} {
		require.Equal(t, want.code, errs[i]["code"], "%v", errs[i])
		require.Equal(t, want.kind, errs[i]["error"], "%v", errs[i])
		require.Equal(t, want.at, errs[i]["location"], "%v", errs[i])
		require.True(t, strings.HasPrefix(errs[i]["message"].(string), want.at+": chronicle"), "%v", errs[i])
	}
	require.Equal(t, "nope.chr", errs[2]["file"])
	r = w.stdin(".mode json\n.mde\n", "--db="+w.db)
	errs = jsonLines(t, r.stderr)
	require.Len(t, errs, 1, "%s", r)
	require.Equal(t, ".mde", errs[0]["command"], "the unknown word")
	// The same script in text mode: text lines.
	r = w.stdin("fnd Saud\n", "--db="+w.db)
	require.Equal(t, "line 1: chronicle: unknown command \"fnd\"; did you mean \"find\"? `help` lists the commands\n", r.stderr)
}

// TestSessionHelpJSON: in a JSON-mode session (and with --json) help's
// output is JSON Lines all through: the table's commands, then each
// session command marked "session"; help NAME of a session command is one
// such line.
func TestSessionHelpJSON(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	for _, script := range []string{".mode json\nhelp\n", "help --json\n", ".mode json\n.help\n"} {
		r := w.stdin(script, "--db="+w.db)
		require.Equal(t, 0, r.code, "%s", r)
		lines := jsonLines(t, r.stdout)
		var session []string
		for _, l := range lines {
			if l["session"] == true {
				session = append(session, l["name"].(string))
			}
		}
		require.Equal(t, []string{".help", ".mode", ".keep", ".timer", ".output", ".read", ".exit", ".quit", "exit", "quit", `\?`, `\q`}, session, script)
		require.Equal(t, "ingest", lines[0]["name"], script)
	}
	// The settings a session command shows are JSON objects too.
	r := w.stdin(".mode json\n.mode\n.keep on\n.keep\n.timer\n", "--db="+w.db)
	require.Equal(t, []map[string]any{{"mode": "json"}, {"keep": "on"}, {"timer": "off"}}, jsonLines(t, r.stdout), "%s", r)

	r = w.stdin(".mode json\nhelp .read\n", "--db="+w.db)
	lines := jsonLines(t, r.stdout)
	require.Len(t, lines, 1, "%s", r)
	require.Equal(t, ".read", lines[0]["name"])
	require.Equal(t, "FILE", lines[0]["args"])
	require.Equal(t, ".read session.chr", lines[0]["example"])
	require.Contains(t, lines[0]["summary"], "FILE:LINE")
}

// TestExitCodeBusy: an archive held by another process fails with exit 11
// (text and JSON) once --wait is over; a missing archive is exit 10.
func TestExitCodeBusy(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	a, err := db.Open(w.db, db.Options{})
	require.NoError(t, err)
	defer a.Close()
	r := w.run("docs", "--wait=200ms")
	requireOneLineError(t, r, 11, "docs", regexp.QuoteMeta("archive is in use by another process"))
	requireJSONError(t, w.run("query", "input.txt", g1Q, "--wait=200ms", "--json"), 11, "busy", "query", map[string]string{"archive": w.db}, false)
	require.NoError(t, a.Close())
	require.Equal(t, 0, w.run("docs").code)

	v := newWS(t)
	requireOneLineError(t, v.run("docs"), 10, "docs", "no archive at this path")
}

// TestExitCodeTable: help and the README show every code of the one table
// (repl.ExitCodes), and the codes are distinct.
func TestExitCodeTable(t *testing.T) {
	t.Parallel()
	help := newWS(t).ok("help")
	readme, err := os.ReadFile(guidePath("repl/GUIDE.md"))
	require.NoError(t, err)
	seen := map[int]bool{}
	for _, c := range repl.ExitCodes {
		require.False(t, seen[c.Code], "code %d twice", c.Code)
		seen[c.Code] = true
		require.Contains(t, strings.Join(strings.Fields(help), " "), fmt.Sprintf("%d %s", c.Code, c.Short))
		require.Regexp(t, fmt.Sprintf("(?m)^\\| %d \\| ", c.Code), string(readme), "the guide's exit code table lacks %d", c.Code)
	}
	for _, code := range []int{repl.ExitOK, repl.ExitFailure, repl.ExitUsage, repl.ExitUnsupported, repl.ExitNoArchive, repl.ExitBusy, repl.ExitInterrupted} {
		require.True(t, seen[code], "code %d is not in the table", code)
	}
}

// TestJSONReceiptInside: with --json, --receipt - puts the receipt inside
// the JSON: a one-line answer becomes {"receipt","receipt_id","result"}
// whose result is the canonical line byte for byte; an answer of several
// lines ends with a {"receipt","receipt_id"} line; ingest's outcome
// carries it. Without --json the receipt text still follows the result.
func TestJSONReceiptInside(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	alice := "testdata/samples/alice-bob-en.txt"
	canonical := strings.TrimSuffix(w.ok("query", alice, g1Q), "\n")
	out := w.ok("query", alice, g1Q, "--json", "--receipt", "-")
	require.Len(t, lines(out), 1)
	wrapped := jsonLines(t, out)[0]
	prefix := regexp.MustCompile(`^\{"receipt":"(?:[^"\\]|\\.)*","receipt_id":"[0-9a-f]{64}","result":`).FindString(out)
	require.NotEmpty(t, prefix, out)
	require.Equal(t, canonical, strings.TrimSuffix(strings.TrimPrefix(out, prefix), "}\n"), "the canonical line, byte for byte")
	rec := wrapped["receipt"].(string)
	require.True(t, strings.HasPrefix(rec, "CHRONICLE-ARCHIVE-RECEIPT-V1\nkind:QUERY\n"), rec)
	w.write("inline.receipt", rec)
	requireVerdict(t, w, "inline.receipt", "VALID")

	// Piped without --json: the canonical line, then the receipt text.
	require.Equal(t, canonical+"\n"+rec, w.ok("query", alice, g1Q, "--receipt", "-"))

	for _, argv := range [][]string{{"find", "Saud"}, {"entity", "Alice"}} {
		plain := w.ok(append(argv, "--json")...)
		out := w.ok(append(argv, "--json", "--receipt", "-")...)
		require.True(t, strings.HasPrefix(out, plain), "the hits as without --receipt: %s", out)
		last := jsonLines(t, strings.TrimPrefix(out, plain))
		require.Len(t, last, 1)
		require.Contains(t, last[0]["receipt"], "CHRONICLE-ARCHIVE-SET-RECEIPT-V1\n")
		require.Len(t, last[0]["receipt_id"], 64)
	}

	settle := jsonLines(t, w.ok("settle", g1Q, "--json", "--receipt", "-"))
	require.Len(t, settle, 1)
	require.Contains(t, settle[0]["receipt"], "kind:ARCHIVE-SETTLE\n")
	require.NotNil(t, settle[0]["result"])

	w.write("new.txt", "@chronicle\tCarol\tBORROWED_FROM\tDan\t5\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	ing := jsonLines(t, w.ok("ingest", "new.txt", "--json", "--receipt", "-"))
	require.Len(t, ing, 1)
	require.Equal(t, "new", ing[0]["outcome"])
	require.Contains(t, ing[0]["receipt"], "kind:INGEST\n")
}

// TestRFC3339: every time shown is RFC 3339, the same instant in the
// readable and the JSON views.
func TestRFC3339(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	want := time.Unix(1750000000, 0).UTC().Format(time.RFC3339)
	for _, d := range jsonLines(t, w.ok("docs", "--json")) {
		require.Equal(t, want, d["imported"])
		require.Equal(t, float64(1750000000), d["imported_at"], "the store's imported_at, in seconds")
	}
	text := w.ok("docs", "--text")
	require.Regexp(t, `(?m)^[0-9a-f]{12} +\d+ +\d+  `+want+`  testdata/samples/`, text)
	w.ok("claims", "check", "testdata/claims/agent-answer.jsonl")
	for _, c := range jsonLines(t, w.ok("claims", "list", "--json")) {
		_, err := time.Parse(time.RFC3339, c["checked"].(string))
		require.NoError(t, err)
	}
	require.Contains(t, w.ok("claims", "list", "--text"), "  "+want+"\n")
}

// asText turns a failure printed with --json into what the readable view
// prints: the JSON error's message as the one stderr line (any other
// stderr is left as it is).
func asText(t *testing.T, r result) result {
	t.Helper()
	var e map[string]any
	if json.Unmarshal([]byte(r.stderr), &e) == nil {
		msg, ok := e["message"].(string)
		require.True(t, ok, "a JSON error has a message: %s", r.stderr)
		r.stderr = msg + "\n"
	}
	return r
}

// TestIngestMovedJSON: with --json a name that moves to the new bytes of
// its file is the outcome's "moved" (name -> the document it named), and
// stderr stays empty; the readable view says it on stderr.
func TestIngestMovedJSON(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("m.txt", "one\n")
	w.ok("ingest", "m.txt")
	first := w.docs()[0].SHA256
	w.write("m.txt", "two\n")
	r := w.run("ingest", "m.txt", "--json")
	require.Equal(t, 0, r.code, "%s", r)
	require.Empty(t, r.stderr)
	out := jsonLines(t, r.stdout)
	require.Len(t, out, 1)
	require.Equal(t, map[string]any{"m.txt": first}, out[0]["moved"])
	w.write("m.txt", "three\n")
	r = w.run("ingest", "m.txt", "--text")
	require.Regexp(t, `^chronicle ingest: name "m\.txt" now points at [0-9a-f]{12} \(was [0-9a-f]{12}, which stays in the archive\)\n$`, r.stderr)
}
