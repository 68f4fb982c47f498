package claimrow

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCanonicalValues(t *testing.T) {
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"null", nullValue(), `null`},
		{"true", bv(true), `true`},
		{"false", bv(false), `false`},
		{"zero", iv(0), `0`},
		{"negative", iv(-12), `-12`},
		{"2^53-1", iv(MaxSafeInteger), `9007199254740991`},
		{"-(2^53-1)", iv(-MaxSafeInteger), `-9007199254740991`},
		{"empty string", sv(""), `""`},
		{"empty array", ArrayValue(), `[]`},
		{"empty object", ObjectValue(), `{}`},
		{"array in order", ArrayValue(iv(3), sv("a"), nullValue(), ArrayValue()), `[3,"a",null,[]]`},
		{"keys sorted", jv(`{"b":1,"a":2,"":0,"B":3,"ab":4,"a ":5}`), `{"":0,"B":3,"a":2,"a ":5,"ab":4,"b":1}`},
		{"nested keys sorted", jv(`{"z":{"y":[{"b":1,"a":2}],"x":null}}`), `{"z":{"x":null,"y":[{"a":2,"b":1}]}}`},
		{"absent writes nothing", Value{}, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, string(Canonical(tt.v)))
		})
	}
}

// TestCanonicalKeyOrderUTF16 orders keys by UTF-16 code units, as
// JavaScript's sort does; the pairs marked byteOrderDiffers are ordered the
// other way round by their UTF-8 bytes.
func TestCanonicalKeyOrderUTF16(t *testing.T) {
	tests := []struct {
		name, first, second string
		byteOrderDiffers    bool
	}{
		{"U+1F600 before U+FFFD", emoji, "\ufffd", true},
		{"U+1F600 before U+E000", emoji, "\ue000", true},
		{"U+10000 before U+FFFF", "\U00010000", "\uffff", true},
		{"a+U+1F600 before a+U+FF5E", "a" + emoji, "a\uff5e", true},
		{"U+D7FF before U+1F600", "\ud7ff", emoji, false},
		{"U+1F600 before U+1F601", emoji, "\U0001F601", false},
		{"ASCII", "A", "a", false},
		{"prefix first", "ab", "ab" + emoji, false},
		{"U+007F before U+0080", "\x7f", "\u0080", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.byteOrderDiffers, tt.first > tt.second, "byte order of the pair")
			want := `{"` + tt.first + `":1,"` + tt.second + `":2}`
			for _, v := range []Value{
				ObjectValue(Member{tt.first, iv(1)}, Member{tt.second, iv(2)}),
				ObjectValue(Member{tt.second, iv(2)}, Member{tt.first, iv(1)}),
			} {
				require.Equal(t, want, string(Canonical(v)))
			}
			require.Negative(t, compareUTF16(tt.first, tt.second))
			require.Positive(t, compareUTF16(tt.second, tt.first))
			require.Zero(t, compareUTF16(tt.first, tt.first))
		})
	}
}

