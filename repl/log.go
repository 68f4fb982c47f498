package repl

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/db/keys"
	"github.com/casper-chronicle/chronicle/engine/archivelog"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/sign"
	"golang.org/x/mod/sumdb/note"
)

// The archive's log (issue 29): every write that finds the signing key
// signs a checkpoint of the log it leaves (attachLogKey); `log` prints the
// last one, `log verify` proves the archive extends a saved one, `prove`
// writes the proof of a document, receipt or claims file, and `verify`
// checks such a proof offline.

// loadLogKey loads the key that signs the log's checkpoints, before the
// archive is opened (a key that cannot be used fails the command before
// anything, the archive file included, changes): for a write (write), the
// key --key, $CHRONICLE_KEY or the default names, the default one created
// on the first write with its one-line notice, so that every write signs
// the log it leaves; for check, the key's public half when it exists.
// Where there is no place for a default key (no config directory) writes
// leave the log unsigned, and `log` says so.
func (x *invocation) loadLogKey(write bool) error {
	if x.key != nil {
		return nil
	}
	named := x.p.value("key") != "" || os.Getenv(keys.Env) != ""
	var k *keys.Key
	var err error
	switch {
	case !write:
		if k, err = keys.Load(x.p.value("key")); errors.Is(err, keys.ErrNoKey) {
			return nil
		}
	case !named && noConfigDir():
		return nil
	default:
		k, err = keys.ForWriting(x.p.value("key"), x.env.Stderr)
	}
	if err != nil {
		return err
	}
	x.key = k
	return nil
}

// attachLogKey gives the opened archive the loaded key: a write signs the
// log it leaves (and an upgrade the open just ran, before the key was
// given, is signed now); check holds the checkpoint to it.
func (x *invocation) attachLogKey(a *db.Archive, write bool) error {
	if x.key == nil {
		return nil
	}
	s, v, err := sign.NoteKeys(x.key.Private)
	if err != nil {
		return err
	}
	a.LogVerifier(v)
	if !write {
		return nil
	}
	a.LogSigner(s)
	if a.UpgradedFrom > 0 {
		return a.SignLog()
	}
	return nil
}

// noConfigDir reports that no default key file can be placed.
func noConfigDir() bool {
	_, err := keys.DefaultPath()
	return err != nil
}

// trusted is the key a checkpoint or proof must be signed by: --trust
// (a note verifier key, or a file holding one), else the public half of
// the user's own key.
func (x *invocation) trusted() (note.Verifier, error) {
	if t := x.p.value("trust"); t != "" {
		text := t
		if !strings.Contains(t, "+") {
			data, err := fileio.ReadLimited(t, 4096)
			if err != nil {
				return nil, fileErr(t, err)
			}
			text = strings.TrimSpace(string(data))
		}
		v, err := note.NewVerifier(text)
		if err != nil {
			return nil, usageErrorf("--trust %.60q is not a note verifier key (`chronicle key` prints one): %v", t, err)
		}
		return v, nil
	}
	k, err := keys.Load(x.p.value("key"))
	if errors.Is(err, keys.ErrNoKey) {
		return nil, usageErrorf("no key to check the signature with: give --trust KEY, the note verifier key `chronicle key` prints where the archive is kept")
	}
	if err != nil {
		return nil, err
	}
	_, v, err := sign.NoteKeys(k.Private)
	return v, err
}

// runLog prints the last signed checkpoint (or, with --sign, signs one of
// the log as it is first), or runs `log verify`.
func runLog(x *invocation) error {
	if len(x.p.args) > 0 {
		names := x.cmd.spec.VerbNames()
		switch {
		case x.p.args[0] != "verify":
			return usageErrorf("unknown log command %q (%s)%s", x.p.args[0], commands.OneOf(names), didYouMean(x.p.args[0], names, strconv.Quote))
		case len(x.p.args) != 2:
			return usageErrorf("usage: log verify CHECKPOINT")
		}
		return runLogVerify(x, x.p.args[1])
	}
	var a *db.Archive
	var err error
	if x.p.has("sign") {
		if a, err = x.openExisting(); err != nil {
			return err
		}
		if err := a.SignLog(); err != nil {
			return err
		}
	} else if a, err = x.open(false); err != nil {
		return err
	}
	out, err := commands.Log(a)
	if err != nil {
		return err
	}
	if f := x.p.value("out"); f != "" {
		if err := fileio.WriteOnce(f, []byte(out.Checkpoint)); err != nil {
			return fileErr(f, err)
		}
	}
	if x.askedJSON() {
		printJSONLine(x.out(), out)
		return nil
	}
	fmt.Fprint(x.out(), out.Checkpoint)
	return nil
}

