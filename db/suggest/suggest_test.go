package suggest

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"find", "fnid", 1}, {"mode", "mdoe", 1}, {"ab", "ba", 1}, {"ca", "abc", 3},
		{"أحمد", "احمد", 1}, {"same", "same", 0},
	} {
		require.Equal(t, c.want, Distance(c.a, c.b), "%q %q", c.a, c.b)
		require.Equal(t, c.want, Distance(c.b, c.a), "%q %q", c.b, c.a)
	}
}

var commands = []string{"ingest", "docs", "show", "stats", "query", "settle", "claim", "find", "entity", "entities", "receipts", "verify", "export", "import", "migrate", "reindex", "check", "claims", "mcp", "help", "version"}

func TestClosest(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"fnd", []string{"find"}},
		{"ingets", []string{"ingest"}},
		{"ing", []string{"ingest"}},
		{"entitys", []string{"entity", "entities"}}, // nearest first
		{"zzzzzz", []string{}},
		{"find", []string{}},       // an exact match is never a suggestion
		{"fnid", []string{"find"}}, // a swap is one edit
		{"FIND", []string{"find"}}, // case folded
	} {
		require.Equal(t, c.want, Closest(c.name, commands), c.name)
	}
	require.Len(t, Closest("x", []string{"a", "b", "c", "d"}), Most)
}

func TestPhrase(t *testing.T) {
	require.Equal(t, "; did you mean \"find\"?", Phrase(Closest("fnd", commands), strconv.Quote))
	require.Equal(t, "", Phrase(Closest("zzzzzz", commands), strconv.Quote))
	id := func(s string) string { return s }
	require.Equal(t, "; did you mean a or b?", Phrase([]string{"a", "b"}, id))
	require.Equal(t, "; did you mean a, b or c?", Phrase([]string{"a", "b", "c"}, id))
	require.Equal(t, "; did you mean .mode?", Phrase(Closest(".mdoe", []string{".mode", ".keep", ".read"}), id))
}

func TestBestKeepsOrderOfTies(t *testing.T) {
	require.Equal(t, []string{"b", "a", "c"}, Best([]Scored{{"a", 2}, {"b", 1}, {"c", 2}, {"a", 2}}))
}
