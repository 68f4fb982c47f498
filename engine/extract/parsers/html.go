package parsers

import (
	"bytes"
	"github.com/casper-chronicle/chronicle/engine/extract"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
)

// skipped elements: nothing inside them is visible text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Iframe: true, atom.Svg: true, atom.Math: true, atom.Object: true,
	atom.Noembed: true, atom.Noframes: true,
}

// blocks end the line they are on, at their start and at their end.
var blocks = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Body: true,
	atom.Caption: true, atom.Center: true, atom.Dd: true, atom.Details: true,
	atom.Dialog: true, atom.Div: true, atom.Dt: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Form: true,
	atom.Header: true, atom.Hgroup: true, atom.Html: true, atom.Legend: true,
	atom.Li: true, atom.Main: true, atom.Nav: true, atom.Option: true,
	atom.Summary: true, atom.Tbody: true, atom.Tfoot: true, atom.Thead: true,
	atom.Tr: true, atom.Menu: true,
}

// paragraphs are blocks followed and preceded by an empty line.
var paragraphs = map[atom.Atom]bool{
	atom.P: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Table: true, atom.Pre: true,
	atom.Blockquote: true, atom.Ul: true, atom.Ol: true, atom.Dl: true,
	atom.Hr: true, atom.Section: true,
}

// extractHTML derives the text of an HTML original.
func extractHTML(data []byte, opts extract.Options) ([]extract.Part, error) {
	utf, name, err := decodeHTML(data)
	if err != nil {
		return nil, err
	}
	text, err := htmlText(utf, opts)
	if err != nil {
		return nil, err
	}
	return []extract.Part{{Text: text, Tool: extract.Tool{Name: "chronicle-html", Version: extract.HTMLToolVersion(), Options: []string{"charset=" + name}}}}, nil
}

// decodeHTML turns an HTML original into UTF-8: by its BOM, else by the
// charset its first <meta charset> or <meta http-equiv=content-type>
// declares, else UTF-8. It returns the charset's canonical name.
func decodeHTML(data []byte) ([]byte, string, error) {
	var enc encoding.Encoding
	name := "utf-8"
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		enc, name = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), "utf-16le"
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		enc, name = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), "utf-16be"
	default:
		if label, ok := metaCharset(data); ok {
			e, n := charset.Lookup(label)
			if e == nil {
				return nil, "", extract.Fail("", extract.ErrCharset, "unknown charset %q declared in <meta>", extract.OneLine(label))
			}
			// A <meta> cannot declare UTF-16: the bytes it is read from are
			// ASCII-compatible (HTML standard); UTF-16 there means UTF-8.
			if n != "utf-8" && !strings.HasPrefix(n, "utf-16") {
				enc, name = e, n
			}
		}
	}
	if enc != nil {
		out, err := enc.NewDecoder().Bytes(data)
		if err != nil {
			return nil, "", extract.Fail("", extract.ErrCharset, "cannot decode the page as %s: %v", name, err)
		}
		data = out
	} else if !utf8.Valid(data) {
		return nil, "", extract.Fail("", extract.ErrMalformed, "the page is declared or taken as UTF-8 but is not valid UTF-8 at byte %d", extract.InvalidAt(data))
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, "", extract.Fail("", extract.ErrMalformed, "the page holds a NUL byte at byte %d: binary data, not HTML", i)
	}
	return data, name, nil
}

// metaCharset finds the charset label that the first <meta> declaring one
// gives, in the part of the page before <body> (the tokenizer reads the raw
// bytes, which is fine for the ASCII markup of such a declaration).
func metaCharset(data []byte) (string, bool) {
	z := html.NewTokenizer(bytes.NewReader(data))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return "", false
		case html.StartTagToken, html.SelfClosingTagToken:
			tn, hasAttr := z.TagName()
			a := atom.Lookup(tn)
			if a == atom.Body {
				return "", false
			}
			if a != atom.Meta || !hasAttr {
				continue
			}
			var cs, content, equiv string
			for {
				k, v, more := z.TagAttr()
				switch strings.ToLower(string(k)) {
				case "charset":
					cs = string(v)
				case "content":
					content = string(v)
				case "http-equiv":
					equiv = string(v)
				}
				if !more {
					break
				}
			}
			if cs = strings.TrimSpace(cs); cs != "" {
				return cs, true
			}
			if strings.EqualFold(strings.TrimSpace(equiv), "content-type") {
				if l, ok := charsetParam(content); ok {
					return l, true
				}
			}
		}
	}
}

// charsetParam reads charset=LABEL out of a content-type value.
func charsetParam(content string) (string, bool) {
	low := strings.ToLower(content)
	i := strings.Index(low, "charset")
	if i < 0 {
		return "", false
	}
	rest := strings.TrimLeft(content[i+len("charset"):], " \t")
	if !strings.HasPrefix(rest, "=") {
		return "", false
	}
	rest = strings.TrimLeft(rest[1:], " \t")
	rest = strings.Trim(rest, `"'`)
	if j := strings.IndexAny(rest, " \t;\"'"); j >= 0 {
		rest = rest[:j]
	}
	return rest, rest != ""
}

