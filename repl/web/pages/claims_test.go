package pages_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/internal/testarchive"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

func TestClaims(t *testing.T) {
	f := newFixture(t)
	root, _ := f.page(t, "/claims")
	require.Contains(t, textOf(root), "No claims check is kept.")

	// Keep the README's check (the server holds no lock between requests).
	file, err := os.ReadFile(filepath.Join(testarchive.Root(t), "testdata", "claims", "agent-answer.jsonl"))
	require.NoError(t, err)
	a, err := db.Open(f.path, db.Options{})
	require.NoError(t, err)
	_, err = commands.ClaimsCheck(a, commands.ClaimsCheckIn{Claims: file}, db.ClaimOptions{})
	require.NoError(t, err)
	require.NoError(t, a.Close())

	root, _ = f.page(t, "/claims")
	require.Contains(t, textOf(root), "support-agent/2026-12-01-alice")
	var outcomes []string
	for _, tr := range all(root, tag("tr")) {
		if c := classOf(tr); c != "" {
			outcomes = append(outcomes, c)
		}
	}
	require.Equal(t, []string{"outcome-supported", "outcome-contradicted", "outcome-supported", "outcome-supported", "outcome-supported",
		"outcome-unverified", "outcome-unverified", "outcome-unverified"}, outcomes)
	// The contradicted row: claimed 100/1, the archive 40/1.
	cells := all(all(root, func(n *html.Node) bool { return classOf(n) == "outcome-contradicted" })[0], tag("code"))
	require.Equal(t, `"100/1"`, textOf(cells[0]))
	require.Equal(t, `"40/1"`, textOf(cells[1]))
}
