package main

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/klauspost/compress/s2"
	"github.com/stretchr/testify/require"
)

// setStories are ingested in this order; the last two change the answers
// of `find "alpha beta"` and `entity Alice`.
var setStories = []struct{ name, text string }{
	{"one.txt", "alpha one\n@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"},
	{"two.txt", "nothing here\nBob owns Book.\n"},
	{"three.txt", "alpha beta\nbeta alpha\nAlice owns Book.\n"},
	{"four.txt", "alpha beta gamma\nCarol owns Alice.\n"},
	{"five.txt", "alpha beta\nalpha beta\nalpha beta\n@chronicle\tAlice\tPAID_TO\tBob\t40\tSAR\tT2\tASSERTED\tPOSITIVE\tCONFIRMED\n"},
}

// setWS is a workspace whose archive holds the first n stories.
func setWS(t *testing.T, n int) *ws {
	t.Helper()
	w := newWS(t)
	for _, s := range setStories {
		w.write(s.name, s.text)
	}
	for _, s := range setStories[:n] {
		w.ok("ingest", s.name)
	}
	return w
}

// requireVerdict runs `verify FILE` and checks its word (with the line
// on its signature), exit code and stderr (empty when VALID, one line
// naming the file when INVALID).
func requireVerdict(t *testing.T, w *ws, file, verdict string) {
	t.Helper()
	r := w.run("verify", file)
	require.Equal(t, w.verifyText(file, verdict), r.stdout, "%s", r)
	if verdict == "VALID" {
		require.Equal(t, 0, r.code, "%s", r)
		require.Empty(t, r.stderr)
		return
	}
	require.Equal(t, 1, r.code, "%s", r)
	require.Len(t, lines(r.stderr), 1, "one line says why: %q", r.stderr)
	require.True(t, strings.HasPrefix(r.stderr, "chronicle verify: "+file+": "), r.stderr)
}

// TestArchiveFindReceipt: `find TERMS --receipt FILE` across the archive
// writes a receipt that `verify FILE` reports VALID, also after more
// documents are ingested; editing any field makes it INVALID.
func TestArchiveFindReceipt(t *testing.T) {
	t.Parallel()
	w := setWS(t, 3)
	plain := w.ok("find", "alpha beta", "--limit", "2")
	require.Equal(t, plain, w.ok("find", "alpha beta", "--limit", "2", "--receipt", "find.receipt"),
		"the receipt file does not change stdout")
	data := string(w.read("find.receipt"))
	require.True(t, strings.HasPrefix(data, "CHRONICLE-ARCHIVE-SET-RECEIPT-V1\nkind:ARCHIVE-FIND\ndocuments:3\nset_sha256:"), data)
	require.Contains(t, data, "\nquestion_hex:"+hex.EncodeToString([]byte("alpha beta"))+"\nlimit:2\nresult_sha256:")
	requireVerdict(t, w, "find.receipt", "VALID")

	// The same receipt again is fine; a different one never overwrites it.
	w.ok("find", "alpha beta", "--limit", "2", "--receipt", "find.receipt")
	requireOneLineError(t, w.run("find", "alpha beta", "--receipt", "find.receipt"), 1, "find", `find\.receipt`)
	require.Equal(t, data, string(w.read("find.receipt")))

	// More documents, a new name: the answer changes, the receipt holds.
	w.ok("ingest", "four.txt", "five.txt")
	w.ok("ingest", "three.txt", "--name", "renamed.txt")
	require.NotEqual(t, plain, w.ok("find", "alpha beta", "--limit", "2"))
	requireVerdict(t, w, "find.receipt", "VALID")
	later := w.ok("find", "alpha beta", "--limit", "2", "--receipt", "later.receipt")
	require.Contains(t, string(w.read("later.receipt")), "\ndocuments:5\n")
	require.Equal(t, later, w.ok("find", "alpha beta", "--limit", "2"))
	requireVerdict(t, w, "later.receipt", "VALID")

	// Text view: the hits, then where the receipt went.
	text := w.ok("find", "alpha beta", "--text", "--receipt", "text.receipt")
	require.Regexp(t, "^MATCHES  3 matching lines in five\\.txt\n", text)
	require.Regexp(t, "\nreceipt [0-9a-f]{12} written to text\\.receipt \\(`verify FILE` checks it; --keep also keeps it\\)\n$", text)
	requireVerdict(t, w, "text.receipt", "VALID")
	kept := w.ok("find", "alpha beta", "--text", "--keep")
	require.Regexp(t, "\nreceipt [0-9a-f]{12} kept \\(`receipts` lists it\\)\n$", kept)

	fields := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	require.Len(t, fields, 7)
	with := func(i int, v string) string {
		f := append([]string(nil), fields...)
		f[i] = v
		return strings.Join(f, "\n") + "\n"
	}
	flipLast := func(s string) string {
		c := byte('0')
		if s[len(s)-1] == '0' {
			c = '1'
		}
		return s[:len(s)-1] + string(c)
	}
	for name, edited := range map[string]string{
		"question":            with(4, "question_hex:"+hex.EncodeToString([]byte("alpha gamma"))),
		"limit":               with(5, "limit:1"),
		"result":              with(6, flipLast(fields[6])),
		"documents fewer":     with(2, "documents:2"),
		"documents more":      with(2, "documents:4"),
		"documents too many":  with(2, "documents:6"),
		"set":                 with(3, flipLast(fields[3])),
		"kind":                with(1, "kind:ENTITY"),
		"limit leading zero":  with(5, "limit:02"),
		"documents zero":      with(2, "documents:0"),
		"uppercase set hex":   with(3, strings.ToUpper(fields[3])),
		"document receipt V1": with(0, db.ReceiptHeader),
		"CRLF":                strings.ReplaceAll(data, "\n", "\r\n"),
		"no final LF":         strings.TrimSuffix(data, "\n"),
		"extra line":          data + "note:x\n",
	} {
		t.Run(name, func(t *testing.T) {
			file := strings.ReplaceAll(name, " ", "-") + ".receipt"
			w.write(file, edited)
			requireVerdict(t, w, file, "INVALID")
		})
	}
}

