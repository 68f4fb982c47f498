package engine

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// proseOfSize returns exactly n bytes of prose lines (no events) ending in LF.
func proseOfSize(n int) []byte {
	const unit = "lorem ipsum dolor sit amet\n"
	b := bytes.Repeat([]byte(unit), n/len(unit)+1)[:n]
	b[n-1] = '\n'
	return b
}

// CONTRACT 12: source size limit 8,388,608 bytes.
func TestSourceSizeLimit(t *testing.T) {
	const tail = "Alice owns Book.\n"
	exact := append(proseOfSize(MaxSourceSize-len(tail)), tail...)
	require.Len(t, exact, 8388608)
	for _, p := range []Profile{ProfileV1, ProfileV2} {
		events, err := Extract(exact, sha256.Sum256(exact), p)
		require.NoError(t, err)
		if p == ProfileV2 {
			require.Len(t, events, 1)
			require.Equal(t, uint64(MaxSourceSize-len(tail)), events[0].ByteStart)
		} else {
			require.Empty(t, events)
		}
	}
	s, err := NewStore(exact, 1)
	require.NoError(t, err)
	enc := s.Encode()
	require.Len(t, enc, s.EncodedSize())
	loaded, err := Load(enc)
	require.NoError(t, err)
	require.Equal(t, s.Events, loaded.Events)

	over := append(exact, 'x')
	for _, p := range []Profile{ProfileV1, ProfileV2} {
		_, err := Extract(over, sha256.Sum256(over), p)
		requireExtractError(t, err, ErrSourceTooLarge, 0, MaxSourceSize)
		require.EqualError(t, err, "byte 8388608: source is 8388609 bytes, the limit is 8388608")
	}
	_, err = NewStore(over, 1)
	requireExtractError(t, err, ErrSourceTooLarge, 0, MaxSourceSize)
	// The size is checked before the text: an oversized invalid source is
	// still reported as too large.
	bad := append(append([]byte{}, exact...), 0xff)
	_, err = NewStore(bad, 1)
	requireExtractError(t, err, ErrSourceTooLarge, 0, MaxSourceSize)
}

// CONTRACT 12 / 7.1: at most 4096 events; prose lines do not count.
func TestEventCountLimit(t *testing.T) {
	kinds := []string{typedOK, arabicOK, literalOK, "some prose", ""}
	build := func(events int) (src []byte, lastLine, lastStart int) {
		var b bytes.Buffer
		n, line := 0, 0
		for i := 0; n < events; i++ {
			line++
			l := kinds[i%len(kinds)]
			if l != "some prose" && l != "" {
				n++
				lastLine, lastStart = line, b.Len()
			}
			b.WriteString(l)
			b.WriteString("\r\n")
		}
		b.WriteString("trailing prose\n")
		return b.Bytes(), lastLine, lastStart
	}
	src, _, _ := build(MaxEvents)
	events, err := Extract(src, sha256.Sum256(src), ProfileV2)
	require.NoError(t, err)
	require.Len(t, events, 4096)
	require.NoError(t, func() error { _, err := Load(mustStore(t, src).Encode()); return err }())

	src, line, start := build(MaxEvents + 1)
	_, err = Extract(src, sha256.Sum256(src), ProfileV2)
	requireExtractError(t, err, ErrTooManyEvents, line, start)
	require.EqualError(t, err, fmt.Sprintf("line %d (byte %d): event 4097 exceeds the limit of 4096 events", line, start))

	// V1 counts typed records only.
	v1Events, err := Extract(src, sha256.Sum256(src), ProfileV1)
	require.NoError(t, err)
	require.Len(t, v1Events, (MaxEvents+1+2)/3)

	// The span limit is checked before the event count (CONTRACT 7.1).
	lit4096 := bytes.Repeat([]byte("a b c.\n"), MaxEvents)
	longLit := append(append([]byte{}, lit4096...), ("a" + strings.Repeat(" ", 1165) + "b c.\n")...)
	_, err = Extract(longLit, sha256.Sum256(longLit), ProfileV2)
	requireExtractError(t, err, ErrSpanTooLong, MaxEvents+1, 7*MaxEvents)

	lit4097 := bytes.Repeat([]byte("a b c.\n"), MaxEvents+1)
	_, err = Extract(lit4097, sha256.Sum256(lit4097), ProfileV2)
	requireExtractError(t, err, ErrTooManyEvents, MaxEvents+1, 7*MaxEvents)
	_, err = Extract(lit4097, sha256.Sum256(lit4097), ProfileV1)
	require.NoError(t, err)
	typed4097 := bytes.Repeat([]byte(typedOK+"\n"), MaxEvents+1)
	_, err = Extract(typed4097, sha256.Sum256(typed4097), ProfileV1)
	requireExtractError(t, err, ErrTooManyEvents, MaxEvents+1, (len(typedOK)+1)*MaxEvents)
}

