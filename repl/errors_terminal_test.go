package repl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTerminalNoMatch: on a terminal, `entities PREFIX` with no match says
// so (as `entity` does) and with --json prints no line; a settlement
// question that fits no question frame lists the frames, and its --json
// result is the canonical line alone.
func TestTerminalNoMatch(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	out, code := w.run("ingest samples\n")
	require.Equal(t, 0, code, out)
	tm := newTerm(t, w)
	tm.start(100, 40)
	tm.waitPrompt(prompt2, "")

	tm.Type("entities Zed")
	tm.Keys("Enter")
	s := tm.waitFor("the no-match line", func(s string) bool {
		return strings.Contains(s, "no entity name starts with Zed (`entities` lists every name)") && lastLine(s)+" " == prompt2
	})
	require.Equal(t, 1, strings.Count(s, "no entity name starts with"))

	tm.Keys("C-l")
	tm.waitFor("a clear screen", func(s string) bool { return !strings.Contains(s, "Zed") })
	tm.Type("entities Zed --json")
	tm.Keys("Enter")
	s = tm.waitFor("the prompt after entities --json", func(s string) bool {
		return strings.Count(s, strings.TrimSpace(prompt2)) == 2 && lastLine(s)+" " == prompt2
	})
	require.Equal(t, prompt2+"entities Zed --json\n"+strings.TrimRight(prompt2, " "), s, "no line for no match in JSON")

	tm.Keys("C-l")
	tm.waitFor("a clear screen", func(s string) bool { return !strings.Contains(s, "Zed") })
	tm.Type(`query samples/alice-bob-en.txt "Did Alice pay Bob?"`)
	tm.Keys("Enter")
	s = tm.waitFor("the frames", func(s string) bool {
		return strings.Contains(s, "@settlement<TAB>B<TAB>L") && lastLine(s)+" " == prompt2
	})
	require.Contains(t, s, "UNKNOWN  no single debt selected  settled 0/1\nnote: no question frame fits; ask one of (B borrower, L lender, as stored):\n  B L\n")
	require.Contains(t, s, "\n  Did B repay L?\n  هل سدد B دين L؟\n")

	tm.Keys("C-l")
	tm.waitFor("a clear screen", func(s string) bool { return !strings.Contains(s, "UNKNOWN") })
	tm.Type(`query samples/alice-bob-en.txt "Did Alice pay Bob?" --json`)
	tm.Keys("Enter")
	s = tm.waitFor("the JSON answer", func(s string) bool { return strings.Contains(s, `"status":"UNKNOWN"`) && lastLine(s)+" " == prompt2 })
	require.NotContains(t, s, "question frame")
	tm.Keys("C-d")
	tm.waitExit()
}
