package engine_test

// The contract document, held to the code: engine/CONTRACT.md states the
// byte-level contract in prose, and these tests check every statement of it
// that is cheap to check mechanically. Its conventions:
//
//   - a table with the columns "Value" and "Go constant" pairs a stated value
//     with the Go constant that holds it (a Go cell of "—" is not checked);
//     numbers may have thousands separators, strings are Go-quoted in
//     backticks;
//   - a fenced block right after a line "Golden: `PATH`" is the golden file
//     PATH: a ```json block its first line, any other block all of it;
//   - a fenced block right after "Hexdump of: `PATH`" is `xxd PATH`;
//   - every ```json block of section 5.4 is a golden stdout line, and the
//     engine must produce it again from the golden store;
//   - word lists sit between <!-- NAME --> and <!-- end --> lines.

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

const (
	contractPath = "CONTRACT.md"
	repoRoot     = ".."
)

// contractLines returns the document's lines.
func contractLines(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(contractPath)
	require.NoError(t, err)
	return strings.Split(string(raw), "\n")
}

var headingRE = regexp.MustCompile(`^(#{2,4}) (\d+(?:\.\d+)*)\.? `)

// section returns the lines of section num ("5", "5.4") without its heading,
// up to the next heading of the same or a higher level, and the 1-based
// line number of its first line.
func section(t *testing.T, lines []string, num string) ([]string, int) {
	t.Helper()
	for i, l := range lines {
		m := headingRE.FindStringSubmatch(l)
		if m == nil || m[2] != num {
			continue
		}
		level := len(m[1])
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if n := headingRE.FindStringSubmatch(lines[j]); n != nil && len(n[1]) <= level {
				end = j
				break
			}
		}
		return lines[i+1 : end], i + 2
	}
	t.Fatalf("%s has no section %s", contractPath, num)
	return nil, 0
}

// block is one fenced code block.
type block struct {
	lang   string
	line   int    // 1-based line of the opening fence
	marker string // the line right before the opening fence
	body   []string
}

func fences(lines []string, first int) []block {
	var out []block
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		b := block{lang: strings.TrimPrefix(lines[i], "```"), line: first + i}
		if i > 0 {
			b.marker = lines[i-1]
		}
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			b.body = append(b.body, lines[i])
		}
		out = append(out, b)
	}
	return out
}

var (
	goldenMarkerRE  = regexp.MustCompile("^Golden: `([^`]+)`$")
	hexdumpMarkerRE = regexp.MustCompile("^Hexdump of: `([^`]+)`$")
)

// TestContractSections: the document keeps the section numbers of the
// original contract, which code comments cite as "CONTRACT n.m".
func TestContractSections(t *testing.T) {
	lines := contractLines(t)
	var got []string
	for _, l := range lines {
		if m := headingRE.FindStringSubmatch(l); m != nil && len(m[1]) <= 3 {
			got = append(got, m[2])
		}
	}
	want := []string{
		"1", "1.1", "1.2", "1.3", "2", "3", "3.1", "3.2", "3.3", "4", "4.1", "4.2",
		"5", "5.1", "5.2", "5.3", "5.4", "6", "6.1", "6.2",
		"7", "7.1", "7.2", "7.3", "7.4", "7.5", "8", "9", "9.1", "10", "11",
		"12", "12.1", "12.2", "13", "14", "15", "16", "17",
	}
	require.Equal(t, want, got, "section numbers of %s", contractPath)
}

