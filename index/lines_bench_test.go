package index_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"chronicle/index"
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

func BenchmarkBuildLines(b *testing.B) {
	for _, c := range []struct {
		name string
		src  []byte
	}{
		{"prose-1MB", benchProse()},
		{"spec14-words-5MB", bytes.Repeat([]byte("word "), 1_000_000)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.src)))
			b.ReportAllocs()
			for b.Loop() {
				index.BuildLines(c.src, 64<<10)
			}
		})
	}
}
