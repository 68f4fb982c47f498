package jsontext

import (
	"bufio"
	"unicode/utf8"
)

// Write writes the concatenation of pieces of text as a JSON string, byte
// for byte as json.Marshal encodes it, without joining them:
// each run of whole characters is encoded on its own (the encoding goes
// character by character), and a character cut between pieces is carried
// to the next run.
func Write(w *bufio.Writer, pieces [][]byte) {
	w.WriteByte('"')
	var carry, buf []byte // carry: the start of a character cut at the end of a piece
	for _, p := range pieces {
		k := 0
		for k < len(p) && k < utf8.UTFMax && !utf8.RuneStart(p[k]) {
			k++
		}
		carry, p = append(carry, p[:k]...), p[k:]
		if len(p) == 0 {
			continue
		}
		if len(carry) > 0 {
			buf = Append(buf[:0], carry)
			w.Write(buf)
			carry = carry[:0]
		}
		i := max(len(p)-utf8.UTFMax, 0)
		for j := len(p) - 1; j >= i; j-- {
			if utf8.RuneStart(p[j]) {
				if !utf8.FullRune(p[j:]) {
					carry, p = append(carry, p[j:]...), p[:j]
				}
				break
			}
		}
		buf = Append(buf[:0], p)
		w.Write(buf)
	}
	w.Write(Append(buf[:0], carry))
	w.WriteByte('"')
}

// Append appends the inside of the JSON string json.Marshal makes
// of s: its rules (encoding/json's appendString with HTML escaping),
// written out so that a long text is encoded into a reused buffer.
// TestAppend holds it to json.Marshal on every byte and character class,
// FuzzAppend on any bytes.
func Append(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRune(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}
