package repl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/casper-chronicle/chronicle/repl/termtext"
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
	line = line[:termtext.CutAt(line, 0, 78)]
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
	w := termtext.Width(line, 0)
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
