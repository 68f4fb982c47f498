package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/repl/termtext"
)

// rejection is why a file was not ingested, located the way compilers and
// hledger locate an error: FILE:LINE:COL (COL counts the code points of the
// line before the offending byte, from 1), the byte offset into the file,
// the rule broken, and the offending line with a caret under that byte.
// Line is 0 when no line is at fault (too large, unreadable).
type rejection struct {
	path     string
	line     int // 1-based; 0: the whole file
	col      int // 1-based code points; 0 with line
	offset   int // absolute byte offset; -1 when unknown
	rule     string
	excerpt  string // the line, sanitized and cut around the byte
	caretCol int    // display cells of excerpt before the caret
}

// excerptWidth bounds the display cells of an excerpt, excerptBefore
// those before the offending byte, so that the excerpt and its gutter fit
// 80 columns however long the line (a line can be megabytes).
const (
	excerptWidth  = 66
	excerptBefore = 40
)

// newRejection locates err, the failure to ingest path whose bytes are src
// (nil when the file was not read). The path is named once: the wrapping
// that the file layer adds ("read X: ...", "X: file is too large") is
// replaced by the rule alone.
func newRejection(path string, src []byte, err error) *rejection {
	r := &rejection{path: path, offset: -1, rule: fileRule(err)}
	var xe *engine.ExtractError
	if !errors.As(err, &xe) {
		return r
	}
	r.rule = xe.Detail
	if errors.Is(xe, engine.ErrSourceTooLarge) {
		r.rule = tooLargeRule
		return r
	}
	r.offset = xe.Offset
	if xe.Line == 0 || src == nil || xe.Offset > len(src) {
		return r
	}
	start := bytes.LastIndexByte(src[:xe.Offset], '\n') + 1
	end := len(src)
	if i := bytes.IndexByte(src[xe.Offset:], '\n'); i >= 0 {
		end = xe.Offset + i
	}
	if end-1 > xe.Offset && src[end-1] == '\r' {
		end-- // the CR of a CRLF is not shown (unless it is the byte at fault)
	}
	r.line = xe.Line
	r.col = utf8.RuneCount(src[start:xe.Offset]) + 1
	r.excerpt, r.caretCol = excerpt(src[start:end], xe.Offset-start)
	return r
}

// tooLargeRule is the rule of a file over the document size limit.
var tooLargeRule = fmt.Sprintf("file is too large: a document is at most %d bytes (8 MiB)", engine.MaxSourceSize)

// fileRule is the rule of a file that could not be read, without the path
// that the error carries (the outcome line names it once).
func fileRule(err error) string {
	var nr *fileio.NotRegularError
	var pe *fs.PathError
	switch {
	case errors.Is(err, fileio.ErrTooLarge):
		return tooLargeRule
	case errors.As(err, &nr):
		return db.NotRegularReason(nr.Mode)
	case errors.As(err, &pe) && (pe.Op == "stat" || pe.Op == "lstat"):
		return pe.Err.Error() // "no such file or directory"
	case errors.As(err, &pe):
		return fmt.Sprintf("cannot %s it: %v", pe.Op, pe.Err)
	}
	return err.Error()
}

// excerpt renders line (the bytes of the offending line) for the caret
// view and returns the display cells before the byte at off. Each part is
// cut to its budget with "…"; control bytes, TAB and invalid bytes are
// shown as \xNN or \t so that every byte is visible and the caret lands
// under the right one.
func excerpt(line []byte, off int) (string, int) {
	before := renderBytes(line[:off])
	after := renderBytes(line[off:])
	if cells(before) > excerptBefore {
		before = "…" + termtext.LastCells(before, excerptBefore-1)
	}
	if room := excerptWidth - cells(before); cells(after) > room {
		after = termtext.FirstCells(after, room-1) + "…"
	}
	return before + after, cells(before)
}

// renderBytes shows b as text: valid characters as they are, TAB as \t,
// other control bytes and bytes that are not UTF-8 as \xNN.
func renderBytes(b []byte) string {
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&s, "\\x%02x", b[0])
		case r == '\t':
			s.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&s, "\\x%02x", r)
		default:
			s.Write(b[:n])
		}
		b = b[n:]
	}
	return s.String()
}

// cells is the display columns of an excerpt (it holds no TAB or
// escape: renderBytes shows them as text).
func cells(s string) int { return termtext.Width(s, 0) }

// where is "FILE:LINE:COL" or just "FILE".
func (r *rejection) where() string {
	if r.line == 0 {
		return r.path
	}
	return fmt.Sprintf("%s:%d:%d", r.path, r.line, r.col)
}

// message is the one-line form: "FILE:LINE:COL: RULE (byte N)".
func (r *rejection) message() string {
	msg := r.where() + ": " + r.rule
	if r.offset >= 0 {
		msg += fmt.Sprintf(" (byte %d)", r.offset)
	}
	return msg
}

// caretLines are the lines shown under the message: the offending line
// behind a gutter with its number, and the caret under the byte.
//
//	2 | de\xff
//	  |   ^
func (r *rejection) caretLines() []string {
	if r.line == 0 {
		return nil
	}
	gutter := fmt.Sprintf("%d", r.line)
	pad := strings.Repeat(" ", len(gutter))
	return []string{
		fmt.Sprintf("  %s | %s", gutter, r.excerpt),
		fmt.Sprintf("  %s | %s^", pad, strings.Repeat(" ", r.caretCol)),
	}
}

// ingestOut is the rejection as an `ingest --json` line: the one line as
// "error", and where the fault is when it is known.
func (r *rejection) ingestOut() *commands.IngestOut {
	out := &commands.IngestOut{Outcome: string(db.OutcomeRejected), Path: r.path, Error: r.message(), File: r.path, Rule: r.rule}
	if r.offset >= 0 {
		out.Byte = &r.offset
	}
	if r.line > 0 {
		out.Line, out.Col = r.line, r.col
	}
	return out
}
