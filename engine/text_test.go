package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// CONTRACT 6.1: strict UTF-8 = utf8.Valid plus "no NUL byte".
func TestValidText(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		valid   bool
		badByte int // offset reported by InvalidTextOffset when !valid
	}{
		{"empty", "", true, -1},
		{"ascii", "Alice owns Book.\n", true, -1},
		{"controls and DEL", "\x01\x1f\t\r\n\x7f", true, -1},
		{"arabic", "أقر أحمد", true, -1},
		{"BOM", "\xef\xbb\xbfx", true, -1},
		{"U+FFFD itself", "\xef\xbf\xbd", true, -1},
		{"two-byte max U+07FF", "\xdf\xbf", true, -1},
		{"U+0800", "\xe0\xa0\x80", true, -1},
		{"U+D7FF before surrogates", "\xed\x9f\xbf", true, -1},
		{"U+E000 after surrogates", "\xee\x80\x80", true, -1},
		{"U+10000", "\xf0\x90\x80\x80", true, -1},
		{"U+10FFFF", "\xf4\x8f\xbf\xbf", true, -1},
		{"NUL", "a\x00b", false, 1},
		{"NUL first", "\x00", false, 0},
		{"stray continuation", "ab\x80", false, 2},
		{"C0 lead (overlong 2-byte)", "\xc0\x80", false, 0},
		{"C1 lead (overlong 2-byte)", "x\xc1\xbf", false, 1},
		{"overlong 3-byte", "\xe0\x80\x80", false, 0},
		{"overlong 3-byte U+07FF", "\xe0\x9f\xbf", false, 0},
		{"overlong 4-byte", "\xf0\x80\x80\x80", false, 0},
		{"overlong 4-byte U+FFFF", "\xf0\x8f\xbf\xbf", false, 0},
		{"surrogate D800", "\xed\xa0\x80", false, 0},
		{"surrogate DFFF", "ok\xed\xbf\xbf", false, 2},
		{"above U+10FFFF", "\xf4\x90\x80\x80", false, 0},
		{"F5 lead", "\xf5\x80\x80\x80", false, 0},
		{"FE", "\xfe", false, 0},
		{"FF", "\xff", false, 0},
		{"truncated 2-byte", "a\xd8", false, 1},
		{"truncated 3-byte", "\xe2\x82", false, 0},
		{"truncated 4-byte", "\xf0\x9f\x98", false, 0},
		{"bad continuation", "\xe2\x28\xa1", false, 0},
		{"invalid after valid arabic", "أ\xff", false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.valid, ValidText([]byte(tc.in)))
			require.Equal(t, tc.valid, ValidTextString(tc.in))
			off, ok := InvalidTextOffset([]byte(tc.in))
			require.Equal(t, tc.valid, ok)
			require.Equal(t, tc.badByte, off)

			// The same verdict rejects a source for extraction (CONTRACT 1.2 step 3).
			src := []byte(tc.in)
			_, err := Extract(src, sha256.Sum256(src), ProfileV2)
			if tc.valid {
				require.NoError(t, err)
				return
			}
			var xe *ExtractError
			require.ErrorAs(t, err, &xe)
			require.ErrorIs(t, err, ErrInvalidText)
			require.Equal(t, tc.badByte, xe.Offset)
			require.Equal(t, 1, xe.Line)
		})
	}
}

func TestInvalidTextReportsLine(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		line   int
		offset int
		msg    string
	}{
		{"NUL on line 3", "a\nb\nc\x00d\n", 3, 5, "line 3 (byte 5): NUL byte"},
		{"bad byte on line 2", "Alice owns Book.\r\n\xff\n", 2, 18, "line 2 (byte 18): invalid UTF-8 sequence"},
		{"bad byte after trailing LF", "x\n\xc0", 2, 2, "line 2 (byte 2): invalid UTF-8 sequence"},
		{"lone CR does not split lines", "x\r\xed\xa0\x80", 1, 2, "line 1 (byte 2): invalid UTF-8 sequence"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range []Profile{ProfileV1, ProfileV2} {
				_, err := Extract([]byte(tc.src), sha256.Sum256([]byte(tc.src)), p)
				requireExtractError(t, err, ErrInvalidText, tc.line, tc.offset)
				require.EqualError(t, err, tc.msg)
			}
		})
	}
}

