package claimcheck

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine/claimrow"
)

// header is the header line of the test files.
const header = `{"chronicle-claims":1,"namespace":"NS","runId":"RUN"}`

// result1 is a valid settlement result line with ordinal 1.
const result1 = `{"result":1,"document":"DOC","query":"Did Alice repay Bob?"}`

// exampleFile is the example of README.md §2.2, byte for byte
// (TestReadmeFormatExample holds the two together).
const exampleFile = `{"chronicle-claims":1,"namespace":"NS","runId":"RUN"}
{"result":1,"document":"DOC","query":"Did Alice repay Bob?"}
{"result":2,"document":"DOC","find":"Saud Alice"}
{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.status","declaredValue":"SUPPORTED"}
{"claim":2,"standing":"fact","iteration":1,"turn":2,"declaredOn":{"toolCallId":"call_7"},"declaredResult":1,"declaredRule":"chronicle.settlement.settled","declaredValue":40}
`

// lines joins JSON lines into a file, each line ended by LF.
func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }

// member is one key of a line and its raw JSON value.
type member struct{ k, v string }

// withMember renders members as a JSON object line with the member key
// replaced by raw JSON, removed when raw is "", or added when absent.
func withMember(members []member, key, raw string) string {
	var parts []string
	found := false
	for _, m := range members {
		if m.k == key {
			found = true
			if raw == "" {
				continue
			}
			m.v = raw
		}
		parts = append(parts, fmt.Sprintf("%q:%s", m.k, m.v))
	}
	if !found && raw != "" {
		parts = append(parts, fmt.Sprintf("%q:%s", key, raw))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// claimWith is a valid claim line (ordinal 1, on result 1) with the member
// key replaced by raw JSON, or removed when raw is "".
func claimWith(key, raw string) string {
	return withMember([]member{
		{"claim", "1"}, {"standing", `"fact"`}, {"iteration", "0"}, {"declaredOn", `"answer"`},
		{"declaredResult", "1"}, {"declaredRule", `"chronicle.settlement.status"`}, {"declaredValue", `"SUPPORTED"`},
	}, key, raw)
}

// resultWith is result1 with the member key replaced by raw JSON, removed
// when raw is "", or added when result1 has no such key.
func resultWith(key, raw string) string {
	return withMember([]member{{"result", "1"}, {"document", `"DOC"`}, {"query", `"Did Alice repay Bob?"`}}, key, raw)
}

// headerWith is a header line with the given namespace and runId (raw JSON
// strings are built with %q, which is valid JSON for the ASCII used here).
func headerWith(namespace, runID string) string {
	return fmt.Sprintf(`{"chronicle-claims":1,"namespace":%s,"runId":%s}`, jsonString(namespace), jsonString(runID))
}

// jsonString writes s as a JSON string the way README.md §4.2 does (only what
// the tests need: quote, backslash and control characters are escaped).
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestJSONStringHelper(t *testing.T) {
	require.Equal(t, `"a\"\\\b\f\n\r\t\u0001\u001f/`+"\u2028é\U0001F600"+`"`,
		jsonString("a\"\\\b\f\n\r\t\x01\x1f/\u2028é\U0001F600"))
	for _, s := range []string{"", "x", "a\x01\tb\"\\/\u2028é\U0001F600"} {
		v, err := claimrow.ParseLine([]byte(jsonString(s)), 1<<20)
		require.NoError(t, err)
		require.Equal(t, s, v.Str)
		require.Equal(t, jsonString(s), string(claimrow.Canonical(v)), "jsonString is canonical")
	}
}

func TestLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\nb", []string{"a", "b"}},
		{"a\nb\n", []string{"a", "b"}},
		{"a\n\n", []string{"a", ""}},
		{"\n\n", []string{"", ""}},
		{"a\r\nb", []string{"a\r", "b"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q", tc.in), func(t *testing.T) {
			var got []string
			for _, l := range Lines([]byte(tc.in)) {
				got = append(got, string(l))
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// refusal is one refused claims file and the exact refusal.
type refusal struct {
	name   string
	data   []byte
	line   int
	field  string // "" when the refusal names no field
	reason string // the exact reason
}

func runRefusals(t *testing.T, tests []refusal) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFile(tc.data)
			require.Error(t, err)
			require.Nil(t, f)
			require.ErrorIs(t, err, ErrFile)
			var fe *FileError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, tc.line, fe.Line, "line")
			require.Equal(t, tc.field, fe.Field, "field")
			require.Equal(t, tc.reason, fe.Reason, "reason")
			want := fmt.Sprintf("line %d: %s: %s", tc.line, tc.field, tc.reason)
			if tc.field == "" {
				want = fmt.Sprintf("line %d: %s", tc.line, tc.reason)
			}
			require.Equal(t, want, err.Error())
			require.NotContains(t, fe.Reason, "line 0", "a nested refusal must not leak its own line number")
		})
	}
}

