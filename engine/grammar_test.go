package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ---------------------------------------------------------------------------
// Helpers shared by the engine tests.

// ev is the observable content of an event: its eight text fields and the
// amount ("-" when absent, else the reduced "num/den").
type ev struct {
	Subject, Predicate, Object, Amount, Currency, Time, Modality, Polarity, Status string
}

func evOf(e Event) ev {
	amount := NoValue
	if e.AmountPresent {
		amount = e.Amount.String()
	}
	return ev{e.Subject, e.Predicate, e.Object, amount, e.Currency, e.Time, e.Modality, e.Polarity, e.Status}
}

func evsOf(events []Event) []ev {
	var out []ev
	for _, e := range events {
		out = append(out, evOf(e))
	}
	return out
}

// lit is the event of a literal statement (CONTRACT 3.2 field table).
func lit(s, p, o string) ev {
	return ev{s, p, o, NoValue, NoValue, NoValue, ModalityLiteral, PolarityPositive, StatusAsserted}
}

// typed joins the nine fields of an @chronicle record.
func typed(f ...string) string { return "@chronicle\t" + strings.Join(f, "\t") }

// tev is the event of a typed record: field 4 is the (reduced) amount.
func tev(s, p, o, amount, cur, tm, mod, pol, st string) ev {
	return ev{s, p, o, amount, cur, tm, mod, pol, st}
}

func extractString(src string, p Profile) ([]Event, error) {
	b := []byte(src)
	return Extract(b, sha256.Sum256(b), p)
}

// requireExtractError checks the sentinel, the line and the absolute offset of
// an extraction error, and that its message names them.
func requireExtractError(t testing.TB, err error, sentinel error, line, offset int) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, sentinel)
	var xe *ExtractError
	require.True(t, errors.As(err, &xe), "error %T is not *ExtractError", err)
	require.Equal(t, line, xe.Line, "line of %q", err)
	require.Equal(t, offset, xe.Offset, "offset of %q", err)
	require.NotEmpty(t, xe.Detail)
	if line > 0 {
		require.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("line %d (byte %d): ", line, offset)), "message %q", err)
	} else {
		require.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("byte %d: ", offset)), "message %q", err)
	}
}

// checkEvents asserts the invariants every extracted event satisfies: spans
// are whole physical lines without LF and one trailing CR, IDs follow CONTRACT 2,
// text fields are 1..127 bytes of strict UTF-8, amounts are reduced and an
// absent amount is stored as 0/1.
func checkEvents(t testing.TB, src []byte, events []Event) {
	t.Helper()
	doc := sha256.Sum256(src)
	lines := map[int]Line{}
	require.NoError(t, ForEachLine(src, func(l Line) error { lines[l.Start] = l; return nil }))
	require.LessOrEqual(t, len(events), MaxEvents)
	prev := -1
	for _, e := range events {
		l, ok := lines[int(e.ByteStart)]
		require.True(t, ok, "event does not start a line: %d", e.ByteStart)
		require.Greater(t, int(e.ByteStart), prev, "events out of source order")
		prev = int(e.ByteStart)
		require.Equal(t, uint64(l.End), e.ByteEnd)
		require.Equal(t, uint64(l.Number), e.LineStart)
		require.Equal(t, e.LineStart, e.LineEnd)
		span := src[e.ByteStart:e.ByteEnd]
		require.LessOrEqual(t, len(span), MaxSpanLen)
		require.False(t, bytes.ContainsRune(span, '\n'))
		if int(e.ByteEnd) < len(src) {
			require.True(t, src[e.ByteEnd] == '\n' || (src[e.ByteEnd] == '\r' && (int(e.ByteEnd)+1 == len(src) || src[e.ByteEnd+1] == '\n')))
		}
		require.Equal(t, sha256.Sum256(span), e.SpanHash)
		require.Equal(t, refID("event-v1", doc, int(e.ByteStart), int(e.ByteEnd), span), e.ID)
		require.Equal(t, refID("span-v1 ", doc, int(e.ByteStart), int(e.ByteEnd), span), e.SpanID)
		for k, f := range e.Fields() {
			require.GreaterOrEqual(t, len(f), 1, "field %d empty", k+1)
			require.LessOrEqual(t, len(f), MaxFieldLen, "field %d too long", k+1)
			require.True(t, ValidText([]byte(f)), "field %d not text", k+1)
		}
		requireReduced(t, e.Amount)
		if !e.AmountPresent {
			require.Equal(t, Zero, e.Amount)
		}
	}
}

// gcase is one extraction table case: either the events of src or a fatal
// error with its sentinel, line and offset (the index of the first
// occurrence of `at` in src, or `off` when at is empty).
type gcase struct {
	name string
	src  string
	want []ev
	err  error
	line int
	at   string
	off  int
}

func runGrammarCases(t *testing.T, profile Profile, cases []gcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			events, err := extractString(tc.src, profile)
			if tc.err != nil {
				off := tc.off
				if tc.at != "" {
					off = strings.Index(tc.src, tc.at)
					require.GreaterOrEqual(t, off, 0, "bad test: %q not in source", tc.at)
				}
				requireExtractError(t, err, tc.err, tc.line, off)
				require.Nil(t, events)
				return
			}
			require.NoError(t, err)
			checkEvents(t, []byte(tc.src), events)
			require.Equal(t, tc.want, evsOf(events))
		})
	}
}

// ---------------------------------------------------------------------------
// CONTRACT 7.1 dispatch.

const (
	typedOK   = "@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED"
	arabicOK  = "أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول."
	literalOK = "Alice owns Book."
)

var (
	typedOKEv  = tev("Alice", PredBorrowedFrom, "Bob", "100/1", "SAR", "T1", "ASSERTED", "POSITIVE", "CONFIRMED")
	arabicOKEv = ev{"أحمد", PredBorrowedFrom, "خالد", "100/1", "SAR", "اليوم الأول", ModalityAsserted, PolarityPositive, StatusConfirmed}
	literalEv  = lit("Alice", "owns", "Book")
)

func TestDispatchV2(t *testing.T) {
	runGrammarCases(t, ProfileV2, []gcase{
		{name: "typed", src: typedOK + "\n", want: []ev{typedOKEv}},
		{name: "arabic", src: arabicOK + "\n", want: []ev{arabicOKEv}},
		{name: "literal", src: literalOK + "\n", want: []ev{literalEv}},
		{name: "prose", src: "Just some prose here\n", want: nil},
		{name: "all three in order with prose and empty lines",
			src:  "intro\n" + typedOK + "\n\n" + arabicOK + "\r\n" + "more prose\n" + literalOK,
			want: []ev{typedOKEv, arabicOKEv, literalEv}},
		{name: "marker alone", src: "@chronicle\n", err: ErrMarker, line: 1, off: 10},
		{name: "marker alone at EOF", src: "x\n@chronicle", err: ErrMarker, line: 2, off: 12},
		{name: "marker with CR before LF", src: "@chronicle\r\n", err: ErrMarker, line: 1, off: 10},
		{name: "marker followed by space", src: "ok\r\n@chronicle x\n", err: ErrMarker, line: 2, off: 14},
		{name: "plural marker", src: "@chronicles\tA\tB\n", err: ErrMarker, line: 1, off: 10},
		{name: "marker then CR then TAB", src: "@chronicle\r\tAlice\n", err: ErrMarker, line: 1, off: 10},
		{name: "marker then literal-looking text", src: "@chronicle owns Book.\n", err: ErrMarker, line: 1, off: 10},
		{name: "marker is case-sensitive", src: "@Chronicle\tx\n", want: nil},
		{name: "marker not at line start", src: " @chronicle\tA\n", want: nil},
		{name: "BOM before marker makes prose", src: "\ufeff" + typedOK + "\n", want: nil},
		{name: "typed error on line 3", src: "a\nb\n@chronicle\tA\n", err: ErrTypedRecord, line: 3, off: 4},
		{name: "first fatal line wins", src: "@chronicle\n@chronicle\tA\n", err: ErrMarker, line: 1, off: 10},
		{name: "arabic failure falls through to literal", src: "أقر أحمد كتابا.\n", want: []ev{lit("أقر", "أحمد", "كتابا")}},
	})
}

