package repl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// printJSONLine prints v as one compact JSON line (non-canonical outputs:
// listings and outcomes; canonical results are printed byte for byte).
func printJSONLine(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(w, "%s\n", b)
}

// rfc3339 is how every view shows a time: RFC 3339 in UTC, to the second
// (the archive records seconds).
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// progress draws "[i/N] path" on a terminal stderr for batches of several
// files; elsewhere it prints nothing. The line is sanitized (a file name
// cannot move the cursor) and cut to 78 columns by display width. On a
// TERM=dumb terminal, which knows no erase-line sequence, the previous
// line is overwritten with spaces instead.
type progress struct {
	env   *Env
	total int
	shown bool
	width int // columns of the line drawn last
}

func newProgress(env *Env, total int) *progress {
	return &progress{env: env, total: total}
}

func (p *progress) step(i int, path string) {
	if !p.env.StderrTTY || p.total < 2 {
		return
	}
	const bar = 24
	filled := bar * i / p.total
	line := fmt.Sprintf("[%s%s] %d/%d %s", strings.Repeat("#", filled), strings.Repeat(".", bar-filled), i, p.total, sanitize(path))
	line = line[:cutAt(line, 0, 78)]
	p.draw(line)
	p.shown = true
}

func (p *progress) clear() {
	if p.shown {
		p.draw("")
		p.shown = false
	}
}

// draw replaces the progress line with line.
func (p *progress) draw(line string) {
	w := displayWidth(line, 0)
	if os.Getenv("TERM") == "dumb" {
		fmt.Fprintf(p.env.Stderr, "\r%s%s", line, strings.Repeat(" ", max(0, p.width-w)))
		if line == "" {
			fmt.Fprint(p.env.Stderr, "\r")
		}
	} else {
		fmt.Fprintf(p.env.Stderr, "\r\x1b[K%s", line)
	}
	p.width = w
}

// sanitize makes a line safe for a terminal: control bytes (except TAB) are
// shown as escapes, so a document cannot move the cursor or recolour the
// screen. Right-to-left text is printed as stored.
func sanitize(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeSanitized writes sanitize(string(b)) to w without building the
// string: a line shown can be megabytes long. Document text is valid UTF-8
// (checked at ingest and bound by the document digest) and control bytes
// are ASCII, so a byte scan escapes exactly what sanitize's rune scan does.
func writeSanitized(w *bufio.Writer, b []byte) {
	for len(b) > 0 {
		i := 0
		for i < len(b) && !(b[i] < 0x20 && b[i] != '\t' || b[i] == 0x7f) {
			i++
		}
		w.Write(b[:i])
		if i == len(b) {
			return
		}
		fmt.Fprintf(w, "\\x%02x", b[i])
		b = b[i+1:]
	}
}

// writeJSONString writes the concatenation of pieces of text as a JSON
// string, byte for byte as json.Marshal encodes it, without joining them:
// each run of whole characters is encoded on its own (the encoding goes
// character by character), and a character cut between pieces is carried
// to the next run.
func writeJSONString(w *bufio.Writer, pieces [][]byte) {
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
			buf = appendJSONText(buf[:0], carry)
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
		buf = appendJSONText(buf[:0], p)
		w.Write(buf)
	}
	w.Write(appendJSONText(buf[:0], carry))
	w.WriteByte('"')
}

// appendJSONText appends the inside of the JSON string json.Marshal makes
// of s: its rules (encoding/json's appendString with HTML escaping),
// written out so that a long text is encoded into a reused buffer.
// TestJSONText holds it to json.Marshal on every byte and character class.
func appendJSONText(dst, s []byte) []byte {
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
