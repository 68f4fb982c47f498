package repl

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/repl/termtext"
	"github.com/stretchr/testify/require"
)

// docsRows is `docs --json` as .mode table gets it: a 64-digit hash, a
// long Latin name, an Arabic name with a combining mark (shadda) and a
// Han name (two columns a character).
const docsRows = `{"document_sha256":"5755af8bbd9e68ed6a03c59484f57a58895191f6bedf2c08a3cd9c0a1dcc3632","events":4,"imported":"2025-06-15T15:06:40Z","imported_at":1750000000,"names":["testdata/samples/ahmed-khalid-ar.txt"],"size":926,"store_version":2}
{"document_sha256":"a4b3c1b7767bb9d11e5486555702ffcb07c0964063cf27af85a296517bb46f0d","events":5,"imported":"2025-06-15T15:06:40Z","imported_at":1750000000,"names":["حوّل أحمد إلى سعود مبلغ ستين ريالا"],"size":383,"store_version":2}
{"document_sha256":"0b6ec23b0000000000000000000000000000000000000000000000000000ffff","events":12,"imported":"2025-06-15T15:06:40Z","imported_at":1750000000,"names":["漢字漢字漢字漢字漢字漢字"],"size":40,"store_version":2}
`

// statsRow is `stats --json`: nine columns, eight of them numeric, whose
// numbers are never cut, so that at 80 columns it is shown record-wise.
const statsRow = `{"archive":"chronicle.db","documents":4,"events":13,"file_bytes":131072,"original_receipts":0,"receipts":8,"schema_version":14,"source_bytes":2186,"stored_bytes":4064}
`

// TestTableFit: a table wider than the width has its text columns cut,
// widest first, to the width with an ellipsis (numbers kept whole, cuts
// between characters, display width counted as everywhere else); one that
// cannot fit so is shown a record at a time; width 0 (no terminal, no
// $COLUMNS) and a table that fits are left as they were.
func TestTableFit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		json  string
		width int
		want  string
	}{
		{"docs at 80", docsRows, 80, "" +
			"document_s…  events  imported     imported_at  names         size  store_version\n" +
			"5755af8bbd…       4  2025-06-15…   1750000000  testdata/sa…   926              2\n" +
			"a4b3c1b776…       5  2025-06-15…   1750000000  حوّل أحمد إل…   383              2\n" +
			"0b6ec23b00…      12  2025-06-15…   1750000000  漢字漢字漢…     40              2\n"},
		{"stats at 80: a record at a time", statsRow, 80, "" +
			"archive            chronicle.db\n" +
			"documents          4\n" +
			"events             13\n" +
			"file_bytes         131072\n" +
			"original_receipts  0\n" +
			"receipts           8\n" +
			"schema_version     14\n" +
			"source_bytes       2186\n" +
			"stored_bytes       4064\n"},
		{"docs at 40: records, long values wrapped", docsRows[:strings.IndexByte(docsRows, '\n')+1], 40, "" +
			"document_sha256\n" +
			"                 5755af8bbd9e68ed6a03c59\n" +
			"                 484f57a58895191f6bedf2c\n" +
			"                 08a3cd9c0a1dcc3632\n" +
			"events           4\n" +
			"imported         2025-06-15T15:06:40Z\n" +
			"imported_at      1750000000\n" +
			"names\n" +
			"    testdata/samples/ahmed-khalid-ar.txt\n" +
			"size             926\n" +
			"store_version    2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, kind := parseRows([]byte(tc.json))
			require.Equal(t, rowsFlat, kind)
			var b strings.Builder
			writeTableFit(&b, rows, tc.width)
			require.Equal(t, tc.want, b.String())
		})
	}
}

