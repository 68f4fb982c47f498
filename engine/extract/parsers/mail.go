package parsers

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"github.com/casper-chronicle/chronicle/engine/extract"
	"io"
	"mime"
	"mime/quotedprintable"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jhillyerd/enmime/v2"
	"golang.org/x/net/html/charset"
)

// mailHeaders are the headers the text shows, in this order.
var mailHeaders = []string{"From", "To", "Cc", "Date", "Subject", "Message-ID"}

// mailParser reads MIME structure only: no transfer decoding, no charset
// conversion, no charset guessing, no HTML-to-text; this package does those
// itself, so that limits are checked before decoding and nothing is guessed.
var mailParser = enmime.NewParser(
	enmime.RawContent(true),
	enmime.DisableTextConversion(true),
	enmime.DisableCharacterDetection(true),
	enmime.SkipMalformedParts(false),
)

// extractMail derives the text and the inner originals of one message.
func extractMail(data []byte, opts extract.Options) (parts []extract.Part, err error) {
	defer func() {
		if r := recover(); r != nil {
			parts, err = nil, extract.Fail("", extract.ErrToolFailed, "the MIME parser crashed: %v", r)
		}
	}()
	if err := scanMIME(data, opts); err != nil {
		return nil, err
	}
	root, err := mailParser.ReadParts(bytes.NewReader(data))
	if err != nil {
		return nil, extract.Fail("", extract.ErrMalformed, "malformed MIME: %v", err)
	}
	b := extract.NewBudget(opts)

	// Walk the tree once: depth, severe errors, and the leaves in order.
	var leaves []*enmime.Part
	var walk func(p *enmime.Part, depth int) error
	walk = func(p *enmime.Part, depth int) error {
		if depth > opts.MaxDepth {
			return extract.Fail("", extract.ErrLimit, "MIME parts nested more than %d deep (MaxDepth)", opts.MaxDepth)
		}
		for _, e := range p.Errors {
			if e.Severe {
				where := "part " + p.PartID
				if p.FileName != "" {
					where = fmt.Sprintf("part %s (%s)", p.PartID, sanitizeName(p.FileName))
				}
				return extract.Fail("", extract.ErrMalformed, "malformed MIME in %s: %s", where, extract.OneLine(e.Error()))
			}
		}
		if strings.HasPrefix(p.ContentType, "multipart/") && p.Boundary == "" {
			return extract.Fail("", extract.ErrMalformed, "malformed MIME: part %s is %s without a boundary", p.PartID, p.ContentType)
		}
		if p.FirstChild == nil && !strings.HasPrefix(p.ContentType, "multipart/") {
			leaves = append(leaves, p)
			if len(leaves) > opts.MaxParts+1 {
				return extract.Fail("", extract.ErrLimit, "more than %d parts (MaxParts)", opts.MaxParts)
			}
		}
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if err := walk(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, 0); err != nil {
		return nil, err
	}

	// Sort the leaves: body (plain, else HTML) or inner original.
	var plain, htmlBody, inner []*enmime.Part
	for _, p := range leaves {
		ct := strings.ToLower(p.ContentType)
		attached := strings.EqualFold(p.Disposition, "attachment")
		switch {
		case (ct == "text/plain" || ct == "") && !attached:
			plain = append(plain, p)
		case ct == "text/html" && !attached:
			htmlBody = append(htmlBody, p)
		default:
			inner = append(inner, p)
		}
	}

	// Refuse before decoding: a part's decoded size is at most its raw size
	// (3/4 of it for base64).
	var estimate int64
	for _, p := range leaves {
		estimate += decodedEstimate(p)
	}
	if estimate > opts.MaxExpanded {
		return nil, extract.Fail("", extract.ErrLimit, "the parts would decode to about %d bytes, more than %d (MaxExpanded)", estimate, opts.MaxExpanded)
	}

	// The text: headers, an empty line, the body.
	var text bytes.Buffer
	for _, h := range mailHeaders {
		v, err := headerValue(root, h)
		if err != nil {
			return nil, err
		}
		if v != "" {
			text.WriteString(h + ": " + v + "\n")
		}
	}
	text.WriteString("\n")
	var bodies [][]byte
	for _, p := range plain {
		t, err := partText(p, b)
		if err != nil {
			return nil, err
		}
		bodies = append(bodies, t)
	}
	if len(plain) == 0 {
		for _, p := range htmlBody {
			raw, err := htmlPartText(p, b)
			if err != nil {
				return nil, err
			}
			t, err := htmlText(raw, opts)
			if err != nil {
				return nil, err
			}
			bodies = append(bodies, t)
		}
	}
	for i, body := range bodies {
		if i > 0 {
			text.WriteString("\n--\n")
		}
		text.Write(bytes.TrimRight(body, "\n"))
		text.WriteString("\n")
		if err := extract.CheckText("", int64(text.Len()), opts); err != nil {
			return nil, err
		}
	}
	out := extract.NormalizeText(text.Bytes())
	if err := extract.CheckText("", int64(len(out)), opts); err != nil {
		return nil, err
	}
	parts = append(parts, extract.Part{Text: out, Tool: extract.Tool{Name: "chronicle-mail", Version: extract.MailToolVersion(), Options: []string{}}})

	// The inner originals, in tree order, under unique sanitised names.
	used := map[string]bool{}
	for i, p := range inner {
		name := sanitizeName(p.FileName)
		if name == "" {
			name = "attachment-" + strconv.Itoa(i+1)
		}
		name = uniqueName(name, used)
		if err := b.AddPart(name); err != nil {
			return nil, err
		}
		orig, err := transferDecode(p, name)
		if err != nil {
			return nil, err
		}
		if err := b.AddBytes(name, int64(len(orig))); err != nil {
			return nil, err
		}
		ct := p.ContentType
		if ct == "" {
			ct = "text/plain"
		}
		parts = append(parts, extract.Part{Path: name, Original: orig, ContentType: ct,
			Tool: extract.Tool{Name: "chronicle-mail", Version: extract.MailToolVersion(), Options: []string{}}})
	}
	return parts, nil
}

// decodedEstimate bounds the decoded size of a part from its raw size.
func decodedEstimate(p *enmime.Part) int64 {
	n := int64(len(p.Content))
	if strings.EqualFold(strings.TrimSpace(p.Header.Get("Content-Transfer-Encoding")), "base64") {
		return n / 4 * 3
	}
	return n
}

// transferDecode undoes a part's Content-Transfer-Encoding, nothing more.
func transferDecode(p *enmime.Part, where string) ([]byte, error) {
	cte := strings.ToLower(strings.TrimSpace(p.Header.Get("Content-Transfer-Encoding")))
	switch cte {
	case "", "7bit", "8bit", "binary":
		return bytes.Clone(p.Content), nil
	case "base64":
		clean := make([]byte, 0, len(p.Content))
		for _, c := range p.Content {
			switch {
			case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
				clean = append(clean, c)
			case c == '=', c == ' ', c == '\t', c == '\r', c == '\n':
			default:
				return nil, extract.Fail(where, extract.ErrMalformed, "invalid base64 byte 0x%02x", c)
			}
		}
		out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
		n, err := base64.RawStdEncoding.Decode(out, clean)
		if err != nil {
			return nil, extract.Fail(where, extract.ErrMalformed, "invalid base64: %v", err)
		}
		return out[:n], nil
	case "quoted-printable":
		out, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(p.Content)))
		if err != nil {
			return nil, extract.Fail(where, extract.ErrMalformed, "invalid quoted-printable: %v", err)
		}
		return out, nil
	}
	return nil, extract.Fail(where, extract.ErrMalformed, "unknown Content-Transfer-Encoding %q", extract.OneLine(cte))
}

