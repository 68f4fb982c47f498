package receipt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
)

const (
	goldenDir = "../../testdata/golden"
	// goldenStore is the relative store path every golden receipt records.
	goldenStore = "input.txt.chronicle"
)

// goldenCase is one golden directory: its store bytes and every receipt.
type goldenCase struct {
	name     string
	dir      string
	store    []byte
	receipts map[string][]byte // file name → bytes
}

// receiptNames returns the receipt file names of c in a stable order.
func (c goldenCase) receiptNames() []string {
	names := make([]string, 0, len(c.receipts))
	for n := range c.receipts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func loadGoldenCases(t testing.TB) []goldenCase {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(goldenDir, "g[0-9]_*"))
	require.NoError(t, err)
	require.Len(t, dirs, 10, "golden cases g0..g9")
	cases := make([]goldenCase, 0, len(dirs))
	for _, dir := range dirs {
		store, err := os.ReadFile(filepath.Join(dir, goldenStore))
		require.NoError(t, err)
		files, err := filepath.Glob(filepath.Join(dir, "*.receipt"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		c := goldenCase{name: filepath.Base(dir), dir: dir, store: store, receipts: map[string][]byte{}}
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			c.receipts[filepath.Base(f)] = b
		}
		cases = append(cases, c)
	}
	return cases
}

// goldenCaseByPrefix returns the golden case whose name starts with prefix
// ("g0", "g9", …).
func goldenCaseByPrefix(t testing.TB, prefix string) goldenCase {
	t.Helper()
	for _, c := range loadGoldenCases(t) {
		if strings.HasPrefix(c.name, prefix+"_") {
			return c
		}
	}
	require.FailNow(t, "no golden case", prefix)
	return goldenCase{}
}

// goldenReceipt returns the bytes of one golden receipt file.
func goldenReceipt(t testing.TB, prefix, file string) []byte {
	t.Helper()
	c := goldenCaseByPrefix(t, prefix)
	b, ok := c.receipts[file]
	require.True(t, ok, "%s has no %s", c.name, file)
	return b
}

// splitLines splits canonical receipt bytes into lines without their LF.
func splitLines(t testing.TB, b []byte) []string {
	t.Helper()
	s := string(b)
	require.True(t, strings.HasSuffix(s, "\n"))
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// joinLines is the inverse of splitLines: every line gets an LF.
func joinLines(lines []string) []byte {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// setValue replaces the value of key in receipt bytes (the key must exist).
func setValue(t testing.TB, b []byte, key, value string) []byte {
	t.Helper()
	lines := splitLines(t, b)
	for i, l := range lines {
		if strings.HasPrefix(l, key+":") {
			lines[i] = key + ":" + value
			return joinLines(lines)
		}
	}
	require.FailNow(t, "receipt has no key", key)
	return nil
}

// getValue returns the value of key in canonical receipt bytes.
func getValue(t testing.TB, b []byte, key string) string {
	t.Helper()
	for _, l := range splitLines(t, b) {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			return v
		}
	}
	require.FailNow(t, "receipt has no key", key)
	return ""
}

// editLine applies f to the 0-based line i of receipt bytes.
func editLine(t testing.TB, b []byte, i int, f func(string) string) []byte {
	t.Helper()
	lines := splitLines(t, b)
	lines[i] = f(lines[i])
	return joinLines(lines)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func hexOf(s string) string { return hex.EncodeToString([]byte(s)) }

// transcript is the part of a golden transcript.json these tests use.
type transcript struct {
	Commands []struct {
		Argv   []string `json:"argv"`
		Exit   int      `json:"exit"`
		Stdout string   `json:"stdout"`
	} `json:"commands"`
}

func loadTranscript(t testing.TB, dir string) transcript {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "transcript.json"))
	require.NoError(t, err)
	var tr transcript
	require.NoError(t, json.Unmarshal(raw, &tr))
	require.NotEmpty(t, tr.Commands)
	return tr
}

// TestGoldenParseEncode: every golden receipt parses, re-encodes to the same
// bytes and carries the fields CONTRACT 4 promises.
func TestGoldenParseEncode(t *testing.T) {
	total := 0
	for _, c := range loadGoldenCases(t) {
		for _, name := range c.receiptNames() {
			data := c.receipts[name]
			t.Run(c.name+"/"+name, func(t *testing.T) {
				r, err := Parse(data)
				require.NoError(t, err)
				require.Equal(t, string(data), string(r.Encode()), "re-encoding must be byte-identical")
				require.Equal(t, goldenStore, r.StorePath)
				for _, d := range []string{r.StoreSHA256, r.DocumentSHA256, r.ResultSHA256} {
					require.Len(t, d, 64)
					require.Equal(t, strings.ToLower(d), d, "the original tool writes lowercase digests")
				}
				require.Equal(t, sha256Hex(c.store), r.StoreSHA256, "golden receipts bind the golden store")
				switch {
				case name == goldenStore+".receipt":
					require.Equal(t, KindIngest, r.Kind)
					require.Empty(t, r.Question)
					require.Equal(t, r.StoreSHA256, r.ResultSHA256, "INGEST result is the store")
				case strings.Contains(name, ".find-"):
					require.Equal(t, KindFind, r.Kind)
				default:
					require.Equal(t, KindQuery, r.Kind)
				}
				if r.Kind == KindQuery && name != "legacy-query.receipt" {
					require.Equal(t, 2, r.Version, "QUERY receipts are always V2")
				}
			})
			total++
		}
	}
	require.Equal(t, 42, total, "number of golden receipts")
}

// TestGoldenNewAndFileSuffix rebuilds every receipt the golden transcripts
// wrote (ingest, query, claim, find) with New and FileSuffix, from the
// golden store and the golden JSON line, and compares names and bytes.
func TestGoldenNewAndFileSuffix(t *testing.T) {
	built := 0
	for _, c := range loadGoldenCases(t) {
		store, err := engine.Load(c.store)
		require.NoError(t, err, c.name)
		for i, cmd := range loadTranscript(t, c.dir).Commands {
			if cmd.Exit != 0 {
				continue
			}
			var kind Kind
			var question, storePath string
			var result []byte
			argv := cmd.Argv
			switch {
			case len(argv) == 2 && argv[0] == "ingest":
				kind, storePath = KindIngest, argv[1]+".chronicle"
			case len(argv) == 3 && argv[0] == "query":
				kind, storePath, question = KindQuery, argv[1], argv[2]
			case len(argv) == 3 && argv[0] == "find":
				kind, storePath, question = KindFind, argv[1], argv[2]
			case len(argv) == 5 && argv[0] == "claim":
				kind, storePath, question = KindQuery, argv[1], "@claim\t"+argv[2]+"\t"+argv[3]+"\t"+argv[4]
			default:
				continue
			}
			out := strings.Split(strings.TrimSuffix(cmd.Stdout, "\n"), "\n")
			receiptLine := out[len(out)-1]
			receiptPath, ok := strings.CutPrefix(receiptLine, "receipt=")
			require.True(t, ok, "%s command %d: %q", c.name, i, receiptLine)
			if kind != KindIngest {
				require.Len(t, out, 2)
				result = []byte(out[0])
			}
			t.Run(c.name+"/"+argv[0]+"/"+receiptPath, func(t *testing.T) {
				require.Equal(t, goldenStore, storePath)
				suffix := FileSuffix(kind, store.Version, question)
				require.Equal(t, receiptPath, storePath+suffix)
				want, ok := c.receipts[receiptPath]
				require.True(t, ok, "receipt file %s exists", receiptPath)
				r, err := New(kind, storePath, question, c.store, store.Version, store.Document, result)
				require.NoError(t, err)
				require.Equal(t, string(want), string(r.Encode()))
				parsed, err := Parse(want)
				require.NoError(t, err)
				require.Equal(t, parsed, r)
			})
			built++
		}
	}
	require.Equal(t, 43, built, "receipt-writing commands in the golden transcripts")
}

func TestNewVersion(t *testing.T) {
	doc := sha256.Sum256([]byte("doc"))
	tests := []struct {
		kind         Kind
		storeVersion int
		wantVersion  int
		wantHeader   string
	}{
		{KindIngest, 2, 2, HeaderV2},
		{KindIngest, 1, 1, HeaderV1},
		{KindFind, 2, 2, HeaderV2},
		{KindFind, 1, 1, HeaderV1},
		{KindQuery, 2, 2, HeaderV2},
		{KindQuery, 1, 2, HeaderV2}, // QUERY is always V2
	}
	for _, tt := range tests {
		t.Run(string(tt.kind)+"/V"+string(rune('0'+tt.storeVersion)), func(t *testing.T) {
			q := "Alice"
			if tt.kind == KindIngest {
				q = ""
			}
			r, err := New(tt.kind, "s.chronicle", q, []byte("store"), tt.storeVersion, doc, []byte("{}"))
			require.NoError(t, err)
			require.Equal(t, tt.wantVersion, r.Version)
			require.True(t, strings.HasPrefix(string(r.Encode()), tt.wantHeader+"\n"))
		})
	}
}

func TestNewDigests(t *testing.T) {
	store := []byte("store bytes")
	doc := sha256.Sum256([]byte("document"))
	result := []byte(`{"status":"UNKNOWN"}`)

	ing, err := New(KindIngest, "a.chronicle", "", store, 2, doc, result)
	require.NoError(t, err)
	require.Equal(t, sha256Hex(store), ing.StoreSHA256)
	require.Equal(t, hex.EncodeToString(doc[:]), ing.DocumentSHA256)
	require.Equal(t, sha256Hex(store), ing.ResultSHA256, "INGEST result is the store, the result argument is ignored")

	for _, k := range []Kind{KindQuery, KindFind} {
		r, err := New(k, "a.chronicle", "Alice Bob", store, 2, doc, result)
		require.NoError(t, err)
		require.Equal(t, sha256Hex(store), r.StoreSHA256)
		require.Equal(t, sha256Hex(result), r.ResultSHA256)
		require.Equal(t, "Alice Bob", r.Question)
		require.Equal(t, "a.chronicle", r.StorePath)
	}
}

func TestNewQuestionLimit(t *testing.T) {
	doc := sha256.Sum256(nil)
	tests := []struct {
		name    string
		n       int
		wantErr bool
	}{
		{"empty", 0, false},
		{"2047 bytes", 2047, false},
		{"2048 bytes", 2048, true},
		{"4096 bytes", 4096, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := strings.Repeat("q", tt.n)
			r, err := New(KindQuery, "s.chronicle", q, nil, 2, doc, nil)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrQuestionTooLong)
				require.Nil(t, r)
				return
			}
			require.NoError(t, err)
			// The largest question still fits a parseable receipt.
			back, err := Parse(r.Encode())
			require.NoError(t, err)
			require.Equal(t, r, back)
		})
	}
}

