package repl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMarkTerms(t *testing.T) {
	const on, off = "\x1b[1;7m", "\x1b[0m"
	for _, tc := range []struct {
		text  string
		terms []string
		want  string
	}{
		{"Alice pays Saud", []string{"Saud"}, "Alice pays " + on + "Saud" + off},
		{"alpha alpha", []string{"alpha", "alpha"}, on + "alpha" + off + " " + on + "alpha" + off},
		{"abcd", []string{"abc", "bcd"}, on + "abcd" + off},
		{"أكد سعود", []string{"سعود"}, "أكد " + on + "سعود" + off},
		{"none here", []string{"zzz"}, "none here"},
	} {
		require.Equal(t, tc.want, markTerms(tc.text, tc.terms), tc.text)
	}
}