func mustStore(t testing.TB, src []byte) *Store {
	t.Helper()
	s, err := NewStore(src, 1750000000)
	require.NoError(t, err)
	return s
}

// CONTRACT 12: every event text field is at most 127 bytes: typed field.
func TestTypedFieldLimit(t *testing.T) {
	long := func(n int) string { return strings.Repeat("ف", n/2) + strings.Repeat("x", n%2) }
	free := map[int]string{0: "subject", 2: "object", 4: "currency", 5: "time", 6: "modality"}
	base := []string{"A", "PAID_TO", "B", "1", "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED"}
	var cases []gcase
	for k, name := range free {
		f127 := append([]string(nil), base...)
		f127[k] = long(127)
		want := tev(f127[0], f127[1], f127[2], "1/1", f127[4], f127[5], f127[6], f127[7], f127[8])
		cases = append(cases, gcase{name: name + " 127", src: typed(f127...), want: []ev{want}})
		f128 := append([]string(nil), base...)
		f128[k] = long(128)
		cases = append(cases, gcase{name: name + " 128", src: "x\n" + typed(f128...), err: ErrFieldTooLong, line: 2, off: 2 + typedFieldOffset(f128, k)})
	}
	a127 := append([]string(nil), base...)
	a127[3] = strings.Repeat("0", 126) + "5"
	cases = append(cases, gcase{name: "amount 127", src: typed(a127...), want: []ev{tev("A", "PAID_TO", "B", "5/1", "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED")}})
	a128 := append([]string(nil), base...)
	a128[3] = strings.Repeat("0", 127) + "5"
	cases = append(cases, gcase{name: "amount 128", src: typed(a128...), err: ErrFieldTooLong, line: 1, off: typedFieldOffset(a128, 3)})

	// The longest typed line: every free field at 127 bytes.
	max := []string{long(127), PredIntermediaryFor, long(127), strings.Repeat("0", 127), long(127), long(127), long(127), PolarityNegative, StatusConfirmed}
	cases = append(cases, gcase{name: "all fields at the limit", src: typed(max...) + "\r\n",
		want: []ev{tev(max[0], max[1], max[2], "0/1", max[4], max[5], max[6], max[7], max[8])}})
	runGrammarCases(t, ProfileV2, cases)
	runGrammarCases(t, ProfileV1, cases)
}

// CONTRACT 12: literal token 127 vs 128 bytes (fatal only when all three tokens
// are otherwise valid).
func TestLiteralTokenLimit(t *testing.T) {
	t127, t128 := strings.Repeat("x", 127), strings.Repeat("x", 128)
	ar128 := strings.Repeat("ك", 64)
	var cases []gcase
	for pos := 0; pos < 3; pos++ {
		toks := []string{"aa", "bb", "cc"}
		toks[pos] = t127
		cases = append(cases, gcase{name: fmt.Sprintf("token %d 127", pos+1), src: " " + strings.Join(toks, "\t") + ".",
			want: []ev{lit(toks[0], toks[1], toks[2])}})
		toks[pos] = t128
		src := "prose\n " + strings.Join(toks, "\t") + ".\n"
		cases = append(cases, gcase{name: fmt.Sprintf("token %d 128", pos+1), src: src, err: ErrFieldTooLong, line: 2, at: t128})
		toks[pos] = ar128
		cases = append(cases, gcase{name: fmt.Sprintf("token %d 128 arabic bytes", pos+1), src: strings.Join(toks, " ") + ".",
			err: ErrFieldTooLong, line: 1, at: ar128})
		other := (pos + 1) % 3
		toks[pos], toks[other] = t128, "bad,token"
		cases = append(cases, gcase{name: fmt.Sprintf("token %d 128 with an invalid token is prose", pos+1),
			src: strings.Join(toks, " ") + ".", want: nil})
	}
	cases = append(cases,
		gcase{name: "128-byte token in four tokens is prose", src: t128 + " a b c.", want: nil},
		gcase{name: "128-byte token without period is prose", src: t128 + " a b", want: nil},
		gcase{name: "first over-long token is reported", src: "a b c.\n" + t128 + " " + ar128 + " c.", err: ErrFieldTooLong, line: 2, off: 7})
	runGrammarCases(t, ProfileV2, cases)
}