func TestEncodeCanonical(t *testing.T) {
	d := strings.Repeat("ab", 32)
	r := &Receipt{
		Version: 2, Kind: KindQuery, StorePath: "dir/ملف.chronicle", Question: "@claim\tA\tB\tC",
		StoreSHA256: d, DocumentSHA256: strings.Repeat("0", 64), ResultSHA256: strings.Repeat("F", 64),
	}
	want := "CASPER-CHRONICLE-INTEGRITY-RECEIPT-V2\n" +
		"kind:QUERY\n" +
		"store_path_hex:" + hexOf("dir/ملف.chronicle") + "\n" +
		"question_hex:40636c61696d0941094209" + "43\n" +
		"store_sha256:" + d + "\n" +
		"document_sha256:" + strings.Repeat("0", 64) + "\n" +
		"result_sha256:" + strings.Repeat("F", 64) + "\n"
	require.Equal(t, want, string(r.Encode()), "fixed key order, lowercase hex blobs, digests as stored")

	r.Version = 1
	require.True(t, strings.HasPrefix(string(r.Encode()), HeaderV1+"\n"))
	r.Kind, r.Question = KindIngest, ""
	require.Contains(t, string(r.Encode()), "\nquestion_hex:\n")
}

func TestFileSuffix(t *testing.T) {
	tests := []struct {
		name         string
		kind         Kind
		storeVersion int
		question     string
		want         string
	}{
		{"ingest V2", KindIngest, 2, "", ".receipt"},
		{"ingest V1", KindIngest, 1, "", ".receipt"},
		{"query V2", KindQuery, 2, "Alice Bob", ".query-9635407d0b59b961.receipt"},
		{"query V1 store", KindQuery, 1, "Alice Bob", ".query-v2-9635407d0b59b961.receipt"},
		{"claim V2", KindQuery, 2, "@claim\tAlice\towns\tBook", ".query-e19a9a4818ac46d3.receipt"},
		{"claim V1 store", KindQuery, 1, "@claim\tAlice\towns\tBook", ".query-v2-e19a9a4818ac46d3.receipt"},
		{"find V2", KindFind, 2, "Book", ".find-909cb81127c5e194.receipt"},
		{"find V1 store keeps .find-", KindFind, 1, "Alice", ".find-3bc51062973c458d.receipt"},
		{"empty question", KindQuery, 2, "", ".query-e3b0c44298fc1c14.receipt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, FileSuffix(tt.kind, tt.storeVersion, tt.question))
		})
	}
}

