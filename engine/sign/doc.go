// Package sign signs and verifies what Chronicle hands to others: receipt
// and rows files get a detached OpenSSH signature (SSHSIG, namespace
// chronicle-receipt), so that anyone can check one with `ssh-keygen -Y
// verify` and an allowed-signers line, without Chronicle; checkpoints get
// a signed note (golang.org/x/mod/sumdb/note), as the Go checksum
// database signs its tree heads.
//
// # Basics
//
// Sign writes the armored signature `ssh-keygen -Y sign -n
// chronicle-receipt` writes for the same Ed25519 key (Ed25519 is
// deterministic, so the bytes are the same); Verify checks one against the
// signed bytes and returns the signer's fingerprint as ssh-keygen prints
// it (SHA256:…). AllowedSigners is the line of an allowed-signers file
// that trusts a key for receipts. NoteSigner and NoteVerifier sign and
// check notes with the same key; NoteVerifierKey is the verifier key
// (name+hash+key) that someone checking a checkpoint is given.
//
// # Caveats
//
// The package is pure: it never reads a file. Loading, creating and
// guarding the private key is db/keys'. A valid signature says who signed
// the bytes, not that the receipt is VALID: `chronicle verify` replays the
// receipt as well.
package sign
