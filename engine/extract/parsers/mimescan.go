package parsers

import (
	"bytes"
	"github.com/casper-chronicle/chronicle/engine/extract"
	"mime"
	"strings"
)

// scanMIME measures a message's multipart nesting and counts its parts in
// one pass over the lines, before enmime parses it: enmime's cost grows
// with depth times size, so a message nested thousands deep must be
// refused before it is parsed. It follows boundaries as a MIME parser
// does (a delimiter of an outer boundary closes the inner ones) and does
// not look inside non-multipart parts, message/rfc822 included, except for
// delimiters. It is a guard, not a parser: enmime reads the structure.
func scanMIME(data []byte, opts extract.Options) error {
	var stack []string // the open boundaries, outermost first
	parts := 0
	inHeader := true
	var ctype []byte // the Content-Type of the header block being read, unfolded
	inCtype := false
	for len(data) > 0 {
		line, rest := extract.NextLine(data)
		data = rest
		if inHeader {
			switch {
			case len(line) == 0:
				inHeader, inCtype = false, false
				if b, ok := multipartBoundary(string(ctype)); ok {
					stack = append(stack, b)
					if len(stack) > opts.MaxDepth {
						return extract.Fail("", extract.ErrLimit, "MIME parts nested more than %d deep (MaxDepth)", opts.MaxDepth)
					}
				} else {
					parts++
					if parts > opts.MaxParts+1 {
						return extract.Fail("", extract.ErrLimit, "more than %d parts (MaxParts)", opts.MaxParts)
					}
				}
				ctype = ctype[:0]
			case line[0] == ' ' || line[0] == '\t':
				if inCtype {
					ctype = append(ctype, line...)
				}
			default:
				n, _ := extract.HeaderName(line)
				inCtype = n == "content-type"
				if inCtype {
					ctype = append(ctype[:0], line[len("content-type:"):]...)
				}
			}
			continue
		}
		if len(stack) == 0 || !bytes.HasPrefix(line, []byte("--")) {
			continue
		}
		delim := string(bytes.TrimRight(line[2:], " \t"))
		for i := len(stack) - 1; i >= 0; i-- {
			b := stack[i]
			if delim == b {
				stack = stack[:i+1]
				inHeader = true
				break
			}
			if delim == b+"--" {
				stack = stack[:i]
				break
			}
		}
	}
	return nil
}

// multipartBoundary is the boundary of a multipart Content-Type value.
func multipartBoundary(ctype string) (string, bool) {
	mt, params, err := mime.ParseMediaType(strings.TrimSpace(ctype))
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		return "", false
	}
	return params["boundary"], true
}
