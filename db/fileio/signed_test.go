package fileio_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/casper-chronicle/chronicle/db/fileio"

	"github.com/stretchr/testify/require"
)

// TestWriteOnceSigned: a file and its signature are written both or
// neither, each write-once.
func TestWriteOnceSigned(t *testing.T) {
	dir := t.TempDir()
	rec, sig := filepath.Join(dir, "r.receipt"), filepath.Join(dir, "r.receipt.sig")
	data, signature := []byte("receipt\n"), []byte("signature\n")

	require.NoError(t, fileio.WriteOnceSigned(rec, data, sig, signature))
	for path, want := range map[string][]byte{rec: data, sig: signature} {
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, want, got)
		if runtime.GOOS != "windows" {
			st, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, fileio.PrivatePerm, st.Mode().Perm())
		}
	}
	// the same pair again: nothing to do
	require.NoError(t, fileio.WriteOnceSigned(rec, data, sig, signature))

	// another signature at FILE.sig: refused before the file is written
	other := filepath.Join(dir, "other.receipt")
	require.NoError(t, os.WriteFile(other+".sig", []byte("another key's\n"), 0o600))
	err := fileio.WriteOnceSigned(other, data, other+".sig", signature)
	require.ErrorIs(t, err, fileio.ErrReceiptCollision)
	require.NoFileExists(t, other, "nothing half-written")

	// a receipt written before signatures existed gets its signature
	old := filepath.Join(dir, "old.receipt")
	require.NoError(t, os.WriteFile(old, data, 0o600))
	require.NoError(t, fileio.WriteOnceSigned(old, data, old+".sig", signature))
	require.FileExists(t, old+".sig")

	// the signature cannot be written (its directory is missing): the
	// file written just now is removed again
	lone := filepath.Join(dir, "lone.receipt")
	err = fileio.WriteOnceSigned(lone, data, filepath.Join(dir, "nodir", "lone.receipt.sig"), signature)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.NoFileExists(t, lone, "nothing half-written")
	// ... but an existing file with the same bytes is left as it was
	err = fileio.WriteOnceSigned(old, data, filepath.Join(dir, "nodir", "x.sig"), signature)
	require.Error(t, err)
	require.FileExists(t, old)

	// a directory at FILE.sig: refused at once
	dirSig := filepath.Join(dir, "d.receipt")
	require.NoError(t, os.Mkdir(dirSig+".sig", 0o700))
	err = fileio.WriteOnceSigned(dirSig, data, dirSig+".sig", signature)
	require.ErrorIs(t, err, fileio.ErrNotRegular)
	require.NoFileExists(t, dirSig)
}
