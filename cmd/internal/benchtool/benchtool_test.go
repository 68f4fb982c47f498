package benchtool

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// mo builds a GNU .mo file holding the translations strs, in byte order bo.
func mo(bo binary.ByteOrder, strs ...string) []byte {
	n := len(strs)
	head := 28
	trans := head + 8*n // the original-string table is left empty (offset 0, length 0)
	data := trans + 8*n
	b := make([]byte, data)
	bo.PutUint32(b[0:], 0x950412de)
	bo.PutUint32(b[8:], uint32(n))
	bo.PutUint32(b[12:], uint32(head))
	bo.PutUint32(b[16:], uint32(trans))
	for i, s := range strs {
		bo.PutUint32(b[trans+8*i:], uint32(len(s)))
		bo.PutUint32(b[trans+8*i+4:], uint32(len(b)))
		b = append(append(b, s...), 0)
	}
	return b
}

func TestMoStrings(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"little endian", mo(binary.LittleEndian, "مرحبا", "one\x00many"), "مرحبا\none\nmany\n"},
		{"big endian", mo(binary.BigEndian, "hello"), "hello\n"},
		{"not a .mo file", []byte("plain text that is long enough to pass the size check"), ""},
		{"too short", []byte{0xde, 0x12, 0x04, 0x95}, ""},
		{"table past the end", mo(binary.LittleEndian, "x")[:40], ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, string(MoStrings(tc.in)))
		})
	}
}

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"valid text is kept", "plain ب text\n", "plain ب text\n"},
		{"NUL dropped", "a\x00b", "ab"},
		{"invalid byte dropped", "a\xffb", "ab"},
		{"truncated sequence dropped", "c\xd8", "c"},
		{"mixed", "a\x00b\xffc\xd8\xa8d\xd8", "abcبd"},
		{"Latin-1 byte in a man page", "caf\xe9 ok", "caf ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, string(Sanitize([]byte(tc.in))))
		})
	}
}

// FuzzMoStrings: any bytes, a .mo file or not, give an answer, never a
// panic (the benchmarks read every .mo file of the machine).
func FuzzMoStrings(f *testing.F) {
	f.Add(mo(binary.LittleEndian, "مرحبا", "one\x00many"))
	f.Add(mo(binary.BigEndian, "hello"))
	f.Add([]byte("plain"))
	f.Fuzz(func(t *testing.T, b []byte) { MoStrings(b) })
}

func TestReadMemstats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m")
	require.NoError(t, os.WriteFile(path, []byte("heap_peak_bytes=1048576 go_peak_bytes=2097152 rss_peak_bytes=3145728 gc_cycles=4\n"), 0o600))
	m, err := ReadMemstats(path)
	require.NoError(t, err)
	require.Equal(t, Memstats{Heap: 1 << 20, GoHeld: 2 << 20, RSS: 3 << 20, OK: true}, m)
	require.NoError(t, os.WriteFile(path, []byte("heap_peak_bytes=x\n"), 0o600))
	_, err = ReadMemstats(path)
	require.Error(t, err)
}

func TestLinkFiles(t *testing.T) {
	pool, dst := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(pool, "a.txt"), []byte("abc"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(pool, "b.txt"), []byte("hello"), 0o644))
	sizes, err := LinkFiles(pool, dst, []string{"b.txt", "a.txt"})
	require.NoError(t, err)
	require.Equal(t, []int64{5, 3}, sizes)
	b, err := os.ReadFile(filepath.Join(dst, "b.txt"))
	require.NoError(t, err)
	require.Equal(t, "hello", string(b))
	_, err = LinkFiles(pool, dst, []string{"missing.txt"})
	require.Error(t, err)
}
