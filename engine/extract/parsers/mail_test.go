package parsers

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSanitizeName(t *testing.T) {
	long := strings.Repeat("ع", 150) // 300 bytes
	cases := map[string]string{
		"invoice.pdf":            "invoice.pdf",
		"../../etc/passwd":       ".._.._etc_passwd",
		"a\\b":                   "a_b",
		"tab\there\x00nul":       "tabherenul",
		"..":                     "",
		" . ":                    "",
		"bad\xffutf8":            "bad_utf8",
		long:                     strings.Repeat("ع", 100),
		"\u0085next\u009bc":      "nextc",
		"invoice\u202egpj.exe":   "invoicegpj.exe",
		"\u2067فاتورة\u2069.pdf": "فاتورة.pdf",
	}
	for in, want := range cases {
		require.Equal(t, want, sanitizeName(in), "%q", in)
	}
	used := map[string]bool{}
	require.Equal(t, "a.pdf", uniqueName("a.pdf", used))
	require.Equal(t, "a.pdf (2)", uniqueName("a.pdf", used))
	require.Equal(t, "a.pdf (3)", uniqueName("a.pdf", used))
}
