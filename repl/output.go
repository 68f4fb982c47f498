package repl

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
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

// progress draws "[i/N] path" on a terminal stderr for batches of several
// files; elsewhere it prints nothing.
type progress struct {
	env   *Env
	total int
	shown bool
}

func newProgress(env *Env, total int) *progress {
	return &progress{env: env, total: total}
}

func (p *progress) step(i int, path string) {
	if !p.env.StderrTTY || p.total < 2 {
		return
	}
	const width = 24
	filled := width * i / p.total
	line := fmt.Sprintf("[%s%s] %d/%d %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled), i, p.total, path)
	if len(line) > 78 {
		line = line[:78]
	}
	fmt.Fprintf(p.env.Stderr, "\r\x1b[K%s", line)
	p.shown = true
}

func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.env.Stderr, "\r\x1b[K")
		p.shown = false
	}
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
