package db_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/receipt"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// receiptFixture is an archive holding golden g0 and g1 with one kept
// receipt per golden command, in issue order.
type receiptFixture struct {
	path     string
	a        *db.Archive
	cases    []goldenCase
	docs     []*db.Document
	receipts []*db.Receipt // every receipt the archive issued, in order
}

func newReceiptFixture(t *testing.T) *receiptFixture {
	t.Helper()
	f := &receiptFixture{path: newPath(t), cases: loadGolden(t)[:2]}
	f.a = openArchive(t, f.path)
	for i := range f.cases {
		c := &f.cases[i]
		res, err := f.a.Ingest(c.Input, goldenTime, c.DocName())
		require.NoError(t, err)
		f.docs = append(f.docs, res.Doc)
		f.receipts = append(f.receipts, res.Receipt)
		s, err := f.a.Load(res.Doc)
		require.NoError(t, err)
		for _, cmd := range c.Cmds {
			result := replay(t, s, cmd.Kind, cmd.Question)
			r := &db.Receipt{Kind: cmd.Kind, Document: res.Doc.SHA256, Store: res.Doc.StoreSHA256,
				Question: cmd.Question, Result: sha256.Sum256(result)}
			require.NoError(t, f.a.KeepReceipt(r))
			f.receipts = append(f.receipts, r)
		}
	}
	return f
}