// contractConstants are the values the document's "Go constant" columns
// name: numbers in decimal, strings Go-quoted.
var contractConstants = map[string]string{
	"engine.HeaderSize":           strconv.Itoa(engine.HeaderSize),
	"engine.MagicV2":              strconv.Quote(string(engine.MagicV2)),
	"engine.MagicV1":              strconv.Quote(string(engine.MagicV1)),
	"engine.FixedEventSize":       strconv.Itoa(engine.FixedEventSize),
	"engine.MinEventRecord":       strconv.Itoa(engine.MinEventRecord),
	"engine.MaxSourceSize":        strconv.Itoa(engine.MaxSourceSize),
	"engine.MaxEvents":            strconv.Itoa(engine.MaxEvents),
	"engine.MaxFieldLen":          strconv.Itoa(engine.MaxFieldLen),
	"engine.MaxSpanLen":           strconv.Itoa(engine.MaxSpanLen),
	"engine.Spec14Size":           strconv.Itoa(engine.Spec14Size),
	"engine.Spec14FillerWords":    strconv.Itoa(engine.Spec14FillerWords),
	"engine.Spec14SHA256":         strconv.Quote(engine.Spec14SHA256),
	"receipt.HeaderV1":            strconv.Quote(receipt.HeaderV1),
	"receipt.HeaderV2":            strconv.Quote(receipt.HeaderV2),
	"receipt.MaxLineLen":          strconv.Itoa(receipt.MaxLineLen),
	"receipt.MaxKindLen":          strconv.Itoa(receipt.MaxKindLen),
	"receipt.MaxHexLen":           strconv.Itoa(receipt.MaxHexLen),
	"receipt.MaxPathLen":          strconv.Itoa(receipt.MaxPathLen),
	"receipt.MaxQuestionLen":      strconv.Itoa(receipt.MaxQuestionLen),
	"find.MaxTermsBytes":          strconv.Itoa(find.MaxTermsBytes),
	"find.MaxTerms":               strconv.Itoa(find.MaxTerms),
	"find.MaxMatches":             strconv.Itoa(find.MaxMatches),
	"settle.MaxNameLen":           strconv.Itoa(settle.MaxNameLen),
	"settle.AssessmentSettlement": strconv.Quote(settle.AssessmentSettlement),
	"settle.AssessmentClaim":      strconv.Quote(settle.AssessmentClaim),
	"settle.LimitsSettlement":     strconv.Quote(settle.LimitsSettlement),
	"settle.LimitsClaim":          strconv.Quote(settle.LimitsClaim),
	"settle.ClaimPrefix":          strconv.Quote(settle.ClaimPrefix),
	"settle.SettlementSelector":   strconv.Quote(settle.SettlementSelector),
}

// constantRow is one row of a table with "Value" and "Go constant" columns.
type constantRow struct {
	line        int
	value, name string
}

func splitRow(l string) []string {
	cells := strings.Split(strings.Trim(l, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func constantRows(lines []string) []constantRow {
	var out []constantRow
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") {
			continue
		}
		header := splitRow(lines[i])
		valueCol, goCol := -1, -1
		for k, h := range header {
			switch h {
			case "Value":
				valueCol = k
			case "Go constant":
				goCol = k
			}
		}
		i += 2 // the header and the separator row
		for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			if valueCol < 0 || goCol < 0 {
				continue
			}
			cells := splitRow(lines[i])
			out = append(out, constantRow{line: i + 1, value: cells[valueCol], name: cells[goCol]})
		}
	}
	return out
}

var (
	quotedValueRE = regexp.MustCompile("^`(\"[^`]*\")`")
	numberValueRE = regexp.MustCompile(`^[0-9][0-9,]*`)
	goNameRE      = regexp.MustCompile("^`([a-z]+\\.[A-Za-z0-9]+)`$")
)

// TestContractConstants: every value a "Go constant" table states equals
// the constant, and every constant of contractConstants is stated.
func TestContractConstants(t *testing.T) {
	rows := constantRows(contractLines(t))
	require.NotEmpty(t, rows)
	seen := map[string]bool{}
	for _, r := range rows {
		if strings.HasPrefix(r.name, "—") {
			continue // a limit no Go constant holds
		}
		t.Run(fmt.Sprintf("line%d_%s", r.line, r.name), func(t *testing.T) {
			m := goNameRE.FindStringSubmatch(r.name)
			require.NotNil(t, m, "%s:%d: Go constant cell %q is not `pkg.Name` or —", contractPath, r.line, r.name)
			want, ok := contractConstants[m[1]]
			require.True(t, ok, "%s:%d: %s is not a known constant (add it to contractConstants)", contractPath, r.line, m[1])
			seen[m[1]] = true
			var got string
			if q := quotedValueRE.FindStringSubmatch(r.value); q != nil {
				got = q[1]
			} else {
				got = strings.ReplaceAll(numberValueRE.FindString(r.value), ",", "")
			}
			require.Equal(t, want, got, "%s:%d: the value of %s (cell %q)", contractPath, r.line, m[1], r.value)
		})
	}
	for name := range contractConstants {
		require.True(t, seen[name], "%s states no value for %s", contractPath, name)
	}
}