// partText decodes a body part to UTF-8 from its declared charset.
func partText(p *enmime.Part, b *extract.Budget) ([]byte, error) {
	raw, err := transferDecode(p, "")
	if err != nil {
		return nil, err
	}
	if err := b.AddBytes("", int64(len(raw))); err != nil {
		return nil, err
	}
	label := p.Charset
	if p.Parent == nil && p.Header.Get("Content-Type") == "" {
		label = "" // enmime's default for a message without Content-Type
	}
	t, err := toUTF8(raw, label, "the body")
	if err != nil {
		return nil, err
	}
	if i := bytes.IndexByte(t, 0); i >= 0 {
		return nil, extract.Fail("", extract.ErrMalformed, "the body holds a NUL byte at byte %d", i)
	}
	return t, nil
}

// htmlPartText decodes an HTML body part to UTF-8: from the charset its
// Content-Type declares, else as an HTML page is (BOM, <meta>, UTF-8).
func htmlPartText(p *enmime.Part, b *extract.Budget) ([]byte, error) {
	if strings.TrimSpace(p.Charset) != "" {
		return partText(p, b)
	}
	raw, err := transferDecode(p, "")
	if err != nil {
		return nil, err
	}
	if err := b.AddBytes("", int64(len(raw))); err != nil {
		return nil, err
	}
	t, _, err := decodeHTML(raw)
	return t, err
}

