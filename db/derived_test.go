package db_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/extract"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// mailWithAttachment is a mail (the original file) with one attachment
// (an inner original), and the two texts derived from them.
func mailWithAttachment() ([]db.OriginalInput, []db.DerivedText) {
	mailTool := db.Tool{Name: "chronicle-mail", Version: "1 (enmime v2.3.0)", Options: []string{}}
	pdfTool := db.Tool{Name: "pdftotext", Version: "24.02.0", Options: []string{"-enc", "UTF-8", "-eol", "unix"}}
	// An attachment larger than a chunk, so that it is kept in several.
	pdf := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("stream of bytes 0123456789\n"), 50_000)...)
	originals := []db.OriginalInput{
		{Data: []byte("From: Khalid\r\nSubject: the loan\r\n\r\nKhalid lent Ahmed 100 dinars.\r\n"), Kind: "email", Names: []string{"mail.eml"}, Parent: -1},
		{Data: pdf, Kind: "pdf", ContentType: "application/pdf", Names: []string{"mail.eml/receipt.pdf"}, Parent: 0, Part: "receipt.pdf", Tool: mailTool},
	}
	texts := []db.DerivedText{
		{Original: 0, Tool: mailTool, Text: []byte("From: Khalid\nSubject: the loan\n\nKhalid lent Ahmed 100 dinars.\n"), File: "mail.eml"},
		{Original: 1, Tool: pdfTool, Text: []byte("Ahmed repaid Khalid 40 dinars.\n"), Names: []string{"mail.eml/receipt.pdf"}},
	}
	return originals, texts
}

// TestIngestDerived: the originals are kept byte for byte (one over
// several chunks), each text is a document named as asked, linked to its
// original, and the chain leads from the attachment's text to the mail;
// ingesting the same again reuses everything; check is clean.
func TestIngestDerived(t *testing.T) {
	path := newPath(t)
	a := openArchive(t, path)
	originals, texts := mailWithAttachment()
	res, err := a.IngestDerived(1750000000, originals, texts)
	require.NoError(t, err)
	require.Len(t, res.Originals, 2)
	for i, o := range originals {
		require.Equal(t, db.Digest(sha256.Sum256(o.Data)), res.Originals[i])
		data, rec, err := a.OriginalBytes(res.Originals[i])
		require.NoError(t, err)
		require.Equal(t, o.Data, data)
		require.Equal(t, o.Kind, rec.Kind)
		require.Equal(t, o.Names, rec.Names)
	}
	rec, err := a.Original(res.Originals[1])
	require.NoError(t, err)
	require.Equal(t, 2, rec.Chunks, "1.35 MB in chunks of 1 MiB")

	doc, err := a.Resolve("mail.eml/receipt.pdf")
	require.NoError(t, err)
	require.Equal(t, res.Texts[1].Doc.SHA256, doc.SHA256)
	chain, err := a.DerivedFrom(doc.SHA256)
	require.NoError(t, err)
	require.Len(t, chain, 2)
	require.Equal(t, db.Derivation{Output: doc.SHA256, OutputKind: "document", Input: res.Originals[1], Tool: texts[1].Tool, InputKind: "pdf"}, chain[0])
	require.Equal(t, db.Derivation{Output: res.Originals[1], OutputKind: "original", Input: res.Originals[0], Part: "receipt.pdf", Tool: originals[1].Tool, InputKind: "email"}, chain[1])
	mail, err := a.Resolve("mail.eml")
	require.NoError(t, err)
	require.Equal(t, res.Texts[0].Doc.SHA256, mail.SHA256)
	out, err := a.Derivations(res.Originals[0])
	require.NoError(t, err)
	require.Len(t, out, 2, "the mail's text and its attachment")

	again, err := a.IngestDerived(1750000001, originals, texts)
	require.NoError(t, err)
	require.True(t, again.Texts[0].Reused)
	require.True(t, again.Texts[1].Reused)
	all, err := a.OriginalFiles()
	require.NoError(t, err)
	require.Len(t, all, 2)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
	require.NoError(t, a.Close())
}

// TestIngestDerivedRejectsWhole: a text the grammar rejects (not UTF-8)
// writes nothing, neither the originals nor the other texts.
func TestIngestDerivedRejectsWhole(t *testing.T) {
	path := newPath(t)
	a := openArchive(t, path)
	originals, texts := mailWithAttachment()
	texts[1].Text = []byte("Ahmed \xff repaid\n")
	_, err := a.IngestDerived(1750000000, originals, texts)
	require.Error(t, err)
	require.Contains(t, err.Error(), "mail.eml/receipt.pdf: line 1 (byte 6)")
	all, err := a.OriginalFiles()
	require.NoError(t, err)
	require.Empty(t, all)
	docs, err := a.Docs()
	require.NoError(t, err)
	require.Empty(t, docs)
	require.NoError(t, a.Close())
}

