package canonjson

import (
	"encoding/hex"
	"strconv"
)

// Buf builds the hand-made compact JSON of CONTRACT 5: fixed key order, no
// whitespace, plain decimal integers, and the exact string escaping below.
type Buf struct{ b []byte }

// Bytes returns the JSON built so far.
func (j *Buf) Bytes() []byte { return j.b }

const hexDigits = "0123456789abcdef"

// Str appends s as a JSON string: `"` `\` LF CR TAB get short escapes, other
// bytes below 0x20 become \u00xx in lowercase hex, everything else (DEL,
// `/`, every byte >= 0x80) is copied raw.
func (j *Buf) Str(s string) {
	j.b = append(j.b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			j.b = append(j.b, '\\', '"')
		case c == '\\':
			j.b = append(j.b, '\\', '\\')
		case c == '\n':
			j.b = append(j.b, '\\', 'n')
		case c == '\r':
			j.b = append(j.b, '\\', 'r')
		case c == '\t':
			j.b = append(j.b, '\\', 't')
		case c < 0x20:
			j.b = append(j.b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			j.b = append(j.b, c)
		}
	}
	j.b = append(j.b, '"')
}

// Raw appends literal JSON text (punctuation, keys already quoted).
func (j *Buf) Raw(s string) { j.b = append(j.b, s...) }

// Key appends `"name":` (names are plain ASCII) preceded by a comma unless
// first.
func (j *Buf) Key(name string, first bool) {
	if !first {
		j.b = append(j.b, ',')
	}
	j.b = append(j.b, '"')
	j.b = append(j.b, name...)
	j.b = append(j.b, '"', ':')
}

// Int appends a signed decimal integer.
func (j *Buf) Int(v int64) { j.b = strconv.AppendInt(j.b, v, 10) }

// Uint appends an unsigned decimal integer.
func (j *Buf) Uint(v uint64) { j.b = strconv.AppendUint(j.b, v, 10) }

// Digest appends a 32-byte digest as a 64-char lowercase hex JSON string.
func (j *Buf) Digest(d [32]byte) {
	j.b = append(j.b, '"')
	j.b = hex.AppendEncode(j.b, d[:])
	j.b = append(j.b, '"')
}

// Fraction appends {"num":N,"den":D}, the exact amounts of CONTRACT 5.1.
func (j *Buf) Fraction(num, den int64) {
	j.Raw("{")
	j.Key("num", true)
	j.Int(num)
	j.Key("den", false)
	j.Int(den)
	j.Raw("}")
}