func TestParseFileRefusesBadJSON(t *testing.T) {
	// The line object is depth 1, so declaredValue may nest 31 more.
	deep := strings.Repeat("[", 31) + strings.Repeat("]", 31)
	deeper := strings.Repeat("[", 32) + strings.Repeat("]", 32)
	runRefusals(t, []refusal{
		{"invalid UTF-8 in a result line", lines(header, "{\"result\":1,\"document\":\"D\xff\",\"query\":\"q\"}"),
			2, "", "byte 25: invalid UTF-8"},
		{"invalid UTF-8 in the header", []byte("{\"chronicle-claims\":1,\"namespace\":\"\xc3\",\"runId\":\"R\"}\n"),
			1, "", "byte 35: invalid UTF-8"},
		{"overlong UTF-8 encoding", lines(header, "{\"result\":1,\"document\":\"\xc0\xaf\",\"query\":\"q\"}"),
			2, "", "byte 24: invalid UTF-8"},
		{"UTF-8 encoded surrogate", lines(header, "{\"result\":1,\"document\":\"\xed\xa0\x80\",\"query\":\"q\"}"),
			2, "", "byte 24: invalid UTF-8"},
		{"duplicate key", lines(header, `{"result":1,"result":2,"document":"D","query":"q"}`),
			2, "", `byte 12: duplicate key "result"`},
		{"duplicate key in the header", []byte(`{"chronicle-claims":1,"namespace":"A","namespace":"B","runId":"R"}` + "\n"),
			1, "", `byte 38: duplicate key "namespace"`},
		{"duplicate key nested in declaredValue", lines(header, result1, claimWith("declaredValue", `{"a":1,"b":{"c":1,"c":2}}`)),
			3, "", `byte 163: duplicate key "c"`},
		{"duplicate key spelled with an escape", lines(header, `{"result":1,"\u0072esult":2,"document":"D","query":"q"}`),
			2, "", `byte 12: duplicate key "result"`},
		{"fraction", lines(header, `{"result":1.0,"document":"D","query":"q"}`),
			2, "", "byte 10: numbers must be integers (no fraction, no exponent)"},
		{"exponent", lines(header, `{"result":1e0,"document":"D","query":"q"}`),
			2, "", "byte 10: numbers must be integers (no fraction, no exponent)"},
		{"leading zero", lines(header, `{"result":01,"document":"D","query":"q"}`),
			2, "", "byte 10: a number has a leading zero"},
		{"minus zero", lines(header, result1, claimWith("declaredValue", "-0")),
			3, "", "byte 145: -0 is not allowed"},
		{"beyond 2^53-1", lines(header, result1, claimWith("declaredValue", "9007199254740992")),
			3, "", "byte 145: 9007199254740992 is beyond 2^53-1 in magnitude"},
		{"trailing CR", []byte(header + "\r\n" + result1 + "\n"),
			1, "", "the line ends with CR (lines end with LF alone)"},
		{"trailing CR on a later line", []byte(header + "\n" + result1 + "\r\n"),
			2, "", "the line ends with CR (lines end with LF alone)"},
		{"trailing CR on a last line without LF", []byte(header + "\n" + result1 + "\r"),
			2, "", "the line ends with CR (lines end with LF alone)"},
		{"empty line in the middle", lines(header, "", result1),
			2, "", "byte 0: a JSON value is missing"},
		{"empty line at the end", []byte(header + "\n" + result1 + "\n\n"),
			3, "", "byte 0: a JSON value is missing"},
		{"empty first line", []byte("\n" + header + "\n"),
			1, "", "byte 0: a JSON value is missing"},
		{"blank line", lines(header, "   "),
			2, "", "byte 3: a JSON value is missing"},
		{"bytes after the value", lines(header, result1+" "),
			2, "", "byte 60: bytes after the JSON value"},
		{"two values on a line", lines(header, result1+result1),
			2, "", "byte 60: bytes after the JSON value"},
		{"lone high surrogate escape", lines(header, `{"result":1,"document":"\ud800","query":"q"}`),
			2, "", `byte 24: \u escape of a lone high surrogate`},
		{"lone low surrogate escape", lines(header, `{"result":1,"document":"\udc00x","query":"q"}`),
			2, "", `byte 24: \u escape of a lone low surrogate`},
		{"raw control character in a string", lines(header, "{\"result\":1,\"document\":\"a\tb\",\"query\":\"q\"}"),
			2, "", "byte 25: a raw control character (0x09) in a string"},
		{"not JSON", lines(header, "result 1"),
			2, "", "byte 0: 'r' does not start a JSON value"},
		{"unclosed object", lines(header, `{"result":1`),
			2, "", "byte 11: ',' or '}' is missing in an object"},
		{"nesting deeper than 32", lines(header, result1, claimWith("declaredValue", deeper)),
			3, "", "byte 176: nested deeper than 32"},
		{"line over 64 KiB", lines(header, result1, claimWith("declaredValue", `"`+strings.Repeat("a", LineBytes)+`"`)),
			3, "", "byte 65536: the line is 65684 bytes, at most 65536"},
		{"an array line", lines(header, "[1]"),
			2, "", "the line is an array, not a JSON object"},
		{"a string line", lines(header, `"claim"`),
			2, "", "the line is a string, not a JSON object"},
		{"a null header", lines("null"),
			1, "", "the line is null, not a JSON object"},
	})
	// The depth bound itself is accepted.
	_, err := ParseFile(lines(header, result1, claimWith("declaredValue", deep)))
	require.NoError(t, err)
}

func TestParseFileRefusesEmptyAndHugeFiles(t *testing.T) {
	empty := `the file is empty; line 1 is the header {"chronicle-claims":1,"namespace":…,"runId":…}`
	runRefusals(t, []refusal{
		{"no bytes", nil, 1, "", empty},
		{"only an LF", []byte("\n"), 1, "", empty},
		{"over MaxFileBytes", bytes.Repeat([]byte("\n"), MaxFileBytes+1),
			1, "", fmt.Sprintf("the file is %d bytes, at most %d", MaxFileBytes+1, MaxFileBytes)},
	})
}