// TestContractGoldenBlocks: each block marked "Golden: `PATH`" is that
// file's content (a json block: its first line).
func TestContractGoldenBlocks(t *testing.T) {
	n := 0
	for _, b := range fences(contractLines(t), 1) {
		m := goldenMarkerRE.FindStringSubmatch(b.marker)
		if m == nil {
			continue
		}
		n++
		t.Run(fmt.Sprintf("line%d", b.line), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(m[1])))
			require.NoError(t, err, "%s:%d", contractPath, b.line)
			want := string(raw)
			got := strings.Join(b.body, "\n") + "\n"
			if b.lang == "json" {
				first, _, _ := strings.Cut(want, "\n")
				want, got = first, strings.Join(b.body, "\n")
				require.Len(t, b.body, 1, "%s:%d: a json example is one line", contractPath, b.line)
			}
			require.Equal(t, want, got, "%s:%d differs from %s", contractPath, b.line, m[1])
		})
	}
	require.GreaterOrEqual(t, n, 5, "golden-marked blocks in %s", contractPath)
}

// goldenCommand is one recorded command of a golden case.
type goldenCommand struct {
	Argv   []string `json:"argv"`
	Exit   int      `json:"exit"`
	Stdout string   `json:"stdout"`
}

var cmdFileRE = regexp.MustCompile(`^testdata/golden/(g\d_[a-z0-9_]+)/cmd(\d\d)\.stdout$`)
var receiptLineRE = regexp.MustCompile("`(receipt=[^`]+)`")

// TestContractJSONExamples: every json block of section 5.4 is a golden
// stdout line that this engine computes again, byte for byte, from the
// golden store and the recorded command; the receipt line the text gives
// is the golden stdout's second line and the name FileSuffix forms.
func TestContractJSONExamples(t *testing.T) {
	lines, first := section(t, contractLines(t), "5.4")
	n := 0
	for _, b := range fences(lines, first) {
		if b.lang != "json" {
			continue
		}
		n++
		t.Run(fmt.Sprintf("line%d", b.line), func(t *testing.T) {
			m := goldenMarkerRE.FindStringSubmatch(b.marker)
			require.NotNil(t, m, "%s:%d: a json example of 5.4 needs a Golden: marker", contractPath, b.line)
			c := cmdFileRE.FindStringSubmatch(m[1])
			require.NotNil(t, c, "%s:%d: %s is not a golden cmdNN.stdout", contractPath, b.line, m[1])
			dir := filepath.Join(repoRoot, "testdata", "golden", c[1])
			raw, err := os.ReadFile(filepath.Join(dir, "transcript.json"))
			require.NoError(t, err)
			var tr struct {
				Commands []goldenCommand `json:"commands"`
			}
			require.NoError(t, json.Unmarshal(raw, &tr))
			k, _ := strconv.Atoi(c[2])
			require.LessOrEqual(t, k, len(tr.Commands))
			cmd := tr.Commands[k-1]
			require.Equal(t, 0, cmd.Exit)

			data, err := os.ReadFile(filepath.Join(dir, "input.txt.chronicle"))
			require.NoError(t, err)
			s, err := engine.Load(data)
			require.NoError(t, err)
			var got []byte
			var question string
			kind := receipt.KindQuery
			switch {
			case len(cmd.Argv) == 3 && cmd.Argv[0] == "query":
				question = cmd.Argv[2]
				got, err = settle.Query(s, question)
			case len(cmd.Argv) == 5 && cmd.Argv[0] == "claim":
				question = settle.ClaimQuestion(cmd.Argv[2], cmd.Argv[3], cmd.Argv[4])
				got, err = settle.Query(s, question)
			case len(cmd.Argv) == 3 && cmd.Argv[0] == "find":
				question, kind = cmd.Argv[2], receipt.KindFind
				got, err = find.Find(s, question)
			default:
				t.Fatalf("%s:%d: %s records %q, not a query, claim or find", contractPath, b.line, m[1], cmd.Argv)
			}
			require.NoError(t, err)
			require.Equal(t, strings.Join(b.body, "\n"), string(got), "%s:%d: the engine's output", contractPath, b.line)

			// The receipt line named in the example's text.
			var said string
			for i := b.line - first; i >= 0; i-- {
				if strings.HasPrefix(lines[i], "####") {
					break
				}
				if r := receiptLineRE.FindStringSubmatch(lines[i]); r != nil {
					said = r[1]
				}
			}
			require.NotEmpty(t, said, "%s:%d: the example does not give its receipt= line", contractPath, b.line)
			want := strings.Split(cmd.Stdout, "\n")
			require.Len(t, want, 3)
			require.Equal(t, want[1], said, "%s:%d", contractPath, b.line)
			require.Equal(t, "receipt="+cmd.Argv[1]+receipt.FileSuffix(kind, s.Version, question), said)
		})
	}
	require.GreaterOrEqual(t, n, 4, "json examples in section 5.4")
}

