package commands

import (
	"github.com/casper-chronicle/chronicle/db/keys"
	"github.com/casper-chronicle/chronicle/engine/sign"
)

// KeyOut is the public half of the signing key, as `chronicle key`
// prints it: its JSON is the `key --json` line (fields in the order of
// their names).
type KeyOut struct {
	// AllowedSigners is the line of an allowed-signers file that trusts
	// the key for receipts (ssh-keygen -Y verify -f FILE -I Identity).
	AllowedSigners string `json:"allowed_signers"`
	// Fingerprint is what `chronicle verify` and ssh-keygen -l print.
	Fingerprint string `json:"fingerprint"`
	// Identity names the key in AllowedSigners and in NoteVerifierKey.
	Identity string `json:"identity"`
	// KeyFile is the private key's file.
	KeyFile string `json:"key_file"`
	// NoteVerifierKey checks the archive's signed checkpoints
	// (golang.org/x/mod/sumdb/note: name+hash+key).
	NoteVerifierKey string `json:"note_verifier_key"`
}

// Key describes the signing key k.
func Key(k *keys.Key) (KeyOut, error) {
	pub := k.Public()
	out := KeyOut{KeyFile: k.Path}
	var err error
	if out.Fingerprint, err = sign.Fingerprint(pub); err != nil {
		return KeyOut{}, err
	}
	if out.Identity, err = sign.Identity(pub); err != nil {
		return KeyOut{}, err
	}
	if out.AllowedSigners, err = sign.AllowedSigners(pub); err != nil {
		return KeyOut{}, err
	}
	if out.NoteVerifierKey, err = sign.NoteVerifierKey(out.Identity, pub); err != nil {
		return KeyOut{}, err
	}
	return out, nil
}