// CONTRACT 12: Arabic sentence pieces 127 vs 128 bytes. A 128-byte piece is
// fatal as soon as it is taken; a 127-byte TIME is merely not a day.
func TestArabicPieceLimit(t *testing.T) {
	name127, name128 := strings.Repeat("a", 127), strings.Repeat("a", 128)
	arName128 := strings.Repeat("ب", 64)
	money127 := strings.Repeat("0", 127-len("1 SAR")) + "1 SAR"
	money128 := strings.Repeat("0", 128-len("1 SAR")) + "1 SAR"
	money127ar := strings.Repeat("٠", (127-len("1 "+arSAR))/2) + "1 " + arSAR
	time127, time128 := strings.Repeat("ي", 63)+"x", strings.Repeat("ي", 64)
	require.Len(t, money127, 127)
	require.Len(t, money128, 128)
	require.Len(t, time127, 127)
	require.Len(t, time128, 128)
	require.LessOrEqual(t, len(money127ar), 127)
	require.Greater(t, len(money127ar), 125)

	withNames := func(e ev, s, o string) ev { e.Subject, e.Object = s, o; return e }
	borrow := borrowEv("", "", "1/1", "SAR", arDay1)
	paid := arEv("", PredPaidTo, "", "1/1", "SAR", arDay1, ModalityAsserted, PolarityPositive, StatusConfirmed)
	link := arEv("", PredIntermediaryFor, "", "-", "-", arDay1, ModalityAsserted, PolarityPositive, StatusConfirmed)
	transfer := arEv("", PredTransferTo, "", "1/1", "SAR", arDay1, ModalityUncertain, PolarityPositive, StatusPending)

	type sentence struct {
		kind string
		line func(s, o, money, day string) string
		want ev
	}
	sentences := []sentence{
		{"ack", arAck, borrow},
		{"narrative", arNarr, borrow},
		{"transfer", arTransfer, transfer},
		{"receipt", func(s, o, money, day string) string { return arReceipt(arConfirm, o, money, s, day) }, paid},
	}
	var cases []gcase
	for _, sn := range sentences {
		cases = append(cases,
			gcase{name: sn.kind + " subject 127", src: sn.line(name127, arKhalid, "1 SAR", arDay1), want: []ev{withNames(sn.want, name127, arKhalid)}},
			gcase{name: sn.kind + " object 127", src: sn.line(arAhmed, name127, "1 SAR", arDay1), want: []ev{withNames(sn.want, arAhmed, name127)}},
			gcase{name: sn.kind + " money 127", src: sn.line(arAhmed, arKhalid, money127, arDay1), want: []ev{withNames(sn.want, arAhmed, arKhalid)}},
			gcase{name: sn.kind + " arabic-indic money 127", src: sn.line(arAhmed, arKhalid, money127ar, arDay1),
				want: []ev{withNames(sn.want, arAhmed, arKhalid)}},
			gcase{name: sn.kind + " time 127 is no match", src: sn.line(arAhmed, arKhalid, "1 SAR", time127), want: nil},
			gcase{name: sn.kind + " subject 128", src: "\n" + sn.line(name128, arKhalid, "1 SAR", arDay1), err: ErrFieldTooLong, line: 2, at: name128},
			gcase{name: sn.kind + " arabic subject 128", src: sn.line(arName128, arKhalid, "1 SAR", arDay1), err: ErrFieldTooLong, line: 1, at: arName128},
			gcase{name: sn.kind + " object 128", src: sn.line(arAhmed, name128, "1 SAR", arDay1), err: ErrFieldTooLong, line: 1, at: name128},
			gcase{name: sn.kind + " money 128", src: sn.line(arAhmed, arKhalid, money128, arDay1), err: ErrFieldTooLong, line: 1, at: money128},
			gcase{name: sn.kind + " time 128", src: sn.line(arAhmed, arKhalid, "1 SAR", time128), err: ErrFieldTooLong, line: 1, at: time128},
		)
	}
	for _, prefix := range []string{arConfirm, arDeny} {
		pol := PolarityPositive
		if prefix == arDeny {
			pol = PolarityNegative
		}
		l := link
		l.Polarity = pol
		cases = append(cases,
			gcase{name: prefix + "link lender 127", src: arLink(prefix, name127, arSaud, arDay1), want: []ev{withNames(l, arSaud, name127)}},
			gcase{name: prefix + "link agent 127", src: arLink(prefix, arKhalid, name127, arDay1), want: []ev{withNames(l, name127, arKhalid)}},
			gcase{name: prefix + "link time 127", src: arLink(prefix, arKhalid, arSaud, time127), want: nil},
			gcase{name: prefix + "link lender 128", src: arLink(prefix, name128, arSaud, arDay1), err: ErrFieldTooLong, line: 1, at: name128},
			gcase{name: prefix + "link agent 128", src: arLink(prefix, arKhalid, name128, arDay1), err: ErrFieldTooLong, line: 1, at: name128},
			gcase{name: prefix + "link time 128", src: arLink(prefix, arKhalid, arSaud, time128), err: ErrFieldTooLong, line: 1, at: time128},
		)
	}
	// A 128-byte piece is fatal even when the sentence would not match later.
	cases = append(cases,
		gcase{name: "128-byte subject, invalid day", src: arAck(name128, arKhalid, "1 EUR", "غدا"), err: ErrFieldTooLong, line: 1, at: name128},
		gcase{name: "128-byte subject, missing later separator", src: "أقر " + name128 + " بأنه اقترض من خالد.", err: ErrFieldTooLong, line: 1, at: name128},
		gcase{name: "128-byte tail-less transfer time is no match", src: "حوّل أحمد إلى سعود مبلغ 1 SAR في " + time128 + ".", want: nil},
	)
	runGrammarCases(t, ProfileV2, cases)
}

