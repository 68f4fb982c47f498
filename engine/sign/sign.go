package sign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
	"golang.org/x/mod/sumdb/note"
)

// Namespace is the SSHSIG namespace of every signature Chronicle writes
// (ssh-keygen's -n): a signature made for receipts cannot be passed off
// as a git commit's or a file's signature by the same key, nor the
// reverse.
const Namespace = "chronicle-receipt"

// Suffix is what a detached signature's file name adds to the signed
// file's (ssh-keygen -Y sign writes FILE.sig).
const Suffix = ".sig"

// hashAlgorithm is the one ssh-keygen uses by default; using it too makes
// the bytes of a signature the ones ssh-keygen writes for the same key.
const hashAlgorithm = sshsig.HashSHA512

// MaxSignature bounds a signature file read: an armored Ed25519 SSHSIG is
// about 300 bytes; 8 KiB leaves room for any key type ssh-keygen writes
// without letting a huge file be read into memory.
const MaxSignature = 8 << 10

var (
	// ErrBadSignature: a signature does not verify against the bytes (they
	// or the signature changed, or it was made for another namespace).
	ErrBadSignature = errors.New("the signature does not verify")
	// ErrMalformed: the bytes are not an armored SSH signature.
	ErrMalformed = errors.New("not an SSH signature")
	// ErrNotEd25519: a key of another type where Chronicle needs Ed25519.
	ErrNotEd25519 = errors.New("not an Ed25519 key")
)

// Sign returns the armored SSHSIG signature of data by key, byte for byte
// what `ssh-keygen -Y sign -n chronicle-receipt -f KEY` writes as FILE.sig.
func Sign(key ed25519.PrivateKey, data []byte) ([]byte, error) {
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	sig, err := sshsig.Sign(bytes.NewReader(data), signer, hashAlgorithm, Namespace)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return armor(sig.Marshal()), nil
}

// armor is OpenSSH's armoring (sshsig_armor): base64 lines of 70
// characters between the BEGIN and END lines. sshsig.Armor goes through
// encoding/pem, whose lines are 64 characters: the same signature, but
// not the bytes ssh-keygen writes, which a golden file compares.
func armor(blob []byte) []byte {
	b64 := base64.StdEncoding.EncodeToString(blob)
	var out bytes.Buffer
	out.WriteString("-----BEGIN SSH SIGNATURE-----\n")
	for len(b64) > 70 {
		out.WriteString(b64[:70])
		out.WriteByte('\n')
		b64 = b64[70:]
	}
	out.WriteString(b64)
	out.WriteString("\n-----END SSH SIGNATURE-----\n")
	return out.Bytes()
}

// Verify checks the armored SSHSIG signature sig over data and returns
// the fingerprint of the key that made it (Fingerprint). The signature
// must be for Chronicle's namespace; any key type ssh-keygen signs with
// is accepted, since whom to trust is the reader's decision: the
// fingerprint says who signed. The error is ErrMalformed or
// ErrBadSignature, with what is wrong.
func Verify(data, sig []byte) (string, error) {
	if len(sig) > MaxSignature {
		return "", fmt.Errorf("%w: %d bytes; a signature is at most %d", ErrMalformed, len(sig), MaxSignature)
	}
	s, err := sshsig.Unarmor(sig)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if s.Namespace != Namespace {
		// sshsig.Verify would say "namespace does not match"; name both.
		return "", fmt.Errorf("%w: it was made for namespace %q, not %q", ErrBadSignature, s.Namespace, Namespace)
	}
	if err := sshsig.Verify(bytes.NewReader(data), s, s.PublicKey, s.HashAlgorithm, Namespace); err != nil {
		// The fingerprint says whose key it claims; sshsig's own words
		// only when they say more than "did not verify" (a hash
		// algorithm it does not support).
		why := ""
		if !strings.Contains(err.Error(), "did not verify") {
			why = ": " + err.Error()
		}
		return "", fmt.Errorf("%w: it does not match the signed file's bytes (it claims key %s)%s", ErrBadSignature, ssh.FingerprintSHA256(s.PublicKey), why)
	}
	return ssh.FingerprintSHA256(s.PublicKey), nil
}

