package db_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// rec is a typed record line: @chronicle and the nine fields.
func rec(fields ...string) string { return "@chronicle\t" + strings.Join(fields, "\t") }

// ok is an established positive record (ASSERTED, POSITIVE, CONFIRMED).
func ok(s, p, o, amount, currency, time string) string {
	return rec(s, p, o, amount, currency, time, "ASSERTED", "POSITIVE", "CONFIRMED")
}

// ingestTexts ingests one document per text (each text's lines are its
// records, LF-terminated), in order, named d1.txt, d2.txt, ….
func ingestTexts(t testing.TB, a *db.Archive, texts ...string) []*db.Document {
	t.Helper()
	var docs []*db.Document
	for i, text := range texts {
		res, err := a.Ingest([]byte(text), 1750000000+uint64(i), fmt.Sprintf("d%d.txt", i+1))
		require.NoError(t, err)
		require.False(t, res.Reused, "document %d repeats an earlier one", i+1)
		docs = append(docs, res.Doc)
	}
	return docs
}

// lines joins records into a document text.
func lines(records ...string) string { return strings.Join(records, "\n") + "\n" }

// jsonString escapes s as CONTRACT 5 says: \" \\ \n \r \t, other bytes below
// 0x20 as \u00xx (lowercase), everything else raw.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// at names an evidence span: document (1-based, as ingested) and line.
type at struct{ doc, line int }

// wantSettle builds the full canonical JSON (CONTRACT 5.1) a settlement across
// docs must give, from the stored events of the cited lines: debt is the
// debt object or "null", settled the settled object.
func wantSettle(t *testing.T, a *db.Archive, docs []*db.Document, question, status, debt, settled string, evidence ...at) string {
	t.Helper()
	var ev []string
	for _, w := range evidence {
		d := docs[w.doc-1]
		s, err := a.Load(d)
		require.NoError(t, err)
		var found *engine.Event
		for i := range s.Events {
			if s.Events[i].LineStart == uint64(w.line) {
				found = &s.Events[i]
			}
		}
		require.NotNil(t, found, "no event on line %d of d%d", w.line, w.doc)
		e := found
		ev = append(ev, fmt.Sprintf(`{"event_id":"%x","evidence_span_id":"%x","document_sha256":"%s","byte_start":%d,"byte_end":%d,"line_start":%d,"line_end":%d,"exact_span_sha256":"%x","text":%s}`,
			e.ID, e.SpanID, d.SHA256.String(), e.ByteStart, e.ByteEnd, e.LineStart, e.LineEnd, e.SpanHash, jsonString(string(s.Source[e.ByteStart:e.ByteEnd]))))
	}
	return fmt.Sprintf(`{"status":"%s","assessment":"DEBT_SETTLEMENT","question":%s,"debt":%s,"settled":%s,"limits":"bounded source grammar; question selects exact entities; status evaluates debt settlement, not question truth; integrity is not truth","evidence":[%s]}`,
		status, jsonString(question), debt, settled, strings.Join(ev, ","))
}

func debtOf(num, den int64, currency string) string {
	return fmt.Sprintf(`{"num":%d,"den":%d,"currency":%s,"borrower":"Alice","lender":"Bob"}`, num, den, jsonString(currency))
}

func settledOf(num, den int64) string { return fmt.Sprintf(`{"num":%d,"den":%d}`, num, den) }

