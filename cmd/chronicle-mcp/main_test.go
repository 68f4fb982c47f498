package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUsage: the server needs the archive `chronicle mcp` resolved.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"--db", ""}, {"--db", "a.db", "extra"}, {"--db", "a.db", "--wait", "-1s"}, {"--nope"}} {
		var stderr bytes.Buffer
		require.Equal(t, 2, run(args, &stderr), "%q", args)
		require.Contains(t, stderr.String(), "chronicle-mcp", "%q", args)
	}
}