// V1 profile: typed records and the marker rule only; every other line is
// prose, including lines that are fatal under V2.
func TestDispatchV1(t *testing.T) {
	runGrammarCases(t, ProfileV1, []gcase{
		{name: "typed", src: typedOK + "\n", want: []ev{typedOKEv}},
		{name: "arabic is prose", src: arabicOK + "\n", want: nil},
		{name: "literal is prose", src: literalOK + "\n", want: nil},
		{name: "mixed", src: literalOK + "\n" + typedOK + "\r\n" + arabicOK, want: []ev{typedOKEv}},
		{name: "marker still fatal", src: literalOK + "\n@chronicle\n", err: ErrMarker, line: 2, off: 27},
		{name: "typed error still fatal", src: typed("A", "PAID_TO", "B", "1/0", "SAR", "T", "M", "POSITIVE", "ASSERTED"),
			err: ErrTypedRecord, line: 1, at: "1/0"},
		{name: "bad arabic digit is prose", src: "أقر أحمد بأنه اقترض من خالد مبلغ مائة ريال سعودي في اليوم الأول.\n", want: nil},
		{name: "long arabic line is prose", src: "أقر " + strings.Repeat("x", 2000) + ".\n", want: nil},
		{name: "long literal token is prose", src: strings.Repeat("x", 200) + " owns Book.\n", want: nil},
		{name: "long literal span is prose", src: "a" + strings.Repeat(" ", 2000) + "b c.\n", want: nil},
	})
}

// ---------------------------------------------------------------------------
// CONTRACT 7.2 typed records.

// typedFieldOffset is the offset of field k (0-based) within a typed line.
func typedFieldOffset(fields []string, k int) int {
	off := len("@chronicle\t")
	for _, f := range fields[:k] {
		off += len(f) + 1
	}
	return off
}

func TestTypedRecordFields(t *testing.T) {
	std := func(amount, cur, tm, mod, pol, st string) string {
		return typed("Alice", "PAID_TO", "Bob", amount, cur, tm, mod, pol, st)
	}
	stdEv := func(amount, cur, tm, mod, pol, st string) ev {
		return tev("Alice", "PAID_TO", "Bob", amount, cur, tm, mod, pol, st)
	}
	cases := []gcase{
		{name: "golden g1 debt", src: typedOK, want: []ev{typedOKEv}},
		{name: "absent amount", src: typed("Saud", "INTERMEDIARY_FOR", "Bob", "-", "SAR", "T2", "ASSERTED", "POSITIVE", "CONFIRMED"),
			want: []ev{tev("Saud", "INTERMEDIARY_FOR", "Bob", "-", "SAR", "T2", "ASSERTED", "POSITIVE", "CONFIRMED")}},
		{name: "pending transfer", src: typed("Alice", "TRANSFER_TO", "Saud", "60", "SAR", "T4", "UNCERTAIN", "POSITIVE", "PENDING"),
			want: []ev{tev("Alice", "TRANSFER_TO", "Saud", "60/1", "SAR", "T4", "UNCERTAIN", "POSITIVE", "PENDING")}},
		{name: "negative denied", src: std("5", "USD", "T", "ASSERTED", "NEGATIVE", "DENIED"),
			want: []ev{stdEv("5/1", "USD", "T", "ASSERTED", "NEGATIVE", "DENIED")}},
		{name: "status ASSERTED", src: std("5", "USD", "T", "ASSERTED", "POSITIVE", "ASSERTED"),
			want: []ev{stdEv("5/1", "USD", "T", "ASSERTED", "POSITIVE", "ASSERTED")}},
		{name: "modality free text LITERAL", src: std("1", "SAR", "T", "LITERAL", "POSITIVE", "CONFIRMED"),
			want: []ev{stdEv("1/1", "SAR", "T", "LITERAL", "POSITIVE", "CONFIRMED")}},
		{name: "modality lower case", src: std("1", "SAR", "T", "asserted", "POSITIVE", "CONFIRMED"),
			want: []ev{stdEv("1/1", "SAR", "T", "asserted", "POSITIVE", "CONFIRMED")}},
		{name: "modality with spaces", src: std("1", "SAR", "T", " maybe so ", "POSITIVE", "CONFIRMED"),
			want: []ev{stdEv("1/1", "SAR", "T", " maybe so ", "POSITIVE", "CONFIRMED")}},
		{name: "currency dash", src: std("10", "-", "T1", "ASSERTED", "POSITIVE", "CONFIRMED"),
			want: []ev{stdEv("10/1", "-", "T1", "ASSERTED", "POSITIVE", "CONFIRMED")}},
		{name: "currency free text", src: std("10", "ريال", "T1", "ASSERTED", "POSITIVE", "CONFIRMED"),
			want: []ev{stdEv("10/1", "ريال", "T1", "ASSERTED", "POSITIVE", "CONFIRMED")}},
		{name: "time with quote and backslash (g2)", src: std("100", "SAR", "T\"1\\x", "ASSERTED", "POSITIVE", "CONFIRMED"),
			want: []ev{stdEv("100/1", "SAR", "T\"1\\x", "ASSERTED", "POSITIVE", "CONFIRMED")}},
		{name: "time with control byte and DEL (g2)", src: std("100", "SAR", "T\x012\x7f", "ASSERTED", "POSITIVE", "CONFIRMED"),
			want: []ev{stdEv("100/1", "SAR", "T\x012\x7f", "ASSERTED", "POSITIVE", "CONFIRMED")}},
		{name: "CR inside a field", src: std("1", "SAR", "T\r1", "ASSERTED", "POSITIVE", "CONFIRMED") + "\r\n",
			want: []ev{stdEv("1/1", "SAR", "T\r1", "ASSERTED", "POSITIVE", "CONFIRMED")}},
		{name: "CR at EOF is not part of status", src: std("1", "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED") + "\r",
			want: []ev{stdEv("1/1", "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED")}},
		{name: "no trimming", src: typed(" Alice ", "PAID_TO", "Bob\u00a0", "1", " SAR", "T ", "ASSERTED", "POSITIVE", "CONFIRMED"),
			want: []ev{tev(" Alice ", "PAID_TO", "Bob\u00a0", "1/1", " SAR", "T ", "ASSERTED", "POSITIVE", "CONFIRMED")}},
		{name: "arabic fields (g4)", src: typed("أحمد", "BORROWED_FROM", "خالد", "100/1", "SAR", "اليوم الأول", "ASSERTED", "POSITIVE", "CONFIRMED"),
			want: []ev{tev("أحمد", "BORROWED_FROM", "خالد", "100/1", "SAR", "اليوم الأول", "ASSERTED", "POSITIVE", "CONFIRMED")}},
		{name: "fields with punctuation and @", src: typed("@x.", "PAID_TO", "a;b", "1", "$", "?", "!", "POSITIVE", "CONFIRMED"),
			want: []ev{tev("@x.", "PAID_TO", "a;b", "1/1", "$", "?", "!", "POSITIVE", "CONFIRMED")}},
		{name: "single-byte fields", src: typed("A", "PAID_TO", "B", "0", "C", "D", "E", "POSITIVE", "PENDING"),
			want: []ev{tev("A", "PAID_TO", "B", "0/1", "C", "D", "E", "POSITIVE", "PENDING")}},
	}
	for _, a := range []struct{ text, want string }{
		{"6/8", "3/4"}, {"002/4", "1/2"}, {"0/7", "0/1"}, {"0", "0/1"}, {"100/1", "100/1"},
		{"1/4611686018427387904", "1/4611686018427387904"}, {maxI64Text, maxI64Text + "/1"},
		{"1/" + maxI64Text, "1/" + maxI64Text}, {strings.Repeat("0", 126) + "7", "7/1"},
	} {
		cases = append(cases, gcase{name: "amount " + a.text, src: std(a.text, "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED"),
			want: []ev{stdEv(a.want, "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED")}})
	}
	for _, p := range []string{PredBorrowedFrom, PredPaidTo, PredIntermediaryFor, PredTransferTo} {
		cases = append(cases, gcase{name: "predicate " + p, src: typed("A", p, "B", "1", "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED"),
			want: []ev{tev("A", p, "B", "1/1", "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED")}})
	}
	for _, pol := range []string{PolarityPositive, PolarityNegative} {
		for _, st := range []string{StatusAsserted, StatusConfirmed, StatusPending, StatusDenied} {
			cases = append(cases, gcase{name: "enum " + pol + " " + st, src: typed("A", "PAID_TO", "B", "-", "-", "-", "-", pol, st),
				want: []ev{tev("A", "PAID_TO", "B", "-", "-", "-", "-", pol, st)}})
		}
	}
	runGrammarCases(t, ProfileV2, cases)
	runGrammarCases(t, ProfileV1, cases)
}