// TestCanonicalEscaping escapes strings exactly as JSON.stringify does.
func TestCanonicalEscaping(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"backspace", "\b", `"\b"`},
		{"form feed", "\f", `"\f"`},
		{"newline", "\n", `"\n"`},
		{"carriage return", "\r", `"\r"`},
		{"tab", "\t", `"\t"`},
		{"NUL", "\x00", `"\u0000"`},
		{"0x01", "\x01", `"\u0001"`},
		{"vertical tab", "\x0b", `"\u000b"`},
		{"0x0e", "\x0e", `"\u000e"`},
		{"escape in lower-case hex", "\x1b", `"\u001b"`},
		{"0x1f in lower-case hex", "\x1f", `"\u001f"`},
		{"quote", `"`, `"\""`},
		{"backslash", `\`, `"\\"`},
		{"slash raw", "/", `"/"`},
		{"space raw", " ", `" "`},
		{"DEL raw", "\x7f", "\"\x7f\""},
		{"U+0085 raw", "\u0085", "\"\u0085\""},
		{"U+2028 raw", "\u2028", "\"\u2028\""},
		{"U+2029 raw", "\u2029", "\"\u2029\""},
		{"HTML characters raw", "<a&b>", `"<a&b>"`},
		{"byte order mark raw", "\ufeff", "\"\ufeff\""},
		{"non-ASCII raw", "é€" + emoji, "\"é€" + emoji + "\""},
		{"mixed", "a\"b\\c\n\x01/\u2028", "\"a\\\"b\\\\c\\n\\u0001/\u2028\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, string(Canonical(sv(tt.in))))
			// Keys are escaped the same way.
			require.Equal(t, "{"+tt.want+":0}", string(Canonical(ObjectValue(Member{tt.in, iv(0)}))))
		})
	}
}

// TestParseLineCanonical reads lines and writes them canonically; the
// canonical form reads back to itself.
func TestParseLineCanonical(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"whitespace dropped", " { \"b\" : [ 1 , -2 ] ,\t\"a\" : { } }", `{"a":{},"b":[1,-2]}`},
		{"escapes normalised", `"\u0041\/\u00e9\u2028\u001F\b"`, "\"A/é\u2028\\u001f\\b\""},
		{"surrogate pair escape", `"\ud83d\ude00"`, `"` + emoji + `"`},
		{"upper-case hex", `"\u00C9\uD83D\uDE00"`, `"É` + emoji + `"`},
		{"escaped key sorted by its value", `{"\u0062":1,"a":2}`, `{"a":2,"b":1}`},
		{"scalar", ` 7`, `7`},
		{"literals", `[true,false,null]`, `[true,false,null]`},
		{"2^53-1 both signs", `[9007199254740991,-9007199254740991]`, `[9007199254740991,-9007199254740991]`},
		{"order of UTF-16 units", `{"` + "\ufffd" + `":1,"\ud83d\ude00":2}`, `{"` + emoji + `":2,"` + "\ufffd" + `":1}`},
		{"raw DEL and NEL kept", "\"\x7f\u0085\"", "\"\x7f\u0085\""},
		{"escaped NUL", `"a\u0000b"`, `"a\u0000b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseLine([]byte(tt.in), RowBytes)
			require.NoError(t, err)
			c := Canonical(v)
			require.Equal(t, tt.want, string(c))
			again, err := ParseLine(c, RowBytes)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(Canonical(again)))
		})
	}
}

func TestParseLineValues(t *testing.T) {
	v, err := ParseLine([]byte(`{"s":"x","n":-3,"b":true,"z":null,"a":[1,"2"],"o":{"k":false}}`), RowBytes)
	require.NoError(t, err)
	require.Equal(t, Object, v.Kind)
	require.Equal(t, []string{"s", "n", "b", "z", "a", "o"}, func() []string {
		var keys []string
		for _, m := range v.Members {
			keys = append(keys, m.Key)
		}
		return keys
	}(), "members keep the order of the text")
	require.Equal(t, sv("x"), v.Get("s"))
	require.Equal(t, iv(-3), v.Get("n"))
	require.Equal(t, Value{Kind: Bool, Bool: true}, v.Get("b"))
	require.Equal(t, Null, v.Get("z").Kind)
	require.True(t, v.Has("z"), "a present null is present")
	require.False(t, v.Has("missing"))
	require.Equal(t, Absent, v.Get("missing").Kind)
	require.Equal(t, Absent, v.Get("a").Get("0").Kind, "Get of a non-object is absent")
	require.Len(t, v.Get("a").Items, 2)
	require.True(t, v.Get("s").IsString("x"))
	require.False(t, v.Get("n").IsString("-3"))
	require.Equal(t, Bool, v.Get("o").Get("k").Kind)
	require.Equal(t, []string{"absent", "null", "a boolean", "an integer", "a string", "an array", "an object"},
		[]string{Absent.String(), Null.String(), Bool.String(), Int.String(), String.String(), Array.String(), Object.String()})
}

