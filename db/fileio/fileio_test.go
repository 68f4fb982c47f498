package fileio_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine/receipt"

	"github.com/stretchr/testify/require"
)

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func TestReadLimited(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		size  int
		limit int64
		ok    bool
	}{
		{"empty, limit 0", 0, 0, true},
		{"one byte, limit 0", 1, 0, false},
		{"under the limit", 10, 11, true},
		{"exactly the limit", 11, 11, true},
		{"one over the limit", 12, 11, false},
		{"far over the limit", 1 << 20, 1024, false},
		{"large, within the limit", 1 << 20, 1 << 20, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			data := bytes.Repeat([]byte("x"), tc.size)
			write(t, path, data)
			got, err := fileio.ReadLimited(path, tc.limit)
			if tc.ok {
				require.NoError(t, err)
				require.Equal(t, data, append([]byte{}, got...))
				return
			}
			require.ErrorIs(t, err, fileio.ErrTooLarge)
			require.Contains(t, err.Error(), path)
			require.Nil(t, got)
		})
	}
	_, err := fileio.ReadLimited(filepath.Join(dir, "missing"), 10)
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = fileio.ReadLimited(dir, 10)
	require.Error(t, err, "a directory is not a file")

	// A file whose stat does not know its size (/proc) is read whole all
	// the same.
	got, err := fileio.ReadLimited("/proc/self/maps", 1<<20)
	require.NoError(t, err)
	require.Greater(t, len(got), 512, "more than the first buffer")
	require.True(t, bytes.HasSuffix(got, []byte("\n")) && bytes.Contains(got, []byte("[stack]")), "all of it")
}

func TestCreateExclusive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.chronicle")
	require.NoError(t, fileio.CreateExclusive(path, []byte("first")))
	require.Equal(t, []byte("first"), read(t, path))

	// Never overwrites: not with other bytes, not with the same bytes, not
	// with nothing.
	for _, data := range [][]byte{[]byte("second"), []byte("first"), nil} {
		err := fileio.CreateExclusive(path, data)
		require.ErrorIs(t, err, os.ErrExist)
		require.Equal(t, []byte("first"), read(t, path))
	}

	// An empty file is created empty.
	empty := filepath.Join(dir, "empty")
	require.NoError(t, fileio.CreateExclusive(empty, nil))
	require.Empty(t, read(t, empty))

	// A directory, a dangling symlink or a missing parent: nothing created.
	require.ErrorIs(t, fileio.CreateExclusive(dir, []byte("x")), os.ErrExist)
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(filepath.Join(dir, "target"), link))
	require.Error(t, fileio.CreateExclusive(link, []byte("x")))
	_, err := os.Stat(filepath.Join(dir, "target"))
	require.ErrorIs(t, err, os.ErrNotExist, "exclusive create does not follow a symlink")
	missing := filepath.Join(dir, "no", "such", "dir", "f")
	require.Error(t, fileio.CreateExclusive(missing, []byte("x")))
	_, err = os.Stat(missing)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// CreateSharedFrom streams what write writes, through its buffer, with
// CreateExclusive's rules: never over an existing file, and a failed write
// leaves no file.
func TestCreateSharedFrom(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320,000 bytes: several buffers
	writeParts := func(parts ...[]byte) func(io.Writer) error {
		return func(w io.Writer) error {
			for _, p := range parts {
				if _, err := w.Write(p); err != nil {
					return err
				}
			}
			return nil
		}
	}
	path := filepath.Join(dir, "store")
	require.NoError(t, fileio.CreateSharedFrom(path, writeParts([]byte("head"), big, []byte("tail"))))
	require.Equal(t, append(append([]byte("head"), big...), "tail"...), read(t, path))
	require.ErrorIs(t, fileio.CreateSharedFrom(path, writeParts([]byte("other"))), os.ErrExist)
	require.Equal(t, "head", string(read(t, path)[:4]))

	failed := filepath.Join(dir, "failed")
	errBroken := errors.New("broken")
	err := fileio.CreateSharedFrom(failed, func(w io.Writer) error {
		w.Write(big)
		return errBroken
	})
	require.ErrorIs(t, err, errBroken)
	require.Contains(t, err.Error(), failed)
	_, err = os.Stat(failed)
	require.ErrorIs(t, err, os.ErrNotExist, "a failed write leaves no file")
}