func TestTypedRecordErrors(t *testing.T) {
	good := []string{"Alice", "PAID_TO", "Bob", "100", "SAR", "T1", "ASSERTED", "POSITIVE", "CONFIRMED"}
	with := func(k int, v string) []string {
		f := append([]string(nil), good...)
		f[k] = v
		return f
	}
	const pre = "prose\n" // puts every record on line 2 at offset 6
	var cases []gcase
	add := func(name string, fields []string, sentinel error, k int) {
		off := 0
		if k >= 0 {
			off = typedFieldOffset(fields, k)
		}
		cases = append(cases, gcase{name: name, src: pre + typed(fields...) + "\n", err: sentinel, line: 2, off: len(pre) + off})
	}
	// Field count.
	add("no fields", nil, ErrTypedRecord, -1)
	add("8 fields", good[:8], ErrTypedRecord, -1)
	add("1 field", good[:1], ErrTypedRecord, -1)
	add("10 fields", append(append([]string(nil), good...), "EXTRA"), ErrTypedRecord, -1)
	add("trailing TAB makes 10 fields", append(append([]string(nil), good...), ""), ErrTypedRecord, -1)
	// Empty and over-long fields, each position.
	for k := range good {
		add(fmt.Sprintf("field %d empty", k+1), with(k, ""), ErrTypedRecord, k)
		add(fmt.Sprintf("field %d is 128 bytes", k+1), with(k, strings.Repeat("1", 128)), ErrFieldTooLong, k)
		add(fmt.Sprintf("field %d is 300 bytes", k+1), with(k, strings.Repeat("ب", 150)), ErrFieldTooLong, k)
	}
	// Enumerations are exact and case-sensitive.
	for _, p := range []string{"borrowed_from", "PAID", "PAID_TO ", " PAID_TO", "PAYS", "LITERAL", "PAID_TO\r", "owns"} {
		add(fmt.Sprintf("predicate %q", p), with(1, p), ErrTypedRecord, 1)
	}
	for _, p := range []string{"positive", "NEUTRAL", "POSITIVE ", "POS", "-"} {
		add(fmt.Sprintf("polarity %q", p), with(7, p), ErrTypedRecord, 7)
	}
	for _, s := range []string{"confirmed", "UNKNOWN", "CONFIRMED ", "DENY", "-", "CONFIRMED\rX"} {
		add(fmt.Sprintf("status %q", s), with(8, s), ErrTypedRecord, 8)
	}
	// Amount syntax (CONTRACT 7.5).
	for _, a := range []string{"-0", "+1", " 1", "1 ", "/1", "1/", "1/2/3", "1.5", "1,5", "--", "x", "١٠٠",
		"1/0", "0/0", pow63Text, "1/" + pow63Text, "18446744073709551616", strings.Repeat("9", 127)} {
		add("amount "+a, with(3, a), ErrTypedRecord, 3)
	}
	// Two CRs: only one is dropped, the other ends the status field.
	cases = append(cases, gcase{name: "status ends with CR before CRLF",
		src: pre + typed(good...) + "\r\r\n", err: ErrTypedRecord, line: 2, off: len(pre) + typedFieldOffset(good, 8)})
	runGrammarCases(t, ProfileV2, cases)
	runGrammarCases(t, ProfileV1, cases)
}

// ---------------------------------------------------------------------------
// CONTRACT 7.3 literal statements.

