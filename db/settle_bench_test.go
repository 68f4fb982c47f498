package db_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// settleBenchQuestion is asked of every settle benchmark archive.
const settleBenchQuestion = "Did Layla repay Omar?"

// settleBenchPairDocs is the number of documents naming the pair.
const settleBenchPairDocs = 10

// buildSettleBench ingests n documents of about 3 KB (prose and 24 typed
// records among 400 other names each) into a new archive at path; 10 of
// them, spread over the archive, also carry the pair's loan, its
// intermediary link and payments (in different documents).
func buildSettleBench(b *testing.B, path string, n int) *db.Archive {
	b.Helper()
	a, err := db.Open(path, db.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = a.Close() })
	rng := rand.New(rand.NewPCG(uint64(n), 14))
	names := make([]string, 400)
	for i := range names {
		names[i] = fmt.Sprintf("Person %03d", i)
	}
	preds := []string{"BORROWED_FROM", "PAID_TO", "TRANSFER_TO", "INTERMEDIARY_FOR"}
	pairAt := map[int]int{}
	for k := range settleBenchPairDocs {
		pairAt[k*n/settleBenchPairDocs+n/(2*settleBenchPairDocs)] = k
	}
	for i := range n {
		var sb strings.Builder
		fmt.Fprintf(&sb, "Document %d of %d: a statement of accounts.\n", i+1, n)
		for r := range 24 {
			sb.WriteString("Narrative prose between the records, with amounts and names that are not records.\n")
			fmt.Fprintf(&sb, "@chronicle\t%s\t%s\t%s\t%d\tSAR\tT%d\tASSERTED\tPOSITIVE\tCONFIRMED\n",
				names[rng.IntN(len(names))], preds[rng.IntN(len(preds))], names[rng.IntN(len(names))], 1+rng.IntN(500), r)
		}
		if k, ok := pairAt[i]; ok {
			switch k {
			case 0:
				sb.WriteString("@chronicle\tLayla\tBORROWED_FROM\tOmar\t1000\tSAR\tT0\tASSERTED\tPOSITIVE\tCONFIRMED\n")
			case 1:
				sb.WriteString("@chronicle\tGulf Bank\tINTERMEDIARY_FOR\tOmar\t-\tSAR\tT0\tASSERTED\tPOSITIVE\tCONFIRMED\n")
			default:
				fmt.Fprintf(&sb, "@chronicle\tLayla\tPAID_TO\t%s\t%d\tSAR\tD%d\tASSERTED\tPOSITIVE\tCONFIRMED\n", []string{"Omar", "Gulf Bank"}[k%2], 10*k, k)
				fmt.Fprintf(&sb, "@chronicle\tOmar\tPAID_TO\t%s\t5\tSAR\tD%d\tASSERTED\tPOSITIVE\tCONFIRMED\n", names[k], k)
			}
		}
		if _, err := a.Ingest([]byte(sb.String()), 1750000000, fmt.Sprintf("doc-%04d.txt", i)); err != nil {
			b.Fatal(err)
		}
	}
	return a
}

// BenchmarkArchiveSettle answers one settlement question across an
// archive of 100 and of 1,000 documents in which the pair appears in 10
// (ISSUE 14: at most 10 ms per question, median, on 2 cores; 100 vs 1,000
// documents within 1.5×). median_ms is the median of the iterations;
// docs_read the documents the answer read (those naming the pair).
func BenchmarkArchiveSettle(b *testing.B) {
	dir := b.TempDir()
	medians := map[int]time.Duration{}
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			a := buildSettleBench(b, filepath.Join(dir, fmt.Sprintf("settle-%d.db", n)), n)
			var times []time.Duration
			var c *db.CrossSettlement
			for b.Loop() {
				start := time.Now()
				var err error
				if c, err = a.Settle(settleBenchQuestion, nil); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			if c.Result.Status != settle.Partial || len(c.Participants()) != settleBenchPairDocs {
				b.Fatalf("status %s over %d documents, want PARTIAL over %d", c.Result.Status, len(c.Participants()), settleBenchPairDocs)
			}
			slices.Sort(times)
			medians[n] = quantile(times, 0.5)
			b.ReportMetric(ms(medians[n]), "median_ms")
			b.ReportMetric(float64(len(c.Docs)), "docs_read")
			if small, ok := medians[100]; ok && n == 1000 && small > 0 {
				b.ReportMetric(float64(medians[n])/float64(small), "x_vs_100")
			}
		})
	}
}
