package find

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"

	"github.com/casper-chronicle/chronicle/engine"
)

// benchSource generates a deterministic ~5 MB document of English-like and
// Arabic lines (with some CRLF and empty lines).
func benchSource(size int) []byte {
	words := []string{
		"Alice", "Bob", "Saud", "owes", "paid", "the", "of", "100", "SAR", "on",
		"day", "one", "two", "and", "ledger", "transfer", "receipt", "book",
		"أحمد", "خالد", "سعود", "مبلغ", "ريال", "في", "اليوم", "الحوالة",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]byte, 0, size+128)
	for len(src) < size {
		n := 4 + rng.IntN(14)
		for i := range n {
			if i > 0 {
				src = append(src, ' ')
			}
			src = append(src, words[rng.IntN(len(words))]...)
		}
		switch rng.IntN(20) {
		case 0:
			src = append(src, "\r\n"...)
		case 1:
			src = append(src, "\n\n"...)
		default:
			src = append(src, ".\n"...)
		}
	}
	return src
}

func BenchmarkFind(b *testing.B) {
	src := benchSource(5 << 20)
	store := &engine.Store{Version: 2, Document: sha256.Sum256(src), Source: src}
	for _, bc := range []struct{ name, terms string }{
		{"rare", "zebra Saudi"},
		{"mixed", "Alice ledger transfer"},
		{"common", "the of"},
		{"arabic", "خالد الحوالة"},
		{"16terms", "Alice Bob Saud owes paid the of 100 SAR on day one two and ledger book"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Find(store, bc.terms); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
