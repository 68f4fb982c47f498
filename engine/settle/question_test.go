package settle

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
)

// questionStore holds one established 10 SAR debt per borrower/lender pair
// below, each with its own amount so that the selected debt is recognisable.
func questionStore(t *testing.T) *engine.Store {
	t.Helper()
	pairs := [][2]string{
		{"Alice", "Bob"},
		{"أحمد", "خالد"},
		{"Abu Bakr", "Umar"},
		{"عبد الله", "ابن سعود"},
		{"Dr. Who", "Bob"},  // '.' is not plain
		{"Did", "Bob"},      // reserved word
		{"Zed  Two", "Bob"}, // double space
		{"Q\"1", "R\\2"},    // quote and backslash
		{"A\rB", "Bob"},     // CR inside a typed field: never selectable
		{"x@y", "Bob"},      // '@' is allowed in a plain name
		{"Ali", "not Bob"},  // reserved word inside the lender
		{"Omar", "Ali؟"},    // Arabic question mark in the lender
		{"Ctl\x01", "Bob"},  // control byte
		{"Del\x7f", "Bob"},  // DEL
		{" Lead", "Bob"},    // leading space
		{"Trail ", "Bob"},   // trailing space
		{"Sam", "ليست"},     // Arabic reserved word
		{"Tom", "Bob (jr)"}, // parentheses
		{"هل", "خالد"},      // reserved word as borrower
		{"Eve", "Mallory"},  // plain, used for the rejected variants
	}
	var lines []string
	for i, p := range pairs {
		lines = append(lines, borrowed(p[0], p[1], strconv.Itoa(i+1), "SAR", "T1"))
	}
	return newStore(t, lines...)
}

func TestNineFramesSelect(t *testing.T) {
	st := questionStore(t)
	for _, pair := range [][3]string{
		{"Alice", "Bob", "1/1 SAR Alice→Bob"},
		{"أحمد", "خالد", "2/1 SAR أحمد→خالد"},
		{"Abu Bakr", "Umar", "3/1 SAR Abu Bakr→Umar"},
		{"عبد الله", "ابن سعود", "4/1 SAR عبد الله→ابن سعود"},
		{"x@y", "Bob", "10/1 SAR x@y→Bob"},
	} {
		for n := 1; n <= 9; n++ {
			q := Frame(n, pair[0], pair[1])
			t.Run(q, func(t *testing.T) {
				require.True(t, Selects(q, pair[0], pair[1]))
				got := settleQ(t, st, q)
				require.Equal(t, pair[2], debtString(got.Debt))
				require.Equal(t, Unknown, got.Status) // no payments in this store
			})
		}
		q := SelectorQuestion(pair[0], pair[1])
		t.Run(q, func(t *testing.T) {
			require.Equal(t, pair[2], debtString(settleQ(t, st, q).Debt))
		})
	}
}

func TestFrameTexts(t *testing.T) {
	want := []string{
		"B L", "B L?", "B L؟", "،B L؟", "Did B repay L?",
		"هل سدد B دين L؟", "هل سدد B دين L?", "ما حالة سداد دين B إلى L؟", "ما حالة سداد دين B إلى L?",
	}
	for n, w := range want {
		require.Equal(t, w, Frame(n+1, "B", "L"))
	}
	require.Equal(t, "@settlement\tB\tL", SelectorQuestion("B", "L"))
}

