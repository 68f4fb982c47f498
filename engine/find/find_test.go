package find

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
)

const goldenDir = "../../testdata/golden"

type transcript struct {
	Commands []struct {
		Argv   []string `json:"argv"`
		Exit   int      `json:"exit"`
		Stdout string   `json:"stdout"`
	} `json:"commands"`
}

// TestGoldenFind replays every recorded find command of every golden case
// against the golden store and compares the JSON line byte for byte.
func TestGoldenFind(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(goldenDir, "g[0-9]_*"))
	require.NoError(t, err)
	require.Len(t, dirs, 10)
	finds := 0
	for _, dir := range dirs {
		raw, err := os.ReadFile(filepath.Join(dir, "transcript.json"))
		require.NoError(t, err)
		var tr transcript
		require.NoError(t, json.Unmarshal(raw, &tr))
		data, err := os.ReadFile(filepath.Join(dir, "input.txt.chronicle"))
		require.NoError(t, err)
		store, err := engine.Load(data)
		require.NoError(t, err)
		for i, c := range tr.Commands {
			if len(c.Argv) == 0 || c.Argv[0] != "find" {
				continue
			}
			require.Len(t, c.Argv, 3)
			finds++
			t.Run(filepath.Base(dir)+"/"+c.Argv[2], func(t *testing.T) {
				got, err := Find(store, c.Argv[2])
				switch c.Exit {
				case 0:
					require.NoError(t, err)
					first, _, ok := strings.Cut(c.Stdout, "\n")
					require.True(t, ok, "command %d stdout has no newline", i+1)
					require.Equal(t, first, string(got))
					require.True(t, strings.HasPrefix(c.Stdout[len(first)+1:], "receipt="))
				case 1:
					require.ErrorIs(t, err, ErrTerms)
					require.Nil(t, got)
					require.Empty(t, c.Stdout)
				default:
					t.Fatalf("unexpected recorded exit %d", c.Exit)
				}
			})
		}
	}
	require.GreaterOrEqual(t, finds, 9)
}

func TestTerms(t *testing.T) {
	long := strings.Repeat("a", MaxTermsBytes)
	tests := []struct {
		name    string
		terms   string
		want    []string
		errPart string // non-empty: error expected, containing this
	}{
		{"single", "Book", []string{"Book"}, ""},
		{"all separators split", "a b\tc\nd\re.f,g;h:i?j!k", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}, ""},
		{"runs of separators", "  ..alpha,;  beta!? ", []string{"alpha", "beta"}, ""},
		{"duplicates kept", "alpha alpha", []string{"alpha", "alpha"}, ""},
		{"arabic question mark is part of a term", "خالد؟ أحمد،", []string{"خالد؟", "أحمد،"}, ""},
		{"other punctuation is part of a term", `PAID_TO "1 x-y (z)`, []string{"PAID_TO", `"1`, "x-y", "(z)"}, ""},
		{"non-breaking space is not a separator", "a\u00a0b", []string{"a\u00a0b"}, ""},
		{"1024 bytes", long, []string{long}, ""},
		{"1024 bytes of separators then a term", strings.Repeat(" ", MaxTermsBytes-1) + "x", []string{"x"}, ""},
		{"16 terms", strings.TrimSpace(strings.Repeat("t ", 16)), strings.Fields(strings.Repeat("t ", 16)), ""},
		{"empty", "", nil, "empty"},
		{"1025 bytes", long + "a", nil, "1025 bytes"},
		{"1025 bytes of separators", strings.Repeat(" ", MaxTermsBytes+1), nil, "1025 bytes"},
		{"separators only", " .,;:?! ", nil, "zero terms"},
		{"17 terms", strings.Repeat("t ", 17), nil, "17 terms"},
		{"invalid utf-8", "a\xffb", nil, "UTF-8"},
		{"nul byte", "a\x00b", nil, "UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Terms(tc.terms)
			if tc.errPart != "" {
				require.ErrorIs(t, err, ErrTerms)
				require.ErrorContains(t, err, tc.errPart)
				require.Nil(t, got)
				_, err = SearchSource([]byte("x\n"), [32]byte{}, tc.terms)
				require.ErrorIs(t, err, ErrTerms)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			q, err := NewQuery(tc.terms)
			require.NoError(t, err)
			require.Equal(t, tc.terms, q.Text())
			require.Len(t, q.Terms(), len(tc.want))
			for i := range tc.want {
				require.Equal(t, tc.want[i], string(q.Terms()[i]))
			}
		})
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		terms []string
		want  int
	}{
		{"none", "hello", []string{"x"}, 0},
		{"one", "hello world", []string{"world", "moon"}, 1},
		{"duplicates count twice", "alpha", []string{"alpha", "alpha"}, 2},
		{"substring", "Alice", []string{"Ali"}, 1},
		{"case sensitive", "Alice", []string{"alice"}, 0},
		{"overlapping terms both count", "abc", []string{"ab", "bc", "abc"}, 3},
		{"empty line", "", []string{"a"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			terms := make([][]byte, len(tc.terms))
			for i, s := range tc.terms {
				terms[i] = []byte(s)
			}
			require.Equal(t, tc.want, Score([]byte(tc.line), terms))
			q, err := NewQuery(strings.Join(tc.terms, " "))
			require.NoError(t, err)
			require.Equal(t, tc.want, q.Score([]byte(tc.line)))
		})
	}
}

