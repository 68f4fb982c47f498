package extract

import (
	"bytes"
	"fmt"
)

// extractMbox splits an mbox into its messages, in order. A message starts
// at a line beginning "From " that is the file's first line or follows an
// empty line; that separator line is not part of the message, nor is the
// empty line before the next separator (the writer added it). ">From "
// quoting is left as it is: mboxo and mboxrd cannot be told apart from the
// bytes, and undoing a quote that was not one would change the evidence.
func extractMbox(data []byte, opts Options) ([]Part, error) {
	if !bytes.HasPrefix(data, []byte("From ")) {
		return nil, Fail("", ErrMalformed, "an mbox must start with a \"From \" line")
	}
	b := NewBudget(opts)
	var parts []Part
	rest := data
	for len(rest) > 0 {
		// rest starts with a separator line.
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			break // a separator with no message after it
		}
		body := rest[nl+1:]
		end, next := nextSeparator(body)
		msg := body[:end]
		path := fmt.Sprintf("message-%04d", len(parts)+1)
		if err := b.AddPart(path); err != nil {
			return nil, err
		}
		if err := b.AddBytes(path, int64(len(msg))); err != nil {
			return nil, err
		}
		parts = append(parts, Part{Path: path, Original: bytes.Clone(msg), ContentType: "message/rfc822",
			Tool: Tool{Name: "chronicle-mbox", Version: mboxToolVersion, Options: []string{}}})
		rest = body[next:]
	}
	if len(parts) == 0 {
		return nil, Fail("", ErrMalformed, "the mbox holds no message")
	}
	return parts, nil
}

// nextSeparator finds the next "From " line after an empty line in body.
// end is where the message ends (before the empty line), next where the
// separator starts; both are len(body) when there is none. The last
// message loses one trailing empty line, as the others do.
func nextSeparator(body []byte) (end, next int) {
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte("\nFrom "))
		if j < 0 {
			break
		}
		at := i + j // index of the '\n' ending the line before "From "
		// The line before must be empty: body[:at] (less a CR) ends with LF or is empty.
		prev := bytes.TrimSuffix(body[:at], []byte("\r"))
		if len(prev) == 0 || prev[len(prev)-1] == '\n' {
			return len(prev), at + 1
		}
		i = at + 1
	}
	end = len(body)
	switch {
	case bytes.HasSuffix(body, []byte("\r\n\r\n")):
		end -= 2
	case bytes.HasSuffix(body, []byte("\n\n")):
		end--
	}
	return end, len(body)
}