func TestRejectedQuestions(t *testing.T) {
	st := questionStore(t)
	for _, q := range []string{
		"",
		"Eve",
		"Eve  Mallory",
		" Eve Mallory",
		"Eve Mallory ",
		"Eve\tMallory",
		"Eve Mallory\n",
		"Mallory Eve",
		"Eve Mallory??",
		"Eve Mallory?؟",
		"Eve Mallory.",
		"،Eve Mallory?",
		"،Eve Mallory",
		"، Eve Mallory؟",
		"did Eve repay Mallory?",
		"Did Eve repay Mallory",
		"Did Eve repay Mallory? ",
		"Did Eve not repay Mallory?",
		"Did Mallory repay Eve?",
		"Did Eve repay Mallory?Did Eve repay Mallory?",
		"Eve Mallory? Eve Mallory?",
		"هل سدد Eve دين Mallory",
		"هل سدد Mallory دين Eve؟",
		"هل سدد  Eve دين Mallory؟",
		"لم سدد Eve دين Mallory؟",
		"ما حالة سداد دين Eve إلى Mallory؟ ",
		"ما حالة سداد دين Eve إلى Mallory",
		"ما حالة سداد دين Mallory إلى Eve؟",
		"Ev Mallory",
		"Eve Mallor",
		"Evee Mallory",
		"EVE MALLORY",
		"@settlement Eve Mallory",
		"@settlement\tEve\tMallory\t",
		"@settlement\tEve\tMallory\n",
		"@settlement\tEve Mallory",
		"@settlement\tMallory\tEve",
		"@settlement\t\tEve\tMallory",
		"@Settlement\tEve\tMallory",
		"@claim Eve Mallory",
		// Similar names do not match (CONTRACT 14 self-check).
		"Alicee Bob", "Alice Bobb", "أحمدان خالد؟",
		// Non-plain stored names through the frames.
		"Dr. Who Bob", "Did Bob", "Did Did repay Bob?", "Zed  Two Bob", "Q\"1 R\\2", "A\rB Bob",
		"Ali not Bob", "Omar Ali؟", "Omar Ali؟?", "Ctl\x01 Bob", "Del\x7f Bob", " Lead Bob", "Trail  Bob",
		"Sam ليست", "Tom Bob (jr)", "هل خالد", "هل سدد هل دين خالد؟",
		// CR names are not selectable even through the selector.
		"@settlement\tA\rB\tBob",
	} {
		t.Run(q, func(t *testing.T) {
			got := settleQ(t, st, q)
			require.Equal(t, Unknown, got.Status)
			require.Nil(t, got.Debt)
			require.Empty(t, got.Evidence)
		})
	}
}

// TestSelectorBypassesPlainNames: names that fail the plain-name test are
// still selected by "@settlement<TAB>B<TAB>L".
func TestSelectorBypassesPlainNames(t *testing.T) {
	st := questionStore(t)
	for _, c := range []struct{ b, l, debt string }{
		{"Dr. Who", "Bob", "5/1 SAR Dr. Who→Bob"},
		{"Did", "Bob", "6/1 SAR Did→Bob"},
		{"Zed  Two", "Bob", "7/1 SAR Zed  Two→Bob"},
		{"Q\"1", "R\\2", "8/1 SAR Q\"1→R\\2"},
		{"Ali", "not Bob", "11/1 SAR Ali→not Bob"},
		{"Omar", "Ali؟", "12/1 SAR Omar→Ali؟"},
		{"Ctl\x01", "Bob", "13/1 SAR Ctl\x01→Bob"},
		{"Del\x7f", "Bob", "14/1 SAR Del\x7f→Bob"},
		{" Lead", "Bob", "15/1 SAR  Lead→Bob"},
		{"Trail ", "Bob", "16/1 SAR Trail →Bob"},
		{"Sam", "ليست", "17/1 SAR Sam→ليست"},
		{"Tom", "Bob (jr)", "18/1 SAR Tom→Bob (jr)"},
		{"هل", "خالد", "19/1 SAR هل→خالد"},
	} {
		q := SelectorQuestion(c.b, c.l)
		t.Run(q, func(t *testing.T) {
			require.False(t, PlainName(c.b) && PlainName(c.l))
			require.Equal(t, c.debt, debtString(settleQ(t, st, q).Debt))
			for n := 1; n <= 9; n++ {
				require.False(t, Selects(Frame(n, c.b, c.l), c.b, c.l), "frame %d", n)
			}
		})
	}
}

