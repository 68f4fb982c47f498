package db_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// FuzzParseReceipt: the archive receipt parser never panics, accepts only
// the canonical encoding of a receipt and wraps every refusal in
// ErrReceipt. Seeds are in testdata/fuzz/FuzzParseReceipt.
func FuzzParseReceipt(f *testing.F) {
	h := func(c string) string { return strings.Repeat(c, 64) }
	for _, r := range []*db.Receipt{
		{Kind: db.KindIngest},
		{Kind: db.KindQuery, Question: "Did Alice repay Bob?"},
		{Kind: db.KindQuery, Question: "@claim\tAlice\towns\tBook"},
		{Kind: db.KindFind, Question: "سعود الحوالة"},
		{Kind: db.KindDerive, Question: `{"input_sha256":"` + h("d") + `","part":"receipt.pdf","tool":{"name":"pdftotext","version":"22.12.0","options":["-enc","UTF-8"]}}`},
	} {
		f.Add(r.Encode())
	}
	f.Add([]byte(db.ReceiptHeader + "\nkind:FIND\ndocument_sha256:" + h("A") + "\nstore_sha256:" + h("b") +
		"\nquestion_hex:41\nresult_sha256:" + h("c") + "\n"))
	f.Add([]byte("CASPER-CHRONICLE-INTEGRITY-RECEIPT-V2\nkind:INGEST\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := db.ParseReceipt(data)
		if err != nil {
			require.ErrorIs(t, err, db.ErrReceipt)
			require.Nil(t, r)
			return
		}
		require.True(t, bytes.Equal(data, r.Encode()), "accepted a non-canonical receipt")
		require.True(t, db.IsArchiveReceipt(data))
		require.Contains(t, []db.ReceiptKind{db.KindIngest, db.KindQuery, db.KindFind, db.KindDerive}, r.Kind)
		if r.Kind == db.KindIngest {
			require.Empty(t, r.Question)
		}
		again, err := db.ParseReceipt(r.Encode())
		require.NoError(t, err)
		require.Equal(t, r, again)
	})
}
