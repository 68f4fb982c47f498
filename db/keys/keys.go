package keys

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/crypto/ssh"

	"github.com/casper-chronicle/chronicle/db/fileio"
)

// Env names the key file when --key does not.
const Env = "CHRONICLE_KEY"

// FileName is the default key file's name in ConfigDir.
const FileName = "signing_key"

// maxKeyFile bounds a key file read: an OpenSSH Ed25519 key is about 400
// bytes, an RSA one a few KiB.
const maxKeyFile = 64 << 10

// comment is the comment of a key Chronicle creates (ssh-keygen -l shows
// it beside the fingerprint).
const comment = "chronicle signing key"

var (
	// ErrNoKey: the default key file does not exist yet (Load; ForWriting
	// creates it).
	ErrNoKey = errors.New("no signing key yet")
	// ErrExposed: a key file its group or others may read.
	ErrExposed = errors.New("is readable by others")
	// ErrEncrypted: a key file protected by a passphrase.
	ErrEncrypted = errors.New("is encrypted")
	// ErrNotEd25519: a key of another type.
	ErrNotEd25519 = errors.New("is not an Ed25519 key")
)

// Key is a signing key and the file it came from.
type Key struct {
	Path    string
	Private ed25519.PrivateKey
}

// Public is the key's public half.
func (k *Key) Public() ed25519.PublicKey { return k.Private.Public().(ed25519.PublicKey) }

// ConfigDir is Chronicle's configuration directory (the key, the REPL's
// history and init file): $XDG_CONFIG_HOME/chronicle, else the user's
// config directory (os.UserConfigDir, ~/.config on Linux) plus chronicle.
func ConfigDir() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		dir = d
	}
	return filepath.Join(dir, "chronicle"), nil
}

// DefaultPath is the default key file: ConfigDir plus FileName.
func DefaultPath() (string, error) {
	dir, err := ConfigDir()
	if err != nil {
		return "", fmt.Errorf("no place for the signing key (give --key FILE or set %s): %w", Env, err)
	}
	return filepath.Join(dir, FileName), nil
}

// Where is the key file to use: flag (--key FILE) when given, else
// $CHRONICLE_KEY, else DefaultPath. named says it was given, so it must
// exist: only the default key file is ever created.
func Where(flag string) (path string, named bool, err error) {
	if flag != "" {
		return flag, true, nil
	}
	if env := os.Getenv(Env); env != "" {
		return env, true, nil
	}
	path, err = DefaultPath()
	return path, false, err
}

// Load reads the key Where names. The default key file that does not
// exist yet is ErrNoKey; a named file that does not exist is the error of
// opening it.
func Load(flag string) (*Key, error) {
	path, named, err := Where(flag)
	if err != nil {
		return nil, err
	}
	k, err := Read(path)
	if !named && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s (the first receipt written, or `chronicle key`, creates it)", ErrNoKey, path)
	}
	return k, err
}

// ForWriting is Load for a write that signs: the default key file is
// created when it does not exist yet, and notice gets one line saying
// so. A named file is never created.
func ForWriting(flag string, notice io.Writer) (*Key, error) {
	path, named, err := Where(flag)
	if err != nil {
		return nil, err
	}
	k, err := Read(path)
	if named || !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	k, created, err := create(path)
	if err != nil {
		return nil, err
	}
	if created {
		fmt.Fprintf(notice, "chronicle: created signing key %s (`chronicle key` prints its public key)\n", path)
	}
	return k, nil
}

// Read reads and checks the key file at path: a regular file, private to
// its owner (on Unix), an unencrypted Ed25519 private key.
func Read(path string) (*Key, error) {
	f, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	st, err := f.Stat()
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	// Checked before the key is read: ssh refuses such a key in the same
	// words, and a key others could copy proves nothing of who signed.
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("signing key %s %w (mode %04o); run `chmod 600 %s`", path, ErrExposed, st.Mode().Perm(), path)
	}
	data, err := fileio.ReadLimited(path, maxKeyFile)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	priv, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("signing key %s %w", path, err)
	}
	return &Key{Path: path, Private: priv}, nil
}

// Parse reads an unencrypted Ed25519 private key in OpenSSH format (or
// PKCS#8, which x/crypto/ssh reads as well). Its error completes the
// sentence "signing key PATH …".
func Parse(data []byte) (ed25519.PrivateKey, error) {
	raw, err := ssh.ParseRawPrivateKey(data)
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing):
		return nil, fmt.Errorf("%w; Chronicle needs an unencrypted Ed25519 key (`ssh-keygen -t ed25519 -N '' -f FILE` writes one)", ErrEncrypted)
	case err != nil:
		return nil, fmt.Errorf("is not an OpenSSH private key: %w", err)
	}
	switch k := raw.(type) {
	case ed25519.PrivateKey:
		return k, nil
	case *ed25519.PrivateKey:
		return *k, nil
	}
	return nil, fmt.Errorf("%w (it is %s); `ssh-keygen -t ed25519 -N '' -f FILE` writes one", ErrNotEd25519, keyType(raw))
}

// keyType names a parsed key's type for the error.
func keyType(raw any) string {
	if signer, err := ssh.NewSignerFromKey(raw); err == nil {
		return "an " + signer.PublicKey().Type() + " key"
	}
	return fmt.Sprintf("a %T", raw)
}

// Encode is key in the OpenSSH private key format, unencrypted, as
// `ssh-keygen -t ed25519 -N ""` writes it.
func Encode(key ed25519.PrivateKey) ([]byte, error) {
	block, err := ssh.MarshalPrivateKey(key, comment)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(block), nil
}

// create makes a new key at path (its directory 0700, the file 0600). It
// is written whole to a temporary file beside path and linked to path,
// which fails if a key appeared there meanwhile: a reader never sees half
// a key, and of two processes creating one at once both end up with the
// same key (created says whether it was this one's).
func create(path string) (k *Key, created bool, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("create signing key: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, fmt.Errorf("create signing key: %w", err)
	}
	data, err := Encode(priv)
	if err != nil {
		return nil, false, fmt.Errorf("create signing key: %w", err)
	}
	// A name of its own beside path: CreateExclusive writes it 0600
	// whatever the umask, synced, and removes it on failure.
	var suffix [8]byte
	rand.Read(suffix[:])
	tmpPath := fmt.Sprintf("%s.%x.tmp", path, suffix)
	defer os.Remove(tmpPath)
	if err := fileio.CreateExclusive(tmpPath, data); err != nil {
		return nil, false, fmt.Errorf("create signing key: %w", err)
	}
	if err := os.Link(tmpPath, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			k, err := Read(path)
			return k, false, err
		}
		return nil, false, fmt.Errorf("create signing key: %w", err)
	}
	return &Key{Path: path, Private: priv}, true, nil
}
