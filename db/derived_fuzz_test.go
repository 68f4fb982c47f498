package db

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecodeDerivation: no derivation entry, however malformed, panics
// its reader; one that decodes has the key putDerivation gives it. Seeds are in
// testdata/fuzz/FuzzDecodeDerivation.
func FuzzDecodeDerivation(f *testing.F) {
	out, in := Digest(sha256.Sum256([]byte("text"))), Digest(sha256.Sum256([]byte("mail")))
	for _, dv := range []Derivation{
		{Output: out, OutputKind: "document", Input: in, Part: "", Tool: Tool{Name: "chronicle-mail", Version: "1", Options: []string{}}},
		{Output: out, OutputKind: "original", Input: in, Part: "receipt.pdf", Tool: Tool{Name: "pdftotext", Version: "22.12.0", Options: []string{"-enc", "UTF-8"}}},
	} {
		k, v := encodeDerivation(&dv)
		f.Add(k, v, false)
		f.Add(k, v[32:], true)
	}
	f.Fuzz(func(t *testing.T, k, v []byte, reseal bool) {
		if reseal {
			v = sealValue(k, v)
		}
		dv, err := decodeDerivation(k, v)
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		// The JSON may be spelled otherwise (member order, escapes), so
		// the value need not be putDerivation's; its key must be.
		k2, _ := encodeDerivation(dv)
		require.True(t, bytes.Equal(k, k2), "the key is the derivation's")
	})
}