// CONTRACT 7.1/7.3/12: an event span (literal or Arabic line) is at most 1168
// bytes; CR/LF are not part of the span.
func TestSpanLimit(t *testing.T) {
	literal := func(n int) string { // a literal statement of exactly n bytes
		return "a" + strings.Repeat(" ", n-len("ab c.")) + "b c."
	}
	trailing := func(n int) string {
		return "a b c." + strings.Repeat("\t", n-len("a b c."))
	}
	arLiteral := func(n int) string { // Arabic-prefixed literal of n bytes
		return "أقر" + strings.Repeat(" ", n-len("أقرب ج.")) + "ب ج."
	}
	require.Len(t, literal(1168), 1168)
	require.Len(t, arLiteral(1169), 1169)
	runGrammarCases(t, ProfileV2, []gcase{
		{name: "literal 1168", src: literal(1168), want: []ev{lit("a", "b", "c")}},
		{name: "literal 1168 CRLF", src: literal(1168) + "\r\n", want: []ev{lit("a", "b", "c")}},
		{name: "literal 1168 CR at EOF", src: literal(1168) + "\r", want: []ev{lit("a", "b", "c")}},
		{name: "literal trailing blanks 1168", src: trailing(1168), want: []ev{lit("a", "b", "c")}},
		{name: "literal 1169", src: "x\n" + literal(1169) + "\n", err: ErrSpanTooLong, line: 2, off: 2},
		{name: "literal trailing blanks 1169", src: trailing(1169), err: ErrSpanTooLong, line: 1, off: 0},
		{name: "literal 1169 with CR kept inside", src: literal(1168) + "\r\r\n", want: nil}, // span ends in CR: not a statement
		{name: "literal 5000", src: literal(5000), err: ErrSpanTooLong, line: 1, off: 0},
		{name: "prose 5000 is fine", src: strings.Repeat("word ", 1000), want: nil},
		{name: "arabic-prefixed literal 1168", src: arLiteral(1168), want: []ev{lit("أقر", "ب", "ج")}},
		{name: "arabic-prefixed literal 1169", src: arLiteral(1169), err: ErrSpanTooLong, line: 1, off: 0},
	})
	_, err := extractString("x\n"+literal(1169), ProfileV2)
	require.EqualError(t, err, "line 2 (byte 2): event span is 1169 bytes, the limit is 1168")
}

