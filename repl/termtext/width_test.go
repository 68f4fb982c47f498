package termtext

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWidth: wide characters take two columns, combining marks none, a
// TAB moves to the next stop, colour escapes nothing.
func TestWidth(t *testing.T) {
	require.Equal(t, 4, Width("abcd", 0))
	require.Equal(t, 6, Width("漢字漢", 0))
	require.Equal(t, 3, Width("حوّل", 0), "the shadda takes no column")
	require.Equal(t, 9, Width("ab\tc", 0))
	require.Equal(t, 4, Width("ab\tc", 5))
	require.Equal(t, 4, Width("\x1b[1;7mSaud\x1b[0m", 0))
	require.Equal(t, "Saud paid", string(StripColour([]byte("\x1b[1;7mSaud\x1b[0m paid"))))
}

// TestCells: CutAt, FirstCells and LastCells cut between characters, at
// most the columns asked, a wide character whole or not at all and a
// combining mark with its letter.
func TestCells(t *testing.T) {
	require.Equal(t, 3, CutAt("abcdef", 0, 3))
	require.Equal(t, 1, CutAt("abcdef", 5, 3), "at least one character")
	require.Equal(t, 3, CutAt("漢字漢", 0, 3), "a wide character is not split")
	require.Equal(t, 3, CutAt("ab\xff", 0, 78), "an invalid byte is one byte")
	require.Equal(t, 2, CutAt("a\xffb", 0, 2))
	require.Equal(t, "漢", FirstCells("漢字漢", 3))
	require.Equal(t, "漢", LastCells("漢字漢", 3))
	require.Equal(t, "حوّ", FirstCells("حوّل", 2))
	require.Equal(t, "وّل", LastCells("حوّل", 2))
	require.Equal(t, "ل", LastCells("حوّل", 1))
	require.Equal(t, "abc", FirstCells("abc", 10))
	require.Equal(t, "abc", LastCells("abc", 10))
}
