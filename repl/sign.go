package repl

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/db/keys"
	"github.com/casper-chronicle/chronicle/engine/sign"
)

// signsFile reports whether the command writes a file that is signed: a
// receipt to --receipt FILE, claims rows to --out ROWS, the receipt of
// export.
func (x *invocation) signsFile() bool {
	r := x.p.value("receipt")
	return (r != "" && r != "-") || x.p.value("out") != "" || x.cmd.name == "export"
}

// prepareKey loads the signing key (db/keys: --key FILE, $CHRONICLE_KEY,
// else the default key, created now the first time with a notice on
// stderr) when the command writes a signed file. The commands call it
// before they open the archive, so that a key that cannot be used (one
// others may read, an encrypted one) fails the command before anything
// is kept or written.
func (x *invocation) prepareKey() error {
	if x.key != nil || !x.signsFile() {
		return nil
	}
	k, err := keys.ForWriting(x.p.value("key"), x.env.Stderr)
	if err != nil {
		return err
	}
	x.key = k
	return nil
}

// writeSigned writes data to path and its detached SSHSIG signature to
// path.sig (ssh-keygen's naming), both write-once and both or neither
// (fileio.WriteOnceSigned). A path holding other bytes is a
// *fileio.CollisionError naming it, the error's "file".
func (x *invocation) writeSigned(path string, data []byte) error {
	if err := x.prepareKey(); err != nil {
		return err
	}
	sig, err := sign.Sign(x.key.Private, data)
	if err != nil {
		return err
	}
	err = fileio.WriteOnceSigned(path, data, path+sign.Suffix, sig)
	if c := (*fileio.CollisionError)(nil); errors.As(err, &c) {
		return withObject(err, "file", c.Path)
	}
	if pe, ok := err.(*fs.PathError); ok { // the receipt's, or its signature's
		return fileErr(pe.Path, err)
	}
	return err
}

// runKey prints the signing key's public half (commands.Key); the key is
// created the first time, as the first signed write would create it, so
// that its allowed-signers line can be handed out before any receipt.
func runKey(x *invocation) error {
	k, err := keys.ForWriting(x.p.value("key"), x.env.Stderr)
	if err != nil {
		return err
	}
	out, err := commands.Key(k)
	if err != nil {
		return err
	}
	if x.p.has("json") || x.env.JSON {
		printJSONLine(x.out(), out)
		return nil
	}
	w := x.out()
	fmt.Fprintf(w, "key          %s\nfingerprint  %s\n", sanitize(out.KeyFile), out.Fingerprint)
	fmt.Fprintf(w, "allowed signers line (ssh-keygen -Y verify -f FILE -I %s -n %s):\n%s\n", out.Identity, sign.Namespace, out.AllowedSigners)
	fmt.Fprintf(w, "note verifier key (signed checkpoints):\n%s\n", out.NoteVerifierKey)
	return nil
}
