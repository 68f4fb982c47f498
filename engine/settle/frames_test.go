package settle

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFitsFrame: FitsFrame is true exactly when some pair of names would
// make Selects true: checked against Selects for every frame, and for
// questions that fit none.
func TestFitsFrame(t *testing.T) {
	for n := 1; n <= 9; n++ {
		q := Frame(n, "Alice Smith", "Bob")
		require.True(t, FitsFrame(q), q)
		require.True(t, Selects(q, "Alice Smith", "Bob"), q)
	}
	for _, c := range []struct {
		q    string
		fits bool
	}{
		{SelectorQuestion("Alice.", "Bob?"), true}, // any selectable names
		{"@settlement\tAlice", false},
		{"@settlement\t\tBob", false},
		{"Has Alice paid Bob?", true}, // frame 2: "Has" owes "Alice paid Bob"
		{"Did Alice pay Bob?", false}, // "Did" is reserved in every split
		{"Alice", false},
		{"", false},
		{"Alice, Bob", false},
		{"Alice  Bob", false}, // a double space: no split gives two plain names
		{"Did Alice repay Bob", false},
		{"هل سدد أحمد دين خالد؟", true},
		{"هل دفع أحمد لخالد؟", false}, // "هل" is reserved
		{"Alice " + strings.Repeat("b", 128), false},
	} {
		require.Equal(t, c.fits, FitsFrame(c.q), "%q", c.q)
		if len(c.q) < 48 {
			require.Equal(t, c.fits, anySelects(c.q), "oracle for %q", c.q)
		}
	}
	require.Equal(t, "Did B repay L?", Frames()[4])
	require.Len(t, Frames(), 9)
}

// anySelects is the oracle of FitsFrame: some substrings of q, as
// borrower and lender, make Selects true.
func anySelects(q string) bool {
	for a := 0; a < len(q); a++ {
		for b := a + 1; b <= len(q); b++ {
			for c := 0; c < len(q); c++ {
				for d := c + 1; d <= len(q); d++ {
					if Selects(q, q[a:b], q[c:d]) {
						return true
					}
				}
			}
		}
	}
	return false
}

// TestFramePairs: the pairs FramePairs lists are exactly those of every
// substring pair that Selects accepts (the brute-force oracle), each once.
func TestFramePairs(t *testing.T) {
	for _, q := range []string{
		"Did Alice repay Bob?", "Has Alice paid?", "Alice Bob", "Alice Smith Bob",
		"هل سدد أحمد دين خالد؟", "@settlement\tAlice\tBob", "random", "Did repay?", "",
	} {
		var want [][2]string
		seen := map[[2]string]bool{}
		for a := 0; a < len(q); a++ {
			for b := a + 1; b <= len(q); b++ {
				for c := 0; c < len(q); c++ {
					for d := c + 1; d <= len(q); d++ {
						p := [2]string{q[a:b], q[c:d]}
						if !seen[p] && Selects(q, p[0], p[1]) {
							seen[p] = true
							want = append(want, p)
						}
					}
				}
			}
		}
		got := FramePairs(q)
		require.ElementsMatch(t, want, got, "%q", q)
		require.Equal(t, len(got) > 0, FitsFrame(q), "%q", q)
	}
	require.Equal(t, [][2]string{{"Alice", "Bob"}}, FramePairs("Did Alice repay Bob?"))
}