func TestParseFileRefusesHeaders(t *testing.T) {
	unitsRefused := func(n int) string {
		return fmt.Sprintf("want 1 to 4096 characters (UTF-16 units), got %d", n)
	}
	missingHeader := `missing: line 1 is the header {"chronicle-claims":1,"namespace":…,"runId":…}`
	runRefusals(t, []refusal{
		{"no header: a result line first", lines(result1),
			1, "chronicle-claims", missingHeader},
		{"no header: a claim line first", lines(claimWith("", "")),
			1, "chronicle-claims", missingHeader},
		{"header with an unknown key", lines(`{"chronicle-claims":1,"namespace":"NS","runId":"RUN","agent":"x"}`),
			1, "agent", "unknown key (the header has chronicle-claims, namespace, runId)"},
		{"header without the version", lines(`{"namespace":"NS","runId":"RUN"}`),
			1, "chronicle-claims", missingHeader},
		{"empty header object", lines(`{}`),
			1, "chronicle-claims", missingHeader},
		{"version 2", lines(`{"chronicle-claims":2,"namespace":"NS","runId":"RUN"}`),
			1, "chronicle-claims", "version 2 is not supported (this build reads 1)"},
		{"version 0", lines(`{"chronicle-claims":0,"namespace":"NS","runId":"RUN"}`),
			1, "chronicle-claims", "version 0 is not supported (this build reads 1)"},
		{"version as a string", lines(`{"chronicle-claims":"1","namespace":"NS","runId":"RUN"}`),
			1, "chronicle-claims", `version "1" is not supported (this build reads 1)`},
		{"version true", lines(`{"chronicle-claims":true,"namespace":"NS","runId":"RUN"}`),
			1, "chronicle-claims", `version true is not supported (this build reads 1)`},
		{"version null", lines(`{"chronicle-claims":null,"namespace":"NS","runId":"RUN"}`),
			1, "chronicle-claims", `version null is not supported (this build reads 1)`},
		{"unknown header key", lines(`{"chronicle-claims":1,"namespace":"NS","runId":"RUN","agent":"x"}`),
			1, "agent", "unknown key (the header has chronicle-claims, namespace, runId)"},
		{"header keys are case-sensitive", lines(`{"chronicle-claims":1,"namespace":"NS","runID":"RUN"}`),
			1, "runID", "unknown key (the header has chronicle-claims, namespace, runId)"},
		{"missing namespace", lines(`{"chronicle-claims":1,"runId":"RUN"}`),
			1, "namespace", "missing"},
		{"missing runId", lines(`{"chronicle-claims":1,"namespace":"NS"}`),
			1, "runId", "missing"},
		{"empty namespace", lines(headerWith("", "RUN")),
			1, "namespace", unitsRefused(0)},
		{"empty runId", lines(headerWith("NS", "")),
			1, "runId", unitsRefused(0)},
		{"namespace of 4097 units", lines(headerWith(strings.Repeat("n", 4097), "RUN")),
			1, "namespace", unitsRefused(4097)},
		{"runId of 4097 units", lines(headerWith("NS", strings.Repeat("r", 4097))),
			1, "runId", unitsRefused(4097)},
		{"namespace of 2049 astral characters is 4098 units", lines(headerWith(strings.Repeat("\U0001F600", 2049), "RUN")),
			1, "namespace", unitsRefused(4098)},
		{"namespace null", lines(`{"chronicle-claims":1,"namespace":null,"runId":"RUN"}`),
			1, "namespace", "null, want a string"},
		{"namespace integer", lines(`{"chronicle-claims":1,"namespace":7,"runId":"RUN"}`),
			1, "namespace", "an integer, want a string"},
		{"runId array", lines(`{"chronicle-claims":1,"namespace":"NS","runId":["RUN"]}`),
			1, "runId", "an array, want a string"},
		{"runId object", lines(`{"chronicle-claims":1,"namespace":"NS","runId":{}}`),
			1, "runId", "an object, want a string"},
	})
}