func TestWriteOnce(t *testing.T) {
	dir := t.TempDir()
	data := []byte("CASPER-CHRONICLE-INTEGRITY-RECEIPT-V2\nkind:INGEST\n")
	tests := []struct {
		name     string
		existing []byte // nil: no file
		want     error  // nil: success
	}{
		{"new file", nil, nil},
		{"identical bytes", data, nil},
		{"different bytes", []byte("CASPER-CHRONICLE-INTEGRITY-RECEIPT-V2\nkind:QUERY\n"), fileio.ErrReceiptCollision},
		{"longer file with the same start", append(bytes.Clone(data), '\n'), fileio.ErrReceiptCollision},
		{"shorter file, a prefix", data[:len(data)-1], fileio.ErrReceiptCollision},
		{"empty file", []byte{}, fileio.ErrReceiptCollision},
		{"CRLF spelling", bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")), fileio.ErrReceiptCollision},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, string(rune('a'+i))+".receipt")
			if tc.existing != nil {
				write(t, path, tc.existing)
			}
			err := fileio.WriteOnce(path, data)
			if tc.want == nil {
				require.NoError(t, err)
				require.Equal(t, data, read(t, path))
				return
			}
			require.ErrorIs(t, err, tc.want)
			require.Contains(t, err.Error(), path)
			require.Equal(t, tc.existing, read(t, path), "the existing file is left untouched")
		})
	}
	// A directory in the way is a failure, not a success.
	require.Error(t, fileio.WriteOnce(dir, data))
}

// The original receipt files of every golden case verify against their
// stores with the CONTRACT 4 outcomes; a tampered copy does not.
func TestVerifyReceiptFile(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/golden/g[0-9]_*")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	work := t.TempDir()
	type rc struct{ dir, name string }
	var receipts []rc
	for _, src := range dirs {
		dst := filepath.Join(work, filepath.Base(src))
		require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
		names, err := filepath.Glob(filepath.Join(dst, "*.receipt"))
		require.NoError(t, err)
		for _, n := range names {
			receipts = append(receipts, rc{dst, filepath.Base(n)})
		}
	}
	require.GreaterOrEqual(t, len(receipts), 30)
	for _, r := range receipts {
		t.Run(filepath.Base(r.dir)+"/"+r.name, func(t *testing.T) {
			t.Chdir(r.dir) // receipts name their store relative to the verifier
			want := receipt.Valid
			if r.name == "legacy-query.receipt" {
				want = receipt.Unsupported
			}
			outcome, err := fileio.VerifyReceiptFile(r.name, receipt.Canonical{})
			require.NoError(t, err)
			require.Equal(t, want, outcome)

			// The result digest edited: INVALID (or still UNSUPPORTED for a
			// V1 query, whose result is never recomputed).
			data := read(t, r.name)
			i := bytes.Index(data, []byte("result_sha256:")) + len("result_sha256:")
			data[i] = "01"[boolInt(data[i] == '0')]
			write(t, "tampered.receipt", data)
			outcome, err = fileio.VerifyReceiptFile("tampered.receipt", receipt.Canonical{})
			if want == receipt.Unsupported {
				require.Equal(t, receipt.Unsupported, outcome)
				return
			}
			require.Equal(t, receipt.Invalid, outcome)
			require.Error(t, err)
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestVerifyReceiptFileRefusals(t *testing.T) {
	src := "../../testdata/golden/g0_minimal_literal/"
	store := read(t, src+"input.txt.chronicle")
	rec := read(t, src+"input.txt.chronicle.receipt")
	t.Chdir(t.TempDir())
	write(t, "input.txt.chronicle.receipt", rec)
	big := bytes.Repeat([]byte("x"), 7*(receipt.MaxLineLen+1)+1)
	write(t, "big.receipt", big)

	tests := []struct {
		name, path string
		setup      func()
	}{
		{"empty path", "", nil},
		{"path not UTF-8", "r\xff.receipt", nil},
		{"missing receipt", "none.receipt", nil},
		{"oversized receipt", "big.receipt", nil},
		{"missing store", "input.txt.chronicle.receipt", nil},
		{"store modified", "input.txt.chronicle.receipt", func() {
			write(t, "input.txt.chronicle", append(bytes.Clone(store), 0))
		}},
		{"store replaced by a directory", "input.txt.chronicle.receipt", func() {
			require.NoError(t, os.Remove("input.txt.chronicle"))
			require.NoError(t, os.Mkdir("input.txt.chronicle", 0o755))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			outcome, err := fileio.VerifyReceiptFile(tc.path, receipt.Canonical{})
			require.Equal(t, receipt.Invalid, outcome)
			require.Error(t, err)
		})
	}
	// And with the store in place it verifies.
	require.NoError(t, os.Remove("input.txt.chronicle"))
	write(t, "input.txt.chronicle", store)
	outcome, err := fileio.VerifyReceiptFile("input.txt.chronicle.receipt", receipt.Canonical{})
	require.NoError(t, err)
	require.Equal(t, receipt.Valid, outcome)
}