// TestEntityReceipt: `entity NAME --receipt -` prints the events, then the
// receipt, which verifies; `receipts` lists and re-verifies the
// cross-archive receipts.
func TestEntityReceipt(t *testing.T) {
	t.Parallel()
	w := setWS(t, 3)
	plain := w.ok("entity", "Alice")
	require.Len(t, lines(plain), 2)
	out := w.ok("entity", "Alice", "--receipt", "-", "--keep")
	require.True(t, strings.HasPrefix(out, plain), "the events first, as without --receipt")
	rec := strings.TrimPrefix(out, plain)
	require.Regexp(t, "^CHRONICLE-ARCHIVE-SET-RECEIPT-V1\nkind:ENTITY\ndocuments:3\nset_sha256:[0-9a-f]{64}\n"+
		"question_hex:416c696365\nlimit:0\nresult_sha256:[0-9a-f]{64}\n$", rec)
	w.write("entity.receipt", rec)
	requireVerdict(t, w, "entity.receipt", "VALID")

	text := w.ok("entity", "Alice", "--text", "--receipt", "-")
	require.True(t, strings.HasSuffix(text, rec), text)
	require.Contains(t, text, "one.txt:2  subject BORROWED_FROM Bob")

	// An entity nobody names: no events, still a receipt that verifies.
	none := w.ok("entity", "Nobody", "--receipt", "none.receipt", "--keep")
	require.Empty(t, none)
	requireVerdict(t, w, "none.receipt", "VALID")

	w.ok("find", "alpha", "--receipt", "find.receipt", "--keep")
	w.ok("find", "alpha beta", "--receipt", "not-kept.receipt") // written, not kept: not listed
	w.ok("ingest", "four.txt", "five.txt")
	require.Len(t, lines(w.ok("entity", "Alice")), 4)
	requireVerdict(t, w, "entity.receipt", "VALID")
	w.write("edited.receipt", strings.Replace(rec, "question_hex:416c696365", "question_hex:426f62", 1))
	requireVerdict(t, w, "edited.receipt", "INVALID")

	// receipts: the document receipts, then the cross-archive ones in
	// issue order (each issued once however often it is asked).
	listing := lines(w.ok("receipts"))
	require.Len(t, listing, 5+3)
	require.Regexp(t, `^[0-9a-f]{12}  ENTITY  documents #1\.\.#3  Alice$`, listing[5])
	require.Regexp(t, `^[0-9a-f]{12}  ENTITY  documents #1\.\.#3  Nobody$`, listing[6])
	require.Regexp(t, `^[0-9a-f]{12}  ARCHIVE-FIND  documents #1\.\.#3  alpha  limit 20$`, listing[7])
	for _, line := range lines(w.ok("receipts", "--verify")) {
		require.True(t, strings.HasPrefix(line, "VALID  "), line)
	}
	var kinds []string
	for _, r := range w.receipts("--verify") {
		require.Equal(t, "VALID", r.Verdict)
		kinds = append(kinds, r.Kind)
	}
	require.Equal(t, []string{"INGEST", "INGEST", "INGEST", "INGEST", "INGEST", "ENTITY", "ENTITY", "ARCHIVE-FIND"}, kinds)
	require.Equal(t, rec, w.receipts()[5].Receipt)
	require.Len(t, lines(w.ok("receipts", "three.txt")), 1, "receipts DOC lists the document's own receipts")
	require.Regexp(t, `(?m)^receipts +8$`, w.ok("stats", "--text"))
	require.Regexp(t, `^ok: 5 documents checked`, w.ok("check"))
}

// TestSetReceiptDamage: `receipts --verify` and `verify` report INVALID
// (exit 1) for receipts that bind a damaged document, and a cross-archive
// --receipt needs an archive with documents.
func TestSetReceiptDamage(t *testing.T) {
	t.Parallel()
	w := setWS(t, 2)
	w.ok("find", "alpha", "--receipt", "find.receipt")
	w.ok("entity", "Bob", "--receipt", "entity.receipt")
	for _, d := range w.docs() {
		if d.Names[0] == "two.txt" { // not an alpha match: only the check of the bound set finds the damage
			corrupt(t, w.db, "chunks", d.SHA256, func(t *testing.T, frame []byte) []byte {
				src, err := s2.Decode(nil, frame)
				require.NoError(t, err)
				src[0] ^= 0x20
				return s2.EncodeBetter(nil, src)
			})
		}
	}
	requireVerdict(t, w, "find.receipt", "INVALID")
	requireVerdict(t, w, "entity.receipt", "INVALID")
	r := w.run("receipts", "--verify")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stdout, "INVALID  ")
	require.Contains(t, r.stderr, "receipts are INVALID")

	// No archive: nothing is created.
	v := newWS(t)
	requireOneLineError(t, v.run("find", "x", "--receipt", "r"), 10, "find", `no archive`)
	requireOneLineError(t, v.run("entity", "x", "--receipt", "-"), 10, "entity", `no archive`)
	a, err := db.Open(v.db, db.Options{}) // an archive without documents
	require.NoError(t, err)
	require.NoError(t, a.Close())
	requireOneLineError(t, v.run("find", "x", "--receipt", "r"), 1, "find", `holds no documents`)
}