// CONTRACT 7.4 step 3 / 12: an Arabic-prefixed line ending in '.' longer than
// 1168 bytes is fatal even if it is not a sentence (nor a literal).
func TestArabicLongLine(t *testing.T) {
	var cases []gcase
	for _, prefix := range []string{"أقر ", "اقترض ", "أكد ", "نفى ", "حوّل "} {
		fill := func(n int) string { // prefix + words + '.', exactly n bytes
			body := strings.Repeat("word ", 700)
			return prefix + body[:n-len(prefix)-1] + "."
		}
		require.Len(t, fill(1169), 1169)
		cases = append(cases,
			gcase{name: prefix + "1168 ending in period is prose", src: fill(1168), want: nil},
			gcase{name: prefix + "1168 + CRLF is prose", src: fill(1168) + "\r\n", want: nil},
			gcase{name: prefix + "1169 ending in period is fatal", src: "intro\r\n" + fill(1169) + "\r\n", err: ErrSpanTooLong, line: 2, off: 7},
			gcase{name: prefix + "1169 at EOF is fatal", src: fill(1169), err: ErrSpanTooLong, line: 1, off: 0},
			gcase{name: prefix + "3000 ending in period is fatal", src: fill(3000), err: ErrSpanTooLong, line: 1, off: 0},
			gcase{name: prefix + "1169 ending in period and space is prose", src: fill(1169) + " ", want: nil},
			gcase{name: prefix + "1169 ending in period and CR CR is prose", src: fill(1169) + "\r\r\n", want: nil},
			gcase{name: prefix + "1169 without period is prose", src: fill(1169)[:1168] + "x", want: nil},
			gcase{name: prefix + "1169 ending in Arabic full stop is prose", src: fill(1169)[:1168] + "\u06d4", want: nil},
		)
	}
	cases = append(cases, gcase{name: "unprefixed 1169 ending in period is prose", src: strings.Repeat("word ", 300)[:1168] + ".", want: nil})
	runGrammarCases(t, ProfileV2, cases)

	_, err := extractString("نفى "+strings.Repeat("x", 1200)+".", ProfileV2)
	require.EqualError(t, err, "line 1 (byte 0): Arabic-prefixed line ending in '.' is 1208 bytes, the limit is 1168")
	events, err := extractString("نفى "+strings.Repeat("x", 1200)+".", ProfileV1)
	require.NoError(t, err)
	require.Empty(t, events)
}

// CONTRACT 12: a rational part is at most 2^63-1 (typed and Arabic amounts).
func TestRationalPartLimit(t *testing.T) {
	rec := func(amount string) string {
		return typed("A", "PAID_TO", "B", amount, "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED")
	}
	recEv := func(amount string) ev {
		return tev("A", "PAID_TO", "B", amount, "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED")
	}
	arIndic := func(ascii string) string {
		var b strings.Builder
		for _, c := range ascii {
			if c >= '0' && c <= '9' {
				b.WriteRune(0x0660 + c - '0')
			} else {
				b.WriteRune(c)
			}
		}
		return b.String()
	}
	runGrammarCases(t, ProfileV2, []gcase{
		{name: "typed numerator 2^63-1", src: rec(maxI64Text), want: []ev{recEv(maxI64Text + "/1")}},
		{name: "typed denominator 2^63-1", src: rec("2/" + maxI64Text), want: []ev{recEv("2/" + maxI64Text)}},
		{name: "typed both 2^63-1", src: rec(maxI64Text + "/" + maxI64Text), want: []ev{recEv("1/1")}},
		{name: "typed numerator 2^63", src: rec(pow63Text), err: ErrTypedRecord, line: 1, at: pow63Text},
		{name: "typed denominator 2^63", src: rec("1/" + pow63Text), err: ErrTypedRecord, line: 1, at: "1/"},
		{name: "typed 2^64+1", src: rec("18446744073709551617"), err: ErrTypedRecord, line: 1, at: "1844"},
		{name: "arabic numerator 2^63-1", src: arAck(arAhmed, arKhalid, maxI64Text+" SAR", arDay1),
			want: []ev{borrowEv(arAhmed, arKhalid, maxI64Text+"/1", "SAR", arDay1)}},
		{name: "arabic-indic numerator 2^63-1", src: arAck(arAhmed, arKhalid, arIndic(maxI64Text)+" SAR", arDay1),
			want: []ev{borrowEv(arAhmed, arKhalid, maxI64Text+"/1", "SAR", arDay1)}},
		{name: "arabic-indic denominator 2^63-1", src: arAck(arAhmed, arKhalid, arIndic("3/"+maxI64Text)+" USD", arDay1),
			want: []ev{borrowEv(arAhmed, arKhalid, "3/"+maxI64Text, "USD", arDay1)}},
		{name: "arabic numerator 2^63", src: arAck(arAhmed, arKhalid, pow63Text+" SAR", arDay1), err: ErrArabicAmount, line: 1, at: pow63Text},
		{name: "arabic-indic numerator 2^63", src: arAck(arAhmed, arKhalid, arIndic(pow63Text)+" SAR", arDay1),
			err: ErrArabicAmount, line: 1, at: arIndic(pow63Text)},
		{name: "arabic denominator 2^63", src: arTransfer(arAhmed, arSaud, "1/"+pow63Text+" SAR", arDay1), err: ErrArabicAmount, line: 1, at: "1/"},
	})
}

