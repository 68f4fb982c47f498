package main

import (
	"regexp"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// TestArchiveInUse: while another process holds the archive, chronicle
// fails within 2 seconds with an error naming the archive, never hangs,
// and works again once the archive is released.
func TestArchiveInUse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		readOnly bool // how the test process holds the archive
		argv     []string
		blocked  bool
	}{
		{"writer holds; ingest", false, []string{"ingest", "g0.txt"}, true},
		{"writer holds; query", false, []string{"query", "input.txt", g1Q}, true},
		{"writer holds; docs", false, []string{"docs"}, true},
		{"reader holds; ingest", true, []string{"ingest", "g0.txt"}, true},
		{"reader holds; query (reading writes nothing)", true, []string{"query", "input.txt", g1Q}, false},
		{"reader holds; query --keep keeps a receipt", true, []string{"query", "input.txt", g1Q, "--keep"}, true},
		{"reader holds; docs", true, []string{"docs"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := g1WS(t)
			w.copyGolden("g0_minimal_literal", "input.txt", "g0.txt")

			a, err := db.Open(w.db, db.Options{ReadOnly: tc.readOnly})
			require.NoError(t, err)
			r := w.run(append(tc.argv, "--wait=700ms")...)
			require.Less(t, r.elapsed, 2*time.Second, "waited longer than --wait for the lock")
			if tc.blocked {
				require.GreaterOrEqual(t, r.elapsed, 500*time.Millisecond, "gave up long before --wait (bbolt polls the lock every 50 ms)")
				requireOneLineError(t, r, 11, tc.argv[0], regexp.QuoteMeta("archive "+w.db+": archive is in use by another process"))
			} else {
				require.Equal(t, 0, r.code, "%s", r)
			}
			require.NoError(t, a.Close())

			r = w.run(tc.argv...)
			require.Equal(t, 0, r.code, "after release\n%s", r)
		})
	}
}