func TestLiteralStatements(t *testing.T) {
	cases := []gcase{
		{name: "basic", src: "Alice owns Book.", want: []ev{lit("Alice", "owns", "Book")}},
		{name: "leading and inner blank runs", src: "  a\tb  \t c.", want: []ev{lit("a", "b", "c")}},
		{name: "trailing blanks after period", src: "a b c. \t ", want: []ev{lit("a", "b", "c")}},
		{name: "blanks between token and period", src: "a b c \t.", want: []ev{lit("a", "b", "c")}},
		{name: "CRLF", src: "a b c.\r\n", want: []ev{lit("a", "b", "c")}},
		{name: "blank then CR (g5)", src: "  أحمد\tيملك  كتاب. \r\n", want: []ev{lit("أحمد", "يملك", "كتاب")}},
		{name: "quote and backslash are content (g5)", src: "A\"li owns B\\ook.", want: []ev{lit("A\"li", "owns", "B\\ook")}},
		{name: "NBSP is token content", src: "a\u00a0b c d.", want: []ev{lit("a\u00a0b", "c", "d")}},
		{name: "BOM is token content", src: "\ufeffAlice owns Book.", want: []ev{lit("\ufeffAlice", "owns", "Book")}},
		{name: "other punctuation is content", src: "(a) [b]-/ #c'\"*.", want: []ev{lit("(a)", "[b]-/", "#c'\"*")}},
		{name: "non-forbidden unicode punctuation", src: "a\u2013b c\u00bfd e\u061ef.", want: []ev{lit("a\u2013b", "c\u00bfd", "e\u061ef")}},
		{name: "emoji and digits", src: "😀 123 ٤٥.", want: []ev{lit("😀", "123", "٤٥")}},
		{name: "three literals", src: "a b c.\nd e f.\ng h i.", want: []ev{lit("a", "b", "c"), lit("d", "e", "f"), lit("g", "h", "i")}},
		{name: "arabic prefix fall-through (CONTRACT 7.4)", src: "أقر أحمد كتابا.", want: []ev{lit("أقر", "أحمد", "كتابا")}},
		{name: "arabic prefix with trailing space", src: "أقر أحمد كتابا. ", want: []ev{lit("أقر", "أحمد", "كتابا")}},
		{name: "tokens of 127 bytes", src: strings.Repeat("a", 127) + " " + strings.Repeat("ب", 63) + "c " + strings.Repeat("d", 127) + ".",
			want: []ev{lit(strings.Repeat("a", 127), strings.Repeat("ب", 63)+"c", strings.Repeat("d", 127))}},

		// No match (prose, never an error).
		{name: "no period", src: "Alice owns Book", want: nil},
		{name: "two tokens", src: "Alice owns.", want: nil},
		{name: "four tokens", src: "Alice really owns Book.", want: nil},
		{name: "only period", src: ".", want: nil},
		{name: "blank then period", src: " \t.", want: nil},
		{name: "empty line", src: "\n", want: nil},
		{name: "blank line", src: " \t \n", want: nil},
		{name: "double period", src: "a b c..", want: nil},
		{name: "period before blanks then text", src: "a b. c", want: nil},
		{name: "CR before CRLF", src: "a b c.\r\r\n", want: nil},
		{name: "CR inside token", src: "a b\rx c.", want: nil},
		{name: "vertical tab is not a separator", src: "a\vb c d.", want: nil},
		{name: "form feed is not a separator", src: "a b\fc d.", want: nil},
		{name: "fullwidth full stop does not end", src: "a b c\uff0e", want: nil},
		{name: "ideographic full stop does not end", src: "a b c\u3002", want: nil},
	}
	for _, c := range ".,;:!?@" {
		for pos := 0; pos < 3; pos++ {
			toks := []string{"aa", "bb", "cc"}
			toks[pos] = "x" + string(c) + "y"
			cases = append(cases, gcase{name: fmt.Sprintf("ascii %q in token %d", c, pos+1), src: strings.Join(toks, " ") + ".", want: nil})
		}
		cases = append(cases, gcase{name: fmt.Sprintf("ascii %q starts a token", c), src: string(c) + "a b c.", want: nil})
	}
	for _, b := range []byte{0x01, 0x08, 0x0b, 0x0c, 0x0d, 0x1b, 0x1f, 0x7f} {
		cases = append(cases, gcase{name: fmt.Sprintf("control byte %#02x in token", b), src: "a b" + string(rune(b)) + " c.", want: nil})
	}
	for _, r := range []rune{0x060C, 0x061B, 0x061F, 0x2024, 0x2025, 0x2026, 0x2027, 0x2028, 0x2029, 0x3002, 0xFF0E, 0xFF01, 0xFF1F} {
		cases = append(cases,
			gcase{name: fmt.Sprintf("U+%04X inside token", r), src: "a b" + string(r) + "x c.", want: nil},
			gcase{name: fmt.Sprintf("U+%04X as last byte before period", r), src: "a b c" + string(r) + ".", want: nil})
	}
	// Neighbours of the forbidden code points are content.
	for _, r := range []rune{0x060B, 0x060D, 0x061A, 0x061C, 0x061E, 0x2023, 0x202A, 0x3001, 0xFF0D, 0xFF1E, 0xFF20} {
		cases = append(cases, gcase{name: fmt.Sprintf("U+%04X is content", r), src: "a b" + string(r) + " c.",
			want: []ev{lit("a", "b"+string(r), "c")}})
	}
	runGrammarCases(t, ProfileV2, cases)
}

// ---------------------------------------------------------------------------
// CONTRACT 7.4 Arabic sentences.

const (
	arAhmed  = "أحمد"
	arKhalid = "خالد"
	arSaud   = "سعود"
	arSAR    = "ريال سعودي"
	arUSD    = "دولار أمريكي"
	arDay1   = "اليوم الأول"
	arDay2   = "اليوم الثاني"
	arDay3   = "اليوم الثالث"
)

// Sentence builders: prefix + pieces joined by the separators of CONTRACT 7.4.
func arAck(subject, object, money, day string) string {
	return "أقر " + subject + " بأنه اقترض من " + object + " مبلغ " + money + " في " + day + "."
}

func arNarr(subject, object, money, day string) string {
	return "اقترض " + subject + " من " + object + " مبلغ " + money + " في " + day + "."
}

func arTransfer(subject, object, money, day string) string {
	return "حوّل " + subject + " إلى " + object + " مبلغ " + money + " في " + day + " ولم يثبت وصول الحوالة."
}

// arReceipt: payee confirms (prefix أكد) or denies (نفى) receiving money from payer.
func arReceipt(prefix, payee, money, payer, day string) string {
	return prefix + payee + " استلام مبلغ " + money + " من " + payer + " في " + day + "."
}

// arLink: lender confirms/denies that agent is his intermediary.
func arLink(prefix, lender, agent, day string) string {
	return prefix + lender + " أن " + agent + " وسيط عنه في " + day + "."
}

const (
	arConfirm = "أكد "
	arDeny    = "نفى "
)

func arEv(subject, pred, object, amount, cur, day, mod, pol, st string) ev {
	return ev{subject, pred, object, amount, cur, day, mod, pol, st}
}

func borrowEv(subject, object, amount, cur, day string) ev {
	return arEv(subject, PredBorrowedFrom, object, amount, cur, day, ModalityAsserted, PolarityPositive, StatusConfirmed)
}