// TestSettleAcrossDocumentsRules: one case per rule of CONTRACT 9, with the
// events that decide it split across two or three documents (the debt in
// one, the link in another, the payment or the contradiction in a third);
// each asserts the full JSON. Every case is also settled over the
// documents' concatenation, which must agree (sameAsConcatenation).
func TestSettleAcrossDocumentsRules(t *testing.T) {
	const q = "Did Alice repay Bob?"
	debt100 := ok("Alice", "BORROWED_FROM", "Bob", "100", "SAR", "T1")
	cases := []struct {
		name     string
		docs     []string
		status   string
		debt     string
		settled  string
		evidence []at
	}{
		{"A: identical debts in two documents are one debt",
			[]string{lines(debt100), lines(debt100, ok("Carol", "PAID_TO", "Bob", "5", "SAR", "T1")), lines(ok("Alice", "PAID_TO", "Bob", "100", "SAR", "T2"))},
			"SUPPORTED", debtOf(100, 1, "SAR"), settledOf(100, 1), []at{{1, 1}, {2, 1}, {3, 1}}},
		{"A: different debts in two documents are ambiguous (no debt, both cited)",
			[]string{lines(debt100), lines(ok("Alice", "BORROWED_FROM", "Bob", "50", "SAR", "T1")), lines(ok("Alice", "PAID_TO", "Bob", "50", "SAR", "T2"))},
			"UNKNOWN", "null", settledOf(0, 1), []at{{1, 1}, {2, 1}}},
		{"A: a debt that is not established is not selected",
			[]string{lines(rec("Alice", "BORROWED_FROM", "Bob", "100", "SAR", "T1", "UNCERTAIN", "POSITIVE", "CONFIRMED")), lines(ok("Alice", "PAID_TO", "Bob", "100", "SAR", "T2"))},
			"UNKNOWN", "null", settledOf(0, 1), nil},
		{"B: an established opposite record in another document conflicts the debt",
			[]string{lines(debt100), lines(ok("Alice", "PAID_TO", "Bob", "100", "SAR", "T2")), lines(rec("Alice", "BORROWED_FROM", "Bob", "100", "SAR", "T1", "ASSERTED", "NEGATIVE", "CONFIRMED"))},
			"CONFLICT", debtOf(100, 1, "SAR"), settledOf(0, 1), []at{{1, 1}, {3, 1}}},
		{"B: an opposite record that is not established does not conflict",
			[]string{lines(debt100), lines(rec("Alice", "BORROWED_FROM", "Bob", "100", "SAR", "T1", "UNCERTAIN", "NEGATIVE", "CONFIRMED")), lines(ok("Alice", "PAID_TO", "Bob", "40", "SAR", "T2"))},
			"PARTIAL", debtOf(100, 1, "SAR"), settledOf(40, 1), []at{{1, 1}, {3, 1}}},
		{"C.1: payments by anyone but the borrower are invisible",
			[]string{lines(debt100), lines(ok("Carol", "PAID_TO", "Bob", "100", "SAR", "T2")), lines(ok("Alice", "PAID_TO", "Bob", "40", "SAR", "T2"))},
			"PARTIAL", debtOf(100, 1, "SAR"), settledOf(40, 1), []at{{1, 1}, {3, 1}}},
		{"C.2: an intermediary link in another document links",
			[]string{lines(debt100), lines(ok("Saud", "INTERMEDIARY_FOR", "Bob", "-", "SAR", "T2")), lines(ok("Alice", "PAID_TO", "Saud", "100", "SAR", "T3"))},
			"SUPPORTED", debtOf(100, 1, "SAR"), settledOf(100, 1), []at{{1, 1}, {2, 1}, {3, 1}}},
		{"C.3: a payment to a stranger is not linked and not evidence",
			[]string{lines(debt100), lines(ok("Saud", "INTERMEDIARY_FOR", "Carol", "-", "SAR", "T2")), lines(ok("Alice", "PAID_TO", "Saud", "100", "SAR", "T3"))},
			"UNKNOWN", debtOf(100, 1, "SAR"), settledOf(0, 1), []at{{1, 1}}},
		{"C.2: a pending link is evidence, the payment through it is not",
			[]string{lines(debt100), lines(rec("Saud", "INTERMEDIARY_FOR", "Bob", "-", "SAR", "T2", "ASSERTED", "POSITIVE", "PENDING")), lines(ok("Alice", "PAID_TO", "Saud", "40", "SAR", "T3"))},
			"UNKNOWN", debtOf(100, 1, "SAR"), settledOf(0, 1), []at{{1, 1}, {2, 1}}},
		{"C.4: a link contradicted in a third document is a conflict; the payment is cited, never counted",
			[]string{lines(debt100), lines(ok("Saud", "INTERMEDIARY_FOR", "Bob", "-", "SAR", "T2")),
				lines(rec("Saud", "INTERMEDIARY_FOR", "Bob", "-", "SAR", "T2", "ASSERTED", "NEGATIVE", "CONFIRMED"), ok("Alice", "PAID_TO", "Saud", "40", "SAR", "T3"))},
			"CONFLICT", debtOf(100, 1, "SAR"), settledOf(0, 1), []at{{1, 1}, {2, 1}, {3, 1}, {3, 2}}},
		{"C.5: a pending payment in another document leaves an exact settlement UNKNOWN",
			[]string{lines(debt100), lines(ok("Alice", "PAID_TO", "Bob", "100", "SAR", "T2")), lines(rec("Alice", "TRANSFER_TO", "Bob", "50", "SAR", "T3", "UNCERTAIN", "POSITIVE", "PENDING"))},
			"UNKNOWN", debtOf(100, 1, "SAR"), settledOf(100, 1), []at{{1, 1}, {2, 1}, {3, 1}}},
		{"C.5: a payment in another currency does not stop PARTIAL",
			[]string{lines(debt100), lines(ok("Alice", "PAID_TO", "Bob", "40", "SAR", "T2")), lines(ok("Alice", "PAID_TO", "Bob", "60", "USD", "T3"))},
			"PARTIAL", debtOf(100, 1, "SAR"), settledOf(40, 1), []at{{1, 1}, {2, 1}, {3, 1}}},
		{"C.6: a payment contradicted in another document is a conflict",
			[]string{lines(debt100), lines(ok("Alice", "PAID_TO", "Bob", "40", "SAR", "T2")), lines(rec("Alice", "PAID_TO", "Bob", "40", "SAR", "T2", "ASSERTED", "NEGATIVE", "CONFIRMED"))},
			"CONFLICT", debtOf(100, 1, "SAR"), settledOf(0, 1), []at{{1, 1}, {2, 1}, {3, 1}}},
		{"C.7: a payment recorded in two documents counts once and leaves the total UNKNOWN",
			[]string{lines(debt100), lines(ok("Alice", "PAID_TO", "Bob", "100", "SAR", "T2")), lines(ok("Alice", "TRANSFER_TO", "Bob", "100", "SAR", "T2"))},
			"UNKNOWN", debtOf(100, 1, "SAR"), settledOf(100, 1), []at{{1, 1}, {2, 1}, {3, 1}}},
		{"C.8: an overflowing sum across documents is a conflict and stops the scan",
			[]string{lines(ok("Alice", "BORROWED_FROM", "Bob", "1", "SAR", "T1")), lines(ok("Alice", "PAID_TO", "Bob", "1/4611686018427387904", "SAR", "T2")),
				lines(ok("Alice", "PAID_TO", "Bob", "1/3", "SAR", "T3"), ok("Alice", "PAID_TO", "Bob", "1/5", "SAR", "T4"))},
			"CONFLICT", debtOf(1, 1, "SAR"), settledOf(1, 4611686018427387904), []at{{1, 1}, {2, 1}, {3, 1}}},
		{"D.2: a debt with no counted payment is UNKNOWN",
			[]string{lines(debt100), lines(ok("Alice", "PAID_TO", "Carol", "100", "SAR", "T2"), ok("Bob", "PAID_TO", "Alice", "100", "SAR", "T2"))},
			"UNKNOWN", debtOf(100, 1, "SAR"), settledOf(0, 1), []at{{1, 1}}},
		{"D.3: more paid across documents than borrowed is a conflict",
			[]string{lines(debt100), lines(ok("Alice", "PAID_TO", "Bob", "60", "SAR", "T2")), lines(ok("Alice", "PAID_TO", "Bob", "50", "SAR", "T3"))},
			"CONFLICT", debtOf(100, 1, "SAR"), settledOf(110, 1), []at{{1, 1}, {2, 1}, {3, 1}}},
		{"D.4: debt 0 and a counted payment of 0 in another document is SUPPORTED",
			[]string{lines(ok("Alice", "BORROWED_FROM", "Bob", "0", "SAR", "T1")), lines(ok("Alice", "PAID_TO", "Bob", "0", "SAR", "T2"))},
			"SUPPORTED", debtOf(0, 1, "SAR"), settledOf(0, 1), []at{{1, 1}, {2, 1}}},
		{"D.5: payments in two documents short of the debt are PARTIAL",
			[]string{lines(debt100), lines(ok("Alice", "PAID_TO", "Bob", "1/2", "SAR", "T2")), lines(ok("Alice", "TRANSFER_TO", "Bob", "20", "SAR", "T3"))},
			"PARTIAL", debtOf(100, 1, "SAR"), settledOf(41, 2), []at{{1, 1}, {2, 1}, {3, 1}}},
		{"C: a debt in currency - is never settled",
			[]string{lines(ok("Alice", "BORROWED_FROM", "Bob", "100", "-", "T1")), lines(ok("Alice", "PAID_TO", "Bob", "100", "-", "T2"))},
			"UNKNOWN", debtOf(100, 1, "-"), settledOf(0, 1), []at{{1, 1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := openArchive(t, newPath(t))
			// Unrelated documents before, between and after do not change anything.
			ingestTexts(t, a, lines("Opening prose of an unrelated archive."))
			docs := ingestTexts(t, a, tc.docs...)
			ingestTexts(t, a, lines(ok("Carol", "BORROWED_FROM", "Dana", "7", "SAR", "T1")))
			want := wantSettle(t, a, docs, q, tc.status, tc.debt, tc.settled, tc.evidence...)
			c, err := a.Settle(q, nil)
			require.NoError(t, err)
			require.Equal(t, want, string(c.Result.JSON()))
			chosen, err := a.Settle(q, docs)
			require.NoError(t, err)
			require.Equal(t, want, string(chosen.Result.JSON()), "the chosen documents alone")
			sameAsConcatenation(t, a, c, q, tc.docs)
			for _, d := range docs { // one document: byte for byte `query DOC`
				requireSameAsQuery(t, a, d, q)
			}
		})
	}
}

// requireSameAsQuery: settling over one chosen document gives exactly the
// bytes of the single-document query.
func requireSameAsQuery(t *testing.T, a *db.Archive, d *db.Document, question string) {
	t.Helper()
	s, err := a.Load(d)
	require.NoError(t, err)
	want, err := settle.Query(s, question)
	require.NoError(t, err)
	c, err := a.Settle(question, []*db.Document{d})
	require.NoError(t, err)
	require.Equal(t, string(want), string(c.Result.JSON()), "settle --doc %s", d.Label())
}

// sameAsConcatenation checks that c (settled over documents whose texts
// are texts, in import order) equals settling one document whose text is
// the texts concatenated: status, debt, settled, and the evidence after
// mapping each span of the concatenation back to its document and line.
func sameAsConcatenation(t *testing.T, a *db.Archive, c *db.CrossSettlement, question string, texts []string) {
	t.Helper()
	joined := strings.Join(texts, "")
	s, err := engine.NewStore([]byte(joined), 1750000000)
	require.NoError(t, err)
	one, err := settle.EvaluateSettlement(s, question)
	require.NoError(t, err)
	got := c.Result
	require.Equal(t, one.Status, got.Status)
	require.Equal(t, one.Settled, got.Settled)
	if one.Debt == nil {
		require.Nil(t, got.Debt)
	} else {
		require.NotNil(t, got.Debt)
		require.Equal(t, [3]any{one.Debt.Amount, one.Debt.Borrower, one.Debt.Lender}, [3]any{got.Debt.Amount, got.Debt.Borrower, got.Debt.Lender})
		require.Equal(t, one.Debt.Currency, got.Debt.Currency)
	}
	// Line n of the concatenation is line n-offset of document k.
	type place struct {
		doc  [32]byte
		line uint64
	}
	var starts []uint64
	var digests [][32]byte
	line := uint64(1)
	for _, text := range texts {
		starts = append(starts, line)
		digests = append(digests, sha256.Sum256([]byte(text)))
		line += uint64(strings.Count(text, "\n"))
	}
	mapBack := func(l uint64) place {
		k := len(starts) - 1
		for starts[k] > l {
			k--
		}
		return place{digests[k], l - starts[k] + 1}
	}
	type ev struct {
		at      place
		text    string
		counted bool
	}
	var want, have []ev
	for _, e := range one.Evidence {
		want = append(want, ev{mapBack(e.Event.LineStart), e.Text, e.Counted})
	}
	for _, e := range got.Evidence {
		have = append(have, ev{place{e.Document, e.Event.LineStart}, e.Text, e.Counted})
	}
	require.Equal(t, want, have, "evidence mapped back to documents and lines")
	require.Equal(t, one.Duplicate, got.Duplicate)
	require.Equal(t, one.Related, got.Related)
	require.Equal(t, one.Contradicted, got.Contradicted)
	require.Equal(t, one.Overflow, got.Overflow)
}

// TestSettleAcrossDocumentsProperty: for random archives of two to five
// documents drawing on a small vocabulary (so that debts, links, payments,
// duplicates and contradictions meet across documents), settling across
// the documents equals settling their concatenation, for every question
// frame; and settling over one chosen document equals `query DOC`.
func TestSettleAcrossDocumentsProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 9))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	record := func() string {
		pred := pick("BORROWED_FROM", "BORROWED_FROM", "PAID_TO", "PAID_TO", "TRANSFER_TO", "INTERMEDIARY_FOR")
		subj, obj := pick("Alice", "Alice", "Carol"), pick("Bob", "Bob", "Saud")
		if pred == "INTERMEDIARY_FOR" {
			subj, obj = pick("Saud", "Saud", "Carol"), pick("Bob", "Bob", "Alice")
		}
		amount := pick("100", "40", "60", "0", "1/3", "-", "100", "40")
		if pred == "BORROWED_FROM" {
			amount = pick("100", "100", "40")
		}
		mod, pol, st := "ASSERTED", "POSITIVE", "CONFIRMED"
		if rng.IntN(5) == 0 {
			mod = pick("UNCERTAIN", "asserted")
		}
		if rng.IntN(6) == 0 {
			pol = "NEGATIVE"
		}
		if rng.IntN(6) == 0 {
			st = pick("PENDING", "DENIED", "ASSERTED")
		}
		return rec(subj, pred, obj, amount, pick("SAR", "SAR", "SAR", "USD"), pick("T1", "T2", "T3"), mod, pol, st)
	}
	questions := []string{"Did Alice repay Bob?", "Alice Bob", "@settlement\tAlice\tBob", "هل سدد Alice دين Bob؟",
		"Carol Bob?", "@settlement\tAlice\tSaud", "Did Bob repay Alice?"}
	trials := 60
	if testing.Short() {
		trials = 20
	}
	for trial := range trials {
		a := openArchive(t, newPath(t))
		n := 2 + rng.IntN(4)
		texts := make([]string, n)
		for i := range texts {
			var rs []string
			rs = append(rs, fmt.Sprintf("Trial %d, document %d.", trial, i+1))
			for range rng.IntN(7) {
				if rng.IntN(4) == 0 {
					rs = append(rs, "Prose between the records.")
				}
				rs = append(rs, record())
			}
			texts[i] = lines(rs...)
		}
		docs := ingestTexts(t, a, texts...)
		for _, q := range questions {
			c, err := a.Settle(q, nil)
			require.NoError(t, err)
			sameAsConcatenation(t, a, c, q, texts)
			chosen, err := a.Settle(q, []*db.Document{docs[n-1], docs[0], docs[n-1]})
			require.NoError(t, err)
			sameAsConcatenation(t, a, chosen, q, []string{texts[0], texts[n-1]})
			if n == 2 {
				require.Equal(t, c.Result.JSON(), chosen.Result.JSON(), "all documents chosen")
			}
			requireSameAsQuery(t, a, docs[rng.IntN(n)], q)
		}
	}
}

