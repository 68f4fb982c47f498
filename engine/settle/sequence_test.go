package settle

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
)

// sequenceOf is the sequence of one store's events, in source order.
func sequenceOf(s *engine.Store) []SequenceEvent {
	seq := make([]SequenceEvent, len(s.Events))
	for i, e := range s.Events {
		seq[i] = SequenceEvent{Document: s.Document, Index: i, Event: e, Text: string(s.Source[e.ByteStart:e.ByteEnd])}
	}
	return seq
}

// TestSequenceOfOneStoreIsTheQuery: over the events of one store the
// sequence reasoner gives byte for byte the golden results of `query`.
func TestSequenceOfOneStoreIsTheQuery(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(goldenDir, "g[0-9]_*"))
	require.NoError(t, err)
	require.Len(t, dirs, 10)
	checked := 0
	for _, dir := range dirs {
		s, tr := loadGolden(t, dir)
		for _, cmd := range tr.Commands {
			question, ok := goldenQuestion(cmd.Argv)
			if !ok || cmd.Exit != 0 || IsClaim(question) {
				continue
			}
			want, _, _ := strings.Cut(cmd.Stdout, "\n")
			got, err := EvaluateSequence(sequenceOf(s), question)
			require.NoError(t, err)
			require.Equal(t, want, string(got.JSON()), "%s %q", tr.Case, question)
			require.Equal(t, s.Document, got.Document)
			checked++
		}
	}
	require.NotZero(t, checked)
}

// TestSequenceAcrossStores: the sequence of two stores' events settles as
// the one store of their concatenated texts, each evidence object naming
// its own document; a span text of the wrong length is an error.
func TestSequenceAcrossStores(t *testing.T) {
	one := newStore(t, borrowed("Alice", "Bob", "100", "SAR", "T1"), intermediary("Saud", "Bob", "T1"))
	two := newStore(t, paid("Alice", "Saud", "40", "SAR", "T2"), paid("Alice", "Bob", "60", "SAR", "T3"))
	both := newStore(t, borrowed("Alice", "Bob", "100", "SAR", "T1"), intermediary("Saud", "Bob", "T1"),
		paid("Alice", "Saud", "40", "SAR", "T2"), paid("Alice", "Bob", "60", "SAR", "T3"))
	got, err := EvaluateSequence(append(sequenceOf(one), sequenceOf(two)...), "Did Alice repay Bob?")
	require.NoError(t, err)
	want, err := EvaluateSettlement(both, "Did Alice repay Bob?")
	require.NoError(t, err)
	require.Equal(t, Supported, got.Status)
	require.Equal(t, want.Settled, got.Settled)
	require.Equal(t, [32]byte{}, got.Document, "several documents")
	require.Equal(t, one.Document, got.Debt.Document)
	docs := make([][32]byte, len(got.Evidence))
	for i, e := range got.Evidence {
		docs[i] = e.Document
	}
	require.Equal(t, [][32]byte{one.Document, one.Document, two.Document, two.Document}, docs)
	require.Contains(t, string(got.JSON()), fmt.Sprintf(`"document_sha256":"%x","byte_start":0,"byte_end":%d,"line_start":1`, two.Document, len(paid("Alice", "Saud", "40", "SAR", "T2"))))

	bad := sequenceOf(one)
	bad[0].Text = bad[0].Text[1:]
	_, err = EvaluateSequence(bad, "Did Alice repay Bob?")
	require.ErrorIs(t, err, ErrSpan)
}

// TestCandidates: every pair a question selects is among its candidates,
// and every candidate is selected; questions that select nothing have none.
func TestCandidates(t *testing.T) {
	names := []string{"Alice", "Bob", "Ann Lee", "Lee", "Ann", "أحمد", "خالد", "Lee Bob", "a\tb", "Did", "x?"}
	rng := rand.New(rand.NewPCG(8, 14))
	for range 2000 {
		b, l := names[rng.IntN(len(names))], names[rng.IntN(len(names))]
		var q string
		if rng.IntN(10) == 0 {
			q = SelectorQuestion(b, l)
		} else {
			q = Frame(1+rng.IntN(9), b, l)
		}
		cands := Candidates(q)
		require.Equal(t, Selects(q, b, l), slices.Contains(cands, Pair{b, l}), "%q", q)
		for _, p := range cands {
			require.True(t, Selects(q, p.Borrower, p.Lender), "%q selects %v", q, p)
		}
	}
	require.Equal(t, []Pair{{"Ann", "Lee Bob"}, {"Ann Lee", "Bob"}}, Candidates("Ann Lee Bob"))
	require.Equal(t, []Pair{{"a", "b"}}, Candidates("@settlement\ta\tb"))
	for _, q := range []string{"", "Alice", "Did Alice repay?", "@settlement\tAlice", strings.Repeat("x", 300) + " y"} {
		require.Empty(t, Candidates(q), "%q", q)
	}
}