// validBase is a golden V2 QUERY receipt with a non-empty question.
func validBase(t testing.TB) []byte {
	return goldenReceipt(t, "g0", "input.txt.chronicle.query-e19a9a4818ac46d3.receipt")
}

func TestParseFields(t *testing.T) {
	r, err := Parse(validBase(t))
	require.NoError(t, err)
	require.Equal(t, &Receipt{
		Version:        2,
		Kind:           KindQuery,
		StorePath:      goldenStore,
		Question:       "@claim\tAlice\towns\tBook",
		StoreSHA256:    "86880520cbb14a42de6304f6a7b99e03eacca0ba075f9d42a1542f792d4053bc",
		DocumentSHA256: "36c5ab5b586ba2213e5229e7c4d27878248491b83f25588454be93a11c7e3dd3",
		ResultSHA256:   "6179047c94adc9619bba9a844356b94d569c7c208b1746cfafb7e7f9ed307f03",
	}, r)
}

// TestParseAccepts lists syntactic variations CONTRACT 4.1 tolerates; each
// parses to the same receipt as the canonical bytes.
func TestParseAccepts(t *testing.T) {
	base := validBase(t)
	want, err := Parse(base)
	require.NoError(t, err)
	crlf := func(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "\n", "\r\n")) }

	tests := []struct {
		name string
		data []byte
	}{
		{"canonical", base},
		{"CRLF everywhere", crlf(base)},
		{"CRLF on the header only", editLine(t, base, 0, func(s string) string { return s + "\r" })},
		{"CRLF on the last line only", editLine(t, base, 6, func(s string) string { return s + "\r" })},
		{"mixed CRLF, every other line", func() []byte {
			lines := splitLines(t, base)
			for i := range lines {
				if i%2 == 1 {
					lines[i] += "\r"
				}
			}
			return joinLines(lines)
		}()},
		{"upper-case store_path_hex", setValue(t, base, "store_path_hex", strings.ToUpper(hexOf(goldenStore)))},
		{"upper-case question_hex", setValue(t, base, "question_hex", strings.ToUpper(hexOf(want.Question)))},
		{"mixed-case hex blobs", setValue(t, setValue(t, base, "store_path_hex", "696E7075742e7478742E6368726f6e69636C65"),
			"question_hex", "40636C61696D09416c696365096F776e7309426F6f6b")},
		{"reversed key order", func() []byte {
			lines := splitLines(t, base)
			out := []string{lines[0]}
			for i := len(lines) - 1; i >= 1; i-- {
				out = append(out, lines[i])
			}
			return joinLines(out)
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.data)
			require.NoError(t, err)
			require.Equal(t, want, got)
			require.Equal(t, string(base), string(got.Encode()), "re-encoding is canonical")
		})
	}
}