func TestArchiveReceiptsVerify(t *testing.T) {
	f := newReceiptFixture(t)
	kinds := map[db.ReceiptKind]int{}
	for _, r := range f.receipts {
		kinds[r.Kind]++
		outcome, err := f.a.Verify(r, receipt.Canonical{})
		require.NoError(t, err, "%s %q", r.Kind, r.Question)
		require.Equal(t, receipt.Valid, outcome)

		// The encoded receipt parses back to itself and verifies again.
		parsed, err := db.ParseReceipt(r.Encode())
		require.NoError(t, err)
		require.Equal(t, r, parsed)
		require.True(t, db.IsArchiveReceipt(r.Encode()))
		require.Equal(t, db.Digest(sha256.Sum256(r.Encode())), r.ID())
	}
	require.Equal(t, map[db.ReceiptKind]int{db.KindIngest: 2, db.KindQuery: 4, db.KindFind: 2}, kinds)

	// Receipts lists every kept receipt in issue order, per document too.
	all, err := f.a.Receipts(nil)
	require.NoError(t, err)
	require.Equal(t, f.receipts, all)
	for _, d := range f.docs {
		var want []*db.Receipt
		for _, r := range f.receipts {
			if r.Document == d.SHA256 {
				want = append(want, r)
			}
		}
		got, err := f.a.Receipts(&d.SHA256)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	none, err := f.a.Receipts(&db.Digest{0xff})
	require.NoError(t, err)
	require.Empty(t, none)

	// Keeping a receipt twice keeps it once; they survive a reopen.
	require.NoError(t, f.a.KeepReceipt(f.receipts[3]))
	require.NoError(t, f.a.Close())
	a := openArchive(t, f.path, db.Options{ReadOnly: true})
	again, err := a.Receipts(nil)
	require.NoError(t, err)
	require.Equal(t, f.receipts, again)
	for _, r := range again {
		outcome, err := a.Verify(r, receipt.Canonical{})
		require.NoError(t, err)
		require.Equal(t, receipt.Valid, outcome)
	}
}

// The archive receipt layout, byte for byte, for golden g0.
func TestReceiptEncodeLayout(t *testing.T) {
	g0 := loadGolden(t)[0]
	a := openArchive(t, newPath(t))
	res, err := a.Ingest(g0.Input, goldenTime, g0.DocName())
	require.NoError(t, err)
	require.Equal(t, "CHRONICLE-ARCHIVE-RECEIPT-V1\n"+
		"kind:INGEST\n"+
		"document_sha256:36c5ab5b586ba2213e5229e7c4d27878248491b83f25588454be93a11c7e3dd3\n"+
		"store_sha256:86880520cbb14a42de6304f6a7b99e03eacca0ba075f9d42a1542f792d4053bc\n"+
		"question_hex:\n"+
		"result_sha256:86880520cbb14a42de6304f6a7b99e03eacca0ba075f9d42a1542f792d4053bc\n",
		string(res.Receipt.Encode()))

	s, err := a.Load(res.Doc)
	require.NoError(t, err)
	q := "@claim\tAlice\towns\tBook"
	r := &db.Receipt{Kind: db.KindQuery, Document: res.Doc.SHA256, Store: res.Doc.StoreSHA256,
		Question: q, Result: sha256.Sum256(replay(t, s, db.KindQuery, q))}
	require.Equal(t, "CHRONICLE-ARCHIVE-RECEIPT-V1\n"+
		"kind:QUERY\n"+
		"document_sha256:36c5ab5b586ba2213e5229e7c4d27878248491b83f25588454be93a11c7e3dd3\n"+
		"store_sha256:86880520cbb14a42de6304f6a7b99e03eacca0ba075f9d42a1542f792d4053bc\n"+
		"question_hex:40636c61696d09416c696365096f776e7309426f6f6b\n"+
		// The golden json_line_sha256 of the same claim.
		"result_sha256:6179047c94adc9619bba9a844356b94d569c7c208b1746cfafb7e7f9ed307f03\n",
		string(r.Encode()))
}

// Every edit of a kept receipt is refused by the parser or verifies
// INVALID; none verifies VALID.
func TestArchiveReceiptTampered(t *testing.T) {
	f := newReceiptFixture(t)
	other := f.docs[0]
	flipHexDigit := func(line string) func([]byte) []byte {
		return func(b []byte) []byte {
			i := bytes.Index(b, []byte("\n"+line+":")) + len(line) + 2
			out := bytes.Clone(b)
			if out[i+5] == '0' {
				out[i+5] = '1'
			} else {
				out[i+5] = '0'
			}
			return out
		}
	}
	setLine := func(key, value string) func([]byte) []byte {
		return func(b []byte) []byte {
			lines := strings.Split(string(b), "\n")
			for i, l := range lines {
				if strings.HasPrefix(l, key+":") {
					lines[i] = key + ":" + value
				}
			}
			return []byte(strings.Join(lines, "\n"))
		}
	}
	tests := []struct {
		name  string
		kind  db.ReceiptKind // receipt edited
		edit  func([]byte) []byte
		parse bool // the edited bytes still parse; Verify must say INVALID
	}{
		{"kind QUERY to FIND", db.KindQuery, setLine("kind", "FIND"), true},
		{"kind FIND to QUERY", db.KindFind, setLine("kind", "QUERY"), true},
		{"kind INGEST to QUERY", db.KindIngest, setLine("kind", "QUERY"), true},
		{"kind QUERY to INGEST", db.KindQuery, setLine("kind", "INGEST"), false},
		{"kind CLAIM", db.KindQuery, setLine("kind", "CLAIM"), false},
		{"kind lower case", db.KindQuery, setLine("kind", "query"), false},
		{"kind empty", db.KindQuery, setLine("kind", ""), false},
		{"document digit", db.KindQuery, flipHexDigit("document_sha256"), true},
		{"document of another document", db.KindFind, setLine("document_sha256", other.SHA256.String()), true},
		{"store digit", db.KindIngest, flipHexDigit("store_sha256"), true},
		{"store of another document", db.KindQuery, setLine("store_sha256", other.StoreSHA256.String()), true},
		{"question", db.KindQuery, setLine("question_hex", hex.EncodeToString([]byte("Did Carol repay Bob?"))), true},
		{"question emptied", db.KindFind, setLine("question_hex", ""), true},
		{"question on INGEST", db.KindIngest, setLine("question_hex", "41"), false},
		{"question odd hex", db.KindQuery, setLine("question_hex", "414"), false},
		{"question non-hex", db.KindQuery, setLine("question_hex", "4g"), false},
		{"result digit", db.KindFind, flipHexDigit("result_sha256"), true},
		{"result of the ingest", db.KindQuery, setLine("result_sha256", f.docs[1].StoreSHA256.String()), true},
		{"result short", db.KindQuery, setLine("result_sha256", strings.Repeat("0", 63)), false},
		{"result long", db.KindQuery, setLine("result_sha256", strings.Repeat("0", 65)), false},
		{"header", db.KindIngest, func(b []byte) []byte {
			return bytes.Replace(b, []byte("RECEIPT-V1"), []byte("RECEIPT-V2"), 1)
		}, false},
		{"original V2 header", db.KindIngest, func(b []byte) []byte {
			return bytes.Replace(b, []byte(db.ReceiptHeader), []byte("CASPER-CHRONICLE-INTEGRITY-RECEIPT-V2"), 1)
		}, false},
		{"extra line", db.KindQuery, func(b []byte) []byte { return append(bytes.Clone(b), "note:x\n"...) }, false},
		{"extra blank line", db.KindQuery, func(b []byte) []byte { return append(bytes.Clone(b), '\n') }, false},
		{"missing line", db.KindQuery, func(b []byte) []byte {
			return []byte(strings.Join(dropLine(strings.Split(string(b), "\n"), 4), "\n"))
		}, false},
		{"lines swapped", db.KindFind, func(b []byte) []byte {
			l := strings.Split(string(b), "\n")
			l[2], l[3] = l[3], l[2]
			return []byte(strings.Join(l, "\n"))
		}, false},
		{"CRLF", db.KindQuery, func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }, false},
		{"no final LF", db.KindIngest, func(b []byte) []byte { return b[:len(b)-1] }, false},
		{"trailing space", db.KindQuery, func(b []byte) []byte {
			return bytes.Replace(b, []byte("\nkind:QUERY"), []byte("\nkind:QUERY "), 1)
		}, false},
		{"upper-case document hex", db.KindQuery, func(b []byte) []byte { return upperLine(b, "document_sha256:") }, false},
		{"upper-case store hex", db.KindIngest, func(b []byte) []byte { return upperLine(b, "store_sha256:") }, false},
		{"upper-case result hex", db.KindFind, func(b []byte) []byte { return upperLine(b, "result_sha256:") }, false},
		{"upper-case question hex", db.KindQuery, func(b []byte) []byte { return upperLine(b, "question_hex:") }, false},
		{"NUL", db.KindQuery, func(b []byte) []byte { return bytes.Replace(b, []byte("kind:"), []byte("kind:\x00"), 1) }, false},
	}
	pick := func(kind db.ReceiptKind) *db.Receipt {
		// The last receipt of that kind: of golden g1.
		var r *db.Receipt
		for _, x := range f.receipts {
			if x.Kind == kind {
				r = x
			}
		}
		require.NotNil(t, r)
		return r
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := pick(tc.kind).Encode()
			edited := tc.edit(orig)
			require.NotEqual(t, orig, edited, "the edit changed nothing")
			r, err := db.ParseReceipt(edited)
			if !tc.parse {
				require.ErrorIs(t, err, db.ErrReceipt)
				require.Nil(t, r)
				return
			}
			require.NoError(t, err)
			outcome, err := f.a.Verify(r, receipt.Canonical{})
			require.Equal(t, receipt.Invalid, outcome)
			require.Error(t, err, "an INVALID outcome says why")
		})
	}
}

