package settle

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
)

// refResult is what the reference reasoner computes.
type refResult struct {
	status  Status
	debt    int // event index, -1 for none
	settled engine.Rational
	used    []bool
}

// referenceSettle is CONTRACT 9 transcribed literally, with plain nested scans
// instead of the package's indexes. It shares nothing with reasoner.go but
// Selects and the engine's Rational.
func referenceSettle(ev []engine.Event, q string) refResult {
	n := len(ev)
	established := func(e engine.Event) bool { return e.Modality == "ASSERTED" && e.Status == "CONFIRMED" }
	positive := func(e engine.Event) bool { return e.Polarity == "POSITIVE" && e.Status != "DENIED" }
	payment := func(e engine.Event) bool { return e.Predicate == "PAID_TO" || e.Predicate == "TRANSFER_TO" }
	eligible := func(e engine.Event) bool { return payment(e) && positive(e) && established(e) && e.AmountPresent }
	sameTuple := func(a, b engine.Event) bool {
		if a.Subject != b.Subject || a.Predicate != b.Predicate || a.Object != b.Object ||
			a.AmountPresent != b.AmountPresent || a.Currency != b.Currency || a.Time != b.Time {
			return false
		}
		return !a.AmountPresent || a.Amount.Cmp(b.Amount) == 0
	}
	used := make([]bool, n)
	contradictions := func(f int) bool {
		found := false
		for e := 0; e < n; e++ {
			if e != f && sameTuple(ev[e], ev[f]) && established(ev[e]) && ev[e].Polarity != ev[f].Polarity {
				used[e] = true
				found = true
			}
		}
		return found
	}
	debt, ambiguous, conflict := -1, false, false
	settled, payments, dup, related := engine.Zero, 0, false, false

	// Step A.
	for i, e := range ev {
		if e.Predicate == "BORROWED_FROM" && positive(e) && e.AmountPresent && established(e) &&
			Selects(q, e.Subject, e.Object) {
			used[i] = true
			if debt < 0 {
				debt = i
			} else if !sameTuple(e, ev[debt]) {
				ambiguous = true
			}
		}
	}
	if ambiguous {
		debt = -1
	}
	// Step B.
	if debt >= 0 && contradictions(debt) {
		conflict = true
	}
	// Step C.
	if debt >= 0 && !conflict && ev[debt].Currency != "-" {
		d := ev[debt]
	scan:
		for p := 0; p < n; p++ {
			P := ev[p]
			if !payment(P) || !positive(P) || P.Subject != d.Subject {
				continue
			}
			linked, contra := P.Object == d.Object, false
			if !linked {
				for x := 0; x < n; x++ {
					X := ev[x]
					if X.Predicate != "INTERMEDIARY_FOR" || X.Subject != P.Object || X.Object != d.Object {
						continue
					}
					used[x] = true
					if !positive(X) || !established(X) {
						continue
					}
					if contradictions(x) {
						conflict, contra = true, true
					} else {
						linked = true
					}
				}
			}
			if !linked && !contra {
				continue
			}
			used[p] = true
			if contra {
				continue
			}
			if !eligible(P) || P.Currency != d.Currency {
				related = true
				continue
			}
			if contradictions(p) {
				conflict = true
				continue
			}
			for e := 0; e < p; e++ {
				E := ev[e]
				if eligible(E) && E.Subject == P.Subject && E.Object == P.Object &&
					E.Amount.Cmp(P.Amount) == 0 && E.Currency == P.Currency && E.Time == P.Time {
					dup = true
					continue scan
				}
			}
			sum, err := settled.Add(P.Amount)
			if err != nil {
				conflict = true
				break
			}
			settled = sum
			payments++
		}
	}
	// Step D.
	var st Status
	switch {
	case conflict:
		st = Conflict
	case debt < 0 || payments == 0:
		st = Unknown
	case settled.Cmp(ev[debt].Amount) > 0:
		st = Conflict
	case settled.Cmp(ev[debt].Amount) == 0:
		st = Supported
		if dup || related {
			st = Unknown
		}
	case settled.Num > 0:
		st = Partial
	default:
		st = Unknown
	}
	return refResult{status: st, debt: debt, settled: settled, used: used}
}

// randomSource draws typed records over a tiny vocabulary so that names,
// tuples, links, duplicates and contradictions collide often.
func randomSource(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	weighted := func(p float64, common string, rare ...string) string {
		if rng.Float64() < p {
			return common
		}
		return pick(rare...)
	}
	var lines []string
	if rng.IntN(5) > 0 { // usually one clean debt A→B to settle
		lines = append(lines, borrowed("A", "B", pick("1", "2", "3", "0", "1/2"), "SAR", "T1"))
	}
	for range 1 + rng.IntN(10) {
		lines = append(lines, rec(
			pick("A", "A", "A", "S", "X", "B"),
			pick("BORROWED_FROM", "PAID_TO", "PAID_TO", "PAID_TO", "TRANSFER_TO", "INTERMEDIARY_FOR"),
			pick("B", "B", "S", "S", "X", "A"),
			pick("-", "0", "1", "1", "1", "2", "1/2", "1/2", "2/4", "3", "9223372036854775807", "1/4611686018427387904", "1/3"),
			weighted(0.85, "SAR", "USD", "-"),
			pick("T1", "T2"),
			weighted(0.85, "ASSERTED", "UNCERTAIN", "asserted"),
			weighted(0.85, "POSITIVE", "NEGATIVE"),
			weighted(0.85, "CONFIRMED", "PENDING", "DENIED", "ASSERTED"),
		))
		if rng.IntN(5) == 0 {
			lines = append(lines, "prose between records")
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestReasonerMatchesReference compares the indexed reasoner with the literal
// transcription on many random documents and questions.
func TestReasonerMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	questions := []string{"A B", "A B", "A B", "@settlement\tA\tB", "A S", "S B", "B A", "A X", "Did A repay B?"}
	statuses := map[Status]int{} // statuses and diagnostic flags seen
	for i := range 20000 {
		src := randomSource(rng)
		s, err := engine.NewStore([]byte(src), 0)
		require.NoError(t, err)
		q := questions[rng.IntN(len(questions))]
		want := referenceSettle(s.Events, q)
		got, err := EvaluateSettlement(s, q)
		require.NoError(t, err)
		msg := "case %d, question %q, source:\n%s"
		require.Equal(t, want.status, got.Status, msg, i, q, src)
		require.Equal(t, want.settled, got.Settled, msg, i, q, src)
		if want.debt < 0 {
			require.Nil(t, got.Debt, msg, i, q, src)
		} else {
			require.NotNil(t, got.Debt, msg, i, q, src)
			require.Equal(t, want.debt, got.Debt.Index, msg, i, q, src)
		}
		var wantIdx, gotIdx []int
		for k, u := range want.used {
			if u {
				wantIdx = append(wantIdx, k)
			}
		}
		for _, e := range got.Evidence {
			gotIdx = append(gotIdx, e.Index)
		}
		require.Equal(t, wantIdx, gotIdx, msg, i, q, src)
		statuses[got.Status]++
		if got.Overflow {
			statuses["overflow"]++
		}
		if got.Duplicate {
			statuses["duplicate"]++
		}
		if got.Ambiguous {
			statuses["ambiguous"]++
		}
	}
	// The generator reaches every status and the rarer paths.
	for _, st := range []Status{Supported, Partial, Conflict, Unknown, "overflow", "duplicate", "ambiguous"} {
		require.Greater(t, statuses[st], 20, "%s: %v", st, statuses)
	}
	t.Logf("outcomes: %v", statuses)
}