// Fingerprint is a public key's fingerprint as ssh-keygen -l prints it:
// SHA256: and the unpadded base64 of the SHA-256 of its wire encoding.
func Fingerprint(pub ed25519.PublicKey) (string, error) {
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		return "", err
	}
	return ssh.FingerprintSHA256(k), nil
}

// Identity is the principal Chronicle gives a key in an allowed-signers
// line (the -I of ssh-keygen -Y verify) and the name of its note keys:
// chronicle@ and the first 8 hex digits of the SHA-256 of the key's wire
// encoding (the digest its fingerprint shows in base64), so that two keys
// get two names and a name never needs a host or a user to be chosen.
func Identity(pub ed25519.PublicKey) (string, error) {
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(k.Marshal())
	return "chronicle@" + hex.EncodeToString(sum[:4]), nil
}

// AllowedSigners is the allowed-signers line (ssh-keygen(1), ALLOWED
// SIGNERS) that trusts pub for Chronicle's namespace only, under
// Identity(pub), without a newline:
//
//	chronicle@1a2b3c4d namespaces="chronicle-receipt" ssh-ed25519 AAAA…
func AllowedSigners(pub ed25519.PublicKey) (string, error) {
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		return "", err
	}
	id, err := Identity(pub)
	if err != nil {
		return "", err
	}
	authorized := bytes.TrimSuffix(ssh.MarshalAuthorizedKey(k), []byte("\n"))
	return fmt.Sprintf("%s namespaces=%q %s", id, Namespace, authorized), nil
}

// NoteVerifierKey is the note verifier key of pub under name
// (name+hash+key, as note.NewVerifier reads it): what a user who checks
// signed checkpoints is given.
func NoteVerifierKey(name string, pub ed25519.PublicKey) (string, error) {
	vkey, err := note.NewEd25519VerifierKey(name, pub)
	if err != nil {
		return "", fmt.Errorf("note verifier key: %w", err)
	}
	return vkey, nil
}

// NoteVerifier is the note.Verifier of pub under name.
func NoteVerifier(name string, pub ed25519.PublicKey) (note.Verifier, error) {
	vkey, err := NoteVerifierKey(name, pub)
	if err != nil {
		return nil, err
	}
	return note.NewVerifier(vkey)
}

// noteSigner signs notes with an Ed25519 key held in memory. note only
// builds a Signer from its own PRIVATE+KEY string; building that string
// from the key would put the private key into one more place.
type noteSigner struct {
	name string
	hash uint32
	key  ed25519.PrivateKey
}

func (s *noteSigner) Name() string                    { return s.name }
func (s *noteSigner) KeyHash() uint32                 { return s.hash }
func (s *noteSigner) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(s.key, msg), nil }

// NoteSigner is the note.Signer of key under name: note.Sign with it
// writes the signature line `— name base64(hash‖sig)` that NoteVerifier
// (and note.Open with the NoteVerifierKey) accepts. The key hash is the
// one note derives from the name and the public key.
func NoteSigner(name string, key ed25519.PrivateKey) (note.Signer, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("note signer: %w (%d bytes)", ErrNotEd25519, len(key))
	}
	v, err := NoteVerifier(name, key.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, err
	}
	return &noteSigner{name: name, hash: v.KeyHash(), key: key}, nil
}

// NoteKeys are the note signer and verifier of key under its Identity:
// what signs the archive log's checkpoints and what `chronicle key`'s
// note verifier key checks.
func NoteKeys(key ed25519.PrivateKey) (note.Signer, note.Verifier, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, nil, fmt.Errorf("note keys: %w (%d bytes)", ErrNotEd25519, len(key))
	}
	pub := key.Public().(ed25519.PublicKey)
	id, err := Identity(pub)
	if err != nil {
		return nil, nil, err
	}
	s, err := NoteSigner(id, key)
	if err != nil {
		return nil, nil, err
	}
	v, err := NoteVerifier(id, pub)
	return s, v, err
}
