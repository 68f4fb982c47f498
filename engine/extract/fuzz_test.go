package extract_test

import (
	"context"
	"errors"
	"github.com/casper-chronicle/chronicle/engine/extract"
	_ "github.com/casper-chronicle/chronicle/engine/extract/parsers"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzOptions keep one fuzz input cheap.
var fuzzOptions = extract.Options{MaxText: 1 << 20, MaxParts: 50, MaxExpanded: 4 << 20}

// checkResult: an *Error with a sentinel and one line, or valid UTF-8
// text and clean part paths; never both, never neither.
func checkResult(t *testing.T, parts []extract.Part, err error) {
	t.Helper()
	if err != nil {
		var e *extract.Error
		if !errors.As(err, &e) {
			t.Fatalf("error %T is not an *Error: %v", err, err)
		}
		found := false
		for _, s := range []error{extract.ErrToolMissing, extract.ErrEncrypted, extract.ErrNoTextLayer, extract.ErrMalformed, extract.ErrCharset, extract.ErrLimit, extract.ErrToolFailed} {
			found = found || errors.Is(err, s)
		}
		if !found {
			t.Fatalf("error wraps no sentinel: %v", err)
		}
		if strings.ContainsAny(err.Error(), "\r\n") {
			t.Fatalf("error message on several lines: %q", err.Error())
		}
		if parts != nil {
			t.Fatal("parts with an error")
		}
		return
	}
	if len(parts) == 0 {
		t.Fatal("no part and no error")
	}
	for _, p := range parts {
		if !utf8.Valid(p.Text) {
			t.Fatalf("invalid UTF-8 text in part %q", p.Path)
		}
		if len(p.Text) > 0 && p.Text[len(p.Text)-1] != '\n' {
			t.Fatalf("text of part %q does not end with LF", p.Path)
		}
		if p.Path != "" {
			if strings.ContainsAny(p.Path, "/\x00") || len(p.Path) > 220 || p.Path == "." || p.Path == ".." || !utf8.ValidString(p.Path) {
				t.Fatalf("bad part path %q", p.Path)
			}
			for _, r := range p.Path {
				if r < 0x20 || r == 0x7f {
					t.Fatalf("control character in part path %q", p.Path)
				}
			}
		}
	}
}

func FuzzDetect(f *testing.F) {
	f.Add("a.html", []byte("<p>x</p>"))
	f.Add("m.eml", []byte("From: a@x\nTo: b@x\n\nbody\n"))
	f.Add("box", []byte("From a\nSubject: s\n\nx\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		k := extract.Detect(name, data)
		switch k {
		case extract.KindText, extract.KindHTML, extract.KindEmail, extract.KindMbox, extract.KindPDF, extract.KindBinary:
		default:
			t.Fatalf("unknown kind %q", k)
		}
		if k == extract.KindText && (!utf8.Valid(data) || strings.ContainsRune(string(data), 0)) {
			t.Fatal("text that is not valid UTF-8 without NUL")
		}
		if extract.Detect(name, data) != k {
			t.Fatal("Detect is not deterministic")
		}
	})
}

func FuzzHTML(f *testing.F) {
	f.Add([]byte("<html><head><title>t</title></head><body><p>a&amp;b</p><pre>\n x\n</pre></body></html>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts, err := extract.Extract(context.Background(), extract.KindHTML, data, fuzzOptions)
		checkResult(t, parts, err)
	})
}

func FuzzMail(f *testing.F) {
	f.Add([]byte("From: a@x\nTo: b@x\nSubject: =?utf-8?q?caf=C3=A9?=\n\nbody\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts, err := extract.Extract(context.Background(), extract.KindEmail, data, fuzzOptions)
		checkResult(t, parts, err)
		if err == nil {
			// The same bytes again: the same parts.
			again, err := extract.Extract(context.Background(), extract.KindEmail, data, fuzzOptions)
			if err != nil || len(again) != len(parts) || string(again[0].Text) != string(parts[0].Text) {
				t.Fatal("not deterministic")
			}
		}
	})
}