func TestArabicKinds(t *testing.T) {
	runGrammarCases(t, ProfileV2, []gcase{
		{name: "kind 0 acknowledged borrowing", src: arAck(arAhmed, arKhalid, "100 "+arSAR, arDay1),
			want: []ev{borrowEv(arAhmed, arKhalid, "100/1", "SAR", arDay1)}},
		{name: "kind 1 narrative borrowing", src: arNarr(arAhmed, arKhalid, "100 "+arSAR, arDay1),
			want: []ev{borrowEv(arAhmed, arKhalid, "100/1", "SAR", arDay1)}},
		{name: "kind 2 receipt form", src: arReceipt(arConfirm, arSaud, "40 "+arSAR, arAhmed, arDay2),
			want: []ev{arEv(arAhmed, PredPaidTo, arSaud, "40/1", "SAR", arDay2, ModalityAsserted, PolarityPositive, StatusConfirmed)}},
		{name: "kind 3 receipt form", src: arReceipt(arDeny, arSaud, "40 "+arSAR, arAhmed, arDay2),
			want: []ev{arEv(arAhmed, PredPaidTo, arSaud, "40/1", "SAR", arDay2, ModalityAsserted, PolarityNegative, StatusConfirmed)}},
		{name: "kind 2 link form", src: arLink(arConfirm, arKhalid, arSaud, arDay2),
			want: []ev{arEv(arSaud, PredIntermediaryFor, arKhalid, "-", "-", arDay2, ModalityAsserted, PolarityPositive, StatusConfirmed)}},
		{name: "kind 3 link form", src: arLink(arDeny, arKhalid, arSaud, arDay2),
			want: []ev{arEv(arSaud, PredIntermediaryFor, arKhalid, "-", "-", arDay2, ModalityAsserted, PolarityNegative, StatusConfirmed)}},
		{name: "kind 4 transfer", src: arTransfer(arAhmed, arSaud, "60 "+arSAR, arDay3),
			want: []ev{arEv(arAhmed, PredTransferTo, arSaud, "60/1", "SAR", arDay3, ModalityUncertain, PolarityPositive, StatusPending)}},
		{name: "receipt form wins over a complete link form",
			src: arConfirm + arKhalid + " أن " + arSaud + " وسيط عنه في " + arDay2 + " استلام مبلغ x SAR من " + arAhmed + " في " + arDay1 + ".",
			err: ErrArabicAmount, line: 1, at: "x SAR"},
		{name: "CRLF and CR at EOF", src: arAck(arAhmed, arKhalid, "1 SAR", arDay1) + "\r\n" + arLink(arConfirm, arKhalid, arSaud, arDay2) + "\r",
			want: []ev{borrowEv(arAhmed, arKhalid, "1/1", "SAR", arDay1),
				arEv(arSaud, PredIntermediaryFor, arKhalid, "-", "-", arDay2, ModalityAsserted, PolarityPositive, StatusConfirmed)}},
	})
}

// The golden g3 prose fixture: the four sentences the original tool
// extracted, field for field (read back from its store).
func TestArabicGoldenFixture(t *testing.T) {
	dir := filepath.Join(goldenDir, "g3_arabic_prose_fixture")
	data, err := os.ReadFile(filepath.Join(dir, "input.txt.chronicle"))
	require.NoError(t, err)
	s, err := Load(data)
	require.NoError(t, err)
	want := []ev{
		borrowEv(arAhmed, arKhalid, "100/1", "SAR", arDay1),
		arEv(arSaud, PredIntermediaryFor, arKhalid, "-", "-", arDay2, ModalityAsserted, PolarityPositive, StatusConfirmed),
		arEv(arAhmed, PredPaidTo, arSaud, "40/1", "SAR", arDay2, ModalityAsserted, PolarityPositive, StatusConfirmed),
		arEv(arAhmed, PredTransferTo, arSaud, "60/1", "SAR", arDay3, ModalityUncertain, PolarityPositive, StatusPending),
	}
	require.Equal(t, want, evsOf(s.Events))
	require.Equal(t, []uint64{2, 4, 6, 8}, []uint64{s.Events[0].LineStart, s.Events[1].LineStart, s.Events[2].LineStart, s.Events[3].LineStart})
	// The builders reproduce the golden lines exactly.
	lines := strings.Split(string(s.Source), "\n")
	require.Equal(t, "أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.", lines[1])
	require.Equal(t, arLink(arConfirm, arKhalid, arSaud, arDay2), lines[3])
	require.Equal(t, arReceipt(arConfirm, arSaud, "40 "+arSAR, arAhmed, arDay2), lines[5])
	require.Equal(t, arTransfer(arAhmed, arSaud, "60 "+arSAR, arDay3), lines[7])
}

func TestArabicCurrencyAndDigits(t *testing.T) {
	var cases []gcase
	okMoney := []struct{ money, amount, cur string }{
		{"100 " + arSAR, "100/1", "SAR"},
		{"100 SAR", "100/1", "SAR"},
		{"100 " + arUSD, "100/1", "USD"},
		{"100 USD", "100/1", "USD"},
		{"١٠٠ " + arSAR, "100/1", "SAR"},
		{"٠١٢٣٤٥٦٧٨٩ SAR", "123456789/1", "SAR"},
		{"1٠0 USD", "100/1", "USD"},
		{"6/8 SAR", "3/4", "SAR"},
		{"٦/٨ SAR", "3/4", "SAR"},
		{"002/4 USD", "1/2", "USD"},
		{"0 SAR", "0/1", "SAR"},
		{"0/7 SAR", "0/1", "SAR"},
		{maxI64Text + " SAR", maxI64Text + "/1", "SAR"},
		{"1/" + maxI64Text + " SAR", "1/" + maxI64Text, "SAR"},
	}
	for _, m := range okMoney {
		cases = append(cases,
			gcase{name: "kind 0 money " + m.money, src: arAck(arAhmed, arKhalid, m.money, arDay1),
				want: []ev{borrowEv(arAhmed, arKhalid, m.amount, m.cur, arDay1)}},
			gcase{name: "kind 2 money " + m.money, src: arReceipt(arConfirm, arSaud, m.money, arAhmed, arDay2),
				want: []ev{arEv(arAhmed, PredPaidTo, arSaud, m.amount, m.cur, arDay2, ModalityAsserted, PolarityPositive, StatusConfirmed)}},
			gcase{name: "kind 4 money " + m.money, src: arTransfer(arAhmed, arSaud, m.money, arDay3),
				want: []ev{arEv(arAhmed, PredTransferTo, arSaud, m.amount, m.cur, arDay3, ModalityUncertain, PolarityPositive, StatusPending)}})
	}
	// Unknown currency or malformed MONEY split: prose (no match), even with a
	// bad number.
	for _, money := range []string{"100 ريال", "100 دولار", "100 sar", "100 usd", "100 Sar", "100 EUR", "100 ريال سعودي ",
		"100  SAR", "100", "100SAR", " 100 SAR", "مائة ريال", "1.5 دولار", "100 SAR SAR", "100 ريال  سعودي", "100\tSAR"} {
		cases = append(cases, gcase{name: "no match money " + money, src: arAck(arAhmed, arKhalid, money, arDay1), want: nil})
	}
	// A bad number under a recognised currency is fatal (every money kind).
	bad := []struct{ money, at string }{
		{"مائة " + arSAR, "مائة"},
		{"۱۰۰ SAR", "۱۰۰"},              // Persian digits U+06F0..U+06F9
		{"1.5 USD", ".5"},               // decimal point
		{"١x٠ SAR", "x٠"},               // ASCII letter between Arabic-Indic digits
		{"-1 SAR", "-1"},                // sign
		{"+1 SAR", "+1"},                // sign
		{"1,5 SAR", ",5"},               // comma
		{"1٫5 SAR", "٫5"},               // Arabic decimal separator U+066B
		{"12a " + arUSD, "a "},          // letter
		{"10\u00a0 SAR", "\u00a0 SAR"},  // NBSP inside NUMBER
		{"1/0 SAR", "1/0"},              // zero denominator
		{"٠/٠ SAR", "٠/٠"},              // zero denominator in Arabic-Indic digits
		{pow63Text + " SAR", pow63Text}, // range
		{"1/" + pow63Text + " SAR", "1/"},
		{"1/2/3 SAR", "1/2/3"},
		{"/5 SAR", "/5"},
		{"5/ SAR", "5/"},
		{"/ SAR", "/ SAR"},
	}
	for _, b := range bad {
		for name, line := range map[string]string{
			"kind 0": arAck(arAhmed, arKhalid, b.money, arDay1),
			"kind 1": arNarr(arAhmed, arKhalid, b.money, arDay1),
			"kind 2": arReceipt(arConfirm, arSaud, b.money, arAhmed, arDay2),
			"kind 3": arReceipt(arDeny, arSaud, b.money, arAhmed, arDay2),
			"kind 4": arTransfer(arAhmed, arSaud, b.money, arDay3),
		} {
			cases = append(cases, gcase{name: name + " fatal money " + b.money, src: "سطر\n" + line + "\n",
				err: ErrArabicAmount, line: 2, at: b.at})
		}
	}
	runGrammarCases(t, ProfileV2, cases)
}

