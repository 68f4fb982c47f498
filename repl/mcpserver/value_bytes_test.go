package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/testarchive"

	"github.com/stretchr/testify/require"
)

// A declaredValue of 4,097 to 8,192 bytes of canonical JSON is inside the
// seed's bound (VALUE_BYTES = SCOPE_BYTES): check_claims writes its row,
// and `claims verify` and `claims read` accept it; one byte more is a
// tool error naming the bound.
func TestMCPDeclaredValueUpToScopeBytes(t *testing.T) {
	archive := testarchive.Samples(t)
	cs := connect(t, archive, "value-bytes")
	q := call(t, cs, "query", map[string]any{"document": alice, "question": "Did Alice repay Bob?"})
	claim := func(canonicalBytes int) string {
		b, err := json.Marshal(map[string]any{"claim": 1, "standing": "fact", "iteration": 0, "declaredOn": "answer",
			"declaredResult": q["resultId"], "declaredRule": "chronicle.settlement.status",
			"declaredValue": strings.Repeat("v", canonicalBytes-2)})
		require.NoError(t, err)
		return string(b)
	}
	out := call(t, cs, "check_claims", map[string]any{"claims": []string{claim(8192)}})
	rows := out["rows"].([]any)
	require.Len(t, rows, 1)
	row := rows[0].(map[string]any)
	require.Equal(t, "contradicted", row["outcome"])
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(row["row"].(string)+"\n"), 0o600))
	stdout, stderr := cli(t, archive, "claims", "verify", path)
	// the rows came from the tool, not a file Chronicle wrote: unsigned
	require.Equal(t, "VALID\nunsigned (no "+path+".sig)\n", stdout, stderr)
	stdout, stderr = cli(t, archive, "claims", "read", path)
	require.Empty(t, stderr)
	require.NotEmpty(t, stdout)

	msg := callError(t, cs, "check_claims", map[string]any{"claims": []string{claim(8193)}})
	require.Contains(t, msg, "8193 bytes as canonical JSON, at most 8192")
}
