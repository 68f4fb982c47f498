package settle

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
)

// rec builds one typed record line from its nine fields (CONTRACT 7.2):
// subject, predicate, object, amount, currency, time, modality, polarity,
// status.
func rec(fields ...string) string {
	if len(fields) != 9 {
		panic("rec needs nine fields")
	}
	return "@chronicle\t" + strings.Join(fields, "\t")
}

// Shorthands for the common records: established positive facts.
func borrowed(b, l, amount, cur, time string) string {
	return rec(b, engine.PredBorrowedFrom, l, amount, cur, time, "ASSERTED", "POSITIVE", "CONFIRMED")
}

func paid(p, to, amount, cur, time string) string {
	return rec(p, engine.PredPaidTo, to, amount, cur, time, "ASSERTED", "POSITIVE", "CONFIRMED")
}

func intermediary(agent, l, time string) string {
	return rec(agent, engine.PredIntermediaryFor, l, "-", "-", time, "ASSERTED", "POSITIVE", "CONFIRMED")
}

// newStore builds a V2 store from source lines joined by LF.
func newStore(t testing.TB, lines ...string) *engine.Store {
	t.Helper()
	s, err := engine.NewStore([]byte(strings.Join(lines, "\n")+"\n"), 0)
	require.NoError(t, err)
	return s
}

// debtString renders a debt as "num/den CUR borrower→lender" ("" for none).
func debtString(d *Debt) string {
	if d == nil {
		return ""
	}
	return d.Amount.String() + " " + d.Currency + " " + d.Borrower + "→" + d.Lender
}

func evidenceLines(ev []Evidence) []uint64 {
	var out []uint64
	for _, e := range ev {
		out = append(out, e.Event.LineStart)
	}
	return out
}

func countedLines(s *Settlement) []uint64 {
	var out []uint64
	for _, e := range s.Evidence {
		if e.Counted {
			out = append(out, e.Event.LineStart)
		}
	}
	return out
}

// flags lists the diagnostic flags of a settlement, space separated.
func flags(s *Settlement) string {
	var f []string
	for _, x := range []struct {
		on   bool
		name string
	}{
		{s.Ambiguous, "ambiguous"}, {s.Contradicted, "contradicted"}, {s.Overflow, "overflow"},
		{s.Duplicate, "duplicate"}, {s.Related, "related"},
	} {
		if x.on {
			f = append(f, x.name)
		}
	}
	return strings.Join(f, " ")
}

func requireSettlement(t *testing.T, got *Settlement, status Status, debt, settled string, lines []uint64) {
	t.Helper()
	require.Equal(t, status, got.Status, "status")
	require.Equal(t, debt, debtString(got.Debt), "debt")
	require.Equal(t, settled, got.Settled.String(), "settled")
	require.Equal(t, lines, evidenceLines(got.Evidence), "evidence lines")
}