func TestParseFileRefusesResultLines(t *testing.T) {
	runRefusals(t, []refusal{
		{"neither result nor claim", lines(header, `{"document":"DOC","query":"q"}`),
			2, "", `neither a result line ("result") nor a claim line ("claim")`},
		{"an empty object line", lines(header, `{}`),
			2, "", `neither a result line ("result") nor a claim line ("claim")`},
		{"a second header", lines(header, header),
			2, "", `neither a result line ("result") nor a claim line ("claim")`},
		{"both result and claim", lines(header, `{"result":1,"claim":1,"document":"DOC","query":"q"}`),
			2, "claim", `a line is a result line ("result") or a claim line ("claim"), not both`},
		{"both, with null values", lines(header, `{"result":null,"claim":null}`),
			2, "claim", `a line is a result line ("result") or a claim line ("claim"), not both`},
		{"unknown key", lines(header, resultWith("confidence", "1")),
			2, "confidence", "unknown key (a result line has result, document, query, find)"},
		{"a claim key on a result line", lines(header, resultWith("standing", `"fact"`)),
			2, "standing", "unknown key (a result line has result, document, query, find)"},
		{"missing document", lines(header, resultWith("document", "")),
			2, "document", "missing"},
		{"missing query and find", lines(header, resultWith("query", "")),
			2, "query", "missing (a result line has query or find)"},
		{"result null", lines(header, resultWith("result", "null")),
			2, "result", "null, want an integer >= 1"},
		{"result a string", lines(header, resultWith("result", `"1"`)),
			2, "result", "a string, want an integer >= 1"},
		{"result a boolean", lines(header, resultWith("result", "true")),
			2, "result", "a boolean, want an integer >= 1"},
		{"result ordinal 0", lines(header, resultWith("result", "0")),
			2, "result", "0, want an integer >= 1"},
		{"result ordinal -1", lines(header, resultWith("result", "-1")),
			2, "result", "-1, want an integer >= 1"},
		{"duplicate result ordinal", lines(header, result1, `{"result":1,"document":"OTHER","find":"x"}`),
			3, "result", "ordinal 1 repeats line 2"},
		{"duplicate result ordinal after claims", lines(header, result1, claimWith("", ""), `{"result":2,"document":"D","find":"x"}`, result1),
			5, "result", "ordinal 1 repeats line 2"},
		{"document an integer", lines(header, resultWith("document", "1")),
			2, "document", "an integer, want a string"},
		{"document null", lines(header, resultWith("document", "null")),
			2, "document", "null, want a string"},
		{"empty document", lines(header, resultWith("document", `""`)),
			2, "document", "want 1 to 4096 characters (UTF-16 units), got 0"},
		{"document of 4097 units", lines(header, resultWith("document", jsonString(strings.Repeat("d", 4097)))),
			2, "document", "want 1 to 4096 characters (UTF-16 units), got 4097"},
		{"query and find both", lines(header, resultWith("find", `"Alice"`)),
			2, "find", "a result line has query or find, not both"},
		{"query null and find", lines(header, `{"result":1,"document":"D","query":null,"find":"x"}`),
			2, "find", "a result line has query or find, not both"},
		{"query an integer", lines(header, resultWith("query", "1")),
			2, "query", "an integer, want a string"},
		{"query null", lines(header, resultWith("query", "null")),
			2, "query", "null, want a string"},
		{"query an array", lines(header, resultWith("query", `["Did Alice repay Bob?"]`)),
			2, "query", "an array, want a string"},
		{"find a boolean", lines(header, `{"result":1,"document":"D","find":true}`),
			2, "find", "a boolean, want a string"},
		{"find an object", lines(header, `{"result":1,"document":"D","find":{}}`),
			2, "find", "an object, want a string"},
		{"empty find", lines(header, `{"result":1,"document":"D","find":""}`),
			2, "find", "empty"},
		{"query with NUL", lines(header, resultWith("query", `"Alice\u0000Bob"`)),
			2, "query", "not text the archive accepts (NUL)"},
		{"find with NUL", lines(header, `{"result":1,"document":"D","find":"\u0000"}`),
			2, "find", "not text the archive accepts (NUL)"},
		{"@claim with one field", lines(header, resultWith("query", `"@claim\tAlice"`)),
			2, "query", "malformed claim question: claim has 1 field, want 3"},
		{"@claim with no field", lines(header, resultWith("query", `"@claim\t"`)),
			2, "query", "malformed claim question: claim has 1 field, want 3"},
		{"@claim with two fields", lines(header, resultWith("query", `"@claim\tAlice\towns"`)),
			2, "query", "malformed claim question: claim has 2 fields, want 3"},
		{"@claim with four fields", lines(header, resultWith("query", `"@claim\tAlice\towns\tBook\tnow"`)),
			2, "query", "malformed claim question: claim has 4 fields, want 3"},
		{"@claim with a trailing TAB", lines(header, resultWith("query", `"@claim\tAlice\towns\tBook\t"`)),
			2, "query", "malformed claim question: claim has 4 fields, want 3"},
		{"@claim with an empty predicate", lines(header, resultWith("query", `"@claim\tAlice\t\tBook"`)),
			2, "query", "malformed claim question: claim predicate is empty"},
		{"@claim with a 128-byte object", lines(header, resultWith("query", `"@claim\tAlice\towns\t`+strings.Repeat("b", 128)+`"`)),
			2, "query", "malformed claim question: claim object is 128 bytes, the limit is 127"},
		{"@claim with a control byte", lines(header, resultWith("query", `"@claim\tAl\u0001ice\towns\tBook"`)),
			2, "query", "malformed claim question: claim subject has control byte 0x01 at byte 2"},
		{"@claim with a LF", lines(header, resultWith("query", `"@claim\tAlice\towns\tBo\nok"`)),
			2, "query", "malformed claim question: claim object has control byte 0x0a at byte 2"},
		{"find of separators only", lines(header, `{"result":1,"document":"D","find":" .,;:?!\t"}`),
			2, "find", "invalid find terms: the terms string holds only separators (zero terms)"},
		{"find of 17 terms", lines(header, `{"result":1,"document":"D","find":"`+strings.TrimSpace(strings.Repeat("t ", 17))+`"}`),
			2, "find", "invalid find terms: the terms string splits into 17 terms, the limit is 16"},
		{"find of 1025 bytes", lines(header, `{"result":1,"document":"D","find":"`+strings.Repeat("t", 1025)+`"}`),
			2, "find", "invalid find terms: the terms string is 1025 bytes, the limit is 1024"},
	})
	// A result identity claim-result/<ns>/<runId>/<n> is at most 4096 units:
	// 13 + len(ns) + 1 + len(runId) + 1 + len(n) <= 4096.
	runRefusals(t, []refusal{
		{"result identity of 4097 units", lines(headerWith(strings.Repeat("n", 4080), "R"), `{"result":1,"document":"D","find":"x"}`),
			2, "result", "its identity is 4097 characters (UTF-16 units), at most 4096; shorten the namespace or runId"},
		{"result identity over the bound by the ordinal's digits", lines(headerWith(strings.Repeat("n", 4079), "R"), `{"result":10,"document":"D","find":"x"}`),
			2, "result", "its identity is 4097 characters (UTF-16 units), at most 4096; shorten the namespace or runId"},
		{"result identity long by encoding", lines(headerWith(strings.Repeat("/", 1400), "R"), `{"result":1,"document":"D","find":"x"}`),
			2, "result", "its identity is 4217 characters (UTF-16 units), at most 4096; shorten the namespace or runId"},
	})
	// At the bound it is accepted.
	f, err := ParseFile(lines(headerWith(strings.Repeat("n", 4079), "R"), `{"result":1,"document":"D","find":"x"}`))
	require.NoError(t, err)
	id, err := claimrow.ResultID(claimrow.Identity{Namespace: f.Namespace, RunID: f.RunID, Ordinal: 1})
	require.NoError(t, err)
	require.Equal(t, 4096, claimrow.UTF16Len(id))
}

