package termtext

import (
	"bytes"
	"io"
	"strings"
)

// MinWrap is the narrowest width wrapping is attempted at: below it a
// terminal is too small to lay anything out and lines are left alone.
const MinWrap = 20

// FitLine wraps one line of a readable view to width columns, at spaces.
// Continuation lines are indented to the column where the line's last
// column starts (the end of a run of two or more spaces after the first
// word), so a table keeps its shape and only its free-text column flows;
// a column starting past half the width gives way to the last one before
// it, and with none, continuation lines are indented by the line's own
// indentation plus four. A word wider than the space left under the
// column goes on a line of its own, less indented, rather than being cut
// (a path must stay copyable); only a word wider than the whole width is
// cut. A line that fits, a JSON line and any line when width is below
// MinWrap are returned as they are.
func FitLine(line string, width int) []string {
	if width < MinWrap || Width(line, 0) <= width || strings.HasPrefix(line, "{") {
		return []string{line}
	}
	hang := hangingIndent(line, width/2)
	if widestWord(line) > width {
		hang = baseIndent(line) // cut pieces start where the line does
	}
	return FitLineIndent(line, width, hang)
}

// baseIndent is the fallback continuation indent of line: its own
// indentation plus four.
func baseIndent(line string) int {
	return len(line) - len(strings.TrimLeft(line, " ")) + 4
}

// FitLineIndent wraps line at spaces to width columns, continuation lines
// indented by hang spaces (at most half the width). A word wider than the
// space left after hang gets a line of its own, indented less so that it
// fits (the line's indentation plus four, else none); only a word wider
// than width is cut. A line that fits, or any line when width is below
// MinWrap, is returned as it is.
func FitLineIndent(line string, width, hang int) []string {
	if width < MinWrap || Width(line, 0) <= width {
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
		if col+Width(piece, col) > width && !fresh {
			newLine()
			piece = wd.text
		}
		if w := Width(wd.text, 0); fresh && i > 0 && col+w > width && w <= width {
			// too wide under the column but not for a line: a line of
			// its own, less indented (in place of the empty continuation
			// just begun), and the next word under the column
			cur.Reset()
			cur.WriteString(strings.Repeat(" ", ownLineIndent(line, width, w)))
			cur.WriteString(wd.text)
			newLine()
			continue
		}
		for piece != "" && col+Width(piece, col) > width {
			cut := CutAt(piece, col, width)
			cur.WriteString(piece[:cut])
			piece = piece[cut:]
			newLine()
		}
		if piece != "" {
			cur.WriteString(piece)
			col += Width(piece, col)
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
		w = max(w, Width(wd.text, 0))
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
		if c := Width(line[:indent+end], 0); c <= limit {
			best = c
		}
		i = end
	}
	if best < 0 {
		return indent + 4
	}
	return best
}

// Writer writes lines fitted to a width (FitLine); a line is written once
// its newline arrives, the rest at Flush. An example (the line after
// an "example:" line, or one starting "example: ") is never wrapped: it
// is meant to be copied, and a long line is better than a broken one.
type Writer struct {
	w       io.Writer
	width   int
	pending []byte
	example bool // the previous line was "example:"
}

// NewWriter is a Writer to w fitting lines to width columns (a width
// below MinWrap leaves them alone).
func NewWriter(w io.Writer, width int) *Writer { return &Writer{w: w, width: width} }

// Width is the width the lines are fitted to.
func (ww *Writer) Width() int { return ww.width }

func (ww *Writer) Write(p []byte) (int, error) {
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

func (ww *Writer) emit(line string, newline bool) error {
	lines := []string{line}
	if !ww.example && !strings.HasPrefix(strings.TrimSpace(line), "example: ") {
		lines = FitLine(line, ww.width)
	}
	ww.example = strings.TrimSpace(line) == "example:"
	text := strings.Join(lines, "\n")
	if newline {
		text += "\n"
	}
	_, err := io.WriteString(ww.w, text)
	return err
}

// WriteUnwrapped writes line and a newline to w as it is, even when w is
// a Writer: a command to type (the guide's examples) must stay whole.
func WriteUnwrapped(w io.Writer, line string) {
	ww, ok := w.(*Writer)
	if !ok {
		io.WriteString(w, line+"\n")
		return
	}
	ww.Flush()
	io.WriteString(ww.w, line+"\n")
}

// Flush writes what is left after the last newline.
func (ww *Writer) Flush() error {
	if len(ww.pending) == 0 {
		return nil
	}
	err := ww.emit(string(ww.pending), false)
	ww.pending = nil
	return err
}
