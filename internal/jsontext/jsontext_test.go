package jsontext

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// marshalInside is the inside of json.Marshal's string for s.
func marshalInside(t *testing.T, s []byte) []byte {
	t.Helper()
	b, err := json.Marshal(string(s))
	require.NoError(t, err)
	return b[1 : len(b)-1]
}

// Append is json.Marshal's string encoding: every byte alone,
// every byte after an ASCII letter and before one, the characters it
// escapes specially, text in three scripts, and random bytes (invalid
// UTF-8 included).
func TestAppend(t *testing.T) {
	var cases [][]byte
	for b := range 256 {
		cases = append(cases, []byte{byte(b)}, []byte{'a', byte(b), 'z'})
	}
	for _, s := range []string{"", "\u2028", "\u2029", "x\u2028y\u2029", "<a href=\"x\">&amp;</a>", `back\slash`, "\b\f\n\r\t\x00\x1f\x7f",
		"أقر أحمد بأنه اقترض", "日本語", "\xe2\x80", "\xe2\x80\xa8\xe2", "\xff\xfe", "\xed\xa0\x80"} {
		cases = append(cases, []byte(s))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(2) == 0 {
				const pick = " az<\"\\\n\xe2\x80\xa8\xd8"
				b[i] = pick[rng.IntN(len(pick))]
			}
		}
		cases = append(cases, b)
	}
	for _, c := range cases {
		require.Equal(t, string(marshalInside(t, c)), string(Append(nil, c)), "%q", c)
	}
}

// Write gives json.Marshal's string of the joined pieces
// however the text is cut, characters cut between pieces included.
func TestWrite(t *testing.T) {
	text := []byte("@chronicle\tأحمد\tPAID_TO\tسعود\t40 \u2028 <&> \"q\" 日本\r\x01")
	var out bytes.Buffer
	for i := 0; i <= len(text); i++ {
		for j := i; j <= len(text); j++ {
			out.Reset()
			w := bufio.NewWriter(&out)
			Write(w, [][]byte{text[:i], text[i:j], {}, text[j:]})
			require.NoError(t, w.Flush())
			want, err := json.Marshal(string(text))
			require.NoError(t, err)
			require.Equal(t, string(want), out.String(), "cut at %d and %d", i, j)
		}
	}
	// Pieces of one byte each.
	var pieces [][]byte
	for i := range text {
		pieces = append(pieces, text[i:i+1])
	}
	out.Reset()
	w := bufio.NewWriter(&out)
	Write(w, pieces)
	require.NoError(t, w.Flush())
	want, _ := json.Marshal(string(text))
	require.Equal(t, string(want), out.String())
}

// FuzzAppend: on any bytes, Append is json.Marshal's string encoding, and
// Write gives json.Marshal's string however the bytes are cut in three.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&amp;</a>", "\u2028\u2029", "\b\f\n\r\t\x00\x1f\x7f",
		"أقر أحمد بأنه اقترض", "日本語", "\xe2\x80", "\xff\xfe", "\xed\xa0\x80"} {
		f.Add([]byte(s), uint(1), uint(2))
	}
	f.Fuzz(func(t *testing.T, s []byte, i, j uint) {
		want, err := json.Marshal(string(s))
		if err != nil {
			t.Fatal(err)
		}
		if got := Append(nil, s); string(got) != string(want[1:len(want)-1]) {
			t.Fatalf("Append(%q) = %s, json.Marshal %s", s, got, want)
		}
		i = min(i, uint(len(s)))
		j = min(max(j, i), uint(len(s)))
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		Write(w, [][]byte{s[:i], s[i:j], s[j:]})
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != string(want) {
			t.Fatalf("Write(%q cut at %d and %d) = %s, json.Marshal %s", s, i, j, out.Bytes(), want)
		}
	})
}
