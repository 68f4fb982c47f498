package pages

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/engine/find"
)

// span is a half-open range of byte offsets into a document.
type span struct{ Start, End int }

// invisible reports whether r is a character the page shows by its code
// point rather than as itself: C0 and C1 controls but the tab, DEL, and
// the bidirectional formatting characters (embeddings, overrides,
// isolates and marks), which could otherwise reorder the text around
// them.
func invisible(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// writeText writes text escaped. An invisible character stays in the
// text (so a highlight's text is the document's bytes) but inside an
// isolated element of class ctl, which the style sheet labels with its
// code point (data-cp) and which confines a bidi override to itself.
// Bytes that are not UTF-8 (never in a document: the archive keeps text
// only) are written as U+FFFD.
func writeText(b *strings.Builder, text []byte) {
	for len(text) > 0 {
		i := 0
		for i < len(text) {
			r, n := utf8.DecodeRune(text[i:])
			if invisible(r) || (r == utf8.RuneError && n <= 1) {
				break
			}
			i += n
		}
		b.WriteString(html.EscapeString(string(text[:i])))
		text = text[i:]
		if len(text) == 0 {
			return
		}
		r, n := utf8.DecodeRune(text)
		if r == utf8.RuneError && n <= 1 {
			b.WriteString("\uFFFD")
			text = text[1:]
			continue
		}
		// A character reference keeps the byte out of the page's source
		// (a CR would be read as a LF); C1 controls are written as
		// themselves, since HTML reads their references as windows-1252.
		ch := fmt.Sprintf("&#x%X;", r)
		if r >= 0x80 && r < 0xa0 {
			ch = string(text[:n])
		}
		fmt.Fprintf(b, `<span class="ctl" data-cp="U+%04X">%s</span>`, r, ch)
		text = text[n:]
	}
}

// visible is text shown in a page (a name, a question) escaped, its
// control and bidi characters isolated and labelled as in documents.
func visible(text string) template.HTML {
	var b strings.Builder
	writeText(&b, []byte(text))
	return template.HTML(b.String())
}

// marked renders a line of the document starting at byte offset start
// with the spans (absolute offsets, sorted, not overlapping) as <mark>
// elements carrying their offsets. Spans are clipped to the line.
func marked(text []byte, start int, spans []span) template.HTML {
	var b strings.Builder
	pos := 0
	for _, s := range spans {
		ms, me := s.Start-start, s.End-start
		ms, me = max(ms, pos), min(me, len(text))
		if ms >= me {
			continue
		}
		writeText(&b, text[pos:ms])
		fmt.Fprintf(&b, `<mark data-byte-start="%d" data-byte-end="%d">`, start+ms, start+me)
		writeText(&b, text[ms:me])
		b.WriteString("</mark>")
		pos = me
	}
	writeText(&b, text[pos:])
	return template.HTML(b.String())
}

// termSpans are the byte spans of every occurrence of the query's terms
// in a line that find listed (its text and first offset): find scores a
// line by its terms as byte substrings, so these are the bytes that made
// it match. Overlapping occurrences are merged.
func termSpans(q *find.Query, text []byte, start int) []span {
	var out []span
	for term := range q.Distinct() {
		for i := 0; i <= len(text)-len(term); {
			j := bytes.Index(text[i:], term)
			if j < 0 {
				break
			}
			out = append(out, span{start + i + j, start + i + j + len(term)})
			i += j + 1
		}
	}
	return merge(out)
}

// merge sorts spans and joins the ones that overlap or touch.
func merge(spans []span) []span {
	sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 && s.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// hlParam is the value of a document link's hl parameter: the spans,
// "START-END" joined with commas.
func hlParam(spans []span) string {
	parts := make([]string, len(spans))
	for i, s := range spans {
		parts[i] = fmt.Sprintf("%d-%d", s.Start, s.End)
	}
	return strings.Join(parts, ",")
}
