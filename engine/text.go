package engine

import (
	"bytes"
	"unicode/utf8"
)

// ValidText reports whether b is strict UTF-8 in the sense of CONTRACT 6.1:
// well-formed shortest-form UTF-8 of scalar values (no surrogates, nothing
// above U+10FFFF) and no NUL byte. The empty string is valid.
func ValidText(b []byte) bool {
	_, ok := InvalidTextOffset(b)
	return ok
}

// ValidTextString is ValidText for strings (command-line arguments).
func ValidTextString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return false
		}
	}
	return utf8.ValidString(s)
}

// InvalidTextOffset returns the offset of the first byte that breaks strict
// UTF-8 (see ValidText) and false, or (-1, true) when b is valid. The offset
// is what error messages point users at.
func InvalidTextOffset(b []byte) (int, bool) {
	// Fast path: utf8.Valid and IndexByte both work a word at a time.
	if utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
		return -1, true
	}
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0 {
				return i, false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i, false
		}
		i += size
	}
	return -1, true
}

// Line is one physical line of a source (CONTRACT 6.2): the bytes between two LF
// bytes, without the LF and without one CR right before it (or before the end
// of the source for a final line without LF).
type Line struct {
	Number int    // 1-based line number
	Start  int    // offset of the first byte of the line in the source
	End    int    // offset just past the last kept byte (CR/LF excluded)
	Text   []byte // source[Start:End]; aliases the source
}

// ForEachLine calls fn for every physical line of src in order. A trailing LF
// does not create an extra empty line; an empty source has no lines. It stops
// at the first error fn returns and returns it.
func ForEachLine(src []byte, fn func(Line) error) error {
	number := 0
	for start := 0; start < len(src); {
		end, next := len(src), len(src)
		if i := bytes.IndexByte(src[start:], '\n'); i >= 0 {
			end, next = start+i, start+i+1
		}
		number++
		kept := end
		if kept > start && src[kept-1] == '\r' {
			kept--
		}
		if err := fn(Line{Number: number, Start: start, End: kept, Text: src[start:kept]}); err != nil {
			return err
		}
		start = next
	}
	return nil
}