// TestParseKeyOrderFree parses all 720 orders of the six key lines.
func TestParseKeyOrderFree(t *testing.T) {
	base := validBase(t)
	want, err := Parse(base)
	require.NoError(t, err)
	lines := splitLines(t, base)
	n := 0
	permute(lines[1:], 0, func(p []string) {
		got, err := Parse(joinLines(append([]string{lines[0]}, p...)))
		require.NoError(t, err, "order %q", p)
		require.Equal(t, want, got)
		n++
	})
	require.Equal(t, 720, n)
}

// permute calls f with every permutation of s (Heap-style, in place).
func permute(s []string, k int, f func([]string)) {
	if k == len(s) {
		f(s)
		return
	}
	for i := k; i < len(s); i++ {
		s[k], s[i] = s[i], s[k]
		permute(s, k+1, f)
		s[k], s[i] = s[i], s[k]
	}
}

// TestParseDigestCaseKept: upper-case digests are syntactically valid and
// kept verbatim (CONTRACT 4.1), so that verify can reject them (CONTRACT 4.2).
func TestParseDigestCaseKept(t *testing.T) {
	base := validBase(t)
	for _, key := range []string{"store_sha256", "document_sha256", "result_sha256"} {
		t.Run(key, func(t *testing.T) {
			up := strings.ToUpper(getValue(t, base, key))
			data := setValue(t, base, key, up)
			r, err := Parse(data)
			require.NoError(t, err)
			got := map[string]string{"store_sha256": r.StoreSHA256, "document_sha256": r.DocumentSHA256, "result_sha256": r.ResultSHA256}
			require.Equal(t, up, got[key])
			require.Equal(t, string(data), string(r.Encode()), "digest case survives re-encoding")
		})
	}
}

