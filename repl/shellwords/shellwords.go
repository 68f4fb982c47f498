package shellwords

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Split cuts one command line into words with shell-like quoting, so that
// questions with spaces, Arabic text and TAB-separated selectors can be
// typed:
//
//   - Words are separated by spaces and tabs (and CR or LF) outside quotes.
//   - '...' keeps everything up to the next single quote literally; there
//     are no escapes inside single quotes.
//   - "..." keeps everything literally except four escapes: \" (a double
//     quote), \\ (a backslash), \t (a TAB) and \n (a line feed). A backslash
//     before any other character stays a backslash ("a\b" is a\b).
//   - Outside quotes \t and \n are also a TAB and a line feed, and a
//     backslash before any other character makes that character literal
//     (\  \' \" \\ \#).
//   - Quoted and unquoted parts next to each other form one word
//     (--name="my doc" is --name=my doc); a pair of quotes with nothing
//     between them is an empty word.
//
// There are no variables, globs, pipes or comments inside a line (a line
// whose first non-blank character is # is skipped before it gets here).
// An unterminated quote or a backslash at the end of the line is an error
// naming the character position where the quote opened.
func Split(line string) ([]string, error) {
	sc := scanWords(line)
	switch {
	case sc.quote != 0:
		name := "double"
		if sc.quote == '\'' {
			name = "single"
		}
		return nil, fmt.Errorf("unterminated %s quote opened at character %d; close it with %c", name,
			utf8.RuneCountInString(line[:sc.quoteAt])+1, sc.quote)
	case sc.trailingBackslash:
		return nil, fmt.Errorf("the line ends with a backslash; write \\\\ for a backslash")
	}
	words := sc.words
	if sc.inWord {
		words = append(words, sc.cur.String())
	}
	return words, nil
}

// Partial is a line read to its end without failing: the words it
// completes, and the word still being typed (completion continues it).
type Partial struct {
	Words             []string // the words before the one being typed
	Word              string   // the word being typed, its quoting undone
	InWord            bool     // a word is being typed (possibly empty: '')
	WordStart         int      // byte offset where that word starts
	Quote             byte     // the quote open at the end, or 0
	TrailingBackslash bool     // the line ends with an escaping backslash
}

// scan is the state of scanWords after the whole line.
type scan struct {
	words             []string
	cur               strings.Builder // the word being read
	inWord            bool            // cur is a word (possibly empty: '')
	curStart          int             // byte offset where the current word starts
	quote             byte            // open quote at the end, or 0
	quoteAt           int             // byte offset of that quote
	trailingBackslash bool
}

// Scan reads line as Split does but never fails: an open quote or a
// trailing backslash is reported, and the unfinished word is kept, for
// completion.
func Scan(line string) Partial {
	sc := scanWords(line)
	return Partial{
		Words: sc.words, Word: sc.cur.String(), InWord: sc.inWord, WordStart: sc.curStart,
		Quote: sc.quote, TrailingBackslash: sc.trailingBackslash,
	}
}

// scanWords reads the line byte by byte (every special character is
// ASCII, so other bytes, even invalid UTF-8, are copied exactly). It never
// fails: Split turns an open quote into an error, Scan reports it.
func scanWords(line string) *scan {
	sc := &scan{}
	start := func(i int) {
		if !sc.inWord {
			sc.inWord = true
			sc.curStart = i
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch sc.quote {
		case '\'':
			if c == '\'' {
				sc.quote = 0
			} else {
				sc.cur.WriteByte(c)
			}
			continue
		case '"':
			switch {
			case c == '"':
				sc.quote = 0
			case c == '\\' && i+1 < len(line):
				switch line[i+1] {
				case '"', '\\':
					sc.cur.WriteByte(line[i+1])
				case 't':
					sc.cur.WriteByte('\t')
				case 'n':
					sc.cur.WriteByte('\n')
				default:
					sc.cur.WriteByte('\\')
					continue
				}
				i++
			default:
				sc.cur.WriteByte(c)
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			if sc.inWord {
				sc.words = append(sc.words, sc.cur.String())
				sc.cur.Reset()
				sc.inWord = false
			}
		case '\'', '"':
			start(i)
			sc.quote, sc.quoteAt = c, i
		case '\\':
			start(i)
			if i+1 >= len(line) {
				sc.trailingBackslash = true
				continue
			}
			i++
			switch line[i] {
			case 't':
				sc.cur.WriteByte('\t')
			case 'n':
				sc.cur.WriteByte('\n')
			default:
				sc.cur.WriteByte(line[i])
			}
		default:
			start(i)
			sc.cur.WriteByte(c)
		}
	}
	return sc
}

// Quote returns s written so that Split gives it back as one word: as is
// when it needs no quoting, in single quotes when that is enough, else in
// double quotes with the escapes \" \\ \t \n.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, r := range s {
		if !plainRune(r) {
			plain = false
			break
		}
	}
	if plain && s[0] != '#' {
		return s
	}
	if !strings.ContainsAny(s, "'\t\n\r") {
		return "'" + s + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		b.WriteString(escapeInDouble(s[i]))
	}
	b.WriteByte('"')
	return b.String()
}

// plainRune reports whether r needs no quoting.
func plainRune(r rune) bool {
	switch r {
	case '\'', '"', '\\', '`', '$', ';', '|', '&', '<', '>', '(', ')', '*', '?', '[', ']', '{', '}', '!':
		return false
	}
	return r == utf8.RuneError || (unicode.IsGraphic(r) && !unicode.IsSpace(r))
}

// escapeInDouble writes one byte for use inside double quotes.
func escapeInDouble(c byte) string {
	switch c {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\t':
		return `\t`
	case '\n':
		return `\n`
	}
	return string([]byte{c})
}

// Escape writes s for insertion into a line at a point where quote is
// open (0 for none): the continuation of a partly typed word.
func Escape(s string, quote byte) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		chunk := s[i : i+size]
		i += size
		switch quote {
		case '\'':
			if r == '\'' {
				chunk = `'\''`
			}
		case '"':
			if size == 1 {
				chunk = escapeInDouble(chunk[0])
			}
		default:
			switch {
			case r == '\t':
				chunk = `\t`
			case r == '\n':
				chunk = `\n`
			case r == '#' || (size == 1 && r != utf8.RuneError && !plainRune(r)) || unicode.IsSpace(r):
				chunk = `\` + chunk
			}
		}
		b.WriteString(chunk)
	}
	return b.String()
}
