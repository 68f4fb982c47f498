package index_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/index"
)

// benchProse is about 1 MB of lines of words drawn with a Zipf law from a
// vocabulary of 20,000 made-up words, English and Arabic.
func benchProse() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	syll := strings.Fields("ka ro mel tan si bu ter va lo nim pe dra gu shi ol an ef ur ith mo ال ب ت ر س")
	vocab := make([]string, 20000)
	for i := range vocab {
		var w strings.Builder
		for range 2 + r.IntN(3) {
			w.WriteString(syll[r.IntN(len(syll))])
		}
		vocab[i] = w.String()
	}
	z := rand.NewZipf(r, 1.2, 4, uint64(len(vocab)-1))
	var b bytes.Buffer
	for b.Len() < 1_000_000 {
		for w := range 6 + r.IntN(14) {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[z.Uint64()])
		}
		b.WriteString(".\n")
	}
	return b.Bytes()
}

// benchDocs are the documents of the benchmarks: the made-up prose, the
// CONTRACT 14 words, and the files CHRONICLE_LINES_BENCH_DOCS names
// (space-separated paths, such as a document of the real Arabic corpus of
// cmd/benchreal).
func benchDocs(b *testing.B) []benchDoc {
	docs := []benchDoc{
		{"prose-1MB", benchProse()},
		{"spec14-words-5MB", bytes.Repeat([]byte("word "), 1_000_000)},
	}
	for _, p := range strings.Fields(os.Getenv("CHRONICLE_LINES_BENCH_DOCS")) {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, benchDoc{filepath.Base(p), src})
	}
	return docs
}

type benchDoc struct {
	name string
	src  []byte
}

// BenchmarkCountGrams times gram counting with the compaction into sorted
// entries, on the same documents.
func BenchmarkCountGrams(b *testing.B) {
	for _, c := range benchDocs(b) {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.src)))
			for b.Loop() {
				index.CountGrams(c.src).Compact(0)
			}
		})
	}
}

func BenchmarkBuildLines(b *testing.B) {
	for _, c := range benchDocs(b) {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.src)))
			b.ReportAllocs()
			for b.Loop() {
				index.BuildLines(c.src, 64<<10)
			}
		})
	}
}

// BenchmarkScoreLines scores one document, parsing its record each time as
// find does, in version 2 and version 1, for a rare word (a piece of a
// word seen once), a common word, a letter and an absent word.
func BenchmarkScoreLines(b *testing.B) {
	for _, c := range benchDocs(b) {
		if c.name == "spec14-words-5MB" {
			continue // one token
		}
		words := bytes.Fields(c.src)
		counts := map[string]int{}
		for _, w := range words {
			counts[string(w)]++
		}
		rare, common := "", string(words[0])
		for _, w := range words {
			if counts[string(w)] == 1 && utf8.RuneCount(w) >= 5 && validTerms(string(w)) {
				rare = string(w)
				break
			}
		}
		for w, n := range counts {
			if n > counts[common] && validTerms(w) {
				common = w
			}
		}
		r, _ := utf8.DecodeRuneInString(common)
		for _, v := range []struct {
			name string
			rec  []byte
		}{
			{"v2", index.BuildLines(c.src, 64<<10)},
			{"v1", index.BuildLinesV1(c.src, 64<<10)},
		} {
			for _, t := range []struct{ class, terms string }{
				{"rare", rare}, {"common", common}, {"letter", string(r)}, {"absent", "zqxj"},
			} {
				if t.terms == "" {
					continue
				}
				q := mustQuery(b, t.terms)
				b.Run(c.name+"/"+v.name+"/"+t.class, func(b *testing.B) {
					var s index.LineScorer
					var lines index.Lines // reused, as find does
					for b.Loop() {
						l, err := index.ParseLinesReusing(v.rec, &lines)
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
}
