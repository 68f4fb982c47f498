package extract

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Kind is what an original is, detected from its bytes (the name's
// extension only breaks ties).
type Kind string

const (
	KindText   Kind = "text"   // valid UTF-8 without NUL: ingested as it is (not an original)
	KindHTML   Kind = "html"   // an HTML page
	KindEmail  Kind = "email"  // an RFC 5322 message (.eml)
	KindMbox   Kind = "mbox"   // "From " separated messages
	KindPDF    Kind = "pdf"    // starts with %PDF-
	KindBinary Kind = "binary" // anything else: refused with a clear error by the caller
)

// detectWindow bounds how much of the data Detect reads for header blocks.
const detectWindow = 64 << 10

// knownHeaders are the header names of which an email needs two.
var knownHeaders = map[string]bool{
	"from": true, "to": true, "subject": true, "date": true, "message-id": true,
	"mime-version": true, "received": true, "content-type": true,
}

// Detect tells what data is; doc.go gives the exact rules, in order.
func Detect(name string, data []byte) Kind {
	switch {
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return KindPDF
	case isMbox(data):
		return KindMbox
	case isEmail(data):
		return KindEmail
	case isHTML(name, data):
		return KindHTML
	case utf8.Valid(data) && bytes.IndexByte(data, 0) < 0:
		return KindText
	}
	return KindBinary
}

// isMbox: "From " at the very start, then, on the next line, a header line.
func isMbox(data []byte) bool {
	if !bytes.HasPrefix(data, []byte("From ")) {
		return false
	}
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return false
	}
	line, _ := NextLine(data[i+1:])
	_, ok := HeaderName(line)
	return ok
}

// isEmail: header lines from the first byte up to the first empty line (or
// the end of the detection window), with at least two distinct known names.
func isEmail(data []byte) bool {
	if len(data) > detectWindow {
		data = data[:detectWindow]
	}
	seen := map[string]bool{}
	first := true
	for len(data) > 0 {
		line, rest := NextLine(data)
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if first {
				return false
			}
		} else {
			n, ok := HeaderName(line)
			if !ok {
				return false
			}
			if knownHeaders[n] {
				seen[n] = true
			}
		}
		first = false
		data = rest
	}
	return len(seen) >= 2
}

// NextLine splits off one line, without its LF or CRLF (the MIME scan of
// package parsers reads lines as Detect does).
func NextLine(data []byte) (line, rest []byte) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		line, rest = data, nil
	} else {
		line, rest = data[:i], data[i+1:]
	}
	return bytes.TrimSuffix(line, []byte("\r")), rest
}

// HeaderName returns the lower-cased name of a "Name: value" line: a name
// of printable ASCII other than ':' then a ':'.
func HeaderName(line []byte) (string, bool) {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return "", false
	}
	for _, c := range line[:i] {
		if c <= ' ' || c > '~' {
			return "", false
		}
	}
	return strings.ToLower(string(line[:i])), true
}

var htmlStarts = []string{"<!doctype html", "<html", "<head", "<body"}

// isHTML: after an optional BOM, whitespace and comments, one of htmlStarts
// (case-insensitively); or a name ending .html/.htm and a "<" there.
func isHTML(name string, data []byte) bool {
	head := htmlHead(data)
	low := strings.ToLower(head)
	for _, s := range htmlStarts {
		if strings.HasPrefix(low, s) {
			return true
		}
	}
	ext := strings.ToLower(name)
	return (strings.HasSuffix(ext, ".html") || strings.HasSuffix(ext, ".htm")) && strings.HasPrefix(head, "<")
}

// htmlHead returns the start of data as ASCII-compatible text, past a BOM,
// whitespace and leading <!-- comments -->: at most 1 KiB of it.
func htmlHead(data []byte) string {
	if len(data) > 4096 {
		data = data[:4096]
	}
	var s string
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		s = string(data[3:])
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		// UTF-16: keep the ASCII code units only, enough to see the markup.
		le := data[0] == 0xFF
		var b strings.Builder
		for i := 2; i+1 < len(data); i += 2 {
			lo, hi := data[i], data[i+1]
			if !le {
				lo, hi = hi, lo
			}
			if hi != 0 || lo >= 0x80 {
				break
			}
			b.WriteByte(lo)
		}
		s = b.String()
	default:
		s = string(data)
	}
	for {
		s = strings.TrimLeft(s, " \t\r\n\f")
		if !strings.HasPrefix(s, "<!--") {
			break
		}
		end := strings.Index(s, "-->")
		if end < 0 {
			break
		}
		s = s[end+3:]
	}
	if len(s) > 1024 {
		s = s[:1024]
	}
	return s
}