func dropLine(lines []string, i int) []string {
	return append(append([]string{}, lines[:i]...), lines[i+1:]...)
}

func upperLine(b []byte, key string) []byte {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if v, ok := strings.CutPrefix(l, key); ok {
			lines[i] = key + strings.ToUpper(v)
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// ParseReceipt against hand-written inputs.
func TestParseReceipt(t *testing.T) {
	h := func(c string) string { return strings.Repeat(c, 64) }
	build := func(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }
	valid := build(db.ReceiptHeader, "kind:FIND", "document_sha256:"+h("a"), "store_sha256:"+h("b"),
		"question_hex:"+hex.EncodeToString([]byte("سعود الحوالة")), "result_sha256:"+h("c"))
	r, err := db.ParseReceipt(valid)
	require.NoError(t, err)
	require.Equal(t, db.KindFind, r.Kind)
	require.Equal(t, "سعود الحوالة", r.Question)
	require.Equal(t, h("a"), r.Document.String())
	require.Equal(t, h("b"), r.Store.String())
	require.Equal(t, h("c"), r.Result.String())

	// Questions are bytes: an empty question (a valid settlement question)
	// and bytes that are not UTF-8 round-trip.
	for _, q := range []string{"", "\xff\x00\n", strings.Repeat("q", db.MaxQuestion)} {
		r := &db.Receipt{Kind: db.KindQuery, Question: q}
		got, err := db.ParseReceipt(r.Encode())
		require.NoError(t, err)
		require.Equal(t, r, got)
	}

	bad := map[string][]byte{
		"empty":                nil,
		"only LF":              []byte("\n"),
		"header only":          build(db.ReceiptHeader),
		"no final LF":          valid[:len(valid)-1],
		"leading blank line":   append([]byte("\n"), valid...),
		"seven lines":          append(bytes.Clone(valid), "kind:FIND\n"...),
		"ingest with question": build(db.ReceiptHeader, "kind:INGEST", "document_sha256:"+h("a"), "store_sha256:"+h("b"), "question_hex:00", "result_sha256:"+h("c")),
		"digest not hex":       build(db.ReceiptHeader, "kind:FIND", "document_sha256:"+h("g"), "store_sha256:"+h("b"), "question_hex:", "result_sha256:"+h("c")),
		"key without colon":    build(db.ReceiptHeader, "kind FIND", "document_sha256:"+h("a"), "store_sha256:"+h("b"), "question_hex:", "result_sha256:"+h("c")),
		"too long":             build(db.ReceiptHeader, "kind:QUERY", "document_sha256:"+h("a"), "store_sha256:"+h("b"), "question_hex:"+strings.Repeat("41", db.MaxQuestion+1024), "result_sha256:"+h("c")),
	}
	for name, data := range bad {
		r, err := db.ParseReceipt(data)
		require.ErrorIs(t, err, db.ErrReceipt, name)
		require.Nil(t, r, name)
	}
	require.False(t, db.IsArchiveReceipt([]byte("CASPER-CHRONICLE-INTEGRITY-RECEIPT-V2\n")))
	require.False(t, db.IsArchiveReceipt([]byte(db.ReceiptHeader)))
}

// A receipt for a document the archive does not hold is INVALID.
func TestVerifyUnknownDocument(t *testing.T) {
	f := newReceiptFixture(t)
	r := *f.receipts[1]
	r.Document = db.Digest{0x42}
	outcome, err := f.a.Verify(&r, receipt.Canonical{})
	require.Equal(t, receipt.Invalid, outcome)
	require.ErrorIs(t, err, db.ErrUnknownDoc)
}

// A stored receipt that no longer parses is corruption: Receipts fails and
// Check reports it.
func TestCorruptStoredReceipt(t *testing.T) {
	f := newReceiptFixture(t)
	require.NoError(t, f.a.Close())
	editBolt(t, f.path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("receipts"))
		k, v := b.Cursor().First()
		v = bytes.Clone(v)
		v[len(v)-2] = 'X' // inside result_sha256
		return b.Put(bytes.Clone(k), v)
	})
	a := openArchive(t, f.path)
	_, err := a.Receipts(nil)
	require.ErrorIs(t, err, db.ErrCorrupt)
	problems := problemsOf(t, a)
	require.Len(t, problems, 1, "%v", problems)
	require.Contains(t, problems[0].String(), "receipt")
}

