package find

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPatternIndex(t *testing.T) {
	tests := []struct{ name, s, term string }{
		{"empty haystack", "", "ab"},
		{"shorter haystack", "a", "ab"},
		{"single byte", "xyz", "z"},
		{"at start", "transfer of", "transfer"},
		{"at end", "of the transfer", "transfer"},
		{"rare byte first", "qqq zebra", "zebra"},
		{"rare byte last", "aaaz", "az"},
		{"absent", "the cat", "dog"},
		{"arabic", "من خالد؟ إلى", "خالد؟"},
		{"false candidates then fallback", strings.Repeat("z", 500) + "zq", "zq"},
		{"fallback absent", strings.Repeat("zz", 500), "zq"},
		{"long term", strings.Repeat("ab", 100) + "c" + strings.Repeat("ab", 100) + "d", strings.Repeat("ab", 100) + "d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPattern([]byte(tc.term))
			require.Equal(t, strings.Index(tc.s, tc.term), p.index([]byte(tc.s)))
		})
	}
}

func TestPatternIndexRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	alphabet := []byte("abz \xd8\xa7q")
	gen := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return b
	}
	for range 20000 {
		s := gen(rng.IntN(200))
		term := gen(1 + rng.IntN(5))
		p := newPattern(term)
		require.Equal(t, bytes.Index(s, term), p.index(s), "s=%q term=%q", s, term)
	}
}

func TestPatternRareByte(t *testing.T) {
	require.Equal(t, byte('f'), newPattern([]byte("transfer")).rare)
	require.Equal(t, byte('A'), newPattern([]byte("Alice")).rare)
	// Not an Arabic lead byte.
	require.Less(t, newPattern([]byte("خالد")).rare, byte(0xC0))
}