// CONTRACT 17 point 1: fatal versus silent.
func TestFatalVersusSilent(t *testing.T) {
	fatal := []gcase{
		{name: "@chronicle without TAB", src: "@chronicle", err: ErrMarker, line: 1, off: 10},
		{name: "@chronicle followed by space", src: "@chronicle Alice owns Book.", err: ErrMarker, line: 1, off: 10},
		{name: "typed record with 8 fields", src: "@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE", err: ErrTypedRecord, line: 1, off: 0},
		{name: "typed record bad predicate", src: typed("A", "OWNS", "B", "1", "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED"), err: ErrTypedRecord, line: 1, at: "OWNS"},
		{name: "typed record bad polarity", src: typed("A", "PAID_TO", "B", "1", "SAR", "T", "ASSERTED", "MAYBE", "CONFIRMED"), err: ErrTypedRecord, line: 1, at: "MAYBE"},
		{name: "typed record bad status", src: typed("A", "PAID_TO", "B", "1", "SAR", "T", "ASSERTED", "POSITIVE", "DONE"), err: ErrTypedRecord, line: 1, at: "DONE"},
		{name: "typed record bad amount", src: typed("A", "PAID_TO", "B", "1.5", "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED"), err: ErrTypedRecord, line: 1, at: "1.5"},
		{name: "typed record empty field", src: typed("A", "PAID_TO", "", "1", "SAR", "T", "ASSERTED", "POSITIVE", "CONFIRMED"), err: ErrTypedRecord, line: 1, off: 21},
		{name: "bad digit in recognised Arabic amount", src: arAck(arAhmed, arKhalid, "مائة "+arSAR, arDay1), err: ErrArabicAmount, line: 1, at: "مائة"},
		{name: "Persian digits in recognised Arabic amount", src: arReceipt(arConfirm, arSaud, "۴۰ USD", arAhmed, arDay2), err: ErrArabicAmount, line: 1, at: "۴۰"},
		{name: "over-long Arabic-prefixed line ending in period", src: "أكد " + strings.Repeat("ذلك ", 300) + ".", err: ErrSpanTooLong, line: 1, off: 0},
		{name: "over-long literal line", src: "Alice" + strings.Repeat(" ", 1200) + "owns Book.", err: ErrSpanTooLong, line: 1, off: 0},
		{name: "over-long literal token", src: strings.Repeat("A", 200) + " owns Book.", err: ErrFieldTooLong, line: 1, off: 0},
		{name: "over-long Arabic piece", src: arAck(arAhmed, strings.Repeat("خ", 100), "1 SAR", arDay1), err: ErrFieldTooLong, line: 1, at: strings.Repeat("خ", 100)},
	}
	for i := range fatal {
		fatal[i].src = "Opening prose.\n" + fatal[i].src + "\nAlice owns Book.\n"
		fatal[i].line = 2
		if fatal[i].at == "" {
			fatal[i].off += len("Opening prose.\n")
		}
	}
	runGrammarCases(t, ProfileV2, fatal)

	silent := []gcase{
		{name: "unknown currency", src: arAck(arAhmed, arKhalid, "100 EUR", arDay1)},
		{name: "bare riyal", src: arAck(arAhmed, arKhalid, "100 ريال", arDay1)},
		{name: "unknown currency with bad digits", src: arAck(arAhmed, arKhalid, "مائة جنيه", arDay1)},
		{name: "wrong day", src: arAck(arAhmed, arKhalid, "100 SAR", "اليوم الحادي عشر")},
		{name: "day with extra clause", src: arTransfer(arAhmed, arSaud, "1 SAR", arDay3+" مساء")},
		{name: "invalid name with digit", src: arNarr("أحمد2", arKhalid, "100 SAR", arDay1)},
		{name: "invalid reserved name", src: arReceipt(arConfirm, "قد", "100 SAR", arAhmed, arDay1)},
		{name: "sentence ending with exclamation", src: strings.TrimSuffix(arAck(arAhmed, arKhalid, "100 SAR", arDay1), ".") + "!"},
		{name: "sentence ending with Arabic question mark", src: strings.TrimSuffix(arLink(arConfirm, arKhalid, arSaud, arDay1), ".") + "؟"},
		{name: "literal with comma", src: "Alice, owns Book."},
		{name: "literal with question mark", src: "Alice owns Book?"},
		{name: "literal with ellipsis", src: "Alice owns Book\u2026"},
		{name: "long prose without period", src: "أقر " + strings.Repeat("x", 3000)},
		{name: "chronicle marker later in line", src: "see @chronicle\tA"},
	}
	for i := range silent {
		silent[i].src = "Opening prose.\n" + silent[i].src + "\n"
		silent[i].want = nil
	}
	runGrammarCases(t, ProfileV2, silent)
}