// runLogVerify proves that the archive extends the checkpoint in path.
func runLogVerify(x *invocation, path string) error {
	data, err := fileio.ReadLimited(path, archivelog.MaxBundleSize)
	if err != nil {
		return fileErr(path, err)
	}
	v, err := x.trusted()
	if err != nil {
		return err
	}
	a, err := x.open(false)
	if err != nil {
		return err
	}
	res := commands.LogVerify(a, data, v)
	outcome := receipt.Valid
	if res.Why != nil {
		outcome = receipt.Invalid
	}
	if x.askedJSON() {
		j := commands.Verdict{File: path, Verdict: outcome.String(), Signer: v.Name()}
		if res.Why != nil {
			j.Problem = res.Why.Error()
		}
		printJSONLine(x.out(), j)
	} else {
		fmt.Fprintln(x.out(), outcome)
		if res.Why == nil {
			fmt.Fprintf(x.out(), "the log today (%d leaves) extends the checkpoint of %d leaves signed by %s: nothing removed, nothing rewritten\n", res.Now.Size, res.Old.Size, v.Name())
		} else {
			fmt.Fprintf(x.env.Stderr, "%schronicle log verify: %s: %v\n", x.env.where(), path, res.Why)
		}
	}
	if res.Why == nil {
		return nil
	}
	return quietStatus(outcome.ExitCode(), verdictKind(outcome), withObject(fmt.Errorf("%s: %w", path, res.Why), "file", path))
}

// runProve writes the proof bundle of a document, or of the kept receipt
// or claims check whose file the argument names.
func runProve(x *invocation) error {
	arg := x.p.args[0]
	a, err := x.open(false)
	if err != nil {
		return err
	}
	d, err := a.Resolve(arg)
	var data []byte
	if err != nil {
		st, serr := os.Stat(arg)
		if serr != nil || !st.Mode().IsRegular() {
			return withObject(err, "document", arg)
		}
		if data, err = fileio.ReadLimited(arg, max(db.MaxReceiptSize, claimcheck.MaxFileBytes)); err != nil {
			return fileErr(arg, err)
		}
		d = nil
	}
	out, err := commands.Prove(a, d, data)
	if err != nil {
		return withObject(err, "document", arg)
	}
	enc := out.Bundle.Encode()
	if f := x.p.value("out"); f != "" {
		if err := fileio.WriteOnce(f, enc); err != nil {
			return fileErr(f, err)
		}
		if !x.askedJSON() {
			fmt.Fprintf(x.out(), "%s leaf %d of the log's %d proven in %s (`chronicle verify %s` checks it without the archive)\n",
				out.Leaf.Kind, out.Bundle.Index, checkpointSize(out.Bundle), sanitize(f), sanitize(f))
			return nil
		}
	}
	x.out().Write(enc)
	return nil
}

// checkpointSize is the tree size a bundle's checkpoint names (0 when it
// does not read).
func checkpointSize(b *archivelog.Bundle) int64 {
	if c, err := archivelog.Unverified(b.Checkpoint); err == nil {
		return c.Size
	}
	return 0
}

// verifyBundle checks a proof bundle offline: the key it trusts signed
// the checkpoint, and the leaf is in its tree.
func (x *invocation) verifyBundle(path string, data []byte) error {
	v, err := x.trusted()
	if err != nil {
		return err
	}
	var c *archivelog.Checkpoint
	b, err := archivelog.ParseBundle(data)
	if err == nil {
		_, c, err = b.Verify(v)
	}
	outcome := receipt.Valid
	if err != nil {
		outcome = receipt.Invalid
	}
	if x.askedJSON() {
		j := commands.Verdict{File: path, Verdict: outcome.String(), Signer: v.Name()}
		if err != nil {
			j.Problem = err.Error()
		}
		printJSONLine(x.out(), j)
	} else {
		fmt.Fprintln(x.out(), outcome)
		if err == nil {
			fmt.Fprintf(x.out(), "%s is leaf %d of the log %s (%d leaves), signed by %s\n", sanitize(string(b.Leaf)), b.Index, c.Origin, c.Size, v.Name())
		} else {
			fmt.Fprintf(x.env.Stderr, "%schronicle verify: %s: %v\n", x.env.where(), path, err)
		}
	}
	if err == nil {
		return nil
	}
	return quietStatus(outcome.ExitCode(), verdictKind(outcome), withObject(fmt.Errorf("%s: %w", path, err), "file", path))
}
