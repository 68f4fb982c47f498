package commands

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/archivelog"
	"golang.org/x/mod/sumdb/note"
)

// LogOut is the archive's log as `log` prints it: the last signed
// checkpoint (the C2SP signed note) and what it says. Its JSON is the
// `log --json` line.
type LogOut struct {
	Checkpoint string `json:"checkpoint"`
	Origin     string `json:"origin"`
	Root       string `json:"root"`
	Size       int64  `json:"size"`
}

// Log reads the last signed checkpoint, which must cover the log as it is
// (a write with the key, or `log --sign`, signs it).
func Log(a *db.Archive) (*LogOut, error) {
	st, err := a.Log()
	if err != nil {
		return nil, err
	}
	if st.Signed == nil && st.Tree.Size == 0 {
		return nil, fmt.Errorf("%w: the log is empty (nothing has been written yet)", db.ErrLogUnsigned)
	}
	if st.Signed == nil {
		return nil, fmt.Errorf("%w: no checkpoint has been signed yet (`chronicle log --sign` signs one with your key)", db.ErrLogUnsigned)
	}
	c, err := archivelog.Unverified(st.Signed)
	if err != nil {
		return nil, fmt.Errorf("%w: the kept checkpoint: %v (run `chronicle check`)", db.ErrCorrupt, err)
	}
	if c.Size != st.Tree.Size || c.Root != st.Tree.Root {
		return nil, fmt.Errorf("%w: the last signed checkpoint has %d leaves, the log %d (`chronicle log --sign` signs it with your key)", db.ErrLogUnsigned, c.Size, st.Tree.Size)
	}
	return &LogOut{Checkpoint: string(st.Signed), Origin: c.Origin, Root: fmt.Sprintf("%x", c.Root[:]), Size: c.Size}, nil
}

// LogVerified is what `log verify` found: the old checkpoint and the log
// today, or why the archive does not extend it.
type LogVerified struct {
	Old, Now *archivelog.Checkpoint
	Why      error
}

// LogVerify checks that the archive's log today extends the tree of a
// checkpoint saved earlier (its signed note, as `log --out` writes it):
// the note must be signed by verifier, and the consistency proof from its
// tree to today's must hold: nothing removed, nothing rewritten.
func LogVerify(a *db.Archive, signed []byte, verifier note.Verifier) LogVerified {
	old, err := archivelog.OpenSigned(signed, verifier)
	if err != nil {
		return LogVerified{Why: err}
	}
	now, err := a.ExtendsCheckpoint(old)
	return LogVerified{Old: old, Now: now, Why: err}
}

// ProveOut is a proof bundle and what it proves.
type ProveOut struct {
	Bundle *archivelog.Bundle
	Leaf   *archivelog.Leaf
}

// ErrNothingToProve: the argument names no document, and no kept receipt
// or claims check has the file's bytes.
var ErrNothingToProve = errors.New("not in the archive's log")

// Prove writes the proof bundle of a document (doc non-nil), or of the
// kept receipt or claims check whose file has the bytes data.
func Prove(a *db.Archive, doc *db.Document, data []byte) (*ProveOut, error) {
	var b *archivelog.Bundle
	var err error
	if doc != nil {
		b, err = a.ProveDocument(doc)
	} else if b, err = a.ProveKept(data); errors.Is(err, db.ErrNotLogged) {
		err = fmt.Errorf("%w: no kept receipt or claims check has these bytes (SHA-256 %s)", ErrNothingToProve, db.Digest(sha256.Sum256(data)))
	}
	if err != nil {
		return nil, err
	}
	leaf, err := archivelog.ParseLeaf(b.Leaf)
	if err != nil {
		return nil, fmt.Errorf("%w: %v (run `chronicle check`)", db.ErrCorrupt, err)
	}
	return &ProveOut{Bundle: b, Leaf: leaf}, nil
}
