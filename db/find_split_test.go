package db_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/index"

	"github.com/stretchr/testify/require"
)

// TestFindBoundsOnCores: Find's candidates computed a range of
// super-groups per core give the answers computed on one, byte for byte,
// for words common and rare, several words, and limits, over documents
// folded, packed and still pending.
func TestFindBoundsOnCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3)) // three ranges, whatever the machine
	path := filepath.Join(t.TempDir(), "chronicle.db")
	a, err := db.Open(path, db.Options{})
	require.NoError(t, err)
	defer a.Close()
	words := strings.Fields("Khalid lent Ahmed dinars repaid the loan avoiding recent software agreement witness عقد رقم خالد")
	r := rand.New(rand.NewPCG(3, 4))
	text := func(i int) []byte {
		var b strings.Builder
		for l := range 1 + r.IntN(4) {
			fmt.Fprintf(&b, "Note %d.%d:", i, l)
			for range 2 + r.IntN(8) {
				b.WriteString(" " + words[r.IntN(len(words))])
			}
			b.WriteString("\n")
		}
		return []byte(b.String())
	}
	const at = 1750000000
	a.BeginBatch()
	for i := 1; i <= index.SuperSize+300; i++ {
		_, err := a.Ingest(text(i), at, fmt.Sprintf("notes/%05d.txt", i))
		require.NoError(t, err)
	}
	require.NoError(t, a.EndBatch())
	a.BeginBatch() // left pending: not folded into the postings
	for i := index.SuperSize + 301; i <= index.SuperSize+330; i++ {
		_, err := a.Ingest(text(i), at, fmt.Sprintf("notes/%05d.txt", i))
		require.NoError(t, err)
	}
	answers := func() []string {
		var out []string
		for _, q := range []string{"Khalid", "avoiding recent software", "lent dinars", "عقد خالد", "Note 4300.1", "zebra", "the loan the"} {
			fq, err := find.NewQuery(q)
			require.NoError(t, err)
			for _, limit := range []int{20, 3, 0} {
				hits, st, err := a.FindWithStats(fq, limit)
				require.NoError(t, err, q)
				out = append(out, fmt.Sprintf("%s limit %d: %d candidates\n%s", q, limit, st.Candidates, db.FindResult(hits)))
			}
		}
		return out
	}
	restore := db.SplitBoundsForTest(1 << 40) // one core
	one := answers()
	restore()
	defer db.SplitBoundsForTest(1)()
	require.Equal(t, one, answers())
	require.Contains(t, one[0], "Khalid limit 20: ")
	require.NotContains(t, one[0], ": 0 candidates")
}