// KeepReceipt keeps only receipts that the archive can read back: an
// unreadable kept receipt would make Receipts and Check report corruption.
func TestKeepReceiptRefusesUnreadableReceipts(t *testing.T) {
	f := newReceiptFixture(t)
	base := *f.receipts[1]
	tests := map[string]func(r *db.Receipt){
		"question over MaxQuestion": func(r *db.Receipt) { r.Question = strings.Repeat("q", db.MaxQuestion+1000) },
		"empty kind":                func(r *db.Receipt) { r.Kind = "" },
		"unknown kind":              func(r *db.Receipt) { r.Kind = "CLAIM" },
		"kind with a newline":       func(r *db.Receipt) { r.Kind = "QUERY\nkind:FIND" },
		"INGEST with a question":    func(r *db.Receipt) { r.Kind = db.KindIngest },
	}
	for name, edit := range tests {
		t.Run(name, func(t *testing.T) {
			r := base
			edit(&r)
			require.Error(t, f.a.KeepReceipt(&r))
			all, err := f.a.Receipts(nil)
			require.NoError(t, err)
			require.Equal(t, f.receipts, all)
		})
	}
	// The longest question a receipt carries is kept and read back.
	r := base
	r.Question = strings.Repeat("q", db.MaxQuestion)
	require.NoError(t, f.a.KeepReceipt(&r))
	all, err := f.a.Receipts(nil)
	require.NoError(t, err)
	require.Equal(t, append(f.receipts, &r), all)
	require.Empty(t, problemsOf(t, f.a))
}