func TestParseFileRefusesClaimLines(t *testing.T) {
	units := func(n int) string { return fmt.Sprintf("want 1 to 4096 characters (UTF-16 units), got %d", n) }
	on := `"answer" or {"toolCallId": …}`
	runRefusals(t, []refusal{
		{"unknown key", lines(header, result1, claimWith("confidence", "1")),
			3, "confidence", "unknown key (a claim line has claim, standing, iteration, turn, declaredOn, declaredResult, declaredRule, declaredValue)"},
		{"a result key on a claim line", lines(header, result1, claimWith("document", `"DOC"`)),
			3, "document", "unknown key (a claim line has claim, standing, iteration, turn, declaredOn, declaredResult, declaredRule, declaredValue)"},
		{"a row key on a claim line", lines(header, result1, claimWith("outcome", `"supported"`)),
			3, "outcome", "unknown key (a claim line has claim, standing, iteration, turn, declaredOn, declaredResult, declaredRule, declaredValue)"},
		{"missing standing", lines(header, result1, claimWith("standing", "")), 3, "standing", "missing"},
		{"missing iteration", lines(header, result1, claimWith("iteration", "")), 3, "iteration", "missing"},
		{"missing declaredOn", lines(header, result1, claimWith("declaredOn", "")), 3, "declaredOn", `missing ("answer" or {"toolCallId": …})`},
		{"missing declaredValue", lines(header, result1, claimWith("declaredValue", "")), 3, "declaredValue", "missing (any JSON value; null is a value)"},
		{"claim a string", lines(header, result1, claimWith("claim", `"1"`)), 3, "claim", "a string, want an integer >= 1"},
		{"claim null", lines(header, result1, claimWith("claim", `null`)), 3, "claim", "null, want an integer >= 1"},
		{"claim ordinal 0", lines(header, result1, claimWith("claim", "0")), 3, "claim", "0, want an integer >= 1"},
		{"claim ordinal negative", lines(header, result1, claimWith("claim", "-5")), 3, "claim", "-5, want an integer >= 1"},
		{"duplicate claim ordinal", lines(header, result1, claimWith("", ""), claimWith("declaredValue", "2")),
			4, "claim", "ordinal 1 repeats line 3"},
		{"duplicate claim ordinal apart", lines(header, claimWith("", ""), result1, claimWith("claim", "2"), claimWith("", "")),
			5, "claim", "ordinal 1 repeats line 2"},
		{"standing an integer", lines(header, result1, claimWith("standing", "1")), 3, "standing", "an integer, want a string"},
		{"standing empty", lines(header, result1, claimWith("standing", `""`)), 3, "standing", units(0)},
		{"standing not in the set", lines(header, result1, claimWith("standing", `"certain"`)),
			3, "standing", `"certain" is not fact, open, ruled-out or noise`},
		{"standing is case-sensitive", lines(header, result1, claimWith("standing", `"Fact"`)),
			3, "standing", `"Fact" is not fact, open, ruled-out or noise`},
		{"standing with a space", lines(header, result1, claimWith("standing", `"ruled out"`)),
			3, "standing", `"ruled out" is not fact, open, ruled-out or noise`},
		{"iteration a string", lines(header, result1, claimWith("iteration", `"0"`)), 3, "iteration", "a string, want an integer >= 0"},
		{"iteration null", lines(header, result1, claimWith("iteration", `null`)), 3, "iteration", "null, want an integer >= 0"},
		{"iteration -1", lines(header, result1, claimWith("iteration", "-1")), 3, "iteration", "-1, want an integer >= 0"},
		{"turn 0", lines(header, result1, claimWith("turn", "0")), 3, "turn", "0, want an integer >= 1"},
		{"turn -1", lines(header, result1, claimWith("turn", "-1")), 3, "turn", "-1, want an integer >= 1"},
		{"turn a string", lines(header, result1, claimWith("turn", `"2"`)), 3, "turn", "a string, want an integer >= 1"},
		{"turn null is present", lines(header, result1, claimWith("turn", `null`)), 3, "turn", "null, want an integer >= 1"},
		{"declaredOn another string", lines(header, result1, claimWith("declaredOn", `"tool"`)),
			3, "declaredOn", `"tool", want ` + on},
		{"declaredOn Answer", lines(header, result1, claimWith("declaredOn", `"Answer"`)),
			3, "declaredOn", `"Answer", want ` + on},
		{"declaredOn an integer", lines(header, result1, claimWith("declaredOn", `1`)),
			3, "declaredOn", `1, want ` + on},
		{"declaredOn null", lines(header, result1, claimWith("declaredOn", `null`)),
			3, "declaredOn", `null, want ` + on},
		{"declaredOn an array", lines(header, result1, claimWith("declaredOn", `["answer"]`)),
			3, "declaredOn", `["answer"], want ` + on},
		{"declaredOn an object with another key", lines(header, result1, claimWith("declaredOn", `{"toolCall":"c"}`)),
			3, "declaredOn", "toolCall: unknown key (declaredOn has toolCallId)"},
		{"declaredOn an object with an extra key", lines(header, result1, claimWith("declaredOn", `{"toolCallId":"c","turn":1}`)),
			3, "declaredOn", "turn: unknown key (declaredOn has toolCallId)"},
		{"declaredOn an empty object", lines(header, result1, claimWith("declaredOn", `{}`)),
			3, "declaredOn", "toolCallId: missing"},
		{"declaredOn an empty toolCallId", lines(header, result1, claimWith("declaredOn", `{"toolCallId":""}`)),
			3, "declaredOn", "toolCallId: " + units(0)},
		{"declaredOn a toolCallId of 4097 units", lines(header, result1, claimWith("declaredOn", `{"toolCallId":"`+strings.Repeat("c", 4097)+`"}`)),
			3, "declaredOn", "toolCallId: " + units(4097)},
		{"declaredOn an integer toolCallId", lines(header, result1, claimWith("declaredOn", `{"toolCallId":7}`)),
			3, "declaredOn", "toolCallId: an integer, want a string"},
		{"declaredResult a string", lines(header, result1, claimWith("declaredResult", `"1"`)),
			3, "declaredResult", "a string, want an integer >= 1"},
		{"declaredResult null", lines(header, result1, claimWith("declaredResult", `null`)),
			3, "declaredResult", "null, want an integer >= 1"},
		{"declaredResult 0", lines(header, result1, claimWith("declaredResult", `0`)),
			3, "declaredResult", "0, want an integer >= 1"},
		{"declaredResult naming no result line", lines(header, result1, claimWith("declaredResult", `2`)),
			3, "declaredResult", "no result line has ordinal 2"},
		{"declaredResult in a file without result lines", lines(header, claimWith("", "")),
			2, "declaredResult", "no result line has ordinal 1"},
		{"declaredResult naming a claim ordinal", lines(header, result1, claimWith("claim", "7"), claimWith("declaredResult", "7")),
			4, "declaredResult", "no result line has ordinal 7"},
		{"the first dangling declaredResult is named", lines(header, result1, claimWith("declaredResult", "3"),
			`{"claim":2,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":2,"declaredValue":1}`),
			3, "declaredResult", "no result line has ordinal 3"},
		{"declaredRule empty", lines(header, result1, claimWith("declaredRule", `""`)), 3, "declaredRule", units(0)},
		{"declaredRule null", lines(header, result1, claimWith("declaredRule", `null`)), 3, "declaredRule", "null, want a string"},
		{"declaredRule an integer", lines(header, result1, claimWith("declaredRule", `1`)), 3, "declaredRule", "an integer, want a string"},
		{"declaredRule of 4097 units", lines(header, result1, claimWith("declaredRule", jsonString(strings.Repeat("r", 4097)))),
			3, "declaredRule", units(4097)},
		{"declaredValue of 8193 canonical bytes", lines(header, result1, claimWith("declaredValue", jsonString(strings.Repeat("v", 8191)))),
			3, "declaredValue", "8193 bytes as canonical JSON, at most 8192"},
		{"declaredValue of 8193 canonical bytes by escapes", lines(header, result1, claimWith("declaredValue", jsonString(strings.Repeat("\x01", 1365)+"v"))),
			3, "declaredValue", "8193 bytes as canonical JSON, at most 8192"},
		{"declaredValue object of 8193 canonical bytes", lines(header, result1, claimWith("declaredValue", `{"k":`+jsonString(strings.Repeat("v", 8185))+`}`)),
			3, "declaredValue", "8193 bytes as canonical JSON, at most 8192"},
		// claim-verification/<ns>/<runId>/<n> is at most 4102 units:
		// 19 + len(ns) + 1 + len(runId) + 1 + len(n) <= 4102.
		{"claim identity of 4103 units", lines(headerWith(strings.Repeat("n", 4080), "R"), `{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredValue":1}`),
			2, "claim", "its identity is 4103 characters (UTF-16 units), at most 4102; shorten the namespace or runId"},
		{"claim identity over the bound by encoding", lines(headerWith("NS", strings.Repeat("%", 1400)), `{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredValue":1}`),
			2, "claim", "its identity is 4224 characters (UTF-16 units), at most 4102; shorten the namespace or runId"},
		{"claim identity over the bound by astral characters", lines(headerWith(strings.Repeat("\U0001F600", 2040), "R"), `{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredValue":1}`),
			2, "claim", "its identity is 4103 characters (UTF-16 units), at most 4102; shorten the namespace or runId"},
	})
}

