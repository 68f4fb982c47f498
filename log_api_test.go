package chronicle_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/casper-chronicle/chronicle"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/keys"
	"github.com/casper-chronicle/chronicle/engine/archivelog"
	"github.com/casper-chronicle/chronicle/engine/sign"
	"github.com/casper-chronicle/chronicle/internal/testbin"
	"github.com/stretchr/testify/require"
)

// TestSigningKeyOption: with Options.SigningKey every write signs the
// log it leaves, and Checkpoint returns it, checked here with the key's
// note verifier; without one the log is unsigned and Checkpoint says so;
// a key file that cannot be used fails Open.
func TestSigningKeyOption(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	data, err := os.ReadFile(filepath.Join(testbin.RepoRoot(), testbin.TestKeyFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(keyFile, data, 0o600))
	k, err := keys.Read(keyFile)
	require.NoError(t, err)
	id, err := sign.Identity(k.Public())
	require.NoError(t, err)
	verifier, err := sign.NoteVerifier(id, k.Public())
	require.NoError(t, err)

	signed := filepath.Join(dir, "signed.db")
	a, err := chronicle.Open(signed, &chronicle.Options{SigningKey: keyFile})
	require.NoError(t, err)
	_, err = a.Ingest("a.txt", []byte("Alice owns Book.\n"))
	require.NoError(t, err)
	cp, err := a.Checkpoint()
	require.NoError(t, err)
	c, err := archivelog.OpenSigned([]byte(cp), verifier)
	require.NoError(t, err)
	require.EqualValues(t, 2, c.Size, "the document and its ingest receipt")
	require.NoError(t, a.Close())

	unsigned := filepath.Join(dir, "unsigned.db")
	a, err = chronicle.Open(unsigned, nil)
	require.NoError(t, err)
	_, err = a.Ingest("a.txt", []byte("Alice owns Book.\n"))
	require.NoError(t, err)
	_, err = a.Checkpoint()
	require.ErrorIs(t, err, db.ErrLogUnsigned)
	require.NoError(t, a.Close())

	if runtime.GOOS == "windows" {
		return // the key's mode is Unix's check
	}
	require.NoError(t, os.Chmod(keyFile, 0o644))
	_, err = chronicle.Open(filepath.Join(dir, "other.db"), &chronicle.Options{SigningKey: keyFile})
	require.ErrorIs(t, err, keys.ErrExposed)
	require.NoFileExists(t, filepath.Join(dir, "other.db"))
}