// TestTableFitEveryWidth: at every width from termtext.MinWrap up, no line of the
// docs, stats and Arabic tables is wider than the width or holds a broken
// UTF-8 sequence, and every cell either is whole or ends in the ellipsis;
// below termtext.MinWrap, and without a width, the table is the unfitted one.
func TestTableFitEveryWidth(t *testing.T) {
	for _, tc := range []struct{ name, json string }{{"docs", docsRows}, {"stats", statsRow}} {
		rows, kind := parseRows([]byte(tc.json))
		require.Equal(t, rowsFlat, kind)
		var natural strings.Builder
		writeTable(&natural, rows)
		for _, width := range []int{0, termtext.MinWrap - 1} {
			var b strings.Builder
			writeTableFit(&b, rows, width)
			require.Equal(t, natural.String(), b.String(), "%s at %d: as without a width", tc.name, width)
		}
		for width := termtext.MinWrap; width <= 200; width++ {
			t.Run(fmt.Sprintf("%s/%d", tc.name, width), func(t *testing.T) {
				var b strings.Builder
				writeTableFit(&b, rows, width)
				require.True(t, utf8.ValidString(b.String()), "%q", b.String())
				for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
					require.LessOrEqual(t, termtext.Width(line, 0), width, "%q", line)
				}
				if termtext.Width(strings.SplitN(natural.String(), "\n", 2)[0], 0) <= width {
					require.Equal(t, natural.String(), b.String(), "a table that fits is left alone")
				}
			})
		}
	}
}

// promptTable is the sample workspace's prompt in .mode table.
const promptTable = "chronicle.db (2 docs) table> "

// TestTerminalTableWidth: in a real 80-column terminal, .mode table
// fits docs, stats, receipts, entities and show (Arabic lines) to the
// width: no line is wider, and the long cells end in an ellipsis.
func TestTerminalTableWidth(t *testing.T) {
	t.Parallel()
	const width = 80
	w := newWorkspace(t)
	out, code := w.run("ingest samples\nquery samples/alice-bob-en.txt 'Did Alice repay Bob?' --keep\n")
	require.Equal(t, 0, code, out)
	tm := newTerm(t, w)
	tm.start(width, 200)
	tm.waitPrompt(prompt2, "")
	tm.Type(".mode table")
	tm.Keys("Enter")
	tm.waitPrompt(promptTable, "")
	for _, tc := range []struct{ line, marker string }{
		{"docs", "document_"},
		{"stats", "original_receipts"},
		{"receipts", "QUERY"},
		{"entities", "سعود"},
		{"show samples/ahmed-khalid-ar.txt", "byte_start"},
	} {
		before := strings.Count(tm.joined(false), strings.TrimSpace(promptTable))
		tm.Type(tc.line)
		tm.Keys("Enter")
		tm.waitForIn(func() string { return strings.TrimRight(tm.joined(false), "\n ") }, "the output of "+tc.line, func(s string) bool {
			return strings.Count(s, strings.TrimSpace(promptTable)) == before+1 && lastLine(s)+" " == promptTable &&
				strings.Contains(s[max(0, strings.LastIndex(s, promptTable+tc.line)):], tc.marker)
		})
	}
	screen := tm.joined(false)
	require.Contains(t, screen, "5755af8bbd…", "the docs hash is cut")
	require.Contains(t, screen, "original_receipts  0", "stats a record at a time")
	for _, line := range strings.Split(strings.TrimRight(screen, "\n "), "\n") {
		require.LessOrEqual(t, termtext.Width(strings.TrimRight(line, " "), 0), width, "line wider than the terminal: %q", line)
	}
}

// TestTableNotTerminal: with stdout not a terminal and no $COLUMNS, a
// script's .mode table output is as wide as its cells (a file or a pipe
// has no width to fit).
func TestTableNotTerminal(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	out, code := w.run("ingest samples\n")
	require.Equal(t, 0, code, out)
	cmd := exec.Command(chronicleBin)
	cmd.Dir = w.dir
	for _, kv := range w.env() {
		if !strings.HasPrefix(kv, "COLUMNS=") { // whatever the test runner exports
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdin = strings.NewReader(".mode table\ndocs\n")
	got, err := cmd.Output()
	require.NoError(t, err)
	require.NotContains(t, string(got), "…")
	require.Contains(t, string(got), "a4b3c1b7767bb9d11e5486555702ffcb07c0964063cf27af85a296517bb46f0d")
}
