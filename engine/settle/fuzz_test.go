package settle

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/engine"
)

// fuzzSource exercises every reasoner path and the literal claims: typed
// debts, links, payments, contradictions, duplicates, an overflow, a
// currency "-" debt, Arabic sentences and literal statements.
var fuzzSource = strings.Join([]string{
	"Opening prose about Alice and Bob.",
	rec("Alice", "BORROWED_FROM", "Bob", "100", "SAR", "T1", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("Saud", "INTERMEDIARY_FOR", "Bob", "-", "SAR", "T2", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("Alice", "PAID_TO", "Saud", "40", "SAR", "T3", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("Alice", "TRANSFER_TO", "Saud", "60", "SAR", "T4", "UNCERTAIN", "POSITIVE", "PENDING"),
	rec("Alice", "PAID_TO", "Bob", "40", "SAR", "T3", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("C", "BORROWED_FROM", "D", "1", "SAR", "T1", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("C", "PAID_TO", "D", "1/4611686018427387904", "SAR", "T2", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("C", "PAID_TO", "D", "1/3", "SAR", "T3", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("E", "BORROWED_FROM", "F", "100", "SAR", "T1", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("E", "BORROWED_FROM", "F", "200", "SAR", "T1", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("G", "BORROWED_FROM", "H", "10", "-", "T1", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("G", "PAID_TO", "H", "10", "-", "T2", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("K\"1\\x", "BORROWED_FROM", "L\x01M\x7f", "5", "USD", "T\"1", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("K\"1\\x", "PAID_TO", "L\x01M\x7f", "5", "USD", "T2", "ASSERTED", "POSITIVE", "CONFIRMED"),
	rec("K\"1\\x", "PAID_TO", "L\x01M\x7f", "5", "USD", "T2", "ASSERTED", "NEGATIVE", "CONFIRMED"),
	"أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.",
	"أكد خالد أن سعود وسيط عنه في اليوم الثاني.",
	"أكد سعود استلام مبلغ 40 ريال سعودي من أحمد في اليوم الثاني.",
	"حوّل أحمد إلى سعود مبلغ 60 ريال سعودي في اليوم الثالث ولم يثبت وصول الحوالة.",
	"Alice owns Book.",
	"  أحمد\tيملك  كتاب. ",
	"A\"li owns B\\ook.",
}, "\r\n") + "\n"

// fuzzSeeds are the f.Add seeds; testdata/fuzz/FuzzQuery holds more.
var fuzzSeeds = []string{
	"",
	"Did Alice repay Bob?",
	"@settlement\tAlice\tBob",
	"Alice Bob",
	"C D",
	"E F",
	"G H",
	"@settlement\tK\"1\\x\tL\x01M\x7f",
	"هل سدد أحمد دين خالد؟",
	"ما حالة سداد دين أحمد إلى خالد؟",
	"،أحمد خالد؟",
	"@claim\tAlice\towns\tBook",
	"@claim\tA\"li\towns\tB\\ook",
	"@claim\tAlice\towns",
	"@claim\t\t\t",
	"\xff\xfe",
}

func FuzzQuery(f *testing.F) {
	s, err := engine.NewStore([]byte(fuzzSource), 1750000000)
	if err != nil {
		f.Fatal(err)
	}
	for _, q := range fuzzSeeds {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out, err := Query(s, q)
		again, err2 := Query(s, q)
		if !bytes.Equal(out, again) || (err == nil) != (err2 == nil) {
			t.Fatalf("Query(%q) is not deterministic", q)
		}
		if err != nil {
			if !IsClaim(q) || !errors.Is(err, ErrClaimSyntax) {
				t.Fatalf("Query(%q): unexpected error %v", q, err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Query(%q) = %q is not valid JSON", q, out)
		}
		if bytes.ContainsAny(out, "\n\r") {
			t.Fatalf("Query(%q) is not a single line", q)
		}
		var j struct {
			Status   string            `json:"status"`
			Question string            `json:"question"`
			Evidence []json.RawMessage `json:"evidence"`
		}
		if err := json.Unmarshal(out, &j); err != nil {
			t.Fatalf("Query(%q): %v", q, err)
		}
		if utf8.ValidString(q) && j.Question != q {
			t.Fatalf("Query(%q) echoes question %q", q, j.Question)
		}
		switch Status(j.Status) {
		case Supported, Partial, Conflict, Unknown:
			if IsClaim(q) {
				t.Fatalf("claim %q got settlement status %s", q, j.Status)
			}
		case ExactStated, Unresolved:
			if !IsClaim(q) {
				t.Fatalf("question %q got claim status %s", q, j.Status)
			}
		default:
			t.Fatalf("Query(%q): status %q", q, j.Status)
		}
	})
}