func TestParseFileAcceptsTheClaimsExample(t *testing.T) {
	f, err := ParseFile([]byte(exampleFile))
	require.NoError(t, err)
	require.Equal(t, "NS", f.Namespace)
	require.Equal(t, "RUN", f.RunID)
	require.Equal(t, sha256.Sum256([]byte(exampleFile)), f.SHA256)
	require.Equal(t, []*ResultLine{
		{Ordinal: 1, Line: 2, Document: "DOC", Question: "Did Alice repay Bob?", Kind: SettlementResult},
		{Ordinal: 2, Line: 3, Document: "DOC", Question: "Saud Alice", Kind: FindResult},
	}, f.Results)
	require.Len(t, f.Claims, 2)
	c1, c2 := f.Claims[0], f.Claims[1]
	require.Equal(t, int64(1), c1.Ordinal)
	require.Equal(t, 4, c1.Line)
	require.Equal(t, "fact", c1.Standing)
	require.Equal(t, int64(0), c1.Iteration)
	require.Equal(t, int64(0), c1.Turn)
	require.Equal(t, `"answer"`, string(claimrow.Canonical(c1.DeclaredOn)))
	require.Equal(t, int64(1), c1.DeclaredResult)
	require.Equal(t, RuleStatus, c1.DeclaredRule)
	require.Equal(t, `"SUPPORTED"`, string(claimrow.Canonical(c1.DeclaredValue)))
	require.Equal(t, int64(2), c2.Ordinal)
	require.Equal(t, 5, c2.Line)
	require.Equal(t, int64(1), c2.Iteration)
	require.Equal(t, int64(2), c2.Turn)
	require.Equal(t, `{"toolCallId":"call_7"}`, string(claimrow.Canonical(c2.DeclaredOn)))
	require.Equal(t, RuleSettled, c2.DeclaredRule)
	require.Equal(t, `40`, string(claimrow.Canonical(c2.DeclaredValue)))
	require.Same(t, f.Results[0], f.Result(1))
	require.Same(t, f.Results[1], f.Result(2))
	require.Nil(t, f.Result(3))
	require.Nil(t, f.Result(0))
}