func TestParseLimitsAccepted(t *testing.T) {
	base := validBase(t)
	tests := []struct {
		name string
		data []byte
		path string
		q    string
	}{
		{"path of 1 byte", setValue(t, base, "store_path_hex", "61"), "a", "@claim\tAlice\towns\tBook"},
		{"path of 2047 bytes", setValue(t, base, "store_path_hex", hexOf(strings.Repeat("p", 2047))), strings.Repeat("p", 2047), "@claim\tAlice\towns\tBook"},
		{"UTF-8 path", setValue(t, base, "store_path_hex", hexOf("سجل/x.chronicle")), "سجل/x.chronicle", "@claim\tAlice\towns\tBook"},
		{"empty QUERY question", setValue(t, base, "question_hex", ""), goldenStore, ""},
		{"question of 2047 bytes", setValue(t, base, "question_hex", hexOf(strings.Repeat("q", 2047))), goldenStore, strings.Repeat("q", 2047)},
		{"question with control bytes", setValue(t, base, "question_hex", hexOf("a\tb\nc\rd\x7f")), goldenStore, "a\tb\nc\rd\x7f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.data)
			require.NoError(t, err)
			require.Equal(t, tt.path, r.StorePath)
			require.Equal(t, tt.q, r.Question)
		})
	}
}