// TestSettleSampleStories: the loan agreement and the bank statement of
// testdata/stories settle only together; the samples are untouched.
func TestSettleSampleStories(t *testing.T) {
	a := openArchive(t, newPath(t))
	var docs []*db.Document
	for _, f := range []string{"samples/ahmed-khalid-ar.txt", "samples/alice-bob-en.txt", "stories/1-loan-agreement-en.txt", "stories/2-bank-statement-en.txt"} {
		res, err := a.Ingest(readFile(t, "../testdata/"+f), 1750000000, f)
		require.NoError(t, err)
		docs = append(docs, res.Doc)
	}
	const q = "Did Layla repay Omar?"
	c, err := a.Settle(q, nil)
	require.NoError(t, err)
	require.Equal(t, settle.Supported, c.Result.Status)
	require.Equal(t, "500/1", c.Result.Settled.String())
	require.Equal(t, []*db.Document{docs[2], docs[3]}, c.Participants())
	var counted []string
	for _, e := range c.Result.Evidence {
		if e.Counted {
			counted = append(counted, fmt.Sprintf("%s:%d %s", c.Doc(e.Document).Label(), e.Event.LineStart, e.Event.Amount))
		}
	}
	require.Equal(t, []string{"stories/2-bank-statement-en.txt:4 200/1", "stories/2-bank-statement-en.txt:6 300/1"}, counted)
	for _, d := range docs[2:] {
		one, err := a.Settle(q, []*db.Document{d})
		require.NoError(t, err)
		require.Equal(t, settle.Unknown, one.Result.Status, "%s alone", d.Label())
	}
	// The samples answer as they did.
	for _, d := range docs[:2] {
		requireSameAsQuery(t, a, d, "هل سدد أحمد دين خالد؟")
		requireSameAsQuery(t, a, d, "Did Alice repay Bob?")
	}
}

