package termtext

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFitLine: a line that fits, a JSON line and a too-narrow width are
// left alone; a longer line wraps at spaces (or TABs) with its last
// column's hanging indent (the last column that starts by half the
// width), a path too wide for that column goes on a line of its own, less
// indented, rather than being cut, a word wider than a line is cut, and
// no output line is wider than the width while every word survives in
// order.
func TestFitLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		line  string
		width int
		want  []string
	}{
		{"fits", "VALID  0361ee95613c  INGEST  a.txt", 80, []string{"VALID  0361ee95613c  INGEST  a.txt"}},
		{"json", `{"a":"` + strings.Repeat("x ", 60) + `"}`, 40, []string{`{"a":"` + strings.Repeat("x ", 60) + `"}`}},
		{"too narrow", strings.Repeat("word ", 10), 10, []string{strings.Repeat("word ", 10)}},
		{"hanging column", "  ingest PATH...    add files (directories are walked in lexical order)", 50,
			[]string{"  ingest PATH...    add files (directories are", "                    walked in lexical order)"}},
		{"paragraph", "show or set the output mode of the following commands", 24,
			[]string{"show or set the output", "mode of the following", "commands"}},
		{"long word cut", "NAMES  " + strings.Repeat("a", 50), 30,
			[]string{"NAMES", "    aaaaaaaaaaaaaaaaaaaaaaaaaa", "    aaaaaaaaaaaaaaaaaaaaaaaa"}},
		{"tab breaks", "x.txt:2  @chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR", 30,
			[]string{"x.txt:2  @chronicle\tAlice", "         BORROWED_FROM\tBob", "         100\tSAR"}},
		{"arabic", "VALID  771a63f86ddc  QUERY  هل سدد أحمد دين خالد؟", 40,
			[]string{"VALID  771a63f86ddc  QUERY  هل سدد أحمد", "       دين خالد؟"}},
		{"under the path column", "25c907ef1fe6  QUERY   testdata/samples/alice-bob-en.txt  Did Alice repay Bob?", 60,
			[]string{"25c907ef1fe6  QUERY   testdata/samples/alice-bob-en.txt  Did", "                      Alice repay Bob?"}},
		{"path on its own line", "9960acaeeef8  INGEST  testdata/stories/1-loan-agreement-en.txt", 45,
			[]string{"9960acaeeef8  INGEST", "    testdata/stories/1-loan-agreement-en.txt"}},
		{"path at the margin", "ab  " + strings.Repeat("p", 39) + " x", 40,
			[]string{"ab", " " + strings.Repeat("p", 39), "    x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FitLine(tc.line, tc.width)
			require.Equal(t, tc.want, got)
			if tc.width >= MinWrap && !strings.HasPrefix(tc.line, "{") {
				for _, l := range got {
					require.LessOrEqual(t, Width(l, 0), tc.width, "%q", l)
				}
			}
			if tc.name != "long word cut" {
				require.Equal(t, strings.Fields(tc.line), strings.Fields(strings.Join(got, " ")), "words lost or reordered")
			}
		})
	}
}

// TestWriter: lines are fitted as their newlines arrive, across
// writes, and the unterminated rest at Flush.
func TestWriter(t *testing.T) {
	var b strings.Builder
	ww := NewWriter(&b, 20)
	for _, p := range []string{"one two three ", "four five six\nseven", " eight"} {
		_, err := ww.Write([]byte(p))
		require.NoError(t, err)
	}
	require.Equal(t, "one two three four\nfive six\n", b.String())
	require.NoError(t, ww.Flush())
	require.Equal(t, "one two three four\nfive six\nseven eight", b.String())
}

// TestWriterExample: the line after "example:" and an "example: X"
// line pass through whole; the next lines wrap again.
func TestWriterExample(t *testing.T) {
	var b strings.Builder
	ww := NewWriter(&b, 20)
	long := "  query a.txt \"did alice repay bob?\""
	_, err := ww.Write([]byte("example:\n" + long + "\nexample: " + long + "\none two three four five six\n"))
	require.NoError(t, err)
	require.NoError(t, ww.Flush())
	require.Equal(t, "example:\n"+long+"\nexample: "+long+"\none two three four\nfive six\n", b.String())
}

// TestScreenRows: a line takes a row, a line wider than the width as many
// rows as it wraps to, counted by display width.
func TestScreenRows(t *testing.T) {
	require.Equal(t, 0, ScreenRows(nil, 80))
	require.Equal(t, 2, ScreenRows([]byte("a\nb\n"), 80))
	require.Equal(t, 3, ScreenRows([]byte("a\n"+strings.Repeat("x", 100)+"\n"), 80), "a long line wraps")
	require.Equal(t, 1, ScreenRows([]byte("أحمد\n"), 80))
}

// FuzzFitLine: on any text (document text and file names reach a
// readable view) at any width and hang, wrapping never panics and loses,
// adds or reorders no character other than spaces and TABs; from MinWrap
// up, no line is wider than the width (colour escapes aside, which
// readable views of a document never carry); CutAt, FirstCells and
// LastCells return a prefix or suffix.
func FuzzFitLine(f *testing.F) {
	for _, s := range []string{
		"  ingest PATH...    add files (directories are walked in lexical order)",
		"x.txt:2  @chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR",
		"VALID  771a63f86ddc  QUERY  هل سدد أحمد دين خالد؟",
		"9960acaeeef8  INGEST  testdata/stories/1-loan-agreement-en.txt",
		"NAMES  " + strings.Repeat("a", 50), "漢字漢字漢字漢字漢字漢字  漢字漢字", "ab\xff cd\xe2\x80 ef",
	} {
		f.Add(s, uint8(30), uint8(9))
	}
	f.Fuzz(func(t *testing.T, line string, width, hang uint8) {
		w := int(width) % 160
		for _, got := range [][]string{FitLine(line, w), FitLineIndent(line, w, int(hang))} {
			keep := func(s string) string { return strings.NewReplacer(" ", "", "\t", "").Replace(s) }
			if keep(strings.Join(got, "")) != keep(line) {
				t.Fatalf("%q at %d: %q", line, w, got)
			}
			if w >= MinWrap && !strings.HasPrefix(line, "{") && !strings.Contains(line, "\x1b") {
				for _, l := range got {
					if Width(l, 0) > w {
						t.Fatalf("%q at %d: %q is %d wide", line, w, l, Width(l, 0))
					}
				}
			}
		}
		if n := CutAt(line, int(hang)%8, w); n > len(line) || (line != "" && n == 0) {
			t.Fatalf("CutAt(%q, %d) = %d", line, w, n)
		}
		if !strings.HasPrefix(line, FirstCells(line, w)) || !strings.HasSuffix(line, LastCells(line, w)) {
			t.Fatalf("FirstCells or LastCells(%q, %d) is no prefix or suffix", line, w)
		}
	})
}
