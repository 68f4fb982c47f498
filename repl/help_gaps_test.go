package repl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFitLineWholeWords: continuation lines align under the last column
// that starts by half the width, and a path too wide for that column goes
// on a line of its own, less indented, rather than being cut.
func TestFitLineWholeWords(t *testing.T) {
	for _, tc := range []struct {
		name  string
		line  string
		width int
		want  []string
	}{
		{"under the path column", "25c907ef1fe6  QUERY   testdata/samples/alice-bob-en.txt  Did Alice repay Bob?", 60,
			[]string{"25c907ef1fe6  QUERY   testdata/samples/alice-bob-en.txt  Did", "                      Alice repay Bob?"}},
		{"path on its own line", "9960acaeeef8  INGEST  testdata/stories/1-loan-agreement-en.txt", 45,
			[]string{"9960acaeeef8  INGEST", "    testdata/stories/1-loan-agreement-en.txt"}},
		{"path at the margin", "ab  " + strings.Repeat("p", 39) + " x", 40,
			[]string{"ab", " " + strings.Repeat("p", 39), "    x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fitLine(tc.line, tc.width)
			require.Equal(t, tc.want, got)
			require.Equal(t, strings.Fields(tc.line), strings.Fields(strings.Join(got, " ")), "a word was cut")
			for _, l := range got {
				require.LessOrEqual(t, displayWidth(l, 0), tc.width, "%q", l)
			}
		})
	}
}

// TestWrapWriterExample: the line after "example:" and an "example: X"
// line pass through whole; the next lines wrap again.
func TestWrapWriterExample(t *testing.T) {
	var b strings.Builder
	ww := &wrapWriter{w: &b, width: 20}
	long := "  query a.txt \"did alice repay bob?\""
	_, err := ww.Write([]byte("example:\n" + long + "\nexample: " + long + "\none two three four five six\n"))
	require.NoError(t, err)
	require.NoError(t, ww.Flush())
	require.Equal(t, "example:\n"+long+"\nexample: "+long+"\none two three four\nfive six\n", b.String())
}

// TestGuideRows: a row too wide keeps its command whole on one line and
// puts its description on the next; rows that fit stay aligned.
func TestGuideRows(t *testing.T) {
	examples := [][2]string{{"docs", "list the documents"}, {"claims check testdata/claims/agent-answer.jsonl", "check an agent's declared claims against the archive"}}
	for _, tc := range []struct {
		width int
		want  string
	}{
		{120, "  docs                                              list the documents\n" +
			"  claims check testdata/claims/agent-answer.jsonl   check an agent's declared claims against the archive\n"},
		{90, "  docs                                              list the documents\n" +
			"  claims check testdata/claims/agent-answer.jsonl\n      check an agent's declared claims against the archive\n"},
		{40, "  docs\n      list the documents\n" +
			"  claims check testdata/claims/agent-answer.jsonl\n      check an agent's declared claims\n      against the archive\n"},
	} {
		var b strings.Builder
		ww := &wrapWriter{w: &b, width: tc.width}
		guideRows(ww, examples)
		require.NoError(t, ww.Flush())
		require.Equal(t, tc.want, b.String(), "width %d", tc.width)
	}
}