// settleFixture is an archive whose debt, link and payment lie in three
// documents among unrelated ones, with receipts over all of it and over
// the three documents.
type settleFixture struct {
	path        string
	a           *db.Archive
	docs        []*db.Document
	all, chosen *db.SetReceipt
}

const settleQ = "Did Alice repay Bob?"

func newSettleFixture(t *testing.T) *settleFixture {
	f := &settleFixture{path: newPath(t)}
	f.a = openArchive(t, f.path)
	f.docs = ingestTexts(t, f.a,
		lines("An unrelated note."),
		lines("The loan.", ok("Alice", "BORROWED_FROM", "Bob", "100", "SAR", "T1")),
		lines("Bob's mandate.", ok("Saud", "INTERMEDIARY_FOR", "Bob", "-", "SAR", "T1")),
		lines("The statement.", ok("Alice", "PAID_TO", "Saud", "40", "SAR", "T2"), ok("Alice", "PAID_TO", "Bob", "10", "SAR", "T3")),
	)
	c, r, err := f.a.IssueSettle(settleQ, nil)
	require.NoError(t, err)
	require.Equal(t, "PARTIAL", string(c.Result.Status))
	require.Equal(t, db.KindArchiveSettle, r.Kind)
	require.Equal(t, uint64(4), r.Documents)
	require.Nil(t, r.Chosen)
	f.all = r
	c2, r2, err := f.a.IssueSettle(settleQ, []*db.Document{f.docs[3], f.docs[1], f.docs[2]})
	require.NoError(t, err)
	require.Equal(t, c.Result.JSON(), c2.Result.JSON())
	require.Equal(t, []db.Digest{f.docs[1].SHA256, f.docs[2].SHA256, f.docs[3].SHA256}, r2.Chosen, "import order")
	f.chosen = r2
	return f
}

