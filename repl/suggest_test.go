package repl

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"find", "fnid", 1}, {"mode", "mdoe", 1}, {"ab", "ba", 1}, {"ca", "abc", 3},
		{"أحمد", "احمد", 1}, {"same", "same", 0},
	} {
		require.Equal(t, c.want, editDistance(c.a, c.b), "%q %q", c.a, c.b)
		require.Equal(t, c.want, editDistance(c.b, c.a), "%q %q", c.b, c.a)
	}
}

func TestClosest(t *testing.T) {
	names := Names()
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
	} {
		require.Equal(t, c.want, closest(c.name, names), c.name)
	}
	require.Equal(t, "; did you mean \"find\"?", didYouMean("fnd", names, strconv.Quote))
	require.Equal(t, "", didYouMean("zzzzzz", names, strconv.Quote))
	require.Equal(t, "; did you mean .mode?", didYouMean(".mdoe", []string{".mode", ".keep", ".read"}, func(s string) string { return s }))
	require.Equal(t, "; did you mean a, b or c?", didYouMean("x", []string{"a", "b", "c", "d"}, func(s string) string { return s }))
}
