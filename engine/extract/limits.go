package extract

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Defaults of Options; a zero field means its default.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultMaxText     = 256 << 20
	DefaultMaxParts    = 1000
	DefaultMaxDepth    = 8
	DefaultMaxExpanded = 1 << 30
)

// Options bound one extraction. A zero field takes its default.
type Options struct {
	OCR         bool          // PDF without a text layer: run pdftoppm + tesseract (ara+eng when installed, else eng); record both tools
	Timeout     time.Duration // per external tool run (default 60s)
	MaxText     int64         // extracted text of one original, default 256 MiB
	MaxParts    int           // attachments + messages per original, default 1000
	MaxDepth    int           // nesting, default 8: Depth, and the MIME nesting inside one mail
	MaxExpanded int64         // total decoded bytes of all parts of one original, default 1 GiB

	// Depth is how deep this original sits: 0 for a file the user gave,
	// the parent's Depth+1 for an inner original (an attachment, an mbox
	// message) that the caller extracts in turn. Extract refuses with
	// ErrLimit when Depth > MaxDepth. (An addition to the agreed API: the
	// signature of Extract has no other place for the depth.)
	Depth int
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxText <= 0 {
		o.MaxText = DefaultMaxText
	}
	if o.MaxParts <= 0 {
		o.MaxParts = DefaultMaxParts
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxExpanded <= 0 {
		o.MaxExpanded = DefaultMaxExpanded
	}
	return o
}

// The sentinel errors. Every *Error wraps exactly one of them.
var (
	ErrToolMissing = errors.New("an extraction tool is not installed")
	ErrEncrypted   = errors.New("the PDF is encrypted")
	ErrNoTextLayer = errors.New("no text layer; OCR not run (use --ocr)")
	ErrMalformed   = errors.New("malformed input")
	ErrCharset     = errors.New("unknown or wrong charset")
	ErrLimit       = errors.New("a limit was passed")
	ErrToolFailed  = errors.New("the extractor failed")
)

// Error is a clear one-line failure: what was wrong and where (which part).
type Error struct {
	Part string // "" or the part path
	Err  error  // one of the sentinel errors above, wrapped with detail
}

func (e *Error) Error() string {
	msg := OneLine(e.Err.Error())
	switch {
	case e.Part == "":
		return msg
	case strings.HasPrefix(e.Part, "message-"):
		return e.Part + ": " + msg
	default:
		return "attachment " + OneLine(e.Part) + ": " + msg
	}
}

func (e *Error) Unwrap() error { return e.Err }

// detail is a sentinel with a message of its own: its text replaces the
// sentinel's, so that messages read as one sentence
// ("pdftotext not found; install poppler-utils ...").
type detail struct {
	sentinel error
	msg      string
}

func (d *detail) Error() string { return d.msg }
func (d *detail) Unwrap() error { return d.sentinel }

// Fail builds an *Error for part wrapping sentinel with a formatted
// message.
func Fail(part string, sentinel error, format string, args ...any) *Error {
	return &Error{Part: part, Err: &detail{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}}
}

// OneLine keeps a message on one line (tool output may hold several).
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// Budget counts the parts and decoded bytes of one original against its
// Options (the parsers keep one per original).
type Budget struct {
	opts     Options
	parts    int
	expanded int64
}

func (b *Budget) AddPart(path string) error {
	b.parts++
	if b.parts > b.opts.MaxParts {
		return Fail(path, ErrLimit, "more than %d parts (MaxParts)", b.opts.MaxParts)
	}
	return nil
}

func (b *Budget) AddBytes(path string, n int64) error {
	b.expanded += n
	if b.expanded > b.opts.MaxExpanded {
		return Fail(path, ErrLimit, "more than %d decoded bytes in all parts (MaxExpanded)", b.opts.MaxExpanded)
	}
	return nil
}

// CheckText refuses n bytes of text extracted from one original (or its
// part path) when they pass opts.MaxText.
func CheckText(path string, n int64, opts Options) error {
	if n > opts.MaxText {
		return Fail(path, ErrLimit, "more than %d bytes of extracted text (MaxText)", opts.MaxText)
	}
	return nil
}

// NewBudget starts the count of one original.
func NewBudget(opts Options) *Budget { return &Budget{opts: opts} }

// NormalizeText turns CRLF and lone CR into LF and makes a non-empty text
// end with exactly one LF.
func NormalizeText(t []byte) []byte {
	t = bytes.ReplaceAll(t, []byte("\r\n"), []byte("\n"))
	t = bytes.ReplaceAll(t, []byte("\r"), []byte("\n"))
	t = bytes.TrimRight(t, "\n")
	if len(t) == 0 {
		return []byte{}
	}
	return append(t, '\n')
}

// InvalidAt is the offset of the first byte that is not valid UTF-8, -1
// when all are.
func InvalidAt(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}
