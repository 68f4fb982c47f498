package termtext

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/chzyer/readline"
)

// ansiEscape matches the colour and cursor sequences Chronicle writes
// (CSI ... final byte). Document text never carries ESC (package repl's
// sanitize shows it as \x1b), so stripping these removes only what
// Chronicle added.
var ansiEscape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]") })

// StripColour removes the escape sequences of out.
func StripColour(out []byte) []byte {
	if bytes.IndexByte(out, 0x1b) < 0 {
		return out
	}
	return ansiEscape().ReplaceAll(out, nil)
}

// Width is the number of terminal columns s takes when it starts at
// column col: wide characters take two, combining marks none, a TAB moves
// to the next multiple of 8 and escape sequences take nothing. It is
// linear in s: the escape pattern is tried only where an ESC is.
func Width(s string, col int) int {
	start := col
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			if loc := ansiEscape().FindStringIndex(s[i:]); loc != nil && loc[0] == 0 {
				i += loc[1]
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		col = advance(col, r)
		i += size
	}
	return col - start
}

// advance is the column after r printed at col.
func advance(col int, r rune) int {
	if r == '\t' {
		return col + 8 - col%8
	}
	return col + runeWidth(r)
}

// runeWidth is the columns r takes on a terminal, by the rules readline
// draws the prompt with: combining marks (Arabic harakat, accents) and
// controls none, Han, Hangul and kana two, every other character one.
func runeWidth(r rune) int { return readline.Runes{}.Width(r) }

// CutAt is the byte length of the longest prefix of s (at least one
// character) that fits between column col and width. A byte that is not
// UTF-8 counts as one character of one column, as Width counts it.
func CutAt(s string, col, width int) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		next := advance(col, r)
		if next > width && n > 0 {
			return n
		}
		col, n = next, n+size
	}
	return n
}

// ScreenRows counts the terminal rows out takes at the given width
// (wrapped lines take several rows).
func ScreenRows(out []byte, width int) int {
	if len(out) == 0 {
		return 0
	}
	text := strings.TrimSuffix(string(out), "\n")
	rows := 0
	for _, line := range strings.Split(text, "\n") {
		w := readline.Runes{}.WidthAll([]rune(line))
		if width <= 0 || w <= width {
			rows++
			continue
		}
		rows += (w + width - 1) / width
	}
	return rows
}

// FirstCells is the longest prefix of s of at most n cells.
func FirstCells(s string, n int) string {
	w := 0
	for i, r := range s {
		if w+runeWidth(r) > n {
			return s[:i]
		}
		w += runeWidth(r)
	}
	return s
}

// LastCells is the longest suffix of s of at most n cells that starts on a
// character with width (a combining mark stays with its base).
func LastCells(s string, n int) string {
	w := 0
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if w+runeWidth(r) > n {
			return strings.TrimLeftFunc(s[i:], func(r rune) bool { return runeWidth(r) == 0 })
		}
		w += runeWidth(r)
		i -= size
	}
	return s
}
