package keys_test

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/db/keys"
	"github.com/casper-chronicle/chronicle/engine/sign"
	"github.com/casper-chronicle/chronicle/internal/testbin"
)

const testKeys = "../../testdata/keys"

// private copies a key of testdata/keys into dir with mode (git keeps
// no modes: a checkout's file is 0644 or 0664).
func private(t *testing.T, dir, name string, mode os.FileMode) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testKeys, name))
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	require.NoError(t, os.Chmod(path, mode))
	return path
}

// isolate points the default key at a new config directory and clears
// $CHRONICLE_KEY.
func isolate(t *testing.T) string {
	t.Helper()
	config := filepath.Join(t.TempDir(), "config")
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv(keys.Env, "")
	return config
}

func fingerprint(t *testing.T, k *keys.Key) string {
	t.Helper()
	fp, err := sign.Fingerprint(k.Public())
	require.NoError(t, err)
	return fp
}

// TestRead: an ssh-keygen key loads; one others may read, an encrypted
// one, one of another type or something else is refused, each with a
// line that names the file and what to do.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	k, err := keys.Read(private(t, dir, "test_ed25519", 0o600))
	require.NoError(t, err)
	require.Equal(t, testbin.TestKeyFingerprint, fingerprint(t, k))

	for _, c := range []struct {
		name, file string
		mode       os.FileMode
		want       error
		says       string
	}{
		{"world-readable", "test_ed25519", 0o644, keys.ErrExposed, "is readable by others (mode 0644); run `chmod 600 "},
		{"group-readable", "test_ed25519", 0o640, keys.ErrExposed, "is readable by others (mode 0640); run `chmod 600 "},
		{"encrypted", "encrypted_ed25519", 0o600, keys.ErrEncrypted, "is encrypted; Chronicle needs an unencrypted Ed25519 key"},
		{"ECDSA", "ecdsa", 0o600, keys.ErrNotEd25519, "is not an Ed25519 key (it is an ecdsa-sha2-nistp256 key)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want == keys.ErrExposed && runtime.GOOS == "windows" {
				t.Skip("no mode bits on Windows")
			}
			path := private(t, t.TempDir(), c.file, c.mode)
			_, err := keys.Read(path)
			require.ErrorIs(t, err, c.want)
			require.Contains(t, err.Error(), "signing key "+path+" "+c.says)
			require.NotContains(t, err.Error(), "\n")
		})
	}
	garbage := filepath.Join(dir, "garbage")
	require.NoError(t, os.WriteFile(garbage, []byte("not a key\n"), 0o600))
	_, err = keys.Read(garbage)
	require.ErrorContains(t, err, "signing key "+garbage+" is not an OpenSSH private key")
	_, err = keys.Read(filepath.Join(dir, "nosuch"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestWhere: --key, then $CHRONICLE_KEY, then the default key file.
func TestWhere(t *testing.T) {
	config := isolate(t)
	path, named, err := keys.Where("")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(config, "chronicle", keys.FileName), path)
	require.False(t, named)

	t.Setenv(keys.Env, "/from/env")
	path, named, err = keys.Where("")
	require.NoError(t, err)
	require.Equal(t, "/from/env", path)
	require.True(t, named)

	path, named, err = keys.Where("/from/flag")
	require.NoError(t, err)
	require.Equal(t, "/from/flag", path)
	require.True(t, named)
}

// TestForWritingCreates: the first write creates the default key (mode
// 0600 in a 0700 directory) with one line on the notice, in the format
// ssh-keygen reads; later writes use it and say nothing; Load never
// creates it.
func TestForWritingCreates(t *testing.T) {
	config := isolate(t)
	path := filepath.Join(config, "chronicle", keys.FileName)
	_, err := keys.Load("")
	require.ErrorIs(t, err, keys.ErrNoKey)
	require.NoFileExists(t, path, "Load (reading) never creates the key")

	var notice bytes.Buffer
	k, err := keys.ForWriting("", &notice)
	require.NoError(t, err)
	require.Equal(t, path, k.Path)
	require.Equal(t, "chronicle: created signing key "+path+" (`chronicle key` prints its public key)\n", notice.String())
	if runtime.GOOS != "windows" {
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
		st, err = os.Stat(filepath.Dir(path))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left beside the key")

	notice.Reset()
	again, err := keys.ForWriting("", &notice)
	require.NoError(t, err)
	require.Empty(t, notice.String())
	require.Equal(t, k.Private, again.Private)
	loaded, err := keys.Load("")
	require.NoError(t, err)
	require.Equal(t, k.Private, loaded.Private)

	// ssh-keygen, outside the code, reads the key Chronicle wrote and
	// prints the fingerprint Chronicle computes.
	out, err := exec.Command(testbin.SSHKeygen(t), "-l", "-f", path).CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), fingerprint(t, k)+" chronicle signing key (ED25519)")
}

// TestForWritingConcurrent: processes creating the key at once end up
// with one key.
func TestForWritingConcurrent(t *testing.T) {
	isolate(t)
	var wg sync.WaitGroup
	got := make([]ed25519.PrivateKey, 8)
	var notices [8]bytes.Buffer
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := keys.ForWriting("", &notices[i])
			if err == nil {
				got[i] = k.Private
			}
		}()
	}
	wg.Wait()
	created := 0
	for i := range got {
		require.NotNil(t, got[i])
		require.Equal(t, got[0], got[i])
		if notices[i].Len() > 0 {
			created++
		}
	}
	require.Equal(t, 1, created, "one of them created it and said so")
}

// TestNamedKeyNeverCreated: a key named by --key or $CHRONICLE_KEY must
// exist; a typo is never a new key.
func TestNamedKeyNeverCreated(t *testing.T) {
	config := isolate(t)
	missing := filepath.Join(t.TempDir(), "typo")
	var notice bytes.Buffer
	_, err := keys.ForWriting(missing, &notice)
	require.ErrorIs(t, err, os.ErrNotExist)
	t.Setenv(keys.Env, missing)
	_, err = keys.ForWriting("", &notice)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Empty(t, notice.String())
	require.NoFileExists(t, missing)
	require.NoDirExists(t, filepath.Join(config, "chronicle"))

	// --key wins over $CHRONICLE_KEY
	dir := t.TempDir()
	t.Setenv(keys.Env, private(t, dir, "other_ed25519", 0o600))
	k, err := keys.ForWriting(private(t, dir, "test_ed25519", 0o600), &notice)
	require.NoError(t, err)
	require.Equal(t, testbin.TestKeyFingerprint, fingerprint(t, k))
	k, err = keys.Load("")
	require.NoError(t, err)
	require.NotEqual(t, testbin.TestKeyFingerprint, fingerprint(t, k))
}

// TestEncodeRoundTrip: Encode writes what Parse (and ssh-keygen) read.
func TestEncodeRoundTrip(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	data, err := keys.Encode(priv)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(data), "-----BEGIN OPENSSH PRIVATE KEY-----\n"))
	back, err := keys.Parse(data)
	require.NoError(t, err)
	require.Equal(t, priv, back)
}
