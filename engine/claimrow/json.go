package claimrow

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the JSON type of a Value. Absent is JavaScript's undefined: what
// a missing key reads as, never a value of the text.
type Kind uint8

// The kinds of Value.
const (
	Absent Kind = iota
	Null
	Bool
	Int
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"absent", "null", "a boolean", "an integer", "a string", "an array", "an object"}[k]
}

// Value is a JSON value read under the rules of
// engine/claimcheck/README.md §2.1: numbers are integers only.
// Object members keep the order of the text; keys are unique.
type Value struct {
	Kind    Kind
	Bool    bool
	Int     int64
	Str     string
	Items   []Value
	Members []Member
}

// Member is one key and value of an object.
type Member struct {
	Key   string
	Value Value
}

// Constructors for building rows.

// StringValue returns the JSON string s.
func StringValue(s string) Value { return Value{Kind: String, Str: s} }

// IntValue returns the JSON integer n.
func IntValue(n int64) Value { return Value{Kind: Int, Int: n} }

// ObjectValue returns an object of the members, in the order given
// (Canonical sorts them).
func ObjectValue(members ...Member) Value { return Value{Kind: Object, Members: members} }

// ArrayValue returns an array of the items.
func ArrayValue(items ...Value) Value { return Value{Kind: Array, Items: items} }

// Get returns the member key of an object, or an Absent value when v is
// not an object or has no such key.
func (v Value) Get(key string) Value {
	if v.Kind == Object {
		for _, m := range v.Members {
			if m.Key == key {
				return m.Value
			}
		}
	}
	return Value{}
}

// Has reports whether v is an object with the key (JavaScript's
// Object.hasOwn).
func (v Value) Has(key string) bool { return v.Get(key).Kind != Absent }

// IsString reports whether v is the string s.
func (v Value) IsString(s string) bool { return v.Kind == String && v.Str == s }

// Limits of engine/claimcheck/README.md §2.1.
const (
	// MaxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER, 2^53-1.
	MaxSafeInteger = 1<<53 - 1
	// MaxDepth bounds the nesting of arrays and objects; a scalar has depth
	// 0 and each array or object adds 1.
	MaxDepth = 32
)

// ErrJSON wraps every error of ParseLine.
var ErrJSON = errors.New("not a strict JSON line")

// SyntaxError is a ParseLine error at a byte offset of the line.
type SyntaxError struct {
	Offset int // byte offset from the start of the line
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg) }

// Unwrap makes every SyntaxError an ErrJSON.
func (e *SyntaxError) Unwrap() error { return ErrJSON }

// ParseLine reads one line (without its LF) as exactly one JSON value
// under the rules of engine/claimcheck/README.md §2.1: valid UTF-8, at
// most maxBytes bytes, no bytes after the value, no duplicate keys, no
// lone surrogate escapes, integers in plain decimal up to 2^53-1 in
// magnitude, depth at most MaxDepth. Whitespace is allowed before the value and between tokens,
// never after the value.
func ParseLine(line []byte, maxBytes int) (Value, error) {
	if len(line) > maxBytes {
		return Value{}, &SyntaxError{maxBytes, fmt.Sprintf("the line is %d bytes, at most %d", len(line), maxBytes)}
	}
	if !utf8.Valid(line) {
		i := 0
		for i < len(line) {
			r, n := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return Value{}, &SyntaxError{i, "invalid UTF-8"}
	}
	p := &parser{b: line}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	if p.i != len(p.b) {
		return Value{}, p.fail("bytes after the JSON value")
	}
	return v, nil
}

type parser struct {
	b []byte
	i int
}

func (p *parser) fail(format string, args ...any) error {
	return &SyntaxError{p.i, fmt.Sprintf(format, args...)}
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if p.i >= len(p.b) {
		return Value{}, p.fail("a JSON value is missing")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return Value{Kind: String, Str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return Value{Kind: Bool, Bool: true}, nil
	case p.literal("false"):
		return Value{Kind: Bool}, nil
	case p.literal("null"):
		return Value{Kind: Null}, nil
	}
	return Value{}, p.fail("%s does not start a JSON value", quoteByte(p.b[p.i]))
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) literal(word string) bool {
	if len(p.b)-p.i >= len(word) && string(p.b[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

func (p *parser) object(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.fail("nested deeper than %d", MaxDepth)
	}
	p.i++ // {
	v := Value{Kind: Object, Members: []Member{}}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return Value{}, p.fail("an object key (a string) is missing")
		}
		at := p.i
		key, err := p.str()
		if err != nil {
			return Value{}, err
		}
		if slices.ContainsFunc(v.Members, func(m Member) bool { return m.Key == key }) {
			return Value{}, &SyntaxError{at, fmt.Sprintf("duplicate key %s", strconv.Quote(clip(key)))}
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return Value{}, p.fail("':' is missing after a key")
		}
		p.i++
		p.space()
		item, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		v.Members = append(v.Members, Member{key, item})
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return v, nil
		}
		return Value{}, p.fail("',' or '}' is missing in an object")
	}
}

func (p *parser) array(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.fail("nested deeper than %d", MaxDepth)
	}
	p.i++ // [
	v := Value{Kind: Array, Items: []Value{}}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		item, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		v.Items = append(v.Items, item)
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return v, nil
		}
		return Value{}, p.fail("',' or ']' is missing in an array")
	}
}

