package db

import (
	"crypto/sha256"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// spec14Corpus is the 5,000,096-byte benchmark corpus of CONTRACT 14.
// BenchmarkSpec14 measures the targets of cmd/benchreal/PERFORMANCE.md on
// the CONTRACT 14 corpus:
// ingest with indexing and the durable commit, the settlement query
// (lookup, checked load, evaluation, receipt bytes), the receipt's durable
// write on its own, and receipt verification with full store replay.
func BenchmarkSpec14(b *testing.B) {
	src := engine.Spec14Corpus()
	const question = "Ahmed Khalid"
	b.Run("ingest", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			a, err := Open(filepath.Join(b.TempDir(), "a.db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := a.Ingest(src, 1750000000, "bench.txt"); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			a.Close()
			b.StartTimer()
		}
	})
	a, err := Open(filepath.Join(b.TempDir(), "a.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Ingest(src, 1750000000, "bench.txt"); err != nil {
		b.Fatal(err)
	}
	d, err := a.Resolve("bench.txt")
	if err != nil {
		b.Fatal(err)
	}
	answer, err := settle.Query(&engine.Store{Version: 2, Document: d.SHA256, Source: src, Events: mustEvents(b, src)}, question)
	if err != nil {
		b.Fatal(err)
	}
	rec := &Receipt{Kind: KindQuery, Document: d.SHA256, Store: d.StoreSHA256, Question: question, Result: sha256.Sum256(answer)}
	b.Run("query", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			d, err := a.Resolve("bench.txt")
			if err != nil {
				b.Fatal(err)
			}
			s, err := a.LoadEvidence(d)
			if err != nil {
				b.Fatal(err)
			}
			res, err := settle.EvaluateSettlement(s, question)
			if err != nil || res.Status != settle.Partial {
				b.Fatal(err, res.Status)
			}
			out := res.JSON()
			r := &Receipt{Kind: KindQuery, Document: d.SHA256, Store: d.StoreSHA256, Question: question, Result: sha256.Sum256(out)}
			_ = r.Encode()
		}
	})
	b.Run("receipt-write", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			r := *rec
			r.Question = question + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26))
			if err := a.KeepReceipt(&r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("verify", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			outcome, err := a.Verify(rec, receipt.Canonical{})
			if err != nil || outcome.String() != "VALID" {
				b.Fatal(outcome, err)
			}
		}
	})
}

func mustEvents(b *testing.B, src []byte) []engine.Event {
	s, err := engine.NewStore(src, 0)
	if err != nil {
		b.Fatal(err)
	}
	return s.Events
}