// toUTF8 decodes data from the charset label. No label or US-ASCII: the
// bytes must be valid UTF-8 (ASCII is), else they are read as
// windows-1252, as browsers read US-ASCII. An unknown label is extract.ErrCharset.
func toUTF8(data []byte, label, what string) ([]byte, error) {
	label = strings.TrimSpace(strings.Trim(strings.TrimSpace(label), `"'`))
	low := strings.ToLower(label)
	if low == "" || low == "us-ascii" || low == "ascii" || low == "utf-8" || low == "utf8" {
		if utf8.Valid(data) {
			return data, nil
		}
		if low == "utf-8" || low == "utf8" {
			return nil, extract.Fail("", extract.ErrCharset, "%s is declared UTF-8 but is not valid UTF-8 at byte %d", what, extract.InvalidAt(data))
		}
		if low == "" {
			return nil, extract.Fail("", extract.ErrCharset, "%s declares no charset and is not valid UTF-8 (byte %d)", what, extract.InvalidAt(data))
		}
		label = "windows-1252"
	}
	enc, _ := charset.Lookup(label)
	if enc == nil {
		return nil, extract.Fail("", extract.ErrCharset, "%s has an unknown charset %q", what, extract.OneLine(label))
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil || !utf8.Valid(out) {
		return nil, extract.Fail("", extract.ErrCharset, "%s cannot be decoded as %s", what, extract.OneLine(label))
	}
	return out, nil
}

// wordDecoder decodes RFC 2047 words with the charsets this package knows.
var wordDecoder = &mime.WordDecoder{CharsetReader: func(label string, r io.Reader) (io.Reader, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	out, err := toUTF8(data, label, "an encoded word")
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(out), nil
}}

// headerValue is a header decoded to UTF-8, unfolded, on one line; several
// fields of the same name are joined with ", ".
func headerValue(root *enmime.Part, name string) (string, error) {
	vals := root.Header.Values(name)
	var out []string
	for _, v := range vals {
		d, err := wordDecoder.DecodeHeader(v)
		if err != nil {
			return "", extract.Fail("", extract.ErrCharset, "header %s: %v", name, extract.OneLine(err.Error()))
		}
		if !utf8.Valid([]byte(d)) {
			return "", extract.Fail("", extract.ErrCharset, "header %s is not valid UTF-8 and not RFC 2047 encoded", name)
		}
		d = strings.Join(strings.Fields(d), " ")
		if d != "" {
			out = append(out, d)
		}
	}
	return strings.Join(out, ", "), nil
}

// sanitizeName makes a file name a one-level label: valid UTF-8, no "/",
// "\", NUL, control characters or bidi embedding/override/isolate
// characters, not "." or "..", at most 200 bytes.
func sanitizeName(name string) string {
	name = strings.ToValidUTF8(name, "_")
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '/' || r == '\\':
			b.WriteByte('_')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			// Bidi embeddings, overrides and isolates: "invoice\u202egpj.exe"
			// would show as "invoiceexe.jpg".
		default:
			b.WriteRune(r)
		}
	}
	s := strings.TrimSpace(b.String())
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	if s == "." || s == ".." {
		return ""
	}
	return s
}

// uniqueName gives the second "a.pdf" the name "a.pdf (2)", and so on.
func uniqueName(name string, used map[string]bool) string {
	n := name
	for i := 2; used[n]; i++ {
		n = fmt.Sprintf("%s (%d)", name, i)
	}
	used[n] = true
	return n
}