func TestParseFileAccepts(t *testing.T) {
	claim := func(n int, rest string) string {
		return fmt.Sprintf(`{"claim":%d,"standing":"fact","iteration":0,"declaredOn":"answer"%s}`, n, rest)
	}
	tests := []struct {
		name    string
		data    []byte
		results []int64 // result ordinals in file order
		claims  []int64 // claim ordinals in file order
		check   func(t *testing.T, f *File)
	}{
		{name: "header only", data: lines(header)},
		{name: "header only without LF", data: []byte(header)},
		{name: "results and no claims", data: lines(header, result1, `{"result":2,"document":"DOC","find":"x"}`), results: []int64{1, 2}},
		{name: "a claim without result or rule", data: lines(header, claim(1, `,"declaredValue":1`)), claims: []int64{1}},
		{name: "last line without LF", data: []byte(header + "\n" + result1 + "\n" + claimWith("", "")),
			results: []int64{1}, claims: []int64{1}},
		{name: "results and claims interleaved", data: lines(header,
			claim(3, `,"declaredResult":2,"declaredValue":1`), result1, claim(1, `,"declaredResult":1,"declaredValue":1`),
			`{"result":2,"document":"DOC","find":"x"}`, claim(2, `,"declaredResult":2,"declaredValue":1`),
			`{"result":5,"document":"DOC","find":"y"}`),
			results: []int64{1, 2, 5}, claims: []int64{3, 1, 2},
			check: func(t *testing.T, f *File) {
				require.Equal(t, []int{3, 5, 7}, []int{f.Results[0].Line, f.Results[1].Line, f.Results[2].Line})
				require.Equal(t, []int{2, 4, 6}, []int{f.Claims[0].Line, f.Claims[1].Line, f.Claims[2].Line})
			}},
		{name: "declaredResult naming a later result line", data: lines(header, claimWith("", ""), result1),
			results: []int64{1}, claims: []int64{1},
			check: func(t *testing.T, f *File) { require.Equal(t, int64(1), f.Claims[0].DeclaredResult) }},
		{name: "declaredResult naming the last line, without LF", data: []byte(header + "\n" + claimWith("declaredResult", "9") + "\n" + `{"result":9,"document":"D","find":"x"}`),
			results: []int64{9}, claims: []int64{1}},
		{name: "result and claim ordinals are separate", data: lines(header, result1, claimWith("", "")),
			results: []int64{1}, claims: []int64{1}},
		{name: "ordinals need not be dense nor sorted", data: lines(header,
			`{"result":9007199254740991,"document":"D","find":"x"}`, `{"result":3,"document":"D","find":"x"}`,
			claim(9007199254740991, `,"declaredResult":9007199254740991,"declaredValue":1`), claim(2, `,"declaredValue":1`)),
			results: []int64{9007199254740991, 3}, claims: []int64{9007199254740991, 2}},
		{name: "declaredValue null", data: lines(header, result1, claimWith("declaredValue", "null")),
			results: []int64{1}, claims: []int64{1},
			check: func(t *testing.T, f *File) { require.Equal(t, claimrow.Null, f.Claims[0].DeclaredValue.Kind) }},
		{name: "declaredValue array", data: lines(header, result1, claimWith("declaredValue", `[40,"40"]`)),
			results: []int64{1}, claims: []int64{1},
			check: func(t *testing.T, f *File) { require.Equal(t, claimrow.Array, f.Claims[0].DeclaredValue.Kind) }},
		{name: "declaredValue object", data: lines(header, result1, claimWith("declaredValue", `{"kind":"unknown"}`)),
			results: []int64{1}, claims: []int64{1},
			check: func(t *testing.T, f *File) { require.Equal(t, claimrow.Object, f.Claims[0].DeclaredValue.Kind) }},
		{name: "declaredValue of 4097 canonical bytes (over the old bound)", data: lines(header, result1, claimWith("declaredValue", jsonString(strings.Repeat("v", 4095)))),
			results: []int64{1}, claims: []int64{1},
			check: func(t *testing.T, f *File) { require.Len(t, claimrow.Canonical(f.Claims[0].DeclaredValue), 4097) }},
		{name: "declaredValue of 8192 canonical bytes", data: lines(header, result1, claimWith("declaredValue", jsonString(strings.Repeat("v", 8190)))),
			results: []int64{1}, claims: []int64{1},
			check: func(t *testing.T, f *File) { require.Len(t, claimrow.Canonical(f.Claims[0].DeclaredValue), 8192) }},
		{name: "declaredValue of 8192 canonical bytes, written longer", data: lines(header, result1,
			claimWith("declaredValue", `{ "k" : "`+strings.Repeat(`\/`, 8184)+`" }`)),
			results: []int64{1}, claims: []int64{1},
			check: func(t *testing.T, f *File) { require.Len(t, claimrow.Canonical(f.Claims[0].DeclaredValue), 8192) }},
		{name: "declaredValue false and an unknown rule", data: lines(header, result1,
			`{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"made.up","declaredValue":false}`),
			results: []int64{1}, claims: []int64{1},
			check: func(t *testing.T, f *File) {
				require.Equal(t, "made.up", f.Claims[0].DeclaredRule)
				require.Equal(t, claimrow.Bool, f.Claims[0].DeclaredValue.Kind)
			}},
		{name: "turn and toolCallId", data: lines(header, result1,
			`{"claim":1,"standing":"open","iteration":7,"turn":3,"declaredOn":{"toolCallId":"call/%_1"},"declaredValue":"x"}`),
			results: []int64{1}, claims: []int64{1},
			check: func(t *testing.T, f *File) {
				c := f.Claims[0]
				require.Equal(t, "open", c.Standing)
				require.Equal(t, int64(7), c.Iteration)
				require.Equal(t, int64(3), c.Turn)
				require.Equal(t, "call/%_1", c.DeclaredOn.Get("toolCallId").Str)
				require.Equal(t, int64(0), c.DeclaredResult)
				require.Equal(t, "", c.DeclaredRule)
			}},
		{name: "every standing", data: lines(header, claim(1, `,"declaredValue":1`), `{"claim":2,"standing":"open","iteration":0,"declaredOn":"answer","declaredValue":1}`,
			`{"claim":3,"standing":"ruled-out","iteration":0,"declaredOn":"answer","declaredValue":1}`,
			`{"claim":4,"standing":"noise","iteration":0,"declaredOn":"answer","declaredValue":1}`),
			claims: []int64{1, 2, 3, 4}},
		{name: "result kinds from the line", data: lines(header,
			`{"result":1,"document":"D","query":"@claim\tAlice\towns\tBook"}`,
			`{"result":2,"document":"D","query":"@claim Alice owns Book"}`,
			`{"result":3,"document":"D","query":"@settlement\tAlice\tBob"}`,
			`{"result":4,"document":"D","find":"@claim\tAlice"}`,
			`{"result":5,"document":"D","query":"@claimAlice"}`,
			`{"result":6,"document":"D","query":" "}`),
			results: []int64{1, 2, 3, 4, 5, 6},
			check: func(t *testing.T, f *File) {
				var kinds []string
				for _, r := range f.Results {
					kinds = append(kinds, r.Kind.String())
				}
				require.Equal(t, []string{"literal claim query", "settlement query", "settlement query", "find", "settlement query", "settlement query"}, kinds)
				require.Equal(t, "@claim\tAlice\towns\tBook", f.Results[0].Question)
				require.Equal(t, "@claim\tAlice", f.Results[3].Question)
			}},
		{name: "header keys in any order, whitespace between tokens", data: lines(` { "runId" : "R" , "namespace" : "N" , "chronicle-claims" : 1 }`),
			check: func(t *testing.T, f *File) { require.Equal(t, "N", f.Namespace); require.Equal(t, "R", f.RunID) }},
		{name: "namespace and runId of 4096 units", data: lines(headerWith(strings.Repeat("\U0001F600", 2048), strings.Repeat("r", 4096))),
			check: func(t *testing.T, f *File) { require.Equal(t, 4096, claimrow.UTF16Len(f.Namespace)) }},
		{name: "namespace and runId with identity metacharacters", data: lines(headerWith("a/b", "_"), claim(1, `,"declaredValue":1`)),
			claims: []int64{1}},
		{name: "claim identity of exactly 4102 units", data: lines(headerWith(strings.Repeat("n", 4079), "R"), claim(1, `,"declaredValue":1`)),
			claims: []int64{1}},
		{name: "a query at the line bound", data: lines(header, `{"result":1,"document":"D","query":"`+strings.Repeat("q", LineBytes-38)+`"}`),
			results: []int64{1},
			check:   func(t *testing.T, f *File) { require.Len(t, f.Results[0].Question, LineBytes-38) }},
		{name: "find terms of 1024 bytes and 16 terms", data: lines(header,
			`{"result":1,"document":"D","find":"`+strings.Repeat("t", 1024)+`"}`,
			`{"result":2,"document":"D","find":"`+strings.TrimSpace(strings.Repeat("t ", 16))+`"}`),
			results: []int64{1, 2}},
		{name: "non-ASCII text", data: lines(header, `{"result":1,"document":"وثيقة","query":"هل سدد أحمد دين خالد؟"}`), results: []int64{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFile(tc.data)
			require.NoError(t, err)
			require.Equal(t, sha256.Sum256(tc.data), f.SHA256)
			var results, claims []int64
			for _, r := range f.Results {
				results = append(results, r.Ordinal)
			}
			for _, c := range f.Claims {
				claims = append(claims, c.Ordinal)
			}
			require.Equal(t, tc.results, results, "result ordinals")
			require.Equal(t, tc.claims, claims, "claim ordinals")
			if tc.check != nil {
				tc.check(t, f)
			}
		})
	}
}

