package claimcheck_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
)

// exampleBlock returns the fenced block right after <!-- marker --> in
// README.md, as the bytes of a file.
func exampleBlock(t *testing.T, marker string) string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(data), "\n<!-- "+marker+" -->\n```jsonl\n")
	require.True(t, ok, "README.md has no ```jsonl block after <!-- %s -->", marker)
	block, _, ok := strings.Cut(rest, "\n```\n")
	require.True(t, ok, "the block after <!-- %s --> is not closed", marker)
	return block + "\n"
}

// requireLinesOf requires every line of block to be a line of the file.
func requireLinesOf(t *testing.T, block, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	have := claimcheck.Lines(data)
	for _, l := range claimcheck.Lines([]byte(block)) {
		require.Contains(t, have, l, "a line of the README's example is not a line of %s", file)
	}
}

// TestReadmeWorkedExample: the claims file of section 6, checked on an
// archive holding the sample story as the tour's archive does, gives the
// rows the README shows, byte for byte; both are lines of the repository's
// claims file and of its golden rows.
func TestReadmeWorkedExample(t *testing.T) {
	claims := exampleBlock(t, "example: claims file")
	rows := exampleBlock(t, "example: rows")
	requireLinesOf(t, claims, "../../testdata/claims/agent-answer.jsonl")
	requireLinesOf(t, rows, "../../testdata/claims/golden/agent-answer.rows.jsonl")

	const epoch = 1750000000 // SOURCE_DATE_EPOCH of make run and of the goldens
	t.Setenv("SOURCE_DATE_EPOCH", "1750000000")
	const story = "testdata/samples/alice-bob-en.txt"
	src, err := os.ReadFile(filepath.Join("..", "..", story))
	require.NoError(t, err)
	a, err := db.Open(filepath.Join(t.TempDir(), "chronicle.db"), db.Options{})
	require.NoError(t, err)
	defer a.Close()
	_, err = a.Ingest(src, epoch, story)
	require.NoError(t, err)

	rep, err := a.CheckClaims([]byte(claims))
	require.NoError(t, err)
	var got strings.Builder
	for _, r := range rep.Check.Rows {
		got.Write(r)
		got.WriteByte('\n')
	}
	require.Equal(t, rows, got.String(), "the rows of README section 6")
	for _, r := range rep.Check.Rows {
		v, err := claimrow.ReadRow(r)
		require.NoError(t, err)
		require.Equal(t, string(r), string(claimrow.Canonical(v)), "a row is canonical JSON")
	}

	// Section 5: the same bytes again reuse the kept check.
	again, err := a.CheckClaims([]byte(claims))
	require.NoError(t, err)
	require.True(t, again.Reused)
	require.Equal(t, rep.Check.Rows, again.Check.Rows)
}
