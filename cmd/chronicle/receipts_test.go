package main

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAnswerOutput: on a pipe every answer is the canonical JSON line,
// --text forces the readable view; an answer prints its receipt's ID and
// writes nothing to the archive, unless --keep keeps the receipt.
func TestAnswerOutput(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	require.Equal(t, g1Answer(t), w.ok("query", "input.txt", g1Q), "piped stdout prints JSON")

	text := w.ok("query", "input.txt", g1Q, "--text")
	require.Equal(t, strings.Join([]string{
		"PARTIAL  debt 100/1 SAR (borrower Alice, lender Bob)  settled 40/1",
		"note: a payment is pending, unconfirmed or in another currency",
		"  input.txt:2  @chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED",
		"  input.txt:4  @chronicle\tSaud\tINTERMEDIARY_FOR\tBob\t-\tSAR\tT2\tASSERTED\tPOSITIVE\tCONFIRMED",
		"+ input.txt:5  @chronicle\tAlice\tPAID_TO\tSaud\t40\tSAR\tT3\tASSERTED\tPOSITIVE\tCONFIRMED",
		"  input.txt:6  @chronicle\tAlice\tTRANSFER_TO\tSaud\t60\tSAR\tT4\tUNCERTAIN\tPOSITIVE\tPENDING",
		"receipt 338852358649 (--receipt FILE writes it, --keep keeps it in the archive)",
		"",
	}, "\n"), text)
	require.Len(t, w.receipts("input.txt"), 1, "only the INGEST receipt: answering wrote nothing")
	require.True(t, strings.HasSuffix(w.ok("query", "input.txt", g1Q, "--text", "--keep"),
		"\nreceipt 338852358649 kept (`receipts input.txt` lists it)\n"))
	require.Regexp(t, `^MATCHES  6 matching lines in input\.txt\n  input\.txt:5  \[2\]  `, w.ok("find", "--doc", "input.txt", "Alice Saud", "--text"))
	require.Regexp(t, "^UNRESOLVED  Alice owns Book\n\\(no evidence\\)\nreceipt [0-9a-f]{12} \\(--receipt FILE writes it, --keep keeps it in the archive\\)\n$",
		w.ok("claim", "input.txt", "Alice", "owns", "Book", "--text"))
	// --receipt - with --json puts the receipt inside the JSON line.
	printed := w.ok("claim", "input.txt", "Alice", "owns", "Book", "--json", "--receipt", "-")
	require.Contains(t, printed, `{"receipt":"CHRONICLE-ARCHIVE-RECEIPT-V1\nkind:QUERY\n`)
	// --json wins over --text.
	require.Equal(t, g1Answer(t), w.ok("query", "input.txt", g1Q, "--text", "--json"))

	w.ok("claim", "input.txt", "Alice", "owns", "Book", "--keep")
	w.ok("find", "--doc", "input.txt", "Alice Saud", "--keep")
	w.ok("query", "input.txt", g1Q, "--keep") // asked again: kept once

	recs := w.receipts("input.txt")
	var kinds, questions []string
	for _, r := range recs {
		kinds = append(kinds, r.Kind)
		questions = append(questions, r.Question)
		require.Equal(t, g1Prefix, r.Document)
		require.True(t, strings.HasPrefix(r.Receipt, "CHRONICLE-ARCHIVE-RECEIPT-V1\nkind:"+r.Kind+"\n"))
	}
	require.Equal(t, []string{"INGEST", "QUERY", "QUERY", "FIND"}, kinds)
	require.Equal(t, []string{"", g1Q, "@claim\tAlice\towns\tBook", "Alice Saud"}, questions)

	listing := lines(w.ok("receipts", "input.txt"))
	require.Len(t, listing, 4)
	require.Regexp(t, `^[0-9a-f]{12}  INGEST  input\.txt$`, listing[0])
	require.Regexp(t, `^[0-9a-f]{12}  QUERY   input\.txt  Did Alice repay Bob\?$`, listing[1])

	verified := lines(w.ok("receipts", "--verify"))
	require.Len(t, verified, 4)
	for _, line := range verified {
		require.True(t, strings.HasPrefix(line, "VALID  "), line)
	}
	for _, r := range w.receipts("--verify") {
		require.Equal(t, "VALID", r.Verdict)
	}
}

