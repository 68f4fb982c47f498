package receipt

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
)

// FuzzParse: Parse never panics; every error wraps ErrMalformed; whatever
// it accepts satisfies CONTRACT 4.1 and survives Encode → Parse unchanged
// (digests keep their case, hex blobs re-encode lowercase, so the decoded
// fields are compared), and the canonical encoding is a fixed point.
// The seed corpus lives in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, c := range loadGoldenCases(f) {
		for _, name := range c.receiptNames() {
			data := c.receipts[name]
			f.Add(data)
			f.Add(bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")))
		}
	}
	f.Add([]byte{})
	f.Add([]byte(HeaderV2 + "\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			require.Nil(t, r)
			return
		}
		require.NotNil(t, r)

		// What Parse accepts obeys CONTRACT 4.1 and 4.2 step 1.
		require.NotContains(t, string(data), "\x00")
		require.True(t, bytes.HasSuffix(data, []byte("\n")))
		require.Contains(t, []int{1, 2}, r.Version)
		require.Contains(t, []Kind{KindIngest, KindQuery, KindFind}, r.Kind)
		require.True(t, len(r.StorePath) >= 1 && len(r.StorePath) <= MaxPathLen, "path length %d", len(r.StorePath))
		require.LessOrEqual(t, len(r.Question), MaxQuestionLen)
		require.True(t, engine.ValidTextString(r.StorePath))
		require.True(t, engine.ValidTextString(r.Question))
		if r.Kind == KindIngest {
			require.Empty(t, r.Question)
		}
		for _, d := range []string{r.StoreSHA256, r.DocumentSHA256, r.ResultSHA256} {
			require.Len(t, d, 64)
			require.True(t, isHex(d), "digest %q", d)
		}

		// Round trip.
		enc := r.Encode()
		require.Equal(t, 7, bytes.Count(enc, []byte("\n")))
		back, err := Parse(enc)
		require.NoError(t, err, "re-encoded receipt:\n%s", enc)
		require.Equal(t, r, back)
		require.Equal(t, enc, back.Encode(), "the canonical encoding is a fixed point")

		// The canonical form differs from the input only by line endings,
		// key order and the case of the two hex blobs.
		norm := func(b []byte) []string {
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			for i, l := range lines {
				l = strings.TrimSuffix(l, "\r")
				if k, v, ok := strings.Cut(l, ":"); ok && (k == "store_path_hex" || k == "question_hex") {
					l = k + ":" + strings.ToLower(v)
				}
				lines[i] = l
			}
			head := lines[0]
			rest := lines[1:]
			slices.Sort(rest)
			return append([]string{head}, rest...)
		}
		require.Equal(t, norm(data), norm(enc))
	})
}