// TestSettleReceipts: both forms of the ARCHIVE-SETTLE receipt round-trip,
// verify VALID, stay VALID after later imports (which change the answer
// over all documents) and can be kept; a different result is INVALID.
func TestSettleReceipts(t *testing.T) {
	f := newSettleFixture(t)
	for _, r := range []*db.SetReceipt{f.all, f.chosen} {
		again, err := db.ParseSetReceipt(r.Encode())
		require.NoError(t, err)
		require.Equal(t, r, again)
		requireValid(t, f.a, r)
	}
	enc := string(f.chosen.Encode())
	require.True(t, strings.HasPrefix(enc, "CHRONICLE-ARCHIVE-SET-RECEIPT-V1\nkind:ARCHIVE-SETTLE\ndocuments:3\ndocument_sha256:"+f.docs[1].SHA256.String()+"\n"), enc)
	require.Contains(t, string(f.all.Encode()), "\nlimit:0\n")

	// Later imports: a second payment settles the debt now, the receipts hold.
	ingestTexts(t, f.a, lines("Later.", ok("Alice", "PAID_TO", "Bob", "50", "SAR", "T4")))
	now, err := f.a.Settle(settleQ, nil)
	require.NoError(t, err)
	require.Equal(t, settle.Supported, now.Result.Status)
	for _, r := range []*db.SetReceipt{f.all, f.chosen} {
		requireValid(t, f.a, r)
		require.NoError(t, f.a.KeepSetReceipt(r))
	}
	kept, err := f.a.SetReceipts()
	require.NoError(t, err)
	require.Equal(t, []*db.SetReceipt{f.all, f.chosen}, kept)

	// A receipt claiming another result, or another set, is INVALID.
	bad := *f.chosen
	bad.Result[0] ^= 1
	requireInvalid(t, f.a, &bad, db.ErrReceiptResult)
	other := *f.chosen
	other.Chosen = []db.Digest{f.docs[1].SHA256, f.docs[3].SHA256, f.docs[2].SHA256}
	outcome, err := f.a.VerifySet(&other)
	require.Equal(t, receipt.Invalid, outcome)
	require.Error(t, err)
	missing := *f.chosen
	missing.Chosen = []db.Digest{f.docs[1].SHA256, f.docs[2].SHA256, {1}}
	requireInvalid(t, f.a, &missing, db.ErrReceiptSetMissing)
}

