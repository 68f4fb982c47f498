package index_test

import (
	"os"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/index"
)

// BenchmarkScoreTerms scores the documents of benchDocs (real ones named
// by CHRONICLE_LINES_BENCH_DOCS) for each query of
// CHRONICLE_LINES_BENCH_QUERIES ('|'-separated, such as the bench-real
// queries that miss their target), parsing the record each time as find
// does. Without the variable it scores a rare Arabic and a rare English
// word.
func BenchmarkScoreTerms(b *testing.B) {
	queries := strings.Split(os.Getenv("CHRONICLE_LINES_BENCH_QUERIES"), "|")
	if queries[0] == "" {
		queries = []string{"فالخضب", "Improve generate"}
	}
	for _, c := range benchDocs(b) {
		rec := index.BuildLines(c.src, 64<<10)
		for _, terms := range queries {
			q := mustQuery(b, terms)
			b.Run(c.name+"/"+terms, func(b *testing.B) {
				var s index.LineScorer
				for b.Loop() {
					l, err := index.ParseLines(rec, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, _, err := s.Score(l, q, 8); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