// CONTRACT 6.2 and 17.3: physical lines split at LF only; one CR before the LF
// (or before EOF) is excluded; empty lines count; no extra line after a
// trailing LF.
func TestForEachLine(t *testing.T) {
	type ln struct {
		n, start, end int
		text          string
	}
	tests := []struct {
		name string
		src  string
		want []ln
	}{
		{"empty source", "", nil},
		{"single LF", "\n", []ln{{1, 0, 0, ""}}},
		{"no trailing LF", "abc", []ln{{1, 0, 3, "abc"}}},
		{"trailing LF adds no line", "abc\n", []ln{{1, 0, 3, "abc"}}},
		{"two lines no trailing LF", "ab\ncd", []ln{{1, 0, 2, "ab"}, {2, 3, 5, "cd"}}},
		{"CRLF", "ab\r\ncd\r\n", []ln{{1, 0, 2, "ab"}, {2, 4, 6, "cd"}}},
		{"CR at EOF without LF", "ab\r\ncd\r", []ln{{1, 0, 2, "ab"}, {2, 4, 6, "cd"}}},
		{"only CR", "\r", []ln{{1, 0, 0, ""}}},
		{"CRLF only", "\r\n", []ln{{1, 0, 0, ""}}},
		{"lone CR stays inside the line", "a\rb\n", []ln{{1, 0, 3, "a\rb"}}},
		{"leading CR stays", "\rab\n", []ln{{1, 0, 3, "\rab"}}},
		{"only one CR is excluded", "a\r\r\n", []ln{{1, 0, 2, "a\r"}}},
		{"two CRs at EOF", "a\r\r", []ln{{1, 0, 2, "a\r"}}},
		{"empty lines count", "\n\nx\n\n", []ln{{1, 0, 0, ""}, {2, 1, 1, ""}, {3, 2, 3, "x"}, {4, 4, 4, ""}}},
		{"empty CRLF lines count", "\r\n\r\nx", []ln{{1, 0, 0, ""}, {2, 2, 2, ""}, {3, 4, 5, "x"}}},
		{"whitespace is kept", " \ta \t\r\n", []ln{{1, 0, 5, " \ta \t"}}},
		{"other separators do not split", "a\vb\fc\u2028d\u0085e", []ln{{1, 0, 12, "a\vb\fc\u2028d\u0085e"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			var got []ln
			require.NoError(t, ForEachLine(src, func(l Line) error {
				require.Equal(t, src[l.Start:l.End], l.Text)
				got = append(got, ln{l.Number, l.Start, l.End, string(l.Text)})
				return nil
			}))
			require.Equal(t, tc.want, got)
		})
	}
}

func TestForEachLineStopsAtError(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := ForEachLine([]byte("a\nb\nc\n"), func(l Line) error {
		calls++
		if l.Number == 2 {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, 2, calls)
}

// CONTRACT 2 worked example: `Alice owns Book.\n`.
func TestWorkedExampleIdentities(t *testing.T) {
	src := []byte("Alice owns Book.\n")
	doc := sha256.Sum256(src)
	require.Equal(t, "36c5ab5b586ba2213e5229e7c4d27878248491b83f25588454be93a11c7e3dd3", hex.EncodeToString(doc[:]))
	events, err := Extract(src, doc, ProfileV2)
	require.NoError(t, err)
	require.Len(t, events, 1)
	e := events[0]
	require.Equal(t, "9a72befefa66ab0f822b0766d750f32ebe1f2bca71cd4d91ad126beddd47a926", hex.EncodeToString(e.ID[:]))
	require.Equal(t, "2b7c2f72294ff36e9930a019b70f5242d9661db08280b053c59d39774239cdcd", hex.EncodeToString(e.SpanID[:]))
	require.Equal(t, "c5c1ddaf6bbc3fae666cc9b53978906bf2f40b1ee39570942638120629ac769f", hex.EncodeToString(e.SpanHash[:]))
	require.Equal(t, uint64(0), e.ByteStart)
	require.Equal(t, uint64(16), e.ByteEnd)
	require.Equal(t, uint64(1), e.LineStart)
	require.Equal(t, uint64(1), e.LineEnd)

	// The same line without the trailing LF, or with CRLF, has the same span
	// hash but a different document, hence different IDs.
	for _, variant := range []string{"Alice owns Book.", "Alice owns Book.\r\n", "Alice owns Book.\r"} {
		vs := []byte(variant)
		ev, err := Extract(vs, sha256.Sum256(vs), ProfileV2)
		require.NoError(t, err)
		require.Len(t, ev, 1)
		require.Equal(t, e.SpanHash, ev[0].SpanHash, variant)
		require.Equal(t, uint64(16), ev[0].ByteEnd, variant)
		require.NotEqual(t, e.ID, ev[0].ID, variant)
	}
}

// refID recomputes an identity of CONTRACT 2 independently of event.go.
func refID(prefix string, doc [32]byte, start, end int, span []byte) [32]byte {
	msg := []byte(prefix)
	msg = append(msg, doc[:]...)
	msg = binary.LittleEndian.AppendUint64(msg, uint64(start))
	msg = binary.LittleEndian.AppendUint64(msg, uint64(end))
	msg = append(msg, span...)
	return sha256.Sum256(msg)
}

// CONTRACT 17.3: spans exclude LF and exactly one CR (also at EOF) and include all
// other whitespace; IDs hash the offsets and span with 8-byte prefixes.
func TestSpansAndIdentities(t *testing.T) {
	src := []byte("prose line\r\n" + // 1: prose
		"\n" + // 2: empty
		"  a\tb  c. \r\n" + // 3: literal, leading/trailing blanks kept
		"x y z.\r\r\n" + // 4: span ends in CR -> not a literal
		"@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED\r\n" + // 5: typed
		"\r\n" + // 6: empty
		"p q r.\r") // 7: literal, CR at EOF
	doc := sha256.Sum256(src)
	events, err := Extract(src, doc, ProfileV2)
	require.NoError(t, err)
	type sp struct {
		line, start, end int
		text             string
	}
	want := []sp{
		{3, 13, 23, "  a\tb  c. "},
		{5, 34, 92, "@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED"},
		{7, 96, 102, "p q r."},
	}
	require.Len(t, events, len(want))
	for i, w := range want {
		e := events[i]
		require.Equal(t, w.text, string(src[w.start:w.end]))
		require.Equal(t, w.start, bytes.Index(src, []byte(w.text)))
		require.Equal(t, uint64(w.line), e.LineStart)
		require.Equal(t, uint64(w.line), e.LineEnd)
		require.Equal(t, uint64(w.start), e.ByteStart)
		require.Equal(t, uint64(w.end), e.ByteEnd)
		span := src[w.start:w.end]
		require.Equal(t, sha256.Sum256(span), e.SpanHash)
		require.Equal(t, refID("event-v1", doc, w.start, w.end, span), e.ID)
		require.Equal(t, refID("span-v1 ", doc, w.start, w.end, span), e.SpanID)
	}
}

// Golden g5 line 2 (leading blanks, TAB, trailing space and CR): IDs and span
// hash captured from the original tool.
func TestGoldenCRSpanIdentities(t *testing.T) {
	src := []byte("Alice owns Book.\n  أحمد\tيملك  كتاب. \r\nAlice owns Book.\nA\"li owns B\\ook.\nAlice owns Book\nAlice really owns Book.\nأقر أحمد كتابا.\n")
	doc := sha256.Sum256(src)
	require.Equal(t, "317c854e48cc0cd2cbec6e9f94d48bd2cd9226dc0e91d438abcdcf8f2aeef34f", hex.EncodeToString(doc[:]))
	events, err := Extract(src, doc, ProfileV2)
	require.NoError(t, err)
	require.Len(t, events, 5)
	e := events[1]
	require.Equal(t, uint64(17), e.ByteStart)
	require.Equal(t, uint64(48), e.ByteEnd)
	require.Equal(t, uint64(2), e.LineStart)
	require.Equal(t, "aa14bb6587d181a8c288641bc0caf6db726fad94e8efb08b6932abc8d410a790", hex.EncodeToString(e.ID[:]))
	require.Equal(t, "d1bfb395725561ce60b39a954c7dfd025b6a442176090b3ee30601b49d8a757d", hex.EncodeToString(e.SpanID[:]))
	require.Equal(t, "2597c99534fff9fa0302d210228ea7bfe974e1261a5ddde19ab9558058f56f4d", hex.EncodeToString(e.SpanHash[:]))
	require.Equal(t, []string{"أحمد", "يملك", "كتاب"}, []string{e.Subject, e.Predicate, e.Object})
	last := events[4]
	require.Equal(t, "8ba75f9201f24296b170525bf36a14e448345e601bf71b7f9b252f30efdc7279", hex.EncodeToString(last.ID[:]))
	require.Equal(t, "0b498c0cbc31c9bab378e706a22d3c75f1e577cb804c4ea6e463f0cb8f6d6540", hex.EncodeToString(last.SpanID[:]))
	require.Equal(t, uint64(124), last.ByteStart)
	require.Equal(t, uint64(151), last.ByteEnd)
	require.Equal(t, uint64(7), last.LineStart)
}
