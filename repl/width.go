package repl

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/chzyer/readline"
)

// helpWidth is the widest help is laid out, even on a wider terminal: a
// reference text reads best in short lines and fits any 80-column window.
const helpWidth = 80

// minWrap is the narrowest width wrapping is attempted at: below it a
// terminal is too small to lay anything out and lines are left alone.
const minWrap = 20

// textWidth is the width the readable views wrap to: the terminal's
// columns when stdout is a terminal, else $COLUMNS when it is a positive
// number (a pipe into a pager or a file has no width of its own), else 0,
// meaning "do not wrap".
func (e *Env) textWidth() int {
	if e.StdoutTTY {
		if w, _ := terminalSize(); w > 0 {
			return w
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	return 0
}

// colour reports whether the readable view may use colour (the find
// highlight): only on a terminal, and never with NO_COLOR set to anything
// (no-color.org) or on a TERM=dumb terminal, which shows escapes as text.
func (e *Env) colour() bool {
	return e.StdoutTTY && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// ansiEscape matches the colour and cursor sequences Chronicle writes
// (CSI ... final byte). Document text never carries ESC: sanitize shows it
// as \x1b, so stripping these removes only what Chronicle added.
var ansiEscape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]") })

// stripColour removes the escape sequences of out.
func stripColour(out []byte) []byte {
	if bytes.IndexByte(out, 0x1b) < 0 {
		return out
	}
	return ansiEscape().ReplaceAll(out, nil)
}

// displayWidth is the number of terminal columns s takes when it starts at
// column col: wide characters take two, combining marks none, a TAB moves
// to the next multiple of 8 and escape sequences take nothing. It is
// linear in s: the escape pattern is tried only where an ESC is.
func displayWidth(s string, col int) int {
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

// fitLine wraps one line of a readable view to width columns, at spaces.
// Continuation lines are indented to the column where the line's last
// column starts (the end of a run of two or more spaces after the first
// word), so a table keeps its shape and only its free-text column flows;
// a column starting past half the width gives way to the last one before
// it, and with none, continuation lines are indented by the line's own
// indentation plus four. A word wider than the space left under the
// column goes on a line of its own, less indented, rather than being cut
// (a path must stay copyable); only a word wider than the whole width is
// cut. A line that fits, a JSON line and any line when width is below
// minWrap are returned as they are.
func fitLine(line string, width int) []string {
	if width < minWrap || displayWidth(line, 0) <= width || strings.HasPrefix(line, "{") {
		return []string{line}
	}
	hang := hangingIndent(line, width/2)
	if widestWord(line) > width {
		hang = baseIndent(line) // cut pieces start where the line does
	}
	return fitLineIndent(line, width, hang)
}

// baseIndent is the fallback continuation indent of line: its own
// indentation plus four.
func baseIndent(line string) int {
	return len(line) - len(strings.TrimLeft(line, " ")) + 4
}

// fitLineIndent wraps line at spaces to width columns, continuation lines
// indented by hang spaces (at most half the width). A word wider than the
// space left after hang gets a line of its own, indented less so that it
// fits (the line's indentation plus four, else none); only a word wider
// than width is cut. A line that fits, or any line when width is below
// minWrap, is returned as it is.
func fitLineIndent(line string, width, hang int) []string {
	if width < minWrap || displayWidth(line, 0) <= width {
		return []string{line}
	}
	hang = min(hang, width/2)
	var out []string
	var cur strings.Builder
	col, fresh := 0, true // fresh: cur holds no word yet
	newLine := func() {
		out = append(out, cur.String())
		cur.Reset()
		cur.WriteString(strings.Repeat(" ", hang))
		col, fresh = hang, true
	}
	for i, wd := range splitWords(line) {
		piece := wd.space + wd.text
		if fresh && i > 0 {
			piece = wd.text // a continuation line starts at its indent
		}
		if col+displayWidth(piece, col) > width && !fresh {
			newLine()
			piece = wd.text
		}
		if w := displayWidth(wd.text, 0); fresh && i > 0 && col+w > width && w <= width {
			// too wide under the column but not for a line: a line of
			// its own, less indented (in place of the empty continuation
			// just begun), and the next word under the column
			cur.Reset()
			cur.WriteString(strings.Repeat(" ", ownLineIndent(line, width, w)))
			cur.WriteString(wd.text)
			newLine()
			continue
		}
		for piece != "" && col+displayWidth(piece, col) > width {
			cut := cutAt(piece, col, width)
			cur.WriteString(piece[:cut])
			piece = piece[cut:]
			newLine()
		}
		if piece != "" {
			cur.WriteString(piece)
			col += displayWidth(piece, col)
			fresh = false
		}
	}
	if !fresh {
		out = append(out, cur.String())
	}
	return out
}

// ownLineIndent is the indent of a word w columns wide that does not fit
// under its column: the line's indentation plus four when it fits there,
// else as much as the width leaves.
func ownLineIndent(line string, width, w int) int {
	if base := baseIndent(line); base+w <= width {
		return base
	}
	return max(0, width-w)
}

// widestWord is the width of the widest word of line.
func widestWord(line string) int {
	w := 0
	for _, wd := range splitWords(line) {
		w = max(w, displayWidth(wd.text, 0))
	}
	return w
}

// word is a run of characters other than space and TAB, and the spaces
// and TABs before it (the layout of the columns; evidence text separates
// its fields with TABs, and a line may break there too).
type word struct{ space, text string }

// splitWords splits a line at spaces and TABs, keeping each word's
// leading separators.
func splitWords(line string) []word {
	var words []word
	for line != "" {
		i := len(line) - len(strings.TrimLeft(line, " \t"))
		j := strings.IndexAny(line[i:], " \t")
		if j < 0 {
			j = len(line) - i
		}
		words = append(words, word{space: line[:i], text: line[i : i+j]})
		line = line[i+j:]
	}
	return words
}

// hangingIndent is the column after the last run of two or more spaces
// that follows some text and ends at most at column limit, or the line's
// indentation plus four when a column is there but all start too far
// right, or the indentation of a paragraph (no column at all).
func hangingIndent(line string, limit int) int {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	body := line[indent:]
	if !strings.Contains(body, "  ") {
		return indent // a paragraph: its lines align
	}
	best := -1
	for i := 0; i < len(body); {
		j := strings.Index(body[i:], "  ")
		if j < 0 {
			break
		}
		end := i + j + len(body[i+j:]) - len(strings.TrimLeft(body[i+j:], " "))
		if end >= len(body) {
			break // trailing spaces start no column
		}
		if c := displayWidth(line[:indent+end], 0); c <= limit {
			best = c
		}
		i = end
	}
	if best < 0 {
		return indent + 4
	}
	return best
}

// cutAt is the byte length of the longest prefix of s (at least one
// character) that fits between column col and width.
func cutAt(s string, col, width int) int {
	n := 0
	for i, r := range s {
		next := advance(col, r)
		if next > width && n > 0 {
			return i
		}
		col, n = next, i+len(string(r))
	}
	return n
}

// wrapWriter writes lines fitted to a width (fitLine); a line is written
// once its newline arrives, the rest at Flush. An example (the line after
// an "example:" line, or one starting "example: ") is never wrapped: it
// is meant to be copied, and a long line is better than a broken one.
type wrapWriter struct {
	w       io.Writer
	width   int
	pending []byte
	example bool // the previous line was "example:"
}

func (ww *wrapWriter) Write(p []byte) (int, error) {
	ww.pending = append(ww.pending, p...)
	for {
		i := bytes.IndexByte(ww.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		if err := ww.emit(string(ww.pending[:i]), true); err != nil {
			return 0, err
		}
		ww.pending = ww.pending[i+1:]
	}
}

func (ww *wrapWriter) emit(line string, newline bool) error {
	lines := []string{line}
	if !ww.example && !strings.HasPrefix(strings.TrimSpace(line), "example: ") {
		lines = fitLine(line, ww.width)
	}
	ww.example = strings.TrimSpace(line) == "example:"
	text := strings.Join(lines, "\n")
	if newline {
		text += "\n"
	}
	_, err := io.WriteString(ww.w, text)
	return err
}

// writeUnwrapped writes line and a newline to w as it is, even when w is
// a wrapWriter: a command to type (the guide's examples) must stay whole.
func writeUnwrapped(w io.Writer, line string) {
	ww, ok := w.(*wrapWriter)
	if !ok {
		io.WriteString(w, line+"\n")
		return
	}
	ww.Flush()
	io.WriteString(ww.w, line+"\n")
}

// Flush writes what is left after the last newline.
func (ww *wrapWriter) Flush() error {
	if len(ww.pending) == 0 {
		return nil
	}
	err := ww.emit(string(ww.pending), false)
	ww.pending = nil
	return err
}

// fitted wraps a command whose readable view is a table (or help) so that
// its text lines fit the terminal: the command writes to a wrapWriter for
// the width (textWidth; help at most helpWidth). JSON output is never
// touched: with --json or the session's JSON mode the command runs as it
// is, and a JSON line is passed through by fitLine.
func fitted(run func(*invocation) error, maxWidth int) func(*invocation) error {
	return func(x *invocation) error {
		if x.p.has("json") || x.env.JSON {
			return run(x)
		}
		width := x.env.textWidth()
		if maxWidth > 0 && (width == 0 || width > maxWidth) {
			width = maxWidth
		}
		if width == 0 {
			return run(x)
		}
		saved := x.env
		env := *saved
		ww := &wrapWriter{w: env.Stdout, width: width}
		env.Stdout = ww
		x.env = &env
		err := run(x)
		x.env = saved
		if ferr := ww.Flush(); err == nil {
			err = ferr
		}
		return err
	}
}

// writeFitted writes text to env's stdout fitted to help's width: the
// session adds its own lines to `help`, and they must fit as help does.
func writeFitted(env *Env, text string) {
	ww := &wrapWriter{w: env.Stdout, width: helpLayoutWidth(env)}
	io.WriteString(ww, text)
	ww.Flush()
}
