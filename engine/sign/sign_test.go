package sign_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
	"golang.org/x/mod/sumdb/note"

	"github.com/casper-chronicle/chronicle/engine/sign"
	"github.com/casper-chronicle/chronicle/internal/testbin"
)

// The fixed test key (testdata/keys at the repository's root; its
// fingerprint, as `ssh-keygen -l` prints it, is testbin.TestKeyFingerprint)
// and another.
const (
	testKeyFile  = "../../testdata/keys/test_ed25519"
	otherKeyFile = "../../testdata/keys/other_ed25519"
)

// testdata/alice.receipt.sig was written by `ssh-keygen -Y sign -n
// chronicle-receipt -f test_ed25519 alice.receipt`;
// alice.receipt.file-namespace.sig by the same with -n file.

func loadKey(t testing.TB, path string) ed25519.PrivateKey {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	raw, err := ssh.ParseRawPrivateKey(data)
	require.NoError(t, err)
	return *raw.(*ed25519.PrivateKey)
}

func read(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// TestSignIsSSHKeygens: Ed25519 is deterministic, so the signature of
// the same bytes by the same key is byte for byte the file ssh-keygen
// wrote (armor of 70 columns included).
func TestSignIsSSHKeygens(t *testing.T) {
	got, err := sign.Sign(loadKey(t, testKeyFile), read(t, "alice.receipt"))
	require.NoError(t, err)
	require.Equal(t, string(read(t, "alice.receipt.sig")), string(got))
}

// TestVerify: ssh-keygen's signature verifies and names the key as
// ssh-keygen -l does; every change of the bytes, of the signature, or of
// its namespace does not.
func TestVerify(t *testing.T) {
	data, sig := read(t, "alice.receipt"), read(t, "alice.receipt.sig")
	signer, err := sign.Verify(data, sig)
	require.NoError(t, err)
	require.Equal(t, testbin.TestKeyFingerprint, signer)

	fp, err := sign.Fingerprint(loadKey(t, testKeyFile).Public().(ed25519.PublicKey))
	require.NoError(t, err)
	require.Equal(t, testbin.TestKeyFingerprint, fp)

	other, err := sign.Sign(loadKey(t, otherKeyFile), []byte("other bytes\n"))
	require.NoError(t, err)
	// the signature blob's last base64 line, one character changed
	lines := strings.Split(string(sig), "\n")
	last := len(lines) - 3
	flipped := []byte(lines[last])
	flipped[3] ^= 1 // a letter or digit stays one: still base64
	tamperedSig := strings.Join(append(append(append([]string{}, lines[:last]...), string(flipped)), lines[last+1:]...), "\n")

	for _, c := range []struct {
		name      string
		data, sig []byte
		want      error
	}{
		{"a byte of the receipt changed", bytes.Replace(data, []byte("kind:QUERY"), []byte("kind:QUERZ"), 1), sig, sign.ErrBadSignature},
		{"a byte added", append(append([]byte{}, data...), '\n'), sig, sign.ErrBadSignature},
		{"the signature changed", data, []byte(tamperedSig), sign.ErrBadSignature},
		{"another key's signature of other bytes", data, other, sign.ErrBadSignature},
		{"another namespace", data, read(t, "alice.receipt.file-namespace.sig"), sign.ErrBadSignature},
		{"not armored", data, []byte("hello\n"), sign.ErrMalformed},
		{"empty", data, nil, sign.ErrMalformed},
		{"armor around nothing", data, []byte("-----BEGIN SSH SIGNATURE-----\n-----END SSH SIGNATURE-----\n"), sign.ErrMalformed},
		{"too large", data, bytes.Repeat([]byte("A"), sign.MaxSignature+1), sign.ErrMalformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			signer, err := sign.Verify(c.data, c.sig)
			require.ErrorIs(t, err, c.want)
			require.Empty(t, signer)
		})
	}
	_, err = sign.Verify(data, read(t, "alice.receipt.file-namespace.sig"))
	require.ErrorContains(t, err, `made for namespace "file", not "chronicle-receipt"`)
}

// TestAllowedSigners: the line for the test key, as ssh-keygen's
// ALLOWED SIGNERS format reads it (checked by ssh-keygen itself in
// TestSSHKeygenVerifies).
func TestAllowedSigners(t *testing.T) {
	pub := loadKey(t, testKeyFile).Public().(ed25519.PublicKey)
	line, err := sign.AllowedSigners(pub)
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(string(read(t, "allowed_signers"))), line)
	id, err := sign.Identity(pub)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, id+` namespaces="chronicle-receipt" ssh-ed25519 AAAA`), line)
}

