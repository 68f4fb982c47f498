package shellwords

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"", nil},
		{"   \t ", nil},
		{"docs", []string{"docs"}},
		{"  show  doc.txt\t2-4  ", []string{"show", "doc.txt", "2-4"}},
		{`query doc "Did Alice repay Bob?"`, []string{"query", "doc", "Did Alice repay Bob?"}},
		{`query ahmed-khalid-ar.txt "هل سدد أحمد دين خالد؟"`, []string{"query", "ahmed-khalid-ar.txt", "هل سدد أحمد دين خالد؟"}},
		{`query d 'هل سدد أحمد دين خالد؟'`, []string{"query", "d", "هل سدد أحمد دين خالد؟"}},
		{`query d "@settlement\tأحمد\tخالد"`, []string{"query", "d", "@settlement\tأحمد\tخالد"}},
		{`query d @settlement\tB\tL`, []string{"query", "d", "@settlement\tB\tL"}},
		{`query d '@settlement\tB\tL'`, []string{"query", "d", `@settlement\tB\tL`}},
		{`a "x\ny"`, []string{"a", "x\ny"}},
		{`a "say \"hi\" \\ \q"`, []string{"a", `say "hi" \ \q`}},
		{`a 'it''s'`, []string{"a", "its"}},
		{`a 'it'\''s'`, []string{"a", "it's"}},
		{`a my\ doc.txt`, []string{"a", "my doc.txt"}},
		{`a \"\'\\\#x`, []string{"a", `"'\#x`}},
		{`--name="my doc" x`, []string{"--name=my doc", "x"}},
		{`a '' ""`, []string{"a", "", ""}},
		{`a 'single "double" inside'`, []string{"a", `single "double" inside`}},
		{`a "single 'quote' inside"`, []string{"a", `single 'quote' inside`}},
		{"a b#c #d", []string{"a", "b#c", "#d"}},
		{"a\xffb c", []string{"a\xffb", "c"}},
	} {
		got, err := Split(tc.line)
		require.NoError(t, err, "%q", tc.line)
		require.Equal(t, tc.want, got, "%q", tc.line)
	}
}

func TestSplitErrors(t *testing.T) {
	for _, tc := range []struct{ line, err string }{
		{`query d "هل سدد`, `unterminated double quote opened at character 9; close it with "`},
		{`query d 'abc`, `unterminated single quote opened at character 9; close it with '`},
		{`a "x\"`, `unterminated double quote opened at character 3; close it with "`},
		{`a 'b' "`, `unterminated double quote opened at character 7; close it with "`},
		{`a b\`, `the line ends with a backslash; write \\ for a backslash`},
	} {
		_, err := Split(tc.line)
		require.EqualError(t, err, tc.err, "%q", tc.line)
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "''"},
		{"docs", "docs"},
		{"samples/ahmed-khalid-ar.txt", "samples/ahmed-khalid-ar.txt"},
		{"أحمد", "أحمد"},
		{"my doc", "'my doc'"},
		{"هل سدد أحمد دين خالد؟", "'هل سدد أحمد دين خالد؟'"},
		{"@settlement\tB\tL", `"@settlement\tB\tL"`},
		{"it's", `"it's"`},
		{`a"b\c`, `'a"b\c'`},
		{"#x", "'#x'"},
		{"a#x", "a#x"},
	} {
		require.Equal(t, tc.want, Quote(tc.in), "%q", tc.in)
		got, err := Split(Quote(tc.in))
		require.NoError(t, err)
		require.Equal(t, []string{tc.in}, got)
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		prefix, rest string
		quote        byte
	}{
		{"show my", " doc's \"x\"\t\\#.txt", 0},
		{"show 'my", " doc's \"x\"\t\\#.txt", '\''},
		{`show "my`, " doc's \"x\"\t\\#.txt", '"'},
		{"query أ", "حمد وخالد", 0},
	} {
		line := tc.prefix + Escape(tc.rest, tc.quote)
		if tc.quote != 0 {
			line += string(tc.quote)
		}
		words, err := Split(line)
		require.NoError(t, err, line)
		_, word, _ := strings.Cut(tc.prefix, " ")
		word = strings.TrimLeft(word, `'"`)
		require.Equal(t, word+tc.rest, words[1], line)
	}
}

// FuzzSplit: Split never panics; whatever it accepts, quoting each word
// and splitting again gives the same words; Quote round-trips any string.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		`query doc "هل سدد أحمد دين خالد؟"`, `a 'b\tc' "d\te" f\tg`, `x\ y "\"" '\'`, `"unterminated`, `a\`,
		"a\x00b\xffc", `--name="my doc"`, `'' "" \\`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := Split(line)
		if err == nil {
			quoted := make([]string, len(words))
			for i, w := range words {
				quoted[i] = Quote(w)
			}
			again, err := Split(strings.Join(quoted, " "))
			if err != nil {
				t.Fatalf("re-split of %q: %v", quoted, err)
			}
			if len(words) == 0 {
				words = nil
			}
			if strings.Join(again, "\x00") != strings.Join(words, "\x00") || len(again) != len(words) {
				t.Fatalf("%q split to %q, quoted %q, split again to %q", line, words, quoted, again)
			}
		} else if !strings.HasPrefix(err.Error(), "unterminated ") && !strings.HasPrefix(err.Error(), "the line ends with a backslash") {
			t.Fatalf("%q: unexpected error %v", line, err)
		}
		one, err := Split(Quote(line))
		if err != nil || len(one) != 1 || one[0] != line {
			t.Fatalf("Quote(%q) = %q splits to %q, %v", line, Quote(line), one, err)
		}
		if utf8.ValidString(line) {
			for _, q := range []byte{0, '\'', '"'} {
				head, typed := "show x", "x"
				if q != 0 {
					head, typed = "show "+string(q), ""
				}
				full := head + Escape(line, q)
				if q != 0 {
					full += string(q)
				}
				got, err := Split(full)
				if err != nil || len(got) != 2 || got[1] != typed+line {
					t.Fatalf("Escape(%q, %q): %q splits to %q, %v", line, q, full, got, err)
				}
			}
		}
	})
}