// TestOriginalDamage: a changed byte of a kept original, or a changed
// derivation, fails the read that uses it and is reported by check.
func TestOriginalDamage(t *testing.T) {
	for _, bucket := range []string{"origchunks", "origfiles", "derivations"} {
		path := newPath(t)
		a := openArchive(t, path)
		originals, texts := mailWithAttachment()
		res, err := a.IngestDerived(1750000000, originals, texts)
		require.NoError(t, err)
		require.NoError(t, a.Close())

		b, err := bolt.Open(path, 0o600, nil)
		require.NoError(t, err)
		require.NoError(t, b.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket([]byte(bucket))
			k, v := bk.Cursor().Last()
			v = bytes.Clone(v)
			v[len(v)-2] ^= 1
			return bk.Put(bytes.Clone(k), v)
		}))
		require.NoError(t, b.Close())

		a = openArchive(t, path)
		problems, err := a.Check(context.Background())
		require.NoError(t, err)
		require.NotEmpty(t, problems, bucket)
		var all []string
		for _, p := range problems {
			all = append(all, p.String())
		}
		want := map[string]string{"origchunks": "original file %x: chunk 1", "origfiles": "the record of original file %x", "derivations": "a derivation record does not match"}[bucket]
		if strings.Contains(want, "%x") {
			want = fmt.Sprintf(want, res.Originals[1][:])
		}
		require.Contains(t, strings.Join(all, "\n"), want, bucket)
		if bucket != "derivations" {
			_, _, err = a.OriginalBytes(res.Originals[1])
			require.ErrorIs(t, err, db.ErrCorrupt, bucket)
		} else {
			_, err = a.DerivedFrom(res.Texts[1].Doc.SHA256)
			require.ErrorIs(t, err, db.ErrCorrupt, bucket)
		}
		require.NoError(t, a.Close())
	}
}

// TestOriginalRemovedIsSeen: an original file and its derivation removed
// from the archive behind Chronicle's back stay in the log, and check
// names both as removed.
func TestOriginalRemovedIsSeen(t *testing.T) {
	path := newPath(t)
	a := openArchive(t, path)
	originals, texts := mailWithAttachment()
	res, err := a.IngestDerived(1750000000, originals, texts)
	require.NoError(t, err)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
	require.NoError(t, a.Close())

	b, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	pdf := res.Originals[1]
	require.NoError(t, b.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket([]byte("origfiles")).Delete(pdf[:]); err != nil {
			return err
		}
		c := tx.Bucket([]byte("origchunks")).Cursor()
		for k, _ := c.Seek(pdf[:]); k != nil && bytes.HasPrefix(k, pdf[:]); k, _ = c.Seek(pdf[:]) {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		dc := tx.Bucket([]byte("derivations")).Cursor()
		for k, _ := dc.First(); k != nil; k, _ = dc.Next() {
			if bytes.Contains(k, pdf[:]) {
				return dc.Delete()
			}
		}
		return nil
	}))
	require.NoError(t, b.Close())
	a = openArchive(t, path)
	defer a.Close()
	problems, err = a.Check(context.Background())
	require.NoError(t, err)
	var all []string
	for _, p := range problems {
		all = append(all, p.String())
	}
	joined := strings.Join(all, "\n")
	require.Contains(t, joined, fmt.Sprintf("original file %s is in the log but not kept: it was removed", pdf))
	require.Contains(t, joined, "is in the log but not kept: it was removed")
	require.Contains(t, joined, fmt.Sprintf("a derivation names original file %x, which the archive does not keep", pdf[:]))
}