// number reads -?(0|[1-9][0-9]*) and refuses fractions, exponents, -0 and
// magnitudes beyond 2^53-1.
func (p *parser) number() (Value, error) {
	start := p.i
	neg := p.b[p.i] == '-'
	if neg {
		p.i++
	}
	digits := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	text := string(p.b[digits:p.i])
	switch {
	case text == "":
		return Value{}, p.fail("'-' is not followed by a digit")
	case len(text) > 1 && text[0] == '0':
		return Value{}, &SyntaxError{start, "a number has a leading zero"}
	case p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E'):
		return Value{}, &SyntaxError{start, "numbers must be integers (no fraction, no exponent)"}
	case neg && text == "0":
		return Value{}, &SyntaxError{start, "-0 is not allowed"}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n > MaxSafeInteger {
		return Value{}, &SyntaxError{start, fmt.Sprintf("%s is beyond 2^53-1 in magnitude", clip(string(p.b[start:p.i])))}
	}
	if neg {
		n = -n
	}
	return Value{Kind: Int, Int: n}, nil
}

// str reads a string; the line is valid UTF-8 already.
func (p *parser) str() (string, error) {
	p.i++ // "
	var out []byte
	for {
		if p.i >= len(p.b) {
			return "", p.fail("a string is not closed")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c < 0x20:
			return "", p.fail("a raw control character (0x%02x) in a string", c)
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			return "", p.fail("an escape is cut off")
		}
		esc := p.b[p.i+1]
		if simple, ok := simpleEscapes[esc]; ok {
			out = append(out, simple)
			p.i += 2
			continue
		}
		if esc != 'u' {
			return "", p.fail("\\%c is not a JSON escape", esc)
		}
		at := p.i
		r, ok := p.hex4()
		if !ok {
			return "", &SyntaxError{at, "\\u needs four hex digits"}
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xdc00:
			low, ok := rune(0), false
			if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
				low, ok = p.hex4()
			}
			if !ok || low < 0xdc00 || low > 0xdfff {
				return "", &SyntaxError{at, "\\u escape of a lone high surrogate"}
			}
			r = utf16.DecodeRune(r, low)
		case utf16.IsSurrogate(r):
			return "", &SyntaxError{at, "\\u escape of a lone low surrogate"}
		}
		out = utf8.AppendRune(out, r)
	}
}

var simpleEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads `\uXXXX` at p.i.
func (p *parser) hex4() (rune, bool) {
	if len(p.b)-p.i < 6 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.b[p.i+2:p.i+6]), 16, 16)
	if err != nil {
		return 0, false
	}
	p.i += 6
	return rune(n), true
}

// clip shortens a quoted piece of input for an error message.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// UTF16Len is the length of s as JavaScript counts it: characters above
// U+FFFF count 2.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xffff {
			n++
		}
	}
	return n
}

// Canonical writes v as the canonical JSON of engine/claimcheck/README.md
// §4.2: object keys sorted by UTF-16 code units, no whitespace, integers
// in decimal, strings escaped as JavaScript's JSON.stringify escapes them. An Absent value
// writes nothing (it is never a member or an item of a row).
func Canonical(v Value) []byte { return appendCanonical(nil, v) }

func appendCanonical(b []byte, v Value) []byte {
	switch v.Kind {
	case Null:
		b = append(b, "null"...)
	case Bool:
		b = strconv.AppendBool(b, v.Bool)
	case Int:
		b = strconv.AppendInt(b, v.Int, 10)
	case String:
		b = appendString(b, v.Str)
	case Array:
		b = append(b, '[')
		for i, item := range v.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, item)
		}
		b = append(b, ']')
	case Object:
		members := slices.Clone(v.Members)
		slices.SortFunc(members, func(x, y Member) int { return compareUTF16(x.Key, y.Key) })
		b = append(b, '{')
		for i, m := range members {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.Key)
			b = append(b, ':')
			b = appendCanonical(b, m.Value)
		}
		b = append(b, '}')
	}
	return b
}

// compareUTF16 orders strings by UTF-16 code units, as JavaScript's sort
// does: it differs from byte order only between characters above U+FFFF
// (surrogates, 0xD800..0xDFFF) and those in U+E000..U+FFFF.
func compareUTF16(x, y string) int {
	var bx, by [2]uint16
	for {
		if x == "" || y == "" {
			return len(x) - len(y)
		}
		rx, nx := utf8.DecodeRuneInString(x)
		ry, ny := utf8.DecodeRuneInString(y)
		ux, uy := units(rx, bx[:0]), units(ry, by[:0])
		for i := 0; i < len(ux) && i < len(uy); i++ {
			if ux[i] != uy[i] {
				return int(ux[i]) - int(uy[i])
			}
		}
		if len(ux) != len(uy) {
			return len(ux) - len(uy)
		}
		x, y = x[nx:], y[ny:]
	}
}

func units(r rune, buf []uint16) []uint16 {
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return append(buf, uint16(hi), uint16(lo))
	}
	return append(buf, uint16(r))
}

const lowerHex = "0123456789abcdef"

// appendString escapes as JSON.stringify: `"` and `\`, \b \f \n \r \t,
// other controls as \u00xx; everything else raw.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&0xf])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}