// TestFrameSplitAmbiguity: the selection test runs per stored pair, so "A B C"
// selects both (A B, C) and (A, B C); different debts make it ambiguous.
func TestFrameSplitAmbiguity(t *testing.T) {
	s := newStore(t, borrowed("Abu Bakr", "Umar", "10", "SAR", "T1"), borrowed("Abu", "Bakr Umar", "20", "SAR", "T1"))
	got, err := EvaluateSettlement(s, "Abu Bakr Umar")
	require.NoError(t, err)
	requireSettlement(t, got, Unknown, "", "0/1", []uint64{1, 2})
	require.True(t, got.Ambiguous)

	got, err = EvaluateSettlement(s, "@settlement\tAbu\tBakr Umar")
	require.NoError(t, err)
	requireSettlement(t, got, Unknown, "20/1 SAR Abu→Bakr Umar", "0/1", []uint64{2})
}

func TestSelectsNameRules(t *testing.T) {
	long := strings.Repeat("n", 127)
	for _, c := range []struct {
		name           string
		question, b, l string
		want           bool
	}{
		{"plain frame", "Alice Bob", "Alice", "Bob", true},
		{"selector", "@settlement\tAlice\tBob", "Alice", "Bob", true},
		{"127-byte names", long + " " + long, long, long, true},
		{"127-byte names via selector", "@settlement\t" + long + "\t" + long, long, long, true},
		{"128-byte borrower", long + "n Bob", long + "n", "Bob", false},
		{"128-byte borrower via selector", "@settlement\t" + long + "n\tBob", long + "n", "Bob", false},
		{"128-byte lender via selector", "@settlement\tBob\t" + long + "n", "Bob", long + "n", false},
		{"empty borrower via selector", "@settlement\t\tBob", "", "Bob", false},
		{"empty lender via selector", "@settlement\tBob\t", "Bob", "", false},
		{"empty lender via frame", "Bob ", "Bob", "", false},
		{"TAB in borrower via selector", "@settlement\tA\tB\tC", "A\tB", "C", false},
		{"TAB in lender via selector", "@settlement\tA\tB\tC", "A", "B\tC", false},
		{"LF in lender via selector", "@settlement\tA\tB\nC", "A", "B\nC", false},
		{"CR in borrower via selector", "@settlement\tA\rB\tC", "A\rB", "C", false},
		{"non-plain borrower via selector", "@settlement\tA.\tC", "A.", "C", true},
		{"non-plain borrower via frame", "A. C", "A.", "C", false},
		{"frame needs exact bytes", "alice bob", "Alice", "Bob", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, Selects(c.question, c.b, c.l))
		})
	}
}

func TestPlainName(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"Alice", true}, {"Abu Bakr", true}, {"أحمد", true}, {"عبد الله", true}, {"x@y", true},
		{"Ali-Baba", true}, {"O_K", true}, {"did-not", true}, {"Didn", true}, {"repayment", true},
		{"ﻻ", true}, {"100", true}, {"a/b", true}, {"#1", true}, {"é", true},
		{"", false}, {" Alice", false}, {"Alice ", false}, {"Abu  Bakr", false}, {" ", false},
		{"Dr.", false}, {"A?", false}, {"A!", false}, {"A;", false}, {"A:", false}, {"A,", false},
		{"(A)", false}, {"[A]", false}, {"{A}", false}, {"<A>", false}, {"A\"", false}, {"A'", false},
		{"A\\B", false}, {"A؟", false}, {"A،B", false}, {"A؛", false}, {"A\x01", false}, {"A\x7f", false},
		{"A\tB", false}, {"A\nB", false}, {"A\rB", false},
		{"Did", false}, {"did", false}, {"repay", false}, {"not", false}, {"Not", false}, {"NOT", false},
		{"Abu did", false}, {"not Bob", false},
		{"هل", false}, {"سدد", false}, {"دين", false}, {"ما", false}, {"حالة", false}, {"سداد", false},
		{"إلى", false}, {"لم", false}, {"لن", false}, {"لا", false}, {"ليس", false}, {"ليست", false},
		{"ربما", false}, {"إذا", false}, {"قد", false}, {"أحمد لا", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, PlainName(c.name))
		})
	}
	require.Len(t, questionReserved, 21)
}

// settleQ evaluates q on s and fails the test on error.
func settleQ(t *testing.T, s *engine.Store, q string) *Settlement {
	t.Helper()
	got, err := EvaluateSettlement(s, q)
	require.NoError(t, err)
	return got
}