// CONTRACT 7.4 step 6: MONEY is evaluated before names and day, so a bad number
// is fatal even when the names and the day are invalid; but a structural
// miss (step 5) comes first and makes the line prose.
func TestArabicEvaluationOrder(t *testing.T) {
	runGrammarCases(t, ProfileV2, []gcase{
		{name: "bad digit beats invalid names and day", src: arAck("1حمد", "خالد!", "مائة SAR", "اليوم العشرين"),
			err: ErrArabicAmount, line: 1, at: "مائة"},
		{name: "bad digit beats reserved word name", src: arNarr("لم", arKhalid, "x SAR", arDay1),
			err: ErrArabicAmount, line: 1, at: "x SAR"},
		{name: "transfer without tail: prose before money", src: "حوّل أحمد إلى سعود مبلغ مائة ريال سعودي في اليوم الثالث.", want: nil},
		{name: "transfer with text after tail: prose before money",
			src: "حوّل أحمد إلى سعود مبلغ مائة ريال سعودي في اليوم الثالث ولم يثبت وصول الحوالة بعد.", want: nil},
		{name: "missing time separator: prose before money", src: "أقر أحمد بأنه اقترض من خالد مبلغ مائة ريال سعودي.", want: nil},
		{name: "unknown currency beats bad digit", src: arAck(arAhmed, arKhalid, "مائة ريال", arDay1), want: nil},
		{name: "link form has no money: a number word is a name", src: arLink(arConfirm, arKhalid, "مائة", arDay1),
			want: []ev{arEv("مائة", PredIntermediaryFor, arKhalid, "-", "-", arDay1, ModalityAsserted, PolarityPositive, StatusConfirmed)}},
		{name: "over-long piece beats bad money", src: arAck(strings.Repeat("a", 128), arKhalid, "مائة SAR", arDay1),
			err: ErrFieldTooLong, line: 1, off: len("أقر ")},
		{name: "no trailing period: prose", src: strings.TrimSuffix(arAck(arAhmed, arKhalid, "مائة SAR", arDay1), "."), want: nil},
		// An empty piece stops the parse (no match) before later fatal steps.
		{name: "empty subject then bad money: prose", src: "أقر  بأنه اقترض من خالد مبلغ مائة SAR في اليوم الأول.", want: nil},
		{name: "empty object then bad money: prose", src: "اقترض أحمد من  مبلغ مائة SAR في اليوم الأول.", want: nil},
		{name: "empty payee then bad money: prose", src: "أكد  استلام مبلغ مائة SAR من أحمد في اليوم الثاني.", want: nil},
		{name: "empty subject then 128-byte object: prose", src: "أقر  بأنه اقترض من " + strings.Repeat("a", 128) + " مبلغ 1 SAR في اليوم الأول.", want: nil},
		{name: "empty transfer recipient then bad money: prose", src: "حوّل أحمد إلى  مبلغ x SAR في اليوم الثالث ولم يثبت وصول الحوالة.", want: nil},
		// An empty NUMBER (MONEY starting with a space) is no match, even
		// before a recognised currency.
		{name: "empty number before SAR: prose", src: arAck(arAhmed, arKhalid, " SAR", arDay1), want: nil},
		{name: "empty number before riyal: prose", src: arReceipt(arConfirm, arSaud, " "+arSAR, arAhmed, arDay1), want: nil},
		{name: "empty number in transfer: prose", src: arTransfer(arAhmed, arSaud, " USD", arDay1), want: nil},
	})
}

