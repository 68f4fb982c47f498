package canonjson

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStrEscaping pins CONTRACT 5: short escapes for " \ LF CR TAB, lowercase
// \u00xx for other control bytes, DEL, '/' and non-ASCII copied raw.
func TestStrEscaping(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{`a"b`, `"a\"b"`},
		{`a\b`, `"a\\b"`},
		{"a\nb\rc\td", `"a\nb\rc\td"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"\x0b\x1b", `"\u000b\u001b"`},
		{"\x7f", "\"\x7f\""},
		{"a/b", `"a/b"`},
		{"خالد؟", `"خالد؟"`},
		{"\xff", "\"\xff\""},
	} {
		var j Buf
		j.Str(tc.in)
		require.Equal(t, tc.want, string(j.Bytes()), "%q", tc.in)
	}
}

func TestObjectLayout(t *testing.T) {
	var j Buf
	j.Raw("{")
	j.Key("n", true)
	j.Int(-3)
	j.Key("u", false)
	j.Uint(18446744073709551615)
	j.Key("d", false)
	j.Digest([32]byte{0xab, 0x01})
	j.Key("f", false)
	j.Fraction(3, 4)
	j.Raw("}")
	require.Equal(t, `{"n":-3,"u":18446744073709551615,"d":"ab01000000000000000000000000000000000000000000000000000000000000","f":{"num":3,"den":4}}`, string(j.Bytes()))
}
