package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/engine/find"
)

func TestCutPoint(t *testing.T) {
	// No newline: the cut never splits the 2-byte letters.
	b := []byte(strings.Repeat("ب", 100))
	for max := 1; max < len(b); max++ {
		n := cutPoint(b, max)
		if n > max || !utf8.Valid(b[:n]) || !utf8.Valid(b[n:]) {
			t.Fatalf("cutPoint(%d) = %d", max, n)
		}
	}
	// A newline in the second half wins.
	b = []byte("aaaaaa\nbbb")
	if n := cutPoint(b, 8); n != 7 {
		t.Fatalf("cutPoint at newline = %d", n)
	}
}

func TestCutter(t *testing.T) {
	dir := t.TempDir()
	c := &cutter{dir: dir, prefix: "x"}
	line := []byte(strings.Repeat("كلمة word ", 1000) + "\n")
	for range 300 {
		c.add(line)
	}
	c.add([]byte("\x00\xfe tail"))
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "x-*.txt"))
	if len(files) < 2 {
		t.Fatalf("%d documents", len(files))
	}
	var total int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if len(b) > docSize || !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			t.Fatalf("%s: %d bytes, valid %v", f, len(b), utf8.Valid(b))
		}
		total += len(b)
	}
	if want := 300*len(line) + len(" tail\n"); total != want {
		t.Fatalf("total %d, want %d", total, want)
	}
}

func TestPickQueries(t *testing.T) {
	f := wordFreq{}
	var text strings.Builder
	for i := range 200 {
		text.WriteString(strings.Repeat("common ", 50) + strings.Repeat("middle ", i%5) + "unique" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + " كتاب\n")
	}
	f.add([]byte(text.String()))
	tokens := 0
	for _, n := range f {
		tokens += n
	}
	qs := pickQueries(f, tokens)
	classes := map[string]bool{}
	for _, q := range qs {
		classes[q.class] = true
		if len(q.terms) == 0 || len(q.terms) > 16 {
			t.Fatalf("%v: %d terms", q, len(q.terms))
		}
		for _, term := range q.terms {
			for i := 0; i < len(term); i++ {
				if find.IsSeparator(term[i]) {
					t.Fatalf("term %q holds a separator", term)
				}
			}
		}
	}
	for _, c := range []string{"absent", "rare", "medium", "common", "1-byte", "2-byte", "arabic", "multi-2", "multi-16"} {
		if !classes[c] {
			t.Errorf("no %s query", c)
		}
	}
}