// TestParseRejects: every structural violation of CONTRACT 4.1 and every
// decoding failure of CONTRACT 4.2 step 1 is a Parse error wrapping ErrMalformed.
func TestParseRejects(t *testing.T) {
	base := validBase(t)
	ingest := goldenReceipt(t, "g0", "input.txt.chronicle.receipt")
	lines := splitLines(t, base)
	keys := []string{"kind", "store_path_hex", "question_hex", "store_sha256", "document_sha256", "result_sha256"}
	digest := getValue(t, base, "result_sha256")

	type tc struct {
		name string
		data []byte
	}
	tests := []tc{
		{"empty file", nil},
		{"single LF", []byte("\n")},
		{"header only", []byte(HeaderV2 + "\n")},
		{"header without LF", []byte(HeaderV2)},
		{"header V3", editLine(t, base, 0, func(string) string { return "CASPER-CHRONICLE-INTEGRITY-RECEIPT-V3" })},
		{"header V0", editLine(t, base, 0, func(string) string { return "CASPER-CHRONICLE-INTEGRITY-RECEIPT-V0" })},
		{"header lower case", editLine(t, base, 0, strings.ToLower)},
		{"header trailing space", editLine(t, base, 0, func(s string) string { return s + " " })},
		{"header leading space", editLine(t, base, 0, func(s string) string { return " " + s })},
		{"header with two CRs", editLine(t, base, 0, func(s string) string { return s + "\r\r" })},
		{"header missing", joinLines(lines[1:])},
		{"header moved last", joinLines(append(append([]string{}, lines[1:]...), lines[0]))},
		{"header repeated", joinLines(append([]string{lines[0], lines[0]}, lines[1:]...))},
		{"missing final LF", base[:len(base)-1]},
		{"final CR without LF", append(append([]byte{}, base[:len(base)-1]...), '\r')},
		{"NUL at start", append([]byte{0}, base...)},
		{"NUL inside a value", editLine(t, base, 1, func(s string) string { return s + "\x00" })},
		{"NUL after the last LF", append(append([]byte{}, base...), 0)},
		{"blank line in the middle", joinLines(append(append(append([]string{}, lines[:3]...), ""), lines[3:]...))},
		{"blank line at the end", append(append([]byte{}, base...), '\n')},
		{"CRLF blank line at the end", append(append([]byte{}, base...), '\r', '\n')},
		{"unknown key line", joinLines(append(append([]string{}, lines...), "comment:hello"))},
		{"line without colon", joinLines(append(append([]string{}, lines...), "kind"))},
		{"key in upper case", editLine(t, base, 1, strings.ToUpper)},
		{"space before colon", editLine(t, base, 1, func(string) string { return "kind :QUERY" })},
		{"space after colon in kind", editLine(t, base, 1, func(string) string { return "kind: QUERY" })},
		{"trailing space after kind", editLine(t, base, 1, func(s string) string { return s + " " })},
		{"overlong unknown line (4128 bytes)", joinLines(append(append([]string{}, lines...), strings.Repeat("x", 4128)))},
		{"overlong store_path_hex line (4128 bytes)", setValue(t, base, "store_path_hex", strings.Repeat("61", 4113/2)+"6")},
		{"overlong line (10000 bytes)", setValue(t, base, "question_hex", strings.Repeat("61", 5000))},
		{"kind lower case", setValue(t, base, "kind", "query")},
		{"kind empty", setValue(t, base, "kind", "")},
		{"kind unknown", setValue(t, base, "kind", "CLAIM")},
		{"kind of 15 bytes, unknown", setValue(t, base, "kind", "QUERYQUERYQUERY")},
		{"kind of 16 bytes", setValue(t, base, "kind", "QUERYQUERYQUERYQ")},
		{"kind INGEST with padding", setValue(t, base, "kind", "INGEST"+strings.Repeat(" ", 10))},
		{"INGEST with a question", setValue(t, ingest, "question_hex", "41")},
		{"QUERY turned INGEST keeps its question", setValue(t, base, "kind", "INGEST")},
		{"empty store_path_hex", setValue(t, base, "store_path_hex", "")},
		{"odd-length store_path_hex", setValue(t, base, "store_path_hex", hexOf(goldenStore)[1:])},
		{"odd-length question_hex", setValue(t, base, "question_hex", "416")},
		{"non-hex store_path_hex", setValue(t, base, "store_path_hex", "zz")},
		{"non-hex question_hex", setValue(t, base, "question_hex", "4g")},
		{"0x-prefixed store_path_hex", setValue(t, base, "store_path_hex", "0x"+hexOf(goldenStore))},
		{"space inside question_hex", setValue(t, base, "question_hex", "41 42")},
		{"store path of 2048 bytes", setValue(t, base, "store_path_hex", hexOf(strings.Repeat("p", 2048)))},
		{"question of 2048 bytes", setValue(t, base, "question_hex", hexOf(strings.Repeat("q", 2048)))},
		{"store path of 4096 hex chars", setValue(t, base, "store_path_hex", strings.Repeat("a", 4096))},
		{"store path invalid UTF-8", setValue(t, base, "store_path_hex", "ff")},
		{"store path overlong UTF-8", setValue(t, base, "store_path_hex", "c0af")},
		{"store path surrogate", setValue(t, base, "store_path_hex", "eda080")},
		{"store path truncated UTF-8", setValue(t, base, "store_path_hex", "61d8")},
		{"store path NUL", setValue(t, base, "store_path_hex", "00")},
		{"store path with inner NUL", setValue(t, base, "store_path_hex", "610062")},
		{"question invalid UTF-8", setValue(t, base, "question_hex", "41ff")},
		{"question above U+10FFFF", setValue(t, base, "question_hex", "f4908080")},
		{"question NUL", setValue(t, base, "question_hex", "410042")},
	}
	for _, key := range []string{"store_sha256", "document_sha256", "result_sha256"} {
		tests = append(tests,
			tc{key + " of 63 chars", setValue(t, base, key, digest[:63])},
			tc{key + " of 65 chars", setValue(t, base, key, digest+"0")},
			tc{key + " empty", setValue(t, base, key, "")},
			tc{key + " non-hex", setValue(t, base, key, digest[:63]+"g")},
			tc{key + " with a space", setValue(t, base, key, " "+digest[1:])},
			tc{key + " with two CRs", setValue(t, base, key, digest+"\r\r")},
		)
	}
	for i, key := range keys {
		rest := append(append([]string{}, lines[:i+1]...), lines[i+2:]...)
		tests = append(tests,
			tc{"missing " + key, joinLines(rest)},
			tc{"duplicated " + key, joinLines(append(append([]string{}, lines...), lines[i+1]))},
			tc{"duplicated " + key + " adjacent", joinLines(append(append(append([]string{}, lines[:i+2]...), lines[i+1]), lines[i+2:]...))},
			tc{"duplicated " + key + " different value", joinLines(append(append([]string{}, lines...), key+":"+strings.TrimPrefix(lines[1+(i+1)%6], keys[(i+1)%6]+":")))},
		)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.data)
			require.ErrorIs(t, err, ErrMalformed)
			require.Nil(t, r)
		})
	}
}