func TestParseLineErrors(t *testing.T) {
	tests := []struct {
		name, in string
		offset   int
		want     string
	}{
		{"empty", ``, 0, "a JSON value is missing"},
		{"only whitespace", " \t", 2, "a JSON value is missing"},
		{"trailing space", `1 `, 1, "bytes after the JSON value"},
		{"trailing CR", "{}\r", 2, "bytes after the JSON value"},
		{"trailing LF", "{}\n", 2, "bytes after the JSON value"},
		{"two values", `1 2`, 1, "bytes after the JSON value"},
		{"invalid UTF-8 offset", "\"ab\xff\"", 3, "invalid UTF-8"},
		{"invalid UTF-8 overlong", "\"\xc1\xbf\"", 1, "invalid UTF-8"},
		{"duplicate key at depth", `{"a":{"b":1,"b":2}}`, 12, `duplicate key "b"`},
		{"duplicate key by escape", `{"ab":1,"a\u0062":2}`, 8, `duplicate key "ab"`},
		{"lone high", `"\ud800"`, 1, "lone high surrogate"},
		{"high then non-low", `"\ud800\u0061"`, 1, "lone high surrogate"},
		{"high then high", `"\udbff\udbff"`, 1, "lone high surrogate"},
		{"high then text", `"\ud800abcdef"`, 1, "lone high surrogate"},
		{"lone low", `"x\udfff"`, 2, "lone low surrogate"},
		{"fraction", `1.5`, 0, "numbers must be integers"},
		{"exponent", `-1e2`, 0, "numbers must be integers"},
		{"-0", `[-0]`, 1, "-0 is not allowed"},
		{"leading zero", `[007]`, 1, "a number has a leading zero"},
		{"2^53", `9007199254740992`, 0, "beyond 2^53-1"},
		{"-2^53", `-9007199254740992`, 0, "beyond 2^53-1"},
		{"digits beyond int64", `99999999999999999999`, 0, "beyond 2^53-1"},
		{"bare minus", `-`, 1, "'-' is not followed by a digit"},
		{"plus", `+1`, 0, "does not start a JSON value"},
		{"raw control", "\"a\x01\"", 2, "raw control character (0x01)"},
		{"raw LF in a string", "\"a\nb\"", 2, "raw control character (0x0a)"},
		{"bad escape", `"\a"`, 1, `\a is not a JSON escape`},
		{"cut escape", `"\`, 1, "an escape is cut off"},
		{"short unicode escape", `"\u00"`, 1, `\u needs four hex digits`},
		{"unclosed string", `"abc`, 4, "a string is not closed"},
		{"unclosed array", `[1`, 2, "',' or ']' is missing in an array"},
		{"unclosed object", `{"a":1`, 6, "',' or '}' is missing in an object"},
		{"missing colon", `{"a" 1}`, 5, "':' is missing after a key"},
		{"number key", `{1:2}`, 1, "an object key (a string) is missing"},
		{"trailing comma in array", `[1,]`, 3, "does not start a JSON value"},
		{"truncated literal", `tru`, 0, "does not start a JSON value"},
		{"capital literal", `True`, 0, "does not start a JSON value"},
		{"byte order mark", "\ufeff{}", 0, "byte 0xef does not start a JSON value"},
		{"depth 33", nested(33), 32, "nested deeper than 32"},
		{"depth 33 of objects", rep(`{"a":`, 33) + "1" + rep("}", 33), 160, "nested deeper than 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseLine([]byte(tt.in), RowBytes)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrJSON)
			var se *SyntaxError
			require.True(t, errors.As(err, &se))
			require.Contains(t, se.Msg, tt.want)
			require.Equal(t, tt.offset, se.Offset, "offset of %q", err)
		})
	}
}

func TestParseLineBounds(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		ok   bool
	}{
		{"at maxBytes", `"aaaa"`, 6, true},
		{"one past maxBytes", `"aaaa"`, 5, false},
		{"ROW_BYTES", `"` + rep("a", RowBytes-2) + `"`, RowBytes, true},
		{"ROW_BYTES+1", `"` + rep("a", RowBytes-1) + `"`, RowBytes, false},
		{"depth 32", nested(32), RowBytes, true},
		{"depth 32 of objects", rep(`{"a":`, 32) + "1" + rep("}", 32), RowBytes, true},
		{"depth 0", `0`, RowBytes, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseLine([]byte(tt.in), tt.max)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrJSON)
			require.Contains(t, err.Error(), "at most")
		})
	}
}

func TestUTF16Len(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"é", 1},
		{"€", 1},
		{"\uffff", 1},
		{"\U00010000", 2},
		{emoji, 2},
		{"a" + emoji + "b", 4},
		{rep(emoji, 2048), 4096},
		{"e\u0301", 2},
		{"\u2028\x00", 2},
	}
	for _, tt := range tests {
		t.Run(strings.ToValidUTF8(tt.in, "?"), func(t *testing.T) {
			require.Equal(t, tt.want, UTF16Len(tt.in))
		})
	}
}
