package claimrow

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The second opinion: the seed's own JavaScript reader, run under node,
// must agree with ReadRow on every line.

const (
	seedDriver  = "../../testdata/claims/seedjs/read-rows.mjs"
	seedExample = "../../testdata/claims/seedjs/example.jsonl"
	seedJS      = "../../testdata/claims/seedjs/src/recorder/claims/verify/verificationRow.js"
	seedPage    = "../../../shared/seeds/003_346c13b4be8f2728.txt"
	goldenDir   = "../../testdata/claims/golden"
	goldenGlob  = goldenDir + "/*.rows.jsonl"
)

// verdict is what node said of one line.
type verdict struct {
	ok  bool
	msg string
}

var verdictLine = regexp.MustCompile(`^line (\d+): (ok|invalid: (.*))$`)

// nodeVerdicts runs the driver over file and returns one verdict a line.
func nodeVerdicts(t *testing.T, file string, lines int) []verdict {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is not on PATH: install nodejs (Node 20 or later; CI installs it) to run the seed's JavaScript reader as a second opinion")
	cmd := exec.Command(node, seedDriver, file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		require.NoError(t, err, "node %s %s: %s", seedDriver, file, stderr.String())
	}
	out := strings.TrimSuffix(stdout.String(), "\n")
	var vs []verdict
	if out != "" {
		for i, l := range strings.Split(out, "\n") {
			m := verdictLine.FindStringSubmatch(l)
			require.NotNil(t, m, "unexpected driver output %q", l)
			require.Equal(t, strconv.Itoa(i+1), m[1], "driver output out of order")
			vs = append(vs, verdict{ok: m[2] == "ok", msg: m[3]})
		}
	}
	require.Len(t, vs, lines, "the driver must say one thing per line")
	if err == nil {
		for _, v := range vs {
			require.True(t, v.ok, "exit status 0 with a refused line")
		}
	}
	return vs
}

// splitJSONLines splits as the driver does: on LF; a final LF does not
// start an empty line.
func splitJSONLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	lines := bytes.Split(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func TestSeedAgreesOnTableCases(t *testing.T) {
	var file bytes.Buffer
	for _, c := range rowCases {
		require.NotContains(t, string(c.line), "\n", c.name)
		file.Write(c.line)
		file.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	require.NoError(t, os.WriteFile(path, file.Bytes(), 0o644))
	require.Len(t, splitJSONLines(file.Bytes()), len(rowCases))

	vs := nodeVerdicts(t, path, len(rowCases))
	for i, c := range rowCases {
		_, err := ReadRow(c.line)
		goOK := err == nil
		require.Equal(t, goOK, vs[i].ok, "%s (line %d): Go says %v, node says %s", c.name, i+1, err, describeVerdict(vs[i]))
	}
}

func describeVerdict(v verdict) string {
	if v.ok {
		return "ok"
	}
	return "invalid: " + v.msg
}

// TestSeedAgreesOnFiles feeds every golden file of rows written by the
// archive's checker, and the driver's example file.
func TestSeedAgreesOnFiles(t *testing.T) {
	golden, err := filepath.Glob(goldenGlob)
	require.NoError(t, err)
	if _, err := os.Stat(goldenDir); err == nil {
		require.NotEmpty(t, golden, "%s exists but holds no *.rows.jsonl file", goldenDir)
	} else {
		require.True(t, errors.Is(err, os.ErrNotExist), "%v", err)
		t.Logf("no %s yet: only the example file is fed", goldenDir)
	}
	for _, file := range append([]string{seedExample}, golden...) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			lines := splitJSONLines(data)
			require.NotEmpty(t, lines, "%s is empty", file)
			vs := nodeVerdicts(t, file, len(lines))
			for i, line := range lines {
				v, err := ReadRow(line)
				require.Equal(t, err == nil, vs[i].ok, "%s line %d: Go says %v, node says %s", file, i+1, err, describeVerdict(vs[i]))
				if file == seedExample {
					continue
				}
				// CLAIMS 2.3 and 4: every row Chronicle's checker writes is
				// canonical JSON and passes the reader.
				require.NoError(t, err, "%s line %d: a row the checker wrote", file, i+1)
				require.Equal(t, string(line), string(Canonical(v)), "%s line %d is not canonical JSON", file, i+1)
			}
		})
	}
}

// TestSeedExampleVerdicts pins the example file's verdicts as its README
// lists them, so a driver that accepted everything could not agree with a
// reader that accepted everything.
func TestSeedExampleVerdicts(t *testing.T) {
	data, err := os.ReadFile(seedExample)
	require.NoError(t, err)
	lines := splitJSONLines(data)
	want := []string{"", "", "", "", "bytes after the JSON value", "-0 is not allowed", `duplicate key "iteration"`,
		"lone high surrogate", "claimId: invalid identity", "a noise claim is never compared", `unknown key "__proto__"`,
		"resolved.period queried from names a date or time that does not exist"}
	require.Len(t, lines, len(want))
	vs := nodeVerdicts(t, seedExample, len(lines))
	for i, line := range lines {
		_, err := ReadRow(line)
		if want[i] == "" {
			require.NoError(t, err, "line %d", i+1)
			require.True(t, vs[i].ok, "line %d: node says %s", i+1, describeVerdict(vs[i]))
			continue
		}
		require.Error(t, err, "line %d", i+1)
		require.Contains(t, err.Error(), want[i], "line %d", i+1)
		require.False(t, vs[i].ok, "line %d", i+1)
	}
}