// TestSettleReceiptsDamagedDocument: damage to a bound document makes
// both receipts INVALID (naming it); damage to a document the chosen set
// does not bind leaves that receipt VALID.
func TestSettleReceiptsDamagedDocument(t *testing.T) {
	for _, victim := range []int{0, 3} {
		t.Run(fmt.Sprintf("d%d", victim+1), func(t *testing.T) {
			f := newSettleFixture(t)
			d := f.docs[victim]
			require.NoError(t, f.a.Close())
			editBolt(t, f.path, func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte("chunks"))
				frame := unchunk(t, b.Get(chunkKey(d.SHA256, 0)))
				frame[0] ^= 0x20
				return b.Put(chunkKey(d.SHA256, 0), chunkFrame(t, frame))
			})
			a := openArchive(t, f.path, db.Options{ReadOnly: true})
			requireInvalid(t, a, f.all, db.ErrCorrupt)
			_, err := a.VerifySet(f.all)
			require.ErrorContains(t, err, d.Label())
			if victim == 0 {
				requireValid(t, a, f.chosen) // d1 is not bound by the chosen set
			} else {
				requireInvalid(t, a, f.chosen, db.ErrCorrupt)
			}
		})
	}
}

// TestParseSettleReceipt: the chosen-set layout is strict.
func TestParseSettleReceipt(t *testing.T) {
	good := (&db.SetReceipt{Kind: db.KindArchiveSettle, Documents: 2, Question: "Alice Bob",
		Chosen: []db.Digest{{1}, {2}}}).Encode()
	_, err := db.ParseSetReceipt(good)
	require.NoError(t, err)
	for name, data := range map[string][]byte{
		"count differs":         bytes.Replace(good, []byte("documents:2"), []byte("documents:3"), 1),
		"uppercase digest":      bytes.Replace(good, []byte("document_sha256:01"), []byte("document_sha256:0A"), 1),
		"short digest":          bytes.Replace(good, []byte("0200000000"), []byte("02"), 1),
		"a find with documents": bytes.Replace(good, []byte("ARCHIVE-SETTLE"), []byte("ARCHIVE-FIND"), 1),
		"repeated document": (&db.SetReceipt{Kind: db.KindArchiveSettle, Documents: 2, Question: "Alice Bob",
			Chosen: []db.Digest{{1}, {1}}}).Encode(),
		"limit": (&db.SetReceipt{Kind: db.KindArchiveSettle, Documents: 2, Limit: 3, Question: "Alice Bob",
			Chosen: []db.Digest{{1}, {2}}}).Encode(),
	} {
		r, err := db.ParseSetReceipt(data)
		require.ErrorIs(t, err, db.ErrReceipt, name)
		require.Nil(t, r, name)
	}
}