func TestArabicStructure(t *testing.T) {
	runGrammarCases(t, ProfileV2, []gcase{
		// Prefix recognition.
		{name: "transfer prefix without shadda", src: "حول أحمد إلى سعود مبلغ 60 SAR في اليوم الثالث ولم يثبت وصول الحوالة.", want: nil},
		{name: "prefix followed by TAB", src: "أقر\tأحمد بأنه اقترض من خالد مبلغ 1 SAR في اليوم الأول.", want: nil},
		{name: "prefix followed by NBSP", src: "أقر\u00a0أحمد بأنه اقترض من خالد مبلغ 1 SAR في اليوم الأول.", want: nil},
		{name: "leading space", src: " " + arAck(arAhmed, arKhalid, "1 SAR", arDay1), want: nil},
		{name: "negation before prefix", src: "لم " + arAck(arAhmed, arKhalid, "1 SAR", arDay1), want: nil},
		{name: "qualifier before prefix", src: "ربما " + arAck(arAhmed, arKhalid, "1 SAR", arDay1), want: nil},
		{name: "quoted sentence", src: "«" + arAck(arAhmed, arKhalid, "1 SAR", arDay1) + "»", want: nil},
		{name: "reported speech", src: "قال شاهد: " + arAck(arAhmed, arKhalid, "1 SAR", arDay1), want: nil},
		{name: "BOM before prefix", src: "\ufeff" + arAck(arAhmed, arKhalid, "1 SAR", arDay1), want: nil},
		// The final period.
		{name: "no period", src: strings.TrimSuffix(arAck(arAhmed, arKhalid, "1 SAR", arDay1), "."), want: nil},
		{name: "space after period", src: arAck(arAhmed, arKhalid, "1 SAR", arDay1) + " ", want: nil},
		{name: "arabic full stop instead of period", src: strings.TrimSuffix(arAck(arAhmed, arKhalid, "1 SAR", arDay1), ".") + "\u06d4", want: nil},
		{name: "two periods", src: arAck(arAhmed, arKhalid, "1 SAR", arDay1) + ".", want: nil},
		// Separators.
		{name: "kind 0 with narrative separator", src: "أقر أحمد من خالد مبلغ 1 SAR في اليوم الأول.", want: nil},
		{name: "kind 1 with kind 0 separator", src: "اقترض أحمد بأنه اقترض من خالد مبلغ 1 SAR في اليوم الأول.", want: nil},
		{name: "missing amount separator", src: "أقر أحمد بأنه اقترض من خالد 1 SAR في اليوم الأول.", want: nil},
		{name: "missing time separator", src: "أقر أحمد بأنه اقترض من خالد مبلغ 1 SAR اليوم الأول.", want: nil},
		{name: "empty subject", src: "أقر  بأنه اقترض من خالد مبلغ 1 SAR في اليوم الأول.", want: nil},
		{name: "empty object", src: "أقر أحمد بأنه اقترض من  مبلغ 1 SAR في اليوم الأول.", want: nil},
		{name: "empty money", src: "أقر أحمد بأنه اقترض من خالد مبلغ  في اليوم الأول.", want: nil},
		{name: "empty time", src: "أقر أحمد بأنه اقترض من خالد مبلغ 1 SAR في .", want: nil},
		{name: "empty rest after prefix", src: "أقر .", want: nil},
		{name: "extra clause after day", src: "أقر أحمد بأنه اقترض من خالد مبلغ 1 SAR في اليوم الأول ولكنه أنكر.", want: nil},
		{name: "receipt missing payer separator", src: "أكد سعود استلام مبلغ 40 SAR أحمد في اليوم الثاني.", want: nil},
		{name: "receipt missing time separator", src: "أكد سعود استلام مبلغ 40 SAR من أحمد اليوم الثاني.", want: nil},
		{name: "receipt empty payee", src: "أكد  استلام مبلغ 40 SAR من أحمد في اليوم الثاني.", want: nil},
		{name: "link missing agent separator", src: "أكد خالد أن سعود وسيطه في اليوم الثاني.", want: nil},
		{name: "link missing lender separator", src: "أكد خالد بأن سعود وسيط عنه في اليوم الثاني.", want: nil},
		{name: "link empty agent", src: "أكد خالد أن  وسيط عنه في اليوم الثاني.", want: nil},
		{name: "transfer missing tail", src: "حوّل أحمد إلى سعود مبلغ 60 SAR في اليوم الثالث.", want: nil},
		{name: "transfer text after tail", src: "حوّل أحمد إلى سعود مبلغ 60 SAR في اليوم الثالث ولم يثبت وصول الحوالة بعد.", want: nil},
		{name: "transfer tail twice", src: "حوّل أحمد إلى سعود مبلغ 60 SAR في اليوم الثالث ولم يثبت وصول الحوالة ولم يثبت وصول الحوالة.", want: nil},
		{name: "transfer missing recipient separator", src: "حوّل أحمد لسعود مبلغ 60 SAR في اليوم الثالث ولم يثبت وصول الحوالة.", want: nil},
		{name: "transfer empty time", src: "حوّل أحمد إلى سعود مبلغ 60 SAR في  ولم يثبت وصول الحوالة.", want: nil},
		// First occurrence of a separator is used.
		{name: "first amount separator splits", src: "أقر أحمد بأنه اقترض من خالد مبلغ مبلغ 1 SAR في اليوم الأول.", want: nil},
		{name: "first time separator splits", src: "أقر أحمد بأنه اقترض من خالد مبلغ 1 SAR في في اليوم الأول.", want: nil},
	})
}

func TestArabicNames(t *testing.T) {
	valid := []string{
		"Ahmed", "ahmed", "AZaz", "أحمد بن علي", "Ahmed Khalid", "أَحْمَد", "\u0621", "\u063a", "\u0641", "\u0641\u065f",
		"\u0670", "\u06d3", "\u0671\u0672", "منصور", "فيصل", "أنس", "مِن", "حولي", "x",
		strings.Repeat("a", 127), strings.Repeat("a ", 63) + "a",
	}
	invalid := []string{
		"Ahmed1", "Ahm_ed", "Ahmed-Khalid", "O'Neil", "Ahmed.", "José", "أحمد٢", "أحمد،", "\u0620", "\u063b", "أحـمد",
		"\u0660", "\u066e", "\u066f", "\u06d4", "\u06d5", "\u06f1", "أحمد  علي", " أحمد", "أحمد ", "أحمد\tعلي",
		"أحمد\u00a0علي", "\u200fأحمد", "Ahmed\u0301",
	}
	var cases []gcase
	for _, n := range valid {
		cases = append(cases,
			gcase{name: "valid subject " + n, src: arAck(n, arKhalid, "1 SAR", arDay1), want: []ev{borrowEv(n, arKhalid, "1/1", "SAR", arDay1)}},
			gcase{name: "valid lender " + n, src: arLink(arConfirm, n, arSaud, arDay1),
				want: []ev{arEv(arSaud, PredIntermediaryFor, n, "-", "-", arDay1, ModalityAsserted, PolarityPositive, StatusConfirmed)}},
			gcase{name: "valid payer " + n, src: arReceipt(arDeny, arSaud, "2 USD", n, arDay1),
				want: []ev{arEv(n, PredPaidTo, arSaud, "2/1", "USD", arDay1, ModalityAsserted, PolarityNegative, StatusConfirmed)}})
	}
	for _, n := range invalid {
		cases = append(cases,
			gcase{name: "invalid subject " + n, src: arAck(n, arKhalid, "1 SAR", arDay1), want: nil},
			gcase{name: "invalid object " + n, src: arNarr(arAhmed, n, "1 SAR", arDay1), want: nil},
			gcase{name: "invalid agent " + n, src: arLink(arConfirm, arKhalid, n, arDay1), want: nil},
			gcase{name: "invalid payee " + n, src: arReceipt(arConfirm, n, "1 SAR", arAhmed, arDay1), want: nil},
			gcase{name: "invalid transfer recipient " + n, src: arTransfer(arAhmed, n, "1 SAR", arDay1), want: nil})
	}
	// The 40 reserved words: as a whole name and as one word of a name, in
	// subject and object position.
	reserved := readGrammarTable(t).ReservedNameWords
	require.Len(t, reserved, 40)
	for _, w := range reserved {
		require.True(t, nameReservedWords[w], "engine table lacks %q", w)
		cases = append(cases,
			gcase{name: "reserved subject " + w, src: arAck(w, arKhalid, "1 SAR", arDay1), want: nil},
			gcase{name: "reserved first word " + w, src: arAck(w+" "+arAhmed, arKhalid, "1 SAR", arDay1), want: nil},
			gcase{name: "reserved last word " + w, src: arAck(arAhmed+" "+w, arKhalid, "1 SAR", arDay1), want: nil},
			gcase{name: "reserved object word " + w, src: arAck(arAhmed, arKhalid+" "+w, "1 SAR", arDay1), want: nil},
			gcase{name: "reserved agent " + w, src: arLink(arConfirm, arKhalid, w, arDay1), want: nil},
			gcase{name: "reserved payer " + w, src: arReceipt(arConfirm, arSaud, "1 SAR", w, arDay1), want: nil})
	}
	require.Len(t, nameReservedWords, 40)
	runGrammarCases(t, ProfileV2, cases)
}