// seedJavaScript is the JavaScript part of the seed page: from its first
// line starting with "/**" to the "//# sourceMappingURL=" line inclusive.
func seedJavaScript(page []byte) ([]byte, error) {
	start := -1
	for i := 0; i < len(page); {
		end := bytes.IndexByte(page[i:], '\n')
		if end < 0 {
			end = len(page) - i
		}
		if bytes.HasPrefix(page[i:i+end], []byte("/**")) {
			start = i
			break
		}
		i += end + 1
	}
	if start < 0 {
		return nil, fmt.Errorf("no line starts with /**")
	}
	marker := bytes.Index(page[start:], []byte("//# sourceMappingURL="))
	if marker < 0 {
		return nil, fmt.Errorf("no //# sourceMappingURL= line")
	}
	stop := start + marker
	if nl := bytes.IndexByte(page[stop:], '\n'); nl >= 0 {
		stop += nl
	} else {
		stop = len(page)
	}
	return page[start:stop], nil
}

func TestSeedJavaScriptIsVerbatim(t *testing.T) {
	got, err := os.ReadFile(seedJS)
	require.NoError(t, err)
	require.Contains(t, string(got), "export function readClaimVerificationRow(raw)")
	page, err := os.ReadFile(seedPage)
	if errors.Is(err, os.ErrNotExist) {
		t.Logf("%s is absent: the verbatim check needs the shared seeds", seedPage)
		return
	}
	require.NoError(t, err)
	want, err := seedJavaScript(page)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "%s must be the seed's JavaScript, byte for byte", seedJS)
}

func TestSeedJavaScriptExtract(t *testing.T) {
	tests := []struct {
		name, page, want string
	}{
		{"header dropped", "agentfootprint\nJavaScript\n/**\n* x\n*/\ncode();\n//# sourceMappingURL=a.js.map", "/**\n* x\n*/\ncode();\n//# sourceMappingURL=a.js.map"},
		{"text after the map line dropped", "h\n/** a */\n//# sourceMappingURL=a.js.map\nfooter\n", "/** a */\n//# sourceMappingURL=a.js.map"},
		{"an inner /** is not a start", "x /** no\n/** yes\n//# sourceMappingURL=m", "/** yes\n//# sourceMappingURL=m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := seedJavaScript([]byte(tt.page))
			require.NoError(t, err)
			require.Equal(t, tt.want, string(got))
		})
	}
	_, err := seedJavaScript([]byte("no code here\n"))
	require.Error(t, err)
	_, err = seedJavaScript([]byte("/** code without its map line"))
	require.Error(t, err)
}

// canonicalByNode is canonical JSON as JavaScript itself writes it:
// JSON.stringify for scalars and keys, Array.prototype.sort (UTF-16 code
// units) for key order. One value a line in, one a line out.
const canonicalByNode = `
const data = require('fs').readFileSync(0, 'utf8');
const canon = (v) => {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
};
const out = [];
for (const line of data.split('\n')) if (line !== '') out.push(canon(JSON.parse(line)));
process.stdout.write(out.join('\n') + '\n');
`

// TestCanonicalAgreesWithJavaScript compares Canonical with JSON.stringify
// on every ASCII character, the characters JavaScript treats specially and
// keys whose UTF-16 order is not their byte order.
func TestCanonicalAgreesWithJavaScript(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is not on PATH: install nodejs (CI installs it)")
	var values []Value
	for c := range 0x80 {
		s := string(rune(c))
		values = append(values, sv(s), sv("a"+s+"b"), ObjectValue(Member{s, iv(int64(c))}))
	}
	for _, s := range []string{"\u0080", "\u0085", "\u00a0", "\u2028", "\u2029", "\ufeff", "\ufffd", "\ue000", "\uffff", emoji, "\U0010FFFF", "é" + emoji + "\u2028"} {
		values = append(values, sv(s))
	}
	keys := []string{"", "a", "A", "ab", "b", "\x7f", "\u0080", "\ud7ff", "\ue000", "\ufffd", "\uffff", emoji, "\U00010000", "\U0010FFFF", "a" + emoji, "a\uff5e", "_", "%", "/"}
	obj := ObjectValue()
	for i, k := range keys {
		obj.Members = append(obj.Members, Member{k, iv(int64(i))})
	}
	values = append(values, obj, jv(`{"z":[{"b":1,"a":[true,false,null,-9007199254740991,9007199254740991]}],"__proto__":{}}`), jv(comparedText))
	var in bytes.Buffer
	for _, v := range values {
		in.Write(Canonical(v))
		in.WriteByte('\n')
	}
	cmd := exec.Command(node, "-e", canonicalByNode)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	require.Len(t, got, len(values))
	for i, v := range values {
		require.Equal(t, got[i], string(Canonical(v)), "value %d", i)
	}
}
