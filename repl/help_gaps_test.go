package repl

import (
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/repl/termtext"
	"github.com/stretchr/testify/require"
)

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
		ww := termtext.NewWriter(&b, tc.width)
		guideRows(ww, examples)
		require.NoError(t, ww.Flush())
		require.Equal(t, tc.want, b.String(), "width %d", tc.width)
	}
}