// lineWriter gathers lines: collapsed inline whitespace, trimmed lines,
// at most one empty line in a row, none at the start or end.
type lineWriter struct {
	out     bytes.Buffer
	line    []byte
	space   bool // a collapsible space is pending
	blank   bool // an empty line is wanted before the next text
	started bool // some text was written
	max     int64
	over    bool
}

func (w *lineWriter) text(s string) {
	for _, r := range s {
		switch r {
		case ' ', '\t', '\n', '\r', '\f':
			w.space = true
			continue
		case '\u00a0':
			// A no-break space is a space that does not collapse.
			if w.space && len(w.line) > 0 {
				w.line = append(w.line, ' ')
			}
			w.space = false
			w.line = append(w.line, ' ')
			continue
		}
		if w.space && len(w.line) > 0 {
			w.line = append(w.line, ' ')
		}
		w.space = false
		w.line = utf8.AppendRune(w.line, r)
	}
}

// pre writes preformatted text: spaces kept, each LF ends a line.
func (w *lineWriter) pre(s string) {
	for i, seg := range strings.Split(s, "\n") {
		if i > 0 {
			w.hardBreak()
		}
		if w.space && len(w.line) > 0 {
			w.line = append(w.line, ' ')
		}
		w.space = false
		w.line = append(w.line, seg...)
	}
}

// flush ends the current line if it has text.
func (w *lineWriter) flush() {
	w.space = false
	line := bytes.TrimRight(w.line, " \t\f\r\n")
	w.line = w.line[:0]
	if len(bytes.TrimLeft(line, " \t")) == 0 {
		return
	}
	if w.started && w.blank {
		w.out.WriteByte('\n')
	}
	w.blank = false
	w.started = true
	w.out.Write(line)
	w.out.WriteByte('\n')
	if int64(w.out.Len()) > w.max {
		w.over = true
	}
}

// hardBreak ends the current line; an empty one asks for an empty line.
func (w *lineWriter) hardBreak() {
	if len(bytes.TrimSpace(w.line)) == 0 {
		w.line = w.line[:0]
		w.space = false
		w.blank = true
		return
	}
	w.flush()
}

func (w *lineWriter) paragraph() {
	w.flush()
	w.blank = true
}

// htmlText derives the visible text of UTF-8 HTML.
func htmlText(data []byte, opts extract.Options) ([]byte, error) {
	w := &lineWriter{max: opts.MaxText}
	var title []byte
	inTitle, titleDone := false, false
	skip, pre := 0, 0
	preStart := false
	z := html.NewTokenizer(bytes.NewReader(data))
	for !w.over {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				return nil, extract.Fail("", extract.ErrMalformed, "reading the HTML: %v", z.Err())
			}
			break
		}
		afterPre := preStart
		preStart = false
		switch tt {
		case html.TextToken:
			t := z.Text()
			if afterPre {
				// The HTML standard drops one LF right after <pre>.
				t = bytes.TrimPrefix(t, []byte("\n"))
			}
			switch {
			case inTitle:
				title = append(title, t...)
			case skip > 0:
			case pre > 0:
				w.pre(string(t))
			default:
				w.text(string(t))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			tn, _ := z.TagName()
			a := atom.Lookup(tn)
			selfClosing := tt == html.SelfClosingTagToken
			switch {
			case skipped[a]:
				if !selfClosing {
					skip++
				}
			case a == atom.Title && skip == 0 && !titleDone && !selfClosing:
				inTitle = true
			case a == atom.Br:
				w.hardBreak()
			case a == atom.Td || a == atom.Th:
				w.space = true
			case paragraphs[a]:
				w.paragraph()
				if a == atom.Pre && !selfClosing {
					pre++
					preStart = true
					continue
				}
			case blocks[a]:
				w.flush()
			}
		case html.EndTagToken:
			tn, _ := z.TagName()
			a := atom.Lookup(tn)
			switch {
			case skipped[a]:
				if skip > 0 {
					skip--
				}
			case a == atom.Title:
				if inTitle {
					inTitle, titleDone = false, true
				}
			case a == atom.Br:
				w.hardBreak()
			case paragraphs[a]:
				if a == atom.Pre && pre > 0 {
					pre--
				}
				w.paragraph()
			case blocks[a]:
				w.flush()
			}
		}
	}
	w.flush()
	if w.over {
		return nil, extract.Fail("", extract.ErrLimit, "more than %d bytes of extracted text (MaxText)", opts.MaxText)
	}
	body := w.out.Bytes()
	t := &lineWriter{max: opts.MaxText}
	t.text(string(title))
	t.flush()
	if t.out.Len() == 0 {
		return bytes.Clone(body), nil
	}
	if len(body) > 0 {
		t.out.WriteByte('\n')
		t.out.Write(body)
	}
	if err := extract.CheckText("", int64(t.out.Len()), opts); err != nil {
		return nil, err
	}
	return t.out.Bytes(), nil
}