// Error messages name the line, the byte offset and the rule.
func TestErrorMessages(t *testing.T) {
	long := strings.Repeat("x", 128)
	tests := []struct {
		src, msg string
	}{
		{"a\nb\n@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\n",
			"line 3 (byte 4): @chronicle record has 8 fields, want 9"},
		{"a\n@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED\tX\n",
			"line 2 (byte 2): @chronicle record has 10 fields, want 9"},
		{"ok\r\n@chronicle x\n",
			"line 2 (byte 14): line starts with @chronicle but the marker is not followed by a TAB"},
		{"@chronicle\tA\tPAID_TO\t\t1\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED",
			"line 1 (byte 21): @chronicle field 3 (object) is empty"},
		{"@chronicle\t" + long + "\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED",
			"line 1 (byte 11): @chronicle field 1 (subject) is 128 bytes, the limit is 127"},
		{"\n\n@chronicle\tA\tOWNS\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED",
			`line 3 (byte 15): @chronicle predicate "OWNS" is not BORROWED_FROM, PAID_TO, INTERMEDIARY_FOR or TRANSFER_TO`},
		{"@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tpositive\tCONFIRMED",
			`line 1 (byte 40): @chronicle polarity "positive" is not POSITIVE or NEGATIVE`},
		{"@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\tDONE",
			`line 1 (byte 49): @chronicle status "DONE" is not ASSERTED, CONFIRMED, PENDING or DENIED`},
		{"@chronicle\tA\tPAID_TO\tB\t1/0\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED",
			`line 1 (byte 23): @chronicle amount "1/0": zero denominator`},
		{"@chronicle\tA\tPAID_TO\tB\t" + pow63Text + "\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED",
			`line 1 (byte 23): @chronicle amount "9223372036854775808": a part exceeds 9223372036854775807`},
		{"@chronicle\tA\tPAID_TO\tB\t-1\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED",
			`line 1 (byte 23): @chronicle amount "-1": want DIGITS or DIGITS/DIGITS (ASCII digits, no sign or decimal point) or -`},
		{"x\n" + long + " owns Book.",
			"line 2 (byte 2): literal statement token 1 is 128 bytes, the limit is 127"},
		{"Alice owns " + long + ".",
			"line 1 (byte 11): literal statement token 3 is 128 bytes, the limit is 127"},
		{"أقر أحمد بأنه اقترض من " + long + " مبلغ 1 SAR في اليوم الأول.",
			"line 1 (byte 41): Arabic sentence piece is 128 bytes, the limit is 127"},
		{"أقر أحمد بأنه اقترض من خالد مبلغ 1x SAR في اليوم الأول.",
			`line 1 (byte 60): amount "1x" before currency "SAR" contains "x"; want ASCII or Arabic-Indic digits and '/'`},
		{"أقر أحمد بأنه اقترض من خالد مبلغ 1/0 SAR في اليوم الأول.",
			`line 1 (byte 59): amount "1/0": zero denominator`},
	}
	for _, tc := range tests {
		t.Run(tc.msg, func(t *testing.T) {
			_, err := extractString(tc.src, ProfileV2)
			require.EqualError(t, err, tc.msg)
			// The offset in the message points into the source.
			var xe *ExtractError
			require.ErrorAs(t, err, &xe)
			require.Less(t, xe.Offset, len(tc.src))
		})
	}
}
