package index

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMarkLines: a posting's lines get the bits, each touched line is
// listed once, and every malformed posting (a zero or truncated delta, a
// line past the document's last, a delta that wraps past 2^64) is
// reported instead of marking anything past it.
func TestMarkLines(t *testing.T) {
	deltas := func(ds ...uint64) []byte {
		var b []byte
		for _, d := range ds {
			b = binary.AppendUvarint(b, d)
		}
		return b
	}
	for _, c := range []struct {
		name   string
		body   []byte
		one    uint64
		want   uint64
		marked []int
	}{
		{"one line", nil, 7, 0, []int{7}},
		{"deltas", deltas(1, 2, 200, 3), 0, 0, []int{1, 3, 203, 206}},
		{"last line", deltas(300), 0, 0, []int{300}},
		{"one line past the last", nil, 301, 301, nil},
		{"past the last", deltas(2, 299), 0, 301, []int{2}},
		{"zero delta", deltas(2, 0, 1), 0, badDelta, []int{2}},
		{"truncated delta", append(deltas(2), 0x80), 0, badDelta, []int{2}},
		{"wraps past 2^64", deltas(2, ^uint64(0)), 0, badDelta, []int{2}},
	} {
		var s LineScorer
		s.touchedMax = 100
		sets := make([]uint16, 301)
		sets[3] = 1 // already set: not listed again
		require.Equal(t, c.want, markLines(&s, sets, 4, c.body, c.one, 300), c.name)
		var got []int
		for ln, v := range sets {
			if v&4 != 0 {
				got = append(got, ln)
			}
		}
		require.Equal(t, c.marked, got, c.name)
		var touched []uint32
		for _, ln := range c.marked {
			if ln != 3 {
				touched = append(touched, uint32(ln))
			}
		}
		require.Equal(t, touched, s.touched, c.name)
	}
}