// TestParseLineLength pins the 4127-byte line limit of CONTRACT 4.1/12 with an
// unknown line (rejected as too long or as unknown, never accepted) and the
// longest lines a valid receipt can hold.
func TestParseLineLength(t *testing.T) {
	base := validBase(t)
	// Longest legal hex values: 4094 chars (2047 decoded bytes).
	long := setValue(t, setValue(t, base, "store_path_hex", hexOf(strings.Repeat("p", 2047))),
		"question_hex", hexOf(strings.Repeat("q", 2047)))
	r, err := Parse([]byte(strings.ReplaceAll(string(long), "\n", "\r\n")))
	require.NoError(t, err)
	require.Len(t, r.StorePath, 2047)
	require.Len(t, r.Question, 2047)

	for _, n := range []int{4127, 4128, 4129} {
		line := "store_path_hex:" + strings.Repeat("6", n-len("store_path_hex:"))
		require.Len(t, line, n)
		_, err := Parse(setValue(t, base, "store_path_hex", line[len("store_path_hex:"):]))
		require.ErrorIs(t, err, ErrMalformed, "a %d-byte line", n)
	}
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		o    Outcome
		str  string
		exit int
	}{
		{Valid, "VALID", 0},
		{Invalid, "INVALID", 1},
		{Unsupported, "UNSUPPORTED", 3},
	}
	for _, tt := range tests {
		t.Run(tt.str, func(t *testing.T) {
			require.Equal(t, tt.str, tt.o.String())
			require.Equal(t, tt.exit, tt.o.ExitCode())
		})
	}
	require.Equal(t, Invalid, Outcome(0), "the zero Outcome is INVALID")
}