// m is a compact expected match: line, byte_start, byte_end, score, text.
type m struct {
	line, start, end, score int
	text                    string
}

func TestSearch(t *testing.T) {
	var many strings.Builder
	for range 20 {
		many.WriteString("x\n")
	}
	many.WriteString("x x\n") // line 21: also score 2, ranks after line 8
	tests := []struct {
		name  string
		src   string
		terms string
		total int
		want  []m
	}{
		{
			name:  "ranking by score then offset, top 8 of 12",
			src:   "a1\na2\na3 b\na4\na5\na6 b c\na7\na8\na9\na10 b\na11\na12\nnone\n",
			terms: "a b c",
			total: 12,
			want: []m{
				{6, 17, 23, 3, "a6 b c"}, {3, 6, 10, 2, "a3 b"}, {10, 33, 38, 2, "a10 b"},
				{1, 0, 2, 1, "a1"}, {2, 3, 5, 1, "a2"}, {4, 11, 13, 1, "a4"}, {5, 14, 16, 1, "a5"}, {7, 24, 26, 1, "a7"},
			},
		},
		{
			name:  "late high score evicts the worst",
			src:   "k\nk\nk\nk\nk\nk\nk\nk\nk\nk z\n",
			terms: "k z",
			total: 10,
			want: []m{
				{10, 18, 21, 2, "k z"}, {1, 0, 1, 1, "k"}, {2, 2, 3, 1, "k"}, {3, 4, 5, 1, "k"},
				{4, 6, 7, 1, "k"}, {5, 8, 9, 1, "k"}, {6, 10, 11, 1, "k"}, {7, 12, 13, 1, "k"},
			},
		},
		{
			name:  "duplicate terms score twice",
			src:   "alpha\nbeta\n",
			terms: "alpha alpha beta",
			total: 2,
			want:  []m{{1, 0, 5, 2, "alpha"}, {2, 6, 10, 1, "beta"}},
		},
		{
			name:  "substring matching",
			src:   "Alice owns Book.\n",
			terms: "Ali",
			total: 1,
			want:  []m{{1, 0, 16, 1, "Alice owns Book."}},
		},
		{
			name:  "case sensitive",
			src:   "Alice\nalice\nALICE\n",
			terms: "alice",
			total: 1,
			want:  []m{{2, 6, 11, 1, "alice"}},
		},
		{
			name:  "no match",
			src:   "Alice\n",
			terms: "zzz",
			total: 0,
		},
		{
			name:  "empty source",
			src:   "",
			terms: "zzz",
			total: 0,
		},
		{
			name:  "arabic question mark is part of the term",
			src:   "من خالد\nمن خالد؟\n",
			terms: "خالد؟",
			total: 1,
			want:  []m{{2, 14, 29, 1, "من خالد؟"}},
		},
		{
			name:  "empty lines skipped but counted for numbering",
			src:   "\n\nx\n\n\r\nx y\n",
			terms: "x",
			total: 2,
			want:  []m{{3, 2, 3, 1, "x"}, {6, 7, 10, 1, "x y"}},
		},
		{
			name:  "CRLF excluded from span and text",
			src:   "one\r\ntwo\r\nthree\r\n",
			terms: "two three",
			total: 2,
			want:  []m{{2, 5, 8, 1, "two"}, {3, 10, 15, 1, "three"}},
		},
		{
			name:  "lone CR inside a line is kept",
			src:   "a\rb\r\nc\r\r\n",
			terms: "a b c",
			total: 2,
			want:  []m{{1, 0, 3, 2, "a\rb"}, {2, 5, 7, 1, "c\r"}},
		},
		{
			name:  "final line without LF",
			src:   "head\ntail",
			terms: "tail",
			total: 1,
			want:  []m{{2, 5, 9, 1, "tail"}},
		},
		{
			name:  "final line with CR and no LF",
			src:   "head\ntail\r",
			terms: "tail",
			total: 1,
			want:  []m{{2, 5, 9, 1, "tail"}},
		},
		{
			name:  "control bytes in text",
			src:   "T\x01\"\\\t/\x7f\x1fé\n",
			terms: "T",
			total: 1,
			want:  []m{{1, 0, 10, 1, "T\x01\"\\\t/\x7f\x1fé"}},
		},
		{
			name:  "many lines same score keeps first 8 by offset",
			src:   many.String(),
			terms: "x x",
			total: 21,
			want: []m{
				{1, 0, 1, 2, "x"}, {2, 2, 3, 2, "x"}, {3, 4, 5, 2, "x"}, {4, 6, 7, 2, "x"},
				{5, 8, 9, 2, "x"}, {6, 10, 11, 2, "x"}, {7, 12, 13, 2, "x"}, {8, 14, 15, 2, "x"},
			},
		},
		{
			name:  "term occurring twice in a line counts once",
			src:   "ab ab ab\nab\n",
			terms: "ab",
			total: 2,
			want:  []m{{1, 0, 8, 1, "ab ab ab"}, {2, 9, 11, 1, "ab"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			doc := sha256.Sum256(src)
			r, err := SearchSource(src, doc, tc.terms)
			require.NoError(t, err)
			require.Equal(t, tc.terms, r.Query)
			require.Equal(t, doc, r.Document)
			require.Equal(t, tc.total, r.TotalMatchingLines)
			if tc.total == 0 {
				require.Equal(t, StatusNoMatch, r.Status)
			} else {
				require.Equal(t, StatusMatches, r.Status)
			}
			got := make([]m, len(r.Matches))
			for i, x := range r.Matches {
				got[i] = m{x.Line, int(x.ByteStart), int(x.ByteEnd), x.MatchedTerms, x.Text}
				require.Equal(t, sha256.Sum256([]byte(x.Text)), x.SpanHash)
				require.Equal(t, tc.src[x.ByteStart:x.ByteEnd], x.Text)
			}
			if len(tc.want) == 0 {
				require.Empty(t, got)
			} else {
				require.Equal(t, tc.want, got)
			}
			require.True(t, json.Valid(r.JSON()))

			// The store path gives the same bytes.
			store := &engine.Store{Version: 2, Document: doc, Source: src}
			j, err := Find(store, tc.terms)
			require.NoError(t, err)
			require.Equal(t, r.JSON(), j)
		})
	}
}

func TestJSON(t *testing.T) {
	src := []byte("T\x01\"\\\t/\x7f\x1fé\r\n")
	doc := sha256.Sum256(src)
	r, err := SearchSource(src, doc, "\"\\ T")
	require.NoError(t, err)
	span := sha256.Sum256(src[:10])
	want := `{"status":"MATCHES","query":"\"\\ T","document_sha256":"` + hexOf(doc) +
		`","total_matching_lines":1,"lexical_only":true,"matches":[{"line":1,"byte_start":0,"byte_end":10,"matched_terms":2,"exact_span_sha256":"` +
		hexOf(span) + `","text":"T\u0001\"\\\t/` + "\x7f" + `\u001fé"}]}`
	require.Equal(t, want, string(r.JSON()))

	empty, err := SearchSource(nil, doc, "x")
	require.NoError(t, err)
	require.Equal(t, `{"status":"NO_MATCH","query":"x","document_sha256":"`+hexOf(doc)+
		`","total_matching_lines":0,"lexical_only":true,"matches":[]}`, string(empty.JSON()))
}

func hexOf(d [32]byte) string {
	const digits = "0123456789abcdef"
	var b strings.Builder
	for _, c := range d {
		b.WriteByte(digits[c>>4])
		b.WriteByte(digits[c&15])
	}
	return b.String()
}

func TestSearchNilStore(t *testing.T) {
	_, err := Search(nil, "x")
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrTerms))
}