// xxd renders data as `xxd` does by default.
func xxd(data []byte) []string {
	var out []string
	for off := 0; off < len(data); off += 16 {
		row := data[off:min(off+16, len(data))]
		var hx strings.Builder
		for i := 0; i < len(row); i += 2 {
			if i > 0 {
				hx.WriteByte(' ')
			}
			hx.WriteString(hex.EncodeToString(row[i:min(i+2, len(row))]))
		}
		var ascii []byte
		for _, c := range row {
			if c >= 0x20 && c < 0x7f {
				ascii = append(ascii, c)
			} else {
				ascii = append(ascii, '.')
			}
		}
		out = append(out, fmt.Sprintf("%08x: %-39s  %s", off, hx.String(), ascii))
	}
	return out
}

// TestContractHexdump: the hexdump of section 3.2 is the golden store.
func TestContractHexdump(t *testing.T) {
	lines, first := section(t, contractLines(t), "3.2")
	n := 0
	for _, b := range fences(lines, first) {
		m := hexdumpMarkerRE.FindStringSubmatch(b.marker)
		if m == nil {
			continue
		}
		n++
		data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(m[1])))
		require.NoError(t, err)
		require.Equal(t, xxd(data), b.body, "%s:%d: hexdump of %s", contractPath, b.line, m[1])
		s, err := engine.Load(data)
		require.NoError(t, err)
		require.Equal(t, data, s.Encode(), "the golden store is the engine's encoding")
	}
	require.Equal(t, 1, n)
}

// TestContractWorkedIdentifiers: the identifiers of section 2's worked
// example are those the engine computes.
func TestContractWorkedIdentifiers(t *testing.T) {
	lines, _ := section(t, contractLines(t), "2")
	s, err := engine.NewStore([]byte("Alice owns Book.\n"), 0)
	require.NoError(t, err)
	require.Len(t, s.Events, 1)
	e := s.Events[0]
	require.Equal(t, [2]uint64{0, 16}, [2]uint64{e.ByteStart, e.ByteEnd})
	for _, tc := range []struct {
		name string
		want [32]byte
	}{
		{"document_sha256", s.Document},
		{"event_id", e.ID},
		{"evidence_span_id", e.SpanID},
		{"exact_span_sha256", e.SpanHash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row := regexp.MustCompile("^\\| " + tc.name + " \\| `([0-9a-f]{64})` \\|$")
			found := ""
			for _, l := range lines {
				if m := row.FindStringSubmatch(l); m != nil {
					found = m[1]
				}
			}
			require.Equal(t, hex.EncodeToString(tc.want[:]), found, "%s in the worked example of section 2", tc.name)
		})
	}
}

// wordList returns the words between <!-- name --> and <!-- end -->.
func wordList(t *testing.T, lines []string, name string) []string {
	t.Helper()
	var words []string
	in, found := false, false
	for _, l := range lines {
		switch {
		case l == "<!-- "+name+" -->":
			in, found = true, true
		case in && l == "<!-- end -->":
			in = false
		case in:
			words = append(words, strings.Fields(l)...)
		}
	}
	require.True(t, found, "%s has no %s list", contractPath, name)
	return words
}

// TestContractWordLists: the reserved words of sections 7.4 and 8.
func TestContractWordLists(t *testing.T) {
	lines := contractLines(t)

	names := wordList(t, lines, "reserved-name-words")
	require.Len(t, names, 40)
	set := map[string]bool{}
	for _, w := range names {
		set[w] = true
	}
	require.Equal(t, engine.NameReservedWords(), set, "the 40 reserved name words of section 7.4")

	question := wordList(t, lines, "question-reserved-words")
	require.Len(t, question, 21)
	require.True(t, settle.PlainName("Alice Bob"))
	for _, w := range question {
		require.False(t, settle.PlainName(w), "%q is reserved in questions (section 8)", w)
		require.False(t, settle.PlainName("Alice "+w), "%q is reserved in questions (section 8)", w)
		require.True(t, settle.PlainName("Alice "+w+"x"), "only the whole word %q is reserved", w)
	}
}

var frameRowRE = regexp.MustCompile("^\\| (\\d) \\| `([^`]+)` \\|$")

// TestContractFrames: the nine question frames of section 8.
func TestContractFrames(t *testing.T) {
	lines, _ := section(t, contractLines(t), "8")
	var got []string
	for _, l := range lines {
		if m := frameRowRE.FindStringSubmatch(l); m != nil {
			require.Equal(t, strconv.Itoa(len(got)+1), m[1])
			got = append(got, m[2])
		}
	}
	require.Equal(t, settle.Frames(), got)
}