// TestSettleReadsOnlyTheEntityIndex: the answer comes from the entity
// index alone (no chunk is decompressed), so it stands without the
// documents' chunks, and fails on damaged index entries, never answering.
func TestSettleReadsOnlyTheEntityIndex(t *testing.T) {
	f := newSettleFixture(t)
	want, err := f.a.Settle(settleQ, nil)
	require.NoError(t, err)
	require.NoError(t, f.a.Close())
	editBolt(t, f.path, func(tx *bolt.Tx) error {
		for _, d := range f.docs {
			if err := tx.Bucket([]byte("chunks")).Delete(chunkKey(d.SHA256, 0)); err != nil {
				return err
			}
		}
		return nil
	})
	a := openArchive(t, f.path, db.Options{ReadOnly: true})
	got, err := a.Settle(settleQ, nil)
	require.NoError(t, err)
	require.Equal(t, want.Result.JSON(), got.Result.JSON())
	require.NoError(t, a.Close())
	editBolt(t, f.path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("spans"))
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if bytes.Contains(v, []byte("PAID_TO\tSaud")) {
				v = bytes.Clone(v)
				v[len(v)-3] ^= 1
				return b.Put(bytes.Clone(k), v)
			}
		}
		return fmt.Errorf("no span found")
	})
	a = openArchive(t, f.path, db.Options{ReadOnly: true})
	_, err = a.Settle(settleQ, nil)
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.ErrorContains(t, err, "d4.txt")
}