// TestVerifyDerive: a DERIVE receipt is VALID when extracting the kept
// original again gives the document's bytes, INVALID when it gives
// others, and UNSUPPORTED when the tool it names is not installed in that
// version (only integrity checked).
func TestVerifyDerive(t *testing.T) {
	page, err := os.ReadFile("../engine/extract/testdata/english.html")
	require.NoError(t, err)
	parts, err := extract.Extract(context.Background(), extract.KindHTML, page, extract.Options{})
	require.NoError(t, err)
	require.Len(t, parts, 1)
	tool := db.Tool{Name: parts[0].Tool.Name, Version: parts[0].Tool.Version, Options: parts[0].Tool.Options}

	for _, c := range []struct {
		name    string
		tool    db.Tool
		text    []byte
		outcome receipt.Outcome
		err     error
	}{
		{"the same tool and version", tool, parts[0].Text, receipt.Valid, nil},
		{"another text", tool, append(bytes.Clone(parts[0].Text), "An added line.\n"...), receipt.Invalid, db.ErrRederived},
		{"an older version", db.Tool{Name: tool.Name, Version: "0 (before)", Options: tool.Options}, parts[0].Text, receipt.Unsupported, db.ErrOtherTool},
		{"a tool not installed", db.Tool{Name: "pdftotext-9", Version: "9.9", Options: []string{}}, parts[0].Text, receipt.Unsupported, db.ErrOtherTool},
	} {
		a := openArchive(t, newPath(t))
		res, err := a.IngestDerived(1750000000, []db.OriginalInput{{Data: page, Kind: "html", Names: []string{"page.html"}, Parent: -1}},
			[]db.DerivedText{{Original: 0, Tool: c.tool, Text: c.text, Names: []string{"page.html"}}})
		require.NoError(t, err, c.name)
		doc := res.Texts[0].Doc
		dv := &db.Derivation{Output: doc.SHA256, OutputKind: "document", Input: res.Originals[0], Tool: c.tool}
		r := &db.Receipt{Kind: db.KindDerive, Document: doc.SHA256, Store: doc.StoreSHA256, Question: db.DeriveQuestion(dv), Result: doc.SHA256}
		kept, err := a.Receipts(&doc.SHA256)
		require.NoError(t, err)
		require.Contains(t, kept, r, "%s: the DERIVE receipt is kept", c.name)
		back, err := db.ParseReceipt(r.Encode())
		require.NoError(t, err)
		got, err := a.Verify(back, receipt.Canonical{})
		require.Equal(t, c.outcome, got, "%s: %v", c.name, err)
		if c.err == nil {
			require.NoError(t, err, c.name)
		} else {
			require.ErrorIs(t, err, c.err, c.name)
		}
		// A derivation the archive does not keep is INVALID.
		other := *r
		other.Question = strings.Replace(r.Question, `"part":""`, `"part":"x"`, 1)
		got, err = a.Verify(&other, receipt.Canonical{})
		require.Equal(t, receipt.Invalid, got, c.name)
		require.ErrorIs(t, err, db.ErrNoDerivation, c.name)
		require.NoError(t, a.Close())
	}
}

// TestDerivedByTwoVersions: the same text derived from the same original
// by two versions of a tool is two derivations, each with its receipt;
// check is clean.
func TestDerivedByTwoVersions(t *testing.T) {
	page, err := os.ReadFile("../engine/extract/testdata/english.html")
	require.NoError(t, err)
	parts, err := extract.Extract(context.Background(), extract.KindHTML, page, extract.Options{})
	require.NoError(t, err)
	now := db.Tool{Name: parts[0].Tool.Name, Version: parts[0].Tool.Version, Options: parts[0].Tool.Options}
	old := db.Tool{Name: now.Name, Version: "0 (before)", Options: now.Options}
	a := openArchive(t, newPath(t))
	defer a.Close()
	var res *db.DerivedResult
	for _, tool := range []db.Tool{old, now} {
		res, err = a.IngestDerived(1750000000, []db.OriginalInput{{Data: page, Kind: "html", Names: []string{"page.html"}, Parent: -1}},
			[]db.DerivedText{{Original: 0, Tool: tool, Text: parts[0].Text, Names: []string{"page.html"}}})
		require.NoError(t, err)
	}
	dvs, err := a.Derivations(res.Originals[0])
	require.NoError(t, err)
	require.Len(t, dvs, 2)
	doc := res.Texts[0].Doc
	kept, err := a.Receipts(&doc.SHA256)
	require.NoError(t, err)
	outcomes := map[string]receipt.Outcome{}
	for _, r := range kept {
		if r.Kind == db.KindDerive {
			got, _ := a.Verify(r, receipt.Canonical{})
			outcomes[r.Question] = got
		}
	}
	require.Len(t, outcomes, 2)
	for q, got := range outcomes {
		if strings.Contains(q, `"0 (before)"`) {
			require.Equal(t, receipt.Unsupported, got, q)
		} else {
			require.Equal(t, receipt.Valid, got, q)
		}
	}
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
}
