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
//
// The seed's JavaScript is not the project's and is not in the
// repository: it is read at test time from the seed page beside the
// repository (seedPage; this file is the only one that names it), put
// into a temporary directory beside the project's own helper modules and
// driver (testdata/claims/seedjs), and run there. Without the seed page
// the comparisons skip, saying so (seedReader); the Go checks of each
// test run either way.

const (
	seedjsDir   = "../../testdata/claims/seedjs"
	seedExample = seedjsDir + "/example.jsonl"
	seedPage    = "../../../shared/seeds/003_346c13b4be8f2728.txt"
	// seedModule is where the driver imports the seed's JavaScript from,
	// relative to the driver.
	seedModule = "src/recorder/claims/verify/verificationRow.js"
	goldenDir  = "../../testdata/claims/golden"
	goldenGlob = goldenDir + "/*.rows.jsonl"
)

// seedReader returns the path of the driver read-rows.mjs in a temporary
// directory that holds the project's helper modules and the seed's
// JavaScript, extracted from the seed page. When the seed page is absent
// the test is skipped, with a message that says the comparison did not
// run: this is the one place that decides it.
func seedReader(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile(seedPage)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("SEED ABSENT: %s does not exist, so the seed's JavaScript reader was not run: the comparison with it DID NOT RUN (only the Go checks before this point ran)", seedPage)
	}
	require.NoError(t, err)
	js, err := seedJavaScript(page)
	require.NoError(t, err, "%s", seedPage)
	require.Contains(t, string(js), "export function readClaimVerificationRow(raw)", "%s: the seed's reader", seedPage)
	_, err = exec.LookPath("node")
	require.NoError(t, err, "node is not on PATH: install nodejs (Node 20 or later; CI installs it) to run the seed's JavaScript reader as a second opinion")

	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(seedjsDir)))
	module := filepath.Join(dir, filepath.FromSlash(seedModule))
	_, err = os.Stat(module)
	require.True(t, errors.Is(err, os.ErrNotExist), "%s must not carry the seed's JavaScript (%s): it is read from the seed page", seedjsDir, seedModule)
	require.NoError(t, os.MkdirAll(filepath.Dir(module), 0o755))
	require.NoError(t, os.WriteFile(module, append(js, '\n'), 0o644))
	return filepath.Join(dir, "read-rows.mjs")
}

// verdict is what node said of one line.
type verdict struct {
	ok  bool
	msg string
}

var verdictLine = regexp.MustCompile(`^line (\d+): (ok|invalid: (.*))$`)

// nodeVerdicts runs the driver (seedReader's) over file and returns one
// verdict a line.
func nodeVerdicts(t *testing.T, driver, file string, lines int) []verdict {
	t.Helper()
	cmd := exec.Command("node", driver, file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		require.NoError(t, err, "node %s %s: %s", driver, file, stderr.String())
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
	require.Len(t, splitJSONLines(file.Bytes()), len(rowCases))

	driver := seedReader(t)
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	require.NoError(t, os.WriteFile(path, file.Bytes(), 0o644))
	vs := nodeVerdicts(t, driver, path, len(rowCases))
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

// TestSeedAgreesOnFiles feeds every golden rows file (the rows the
// archive's checker wrote, and in forged.rows.jsonl rows edited so that
// the reader still accepts them and only `claims verify` tells them
// apart), and the driver's example file.
func TestSeedAgreesOnFiles(t *testing.T) {
	golden, err := filepath.Glob(goldenGlob)
	require.NoError(t, err)
	require.NotEmpty(t, golden, "%s holds no *.rows.jsonl file", goldenDir)
	files := append([]string{seedExample}, golden...)
	// The Go side: every golden row is canonical JSON and passes the
	// reader (engine/claimcheck/README.md §4.2, §4.4).
	lines := map[string][][]byte{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		lines[file] = splitJSONLines(data)
		require.NotEmpty(t, lines[file], "%s is empty", file)
		if file == seedExample {
			continue
		}
		for i, line := range lines[file] {
			v, err := ReadRow(line)
			require.NoError(t, err, "%s line %d: a golden row", file, i+1)
			require.Equal(t, string(line), string(Canonical(v)), "%s line %d is not canonical JSON", file, i+1)
		}
	}

	driver := seedReader(t)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			vs := nodeVerdicts(t, driver, file, len(lines[file]))
			for i, line := range lines[file] {
				_, err := ReadRow(line)
				require.Equal(t, err == nil, vs[i].ok, "%s line %d: Go says %v, node says %s", file, i+1, err, describeVerdict(vs[i]))
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
	for i, line := range lines {
		_, err := ReadRow(line)
		if want[i] == "" {
			require.NoError(t, err, "line %d", i+1)
			continue
		}
		require.Error(t, err, "line %d", i+1)
		require.Contains(t, err.Error(), want[i], "line %d", i+1)
	}

	vs := nodeVerdicts(t, seedReader(t), seedExample, len(lines))
	for i := range lines {
		require.Equal(t, want[i] == "", vs[i].ok, "line %d: node says %s", i+1, describeVerdict(vs[i]))
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
