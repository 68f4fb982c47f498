package db

import (
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/require"
)

func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// reclaimBefore collects before a whole-document read of a MiB or more
// when another one came since it last collected, and never for small
// reads.
func TestReclaimBefore(t *testing.T) {
	reclaim.Lock()
	reclaim.pending = 0
	reclaim.Unlock()
	for _, tc := range []struct {
		name  string
		n     int64
		force bool
	}{
		{"small read", 64 << 10, false},
		{"first document", 2 << 20, false},
		{"small read after it", 512 << 10, false},
		{"second document", 1 << 20, true},
		{"third document", 3 << 20, true},
		{"small read", 1, false},
	} {
		before := gcCycles()
		reclaimBefore(tc.n)
		require.Equal(t, tc.force, gcCycles() > before, tc.name)
	}
}