func TestArabicDays(t *testing.T) {
	tables := readGrammarTable(t)
	require.Equal(t, "اليوم ", tables.DayPrefix)
	require.Len(t, tables.DayOrdinals, 10)
	require.Len(t, dayOrdinals, 10)
	var cases []gcase
	for _, o := range tables.DayOrdinals {
		day := tables.DayPrefix + o
		cases = append(cases,
			gcase{name: "ack " + day, src: arAck(arAhmed, arKhalid, "1 SAR", day), want: []ev{borrowEv(arAhmed, arKhalid, "1/1", "SAR", day)}},
			gcase{name: "transfer " + day, src: arTransfer(arAhmed, arSaud, "1 SAR", day),
				want: []ev{arEv(arAhmed, PredTransferTo, arSaud, "1/1", "SAR", day, ModalityUncertain, PolarityPositive, StatusPending)}},
			gcase{name: "link " + day, src: arLink(arDeny, arKhalid, arSaud, day),
				want: []ev{arEv(arSaud, PredIntermediaryFor, arKhalid, "-", "-", day, ModalityAsserted, PolarityNegative, StatusConfirmed)}})
	}
	for _, day := range []string{"اليوم الحادي عشر", "اليوم", "اليوم ", "يوم الأول", "اليوم  الأول", "اليوم الأول ثم", "اليوم الاول",
		"الأول", " اليوم الأول", "اليوم الأول ", "Day 1", "اليوم ١", "اليوم الأولى", "اليوم العشرين", "اليوم\tالأول", "امس"} {
		cases = append(cases,
			gcase{name: "bad day ack " + day, src: arAck(arAhmed, arKhalid, "1 SAR", day), want: nil},
			gcase{name: "bad day transfer " + day, src: arTransfer(arAhmed, arSaud, "1 SAR", day), want: nil},
			gcase{name: "bad day receipt " + day, src: arReceipt(arConfirm, arSaud, "1 SAR", arAhmed, day), want: nil},
			gcase{name: "bad day link " + day, src: arLink(arConfirm, arKhalid, arSaud, day), want: nil})
	}
	runGrammarCases(t, ProfileV2, cases)
}

// Lines that fail the sentence grammar are retried as literal statements
// (CONTRACT 7.4, 17.2).
func TestArabicFallThroughToLiteral(t *testing.T) {
	runGrammarCases(t, ProfileV2, []gcase{
		{name: "ack prefix", src: "أقر أحمد كتابا.", want: []ev{lit("أقر", "أحمد", "كتابا")}},
		{name: "narrative prefix", src: "اقترض أحمد مالا.", want: []ev{lit("اقترض", "أحمد", "مالا")}},
		{name: "confirm prefix", src: "أكد خالد ذلك.", want: []ev{lit("أكد", "خالد", "ذلك")}},
		{name: "deny prefix", src: "نفى سعود الخبر.", want: []ev{lit("نفى", "سعود", "الخبر")}},
		{name: "transfer prefix", src: "حوّل أحمد المال.", want: []ev{lit("حوّل", "أحمد", "المال")}},
		{name: "three tokens with trailing blanks", src: "نفى سعود الخبر. \t", want: []ev{lit("نفى", "سعود", "الخبر")}},
		{name: "invalid-name sentence is prose (many tokens)", src: arAck("1حمد", arKhalid, "1 SAR", arDay1), want: nil},
		{name: "unknown currency sentence is prose", src: arAck(arAhmed, arKhalid, "1 EUR", arDay1), want: nil},
		{name: "arabic comma makes literal fail too", src: "أقر أحمد، كتابا.", want: nil},
	})
}

// grammarTable is the part of golden/grammar_tables.json these tests read.
type grammarTable struct {
	Prefixes          []string          `json:"arabic_prefixes_in_match_order"`
	Separators        map[string]string `json:"arabic_separators"`
	Currencies        map[string]string `json:"arabic_currencies"`
	DayPrefix         string            `json:"arabic_day_prefix"`
	DayOrdinals       []string          `json:"arabic_day_ordinals"`
	ReservedNameWords []string          `json:"arabic_name_reserved_words"`
	NameRanges        [][2]int          `json:"arabic_name_codepoint_ranges"`
	LiteralASCII      string            `json:"literal_token_forbidden_ascii"`
	LiteralCodepoints []string          `json:"literal_token_forbidden_codepoints"`
}

func readGrammarTable(t testing.TB) grammarTable {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, "grammar_tables.json"))
	require.NoError(t, err)
	var g grammarTable
	require.NoError(t, json.Unmarshal(data, &g))
	return g
}

// The engine's Arabic tables are exactly the observed C tables.
func TestGrammarTablesMatchEngine(t *testing.T) {
	g := readGrammarTable(t)
	var prefixes []string
	for _, p := range arabicPrefixes {
		prefixes = append(prefixes, string(p))
	}
	require.Equal(t, g.Prefixes, prefixes)
	require.Equal(t, map[string]string{
		"ack_borrow_subject_end":       string(sepAckSubject),
		"narrative_borrow_subject_end": string(sepNarrSubject),
		"amount_intro":                 string(sepAmount),
		"before_time":                  string(sepTime),
		"receipt_intro":                string(sepReceipt),
		"receipt_money_end":            string(sepReceiptMoney),
		"receipt_payer_end":            string(sepReceiptPayer),
		"link_lender_end":              string(sepLinkLender),
		"link_agent_end":               string(sepLinkAgent),
		"transfer_payer_end":           string(sepTransferTo),
		"transfer_tail":                string(transferTail),
	}, g.Separators)
	require.Equal(t, g.Currencies, arabicCurrencies)
	require.Equal(t, g.DayPrefix, dayPrefix)
	for _, o := range g.DayOrdinals {
		require.True(t, dayOrdinals[o], o)
	}
	require.Len(t, dayOrdinals, len(g.DayOrdinals))
	for _, w := range g.ReservedNameWords {
		require.True(t, nameReservedWords[w], w)
	}
	require.Len(t, nameReservedWords, len(g.ReservedNameWords))
	require.Equal(t, [][2]int{{0x0621, 0x063A}, {0x0641, 0x065F}, {0x0670, 0x06D3}}, g.NameRanges)
	require.Equal(t, ".,;:!?@", g.LiteralASCII)
	require.Len(t, g.LiteralCodepoints, 13)
}

// Every Unicode scalar value, as a one-character name word, is valid exactly
// when it is an ASCII letter or lies in the three code point ranges (CONTRACT
// 7.4 step 7); as a one-character literal token it is valid unless it is a
// control byte, DEL, ASCII .,;:!?@ or one of the 13 listed code points (7.3).
func TestCharacterClassesExhaustive(t *testing.T) {
	g := readGrammarTable(t)
	forbidden := map[rune]bool{}
	for _, c := range g.LiteralASCII {
		forbidden[c] = true
	}
	for _, u := range g.LiteralCodepoints {
		var r rune
		_, err := fmt.Sscanf(u, "U+%X", &r)
		require.NoError(t, err)
		forbidden[r] = true
	}
	inRanges := func(r rune) bool {
		if (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') {
			return true
		}
		for _, rg := range g.NameRanges {
			if int(r) >= rg[0] && int(r) <= rg[1] {
				return true
			}
		}
		return false
	}
	for r := rune(1); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		b := []byte(string(r))
		if got, want := validArabicName(b), inRanges(r); got != want {
			t.Fatalf("validArabicName(U+%04X) = %v, want %v", r, got, want)
		}
		wantTok := !(r < 0x20 || r == 0x7f || forbidden[r])
		if r == ' ' || r == '\t' {
			continue // separators never reach the token check
		}
		if got := validLiteralToken(b); got != wantTok {
			t.Fatalf("validLiteralToken(U+%04X) = %v, want %v", r, got, wantTok)
		}
	}
}
