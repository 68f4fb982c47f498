package repl

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// writeSanitized writes what sanitize returns, on valid UTF-8.
func TestWriteSanitized(t *testing.T) {
	for _, s := range []string{"", "plain", "tab\tkept", "\x1b[31mred\x1b[0m", "\x00\x7f\r", "أحمد\x01خالد", strings.Repeat("a\x02", 1000)} {
		require.True(t, utf8.ValidString(s))
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		writeSanitized(w, []byte(s))
		require.NoError(t, w.Flush())
		require.Equal(t, sanitize(s), out.String(), "%q", s)
	}
}