// TestReceiptFiles: --receipt FILE writes an archive receipt that `verify`
// reports VALID; editing any field makes it INVALID.
func TestReceiptFiles(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	for _, tc := range []struct {
		name string
		argv []string
	}{
		{"query", []string{"query", "input.txt", g1Q}},
		{"claim", []string{"claim", "input.txt", "Alice", "owns", "Book"}},
		{"find", []string{"find", "--doc", "input.txt", "Alice Saud"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.name + ".receipt"
			out := w.ok(append(tc.argv, "--receipt", file)...)
			require.Len(t, lines(out), 1, "the receipt file does not change stdout")
			data := string(w.read(file))

			r := w.run("verify", file)
			require.Equal(t, 0, r.code, "%s", r)
			require.Equal(t, w.verifyText(file, "VALID"), r.stdout)
			require.Empty(t, r.stderr)

			// The same receipt again is fine; a different one is never
			// written over it.
			w.ok(append(tc.argv, "--receipt", file)...)
			r = w.run("query", "input.txt", "Did Bob repay Alice?", "--receipt", file)
			require.Equal(t, 1, r.code, "%s", r)
			require.Empty(t, r.stdout)
			require.Equal(t, data, string(w.read(file)))

			fields := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
			require.Len(t, fields, 6)
			for i, edit := range receiptEdits(fields) {
				t.Run(edit.name, func(t *testing.T) {
					name := tc.name + "-edit" + string(rune('a'+i)) + ".receipt"
					w.write(name, edit.data)
					r := w.run("verify", name)
					require.Equal(t, 1, r.code, "%s", r)
					require.Equal(t, w.verifyText(name, "INVALID"), r.stdout)
					require.Len(t, lines(r.stderr), 1, "one line says why: %q", r.stderr)
				})
			}
		})
	}
}

type receiptEdit struct{ name, data string }

// receiptEdits returns receipts that differ from the valid one in a single
// field or in layout.
func receiptEdits(fields []string) []receiptEdit {
	join := func(f []string) string { return strings.Join(f, "\n") + "\n" }
	with := func(i int, v string) string {
		f := append([]string(nil), fields...)
		f[i] = v
		return join(f)
	}
	flipLast := func(s string) string {
		c := byte('0')
		if s[len(s)-1] == '0' {
			c = '1'
		}
		return s[:len(s)-1] + string(c)
	}
	key := func(i int) string { k, _, _ := strings.Cut(fields[i], ":"); return k + ":" }
	val := func(i int) string { _, v, _ := strings.Cut(fields[i], ":"); return v }
	otherKind := "QUERY"
	if val(1) == "QUERY" {
		otherKind = "FIND"
	}
	question, _ := hex.DecodeString(val(4))
	edits := []receiptEdit{
		{"header", with(0, "CHRONICLE-ARCHIVE-RECEIPT-V2")},
		{"kind", with(1, key(1)+otherKind)},
		{"kind ingest", with(1, key(1)+"INGEST")},
		{"document", with(2, flipLast(fields[2]))},
		{"store", with(3, flipLast(fields[3]))},
		{"question", with(4, key(4)+hex.EncodeToString(append(question, ' ')))},
		{"question empty", with(4, key(4))},
		{"result", with(5, flipLast(fields[5]))},
		{"uppercase hex", with(5, key(5)+strings.ToUpper(val(5)))},
		{"swapped lines", join(append(append([]string{}, fields[:2]...), fields[3], fields[2], fields[4], fields[5]))},
		{"extra line", join(append(append([]string{}, fields...), "note:x"))},
		{"CRLF", strings.ReplaceAll(join(fields), "\n", "\r\n")},
		{"no final LF", strings.TrimSuffix(join(fields), "\n")},
		{"empty", ""},
	}
	return edits
}
