package repl

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/stretchr/testify/require"
)

// TestRejectionLocation: the column counts code points from 1, the caret
// counts display cells (a combining mark takes none, an escaped byte four),
// and a long line is cut on both sides of the byte.
func TestRejectionLocation(t *testing.T) {
	cases := []struct {
		name      string
		src       string
		off, line int
		col       int
		excerpt   string
		caret     int
	}{
		{"first byte", "\xffabc", 0, 1, 1, `\xffabc`, 0},
		{"second line", "ab\ncd\x00e", 5, 2, 3, `cd\x00e`, 2},
		{"tab shown as \\t", "a\tb\x00", 3, 1, 4, `a\tb\x00`, 4},
		{"combining mark takes no cell", "عَلي\x00", 8, 1, 5, "عَلي\\x00", 3},
		{"CR of CRLF not shown", "ab\x00c\r\n", 2, 1, 3, `ab\x00c`, 2},
		{"byte is the CR", "ab\r\n", 2, 1, 3, `ab\x0d`, 2},
		{"cut before", strings.Repeat("x", 50) + "\x00", 50, 1, 51, "…" + strings.Repeat("x", 39) + `\x00`, 40},
		{"cut after", "\x00" + strings.Repeat("y", 80), 0, 1, 1, `\x00` + strings.Repeat("y", 61) + "…", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := fmt.Errorf("wrapped: %w", &engine.ExtractError{Line: c.line, Offset: c.off, Detail: "rule", Err: engine.ErrInvalidText})
			r := newRejection("f", []byte(c.src), err)
			require.Equal(t, c.line, r.line)
			require.Equal(t, c.col, r.col)
			require.Equal(t, c.off, r.offset)
			require.Equal(t, c.excerpt, r.excerpt)
			require.Equal(t, c.caret, r.caretCol)
			require.LessOrEqual(t, cells(r.excerpt), excerptWidth)
			require.Equal(t, fmt.Sprintf("f:%d:%d: rule (byte %d)", c.line, c.col, c.off), r.message())
		})
	}
}

// TestRejectionFileRules: errors of the file layer lose the path they
// carry, so that the outcome line names the file once.
func TestRejectionFileRules(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"too large", fmt.Errorf("big: %w (more than 9 bytes)", fileio.ErrTooLarge), "big: file is too large: a document is at most 8388608 bytes (8 MiB)"},
		{"source too large", &engine.ExtractError{Offset: engine.MaxSourceSize, Detail: "x", Err: engine.ErrSourceTooLarge}, "big: file is too large: a document is at most 8388608 bytes (8 MiB)"},
		{"other", errors.New("archive busy"), "big: archive busy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRejection("big", nil, c.err)
			require.Equal(t, c.want, r.message())
			require.Nil(t, r.caretLines())
		})
	}
}

// FuzzExcerpt: whatever the bytes of the offending line and wherever the
// byte at fault, the excerpt is valid UTF-8 without control bytes (every
// byte shown as text), fits its budget, and the caret column is the width
// of what the excerpt shows before that byte.
func FuzzExcerpt(f *testing.F) {
	f.Add([]byte("Bob met Alice at the caf\xe9 on day two."), 24)
	f.Add([]byte("@chronicle\tAlice\tBORROWED_FROM\tBob\t100"), 0)
	f.Add([]byte("أقر أحمد بأنه اقترض من خالد مبلغ \x00 ريال"), 60)
	f.Add([]byte(strings.Repeat("ب", 300)+"\xff"), 600)
	f.Fuzz(func(t *testing.T, line []byte, off int) {
		if len(line) == 0 {
			return
		}
		off = ((off % len(line)) + len(line)) % len(line)
		got, caret := excerpt(line, off)
		require.True(t, utf8.ValidString(got), "%q", got)
		for _, r := range got {
			require.False(t, r < 0x20 || r == 0x7f, "control %U in %q", r, got)
		}
		require.LessOrEqual(t, cells(got), excerptWidth, "%q", got)
		require.LessOrEqual(t, caret, excerptBefore)
		require.GreaterOrEqual(t, caret, 0)
		before := renderBytes(line[:off])
		if cells(before) <= excerptBefore {
			require.Equal(t, cells(before), caret)
			require.True(t, strings.HasPrefix(got, before))
		}
	})
}