// TestQueryReuse checks that one query searched over several documents gives
// the same results as fresh searches (the cross-archive index use).
func TestQueryReuse(t *testing.T) {
	q, err := NewQuery("alpha beta alpha")
	require.NoError(t, err)
	for _, s := range []string{"alpha\nbeta\n", "", "beta alpha\r\nx", "nothing\n"} {
		src := []byte(s)
		doc := sha256.Sum256(src)
		want, err := SearchSource(src, doc, "alpha beta alpha")
		require.NoError(t, err)
		require.Equal(t, want, q.Search(src, doc))
		require.True(t, bytes.Equal(want.JSON(), q.Search(src, doc).JSON()))
	}
}

// TestOccurrences: the spans a front-end marks are every occurrence of
// every distinct term, absolute, merged where they overlap or touch, and
// each one's bytes are a term (so marking them shows what scored).
func TestOccurrences(t *testing.T) {
	for _, tc := range []struct {
		terms, line string
		start       int
		want        [][2]int
	}{
		{"Saud", "Saud paid Saud", 10, [][2]int{{10, 14}, {20, 24}}},
		{"aa", "aaaa", 0, [][2]int{{0, 4}}},    // overlapping occurrences merge
		{"ab bc", "abc", 5, [][2]int{{5, 8}}},  // two terms overlapping
		{"ab cd", "abcd", 0, [][2]int{{0, 4}}}, // touching spans merge
		{"Bob Bob Saud", "Saud owes Bob", 0, [][2]int{{0, 4}, {10, 13}}},
		{"x", "no such letter", 0, nil},
		{"سعود", "دفع سعود لخالد", 100, [][2]int{{107, 115}}}, // bytes, not characters
	} {
		q, err := NewQuery(tc.terms)
		require.NoError(t, err)
		got := q.Occurrences([]byte(tc.line), tc.start)
		if tc.want == nil {
			require.Empty(t, got, tc.terms)
			continue
		}
		require.Equal(t, tc.want, got, "%q in %q", tc.terms, tc.line)
		for _, s := range got {
			marked := tc.line[s[0]-tc.start : s[1]-tc.start]
			require.Positive(t, q.Score([]byte(marked)), "span %v (%q) holds a term", s, marked)
		}
	}
}
