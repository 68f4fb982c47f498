package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/testarchive"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// The README's recorded MCP session is replayed: in its ```mcp block,
// "→ TOOL {ARGS}" is a call (the arguments exactly as JSON), and the "← "
// line after it the summary the tool returned (its first text content;
// "error: " before a tool error's). In the text, "…" stands for any text, and the run IDs a
// client session gets (a time and a random part) are compared by shape.

type mcpCall struct {
	line int
	tool string
	args map[string]any
	want string
}

// readmeMCPCalls extracts the calls of the README's ```mcp block.
func readmeMCPCalls(t *testing.T, text string) (client string, calls []mcpCall) {
	in := false
	for i, l := range strings.Split(text, "\n") {
		switch {
		case !in && strings.HasPrefix(l, "```mcp"):
			in = true
		case in && l == "```":
			return client, calls
		case in && strings.HasPrefix(l, "# client "):
			client = strings.TrimPrefix(l, "# client ")
		case in && strings.HasPrefix(l, "→ "):
			tool, raw, _ := strings.Cut(strings.TrimPrefix(l, "→ "), " ")
			var args map[string]any
			require.NoError(t, json.Unmarshal([]byte(raw), &args), "README.md:%d: the arguments are not a JSON object", i+1)
			calls = append(calls, mcpCall{line: i + 1, tool: tool, args: args})
		case in && strings.HasPrefix(l, "← "):
			require.NotEmpty(t, calls, "README.md:%d: a result before any call", i+1)
			calls[len(calls)-1].want = strings.TrimPrefix(l, "← ")
		}
	}
	return client, calls
}

// summary is a result's first text content: its one-line summary (the
// structured result follows it).
func summary(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

var runID = regexp.MustCompile(`\d{8}T\d{6}Z-[0-9a-f]{8}-\d+`)

// TestMCPReadmeSession replays the MCP session of this package's
// README.md on the sample archive.
func TestMCPReadmeSession(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	client, calls := readmeMCPCalls(t, string(raw))
	require.NotEmpty(t, client, "the ```mcp block names its client (# client NAME)")
	require.NotEmpty(t, calls, "README.md has no ```mcp block")
	cs := connect(t, testarchive.Samples(t), client)
	for _, c := range calls {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		require.NoError(t, err, "README.md:%d", c.line)
		got := summary(res)
		if res.IsError {
			got = "error: " + got
		}
		got = runID.ReplaceAllString(got, "RUN")
		var pattern strings.Builder
		for i, part := range strings.Split(runID.ReplaceAllString(c.want, "RUN"), "…") {
			if i > 0 {
				pattern.WriteString(".*?")
			}
			pattern.WriteString(regexp.QuoteMeta(part))
		}
		require.Regexp(t, "^"+pattern.String()+"$", got, "README.md:%d: → %s (the result line after it drifted)", c.line, c.tool)
	}
}