// TestSSHKeygenVerifies: what Sign writes, with a new key each run,
// passes `ssh-keygen -Y verify` given the AllowedSigners line, and the
// same signature over a changed file does not.
func TestSSHKeygenVerifies(t *testing.T) {
	keygen := testbin.SSHKeygen(t)
	dir := t.TempDir()
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	data := read(t, "alice.receipt")
	sig, err := sign.Sign(priv, data)
	require.NoError(t, err)
	line, err := sign.AllowedSigners(pub)
	require.NoError(t, err)
	id, err := sign.Identity(pub)
	require.NoError(t, err)
	fp, err := sign.Fingerprint(pub)
	require.NoError(t, err)
	allowed := filepath.Join(dir, "allowed_signers")
	require.NoError(t, os.WriteFile(allowed, []byte(line+"\n"), 0o600))
	sigFile := filepath.Join(dir, "r.sig")
	require.NoError(t, os.WriteFile(sigFile, sig, 0o600))

	verify := func(data []byte, namespace string) (string, error) {
		cmd := exec.Command(keygen, "-Y", "verify", "-f", allowed, "-I", id, "-n", namespace, "-s", sigFile)
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := verify(data, sign.Namespace)
	require.NoError(t, err, out)
	require.Contains(t, out, `Good "chronicle-receipt" signature for `+id+` with ED25519 key `+fp)

	out, err = verify(append(append([]byte{}, data...), 'x'), sign.Namespace)
	require.Error(t, err, "ssh-keygen accepted a changed file: %s", out)
	out, err = verify(data, "file")
	require.Error(t, err, "ssh-keygen accepted the signature for another namespace: %s", out)
}

// TestNotes: a note signed with NoteSigner carries the signature line
// that note.Open accepts with NoteVerifier, and that Ed25519 itself,
// applied by hand to the note's text as the signed-note format defines
// it, accepts as well.
func TestNotes(t *testing.T) {
	priv := loadKey(t, testKeyFile)
	pub := priv.Public().(ed25519.PublicKey)
	const name = "chronicle@example"
	signer, err := sign.NoteSigner(name, priv)
	require.NoError(t, err)
	text := "example.com/archive\n3\nn4oVOzjYb8ApGtBhwBhL7nOtSx19JaxWQEb8jYSaxjs=\n"
	msg, err := note.Sign(&note.Note{Text: text}, signer)
	require.NoError(t, err)

	// The format by hand: the text, a blank line, "— NAME BASE64" where
	// BASE64 is the 4-byte key hash then the Ed25519 signature of the
	// text, the key hash being SHA-256(name "\n" 0x01 pub)[:4].
	body, sigLine, ok := strings.Cut(string(msg), "\n\n")
	require.True(t, ok)
	require.Equal(t, text, body+"\n")
	require.True(t, strings.HasPrefix(sigLine, "— "+name+" "), sigLine)
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(sigLine, "— "+name+" "), "\n"))
	require.NoError(t, err)
	require.Len(t, raw, 4+ed25519.SignatureSize)
	h := sha256.Sum256(append([]byte(name+"\n\x01"), pub...))
	require.Equal(t, binary.BigEndian.Uint32(h[:4]), binary.BigEndian.Uint32(raw[:4]))
	require.True(t, ed25519.Verify(pub, []byte(text), raw[4:]), "Ed25519 over the note's text")
	require.False(t, ed25519.Verify(pub, []byte(text+"x"), raw[4:]))

	// The verifier key: NAME+HASH+base64(0x01 pub).
	vkey, err := sign.NoteVerifierKey(name, pub)
	require.NoError(t, err)
	require.Equal(t, name+"+"+hexHash(h)+"+"+base64.StdEncoding.EncodeToString(append([]byte{1}, pub...)), vkey)
	v, err := sign.NoteVerifier(name, pub)
	require.NoError(t, err)
	n, err := note.Open(msg, note.VerifierList(v))
	require.NoError(t, err)
	require.Equal(t, text, n.Text)
	require.Len(t, n.Sigs, 1)

	// Another key under the same name does not open it.
	otherPub := loadKey(t, otherKeyFile).Public().(ed25519.PublicKey)
	ov, err := sign.NoteVerifier(name, otherPub)
	require.NoError(t, err)
	_, err = note.Open(msg, note.VerifierList(ov))
	require.Error(t, err)
	// A changed text does not open either.
	_, err = note.Open([]byte(strings.Replace(string(msg), "\n3\n", "\n4\n", 1)), note.VerifierList(v))
	require.Error(t, err)

	_, err = sign.NoteSigner(name, priv[:10])
	require.ErrorIs(t, err, sign.ErrNotEd25519)
}

func hexHash(h [32]byte) string {
	const digits = "0123456789abcdef"
	var b strings.Builder
	for _, c := range h[:4] {
		b.WriteByte(digits[c>>4])
		b.WriteByte(digits[c&15])
	}
	return b.String()
}

// FuzzVerify: no signature text makes Verify panic, and what it accepts
// over some bytes names a key (the parsing is sshsig's and x/crypto's;
// the armor and the checks around them are this package's).
func FuzzVerify(f *testing.F) {
	data, err := os.ReadFile("testdata/alice.receipt")
	require.NoError(f, err)
	sig, err := os.ReadFile("testdata/alice.receipt.sig")
	require.NoError(f, err)
	f.Add(data, sig)
	f.Add(data, []byte("-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"))
	f.Fuzz(func(t *testing.T, data, sig []byte) {
		signer, err := sign.Verify(data, sig)
		if err == nil {
			require.True(t, strings.HasPrefix(signer, "SHA256:"), signer)
		}
	})
}