// TestParseFileWholeFileRefused: one broken line refuses the file, even
// when every other line is fine, and the first broken line is named.
func TestParseFileWholeFileRefused(t *testing.T) {
	data := lines(header, result1, claimWith("", ""), `{"claim":2}`, `{"claim":3,"oops":1}`)
	f, err := ParseFile(data)
	require.Nil(t, f)
	require.EqualError(t, err, "line 4: standing: missing")
	require.True(t, errors.Is(err, ErrFile))
}

func TestFileErrorText(t *testing.T) {
	require.Equal(t, "line 3: turn: 0, want an integer >= 1", (&FileError{Line: 3, Field: "turn", Reason: "0, want an integer >= 1"}).Error())
	require.Equal(t, "line 1: the file is empty", (&FileError{Line: 1, Reason: "the file is empty"}).Error())
	require.ErrorIs(t, &FileError{}, ErrFile)
}

// An empty question is one `query` accepts (it selects no debt), so a
// result line may carry it; empty find terms are refused, as by find.
func TestParseFileEmptyQuery(t *testing.T) {
	f, err := ParseFile(lines(header, resultWith("query", `""`)))
	require.NoError(t, err)
	require.Len(t, f.Results, 1)
	require.Equal(t, "", f.Results[0].Question)
	require.Equal(t, SettlementResult, f.Results[0].Kind)
}
