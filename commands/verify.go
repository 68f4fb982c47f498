package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/sign"
)

// VerifyIn is a receipt to verify: its text, and the file it was read
// from ("" when it was given as text: the MCP tool, the Go API), and
// the detached signature that came with it (the CLI reads FILE.sig
// beside the file), checked against the receipt's bytes before the
// receipt is replayed.
type VerifyIn struct {
	Receipt   string   `json:"receipt"`
	File      string   `json:"-"`
	Signature Detached `json:"-"`
}

// Detached is the detached signature that came with a file: Signed says
// there is one (FILE.sig exists), Text is its armored text.
type Detached struct {
	Signed bool
	Text   string
}

// Verdict is the outcome of `verify`: its JSON is the `verify --json`
// line (fields in the order of their names).
//
// Signer is only there for a receipt that came with a signature that
// verifies, so the line of an unsigned receipt is the one it always was.
type Verdict struct {
	File    string `json:"file,omitempty"`
	Problem string `json:"problem,omitempty"`
	Signer  string `json:"signer,omitempty"`
	Verdict string `json:"verdict"`
	Warning string `json:"warning,omitempty"`
}

// Verified is what Verify found: the outcome, why it is not VALID (or
// why the replay could not finish) and, beside a VALID receipt of a
// document the archive can no longer reach by its names or indexes, a
// warning that the archive is damaged all the same. Signer is the
// fingerprint of the key whose signature came with the receipt and
// verifies ("" for an unsigned receipt).
type Verified struct {
	Outcome receipt.Outcome
	Why     error
	Warning string
	Signer  string
}

// Verify replays a receipt, as `chronicle verify` does for every
// front-end: an archive receipt (ingest, query, claim, find in a
// document) and a set receipt (find across the archive, entity, settle)
// against the archive; an original V1/V2 receipt of the casper-chronicle
// tool against the .chronicle file it names when it was read from a file
// (in.File), else, given as text, against the store imported into the
// archive (db.Archive.VerifyOriginal, whose outcome is the one the
// receipt gets beside its store). A receipt over db.MaxReceiptSize bytes
// is INVALID. open opens the archive, only when the receipt needs it.
//
// A receipt that came with a signature (in.Signature) is INVALID,
// without a replay, when the signature does not verify over its exact
// bytes.
func Verify(open func() (*db.Archive, error), in VerifyIn) Verified {
	return ParseReceipt(in).Replay(open)
}

// ErrSignature: a receipt's detached signature does not check (malformed,
// made for another namespace, or over other bytes).
var ErrSignature = errors.New("bad signature")

// Check checks the detached signature over the exact bytes of the file
// it came with and returns its signer's fingerprint: "" and nil when
// there is none, an error wrapping ErrSignature when it does not verify.
func (d Detached) Check(data []byte) (string, error) {
	if !d.Signed {
		return "", nil
	}
	signer, err := sign.Verify(data, []byte(d.Text))
	if err != nil {
		return "", &signatureError{err}
	}
	return signer, nil
}

// signatureError is a signature that does not check: its message is
// engine/sign's, and it is ErrSignature as well.
type signatureError struct{ err error }

func (e *signatureError) Error() string   { return e.err.Error() }
func (e *signatureError) Unwrap() []error { return []error{ErrSignature, e.err} }

// Parsed is a receipt read, ready to be replayed (ParseReceipt).
type Parsed struct {
	in      VerifyIn
	signer  string // the signature's signer (Detached.Check)
	archive *db.Receipt
	set     *db.SetReceipt
	done    *Verified // malformed or a bad signature: INVALID without a replay
}

// ParseReceipt reads a receipt without the archive: one too long, an
// archive or set receipt that does not parse, or one whose signature does
// not verify, is INVALID at once (Malformed), with no lock taken.
func ParseReceipt(in VerifyIn) *Parsed {
	p := &Parsed{in: in}
	data := []byte(in.Receipt)
	var err error
	if p.signer, err = in.Signature.Check(data); err != nil {
		p.done = &Verified{Outcome: receipt.Invalid, Why: err}
		return p
	}
	switch {
	case len(data) > db.MaxReceiptSize:
		err = fmt.Errorf("the receipt is %d bytes; a receipt is at most %d", len(data), db.MaxReceiptSize)
	case db.IsArchiveReceipt(data):
		p.archive, err = db.ParseReceipt(data)
	case db.IsSetReceipt(data):
		p.set, err = db.ParseSetReceipt(data)
	}
	if err != nil {
		p.done = &Verified{Outcome: receipt.Invalid, Why: err, Signer: p.signer}
	}
	return p
}

// Malformed reports the verdict of a receipt that needs no replay.
func (p *Parsed) Malformed() (Verified, bool) {
	if p.done != nil {
		return *p.done, true
	}
	return Verified{}, false
}

// Replay replays the receipt; open opens the archive, only when the
// receipt needs it.
func (p *Parsed) Replay(open func() (*db.Archive, error)) Verified {
	if p.done != nil {
		return *p.done
	}
	v := p.replay(open)
	v.Signer = p.signer
	return v
}

func (p *Parsed) replay(open func() (*db.Archive, error)) Verified {
	var v Verified
	var a *db.Archive
	if p.in.File == "" || p.archive != nil || p.set != nil {
		var err error
		if a, err = open(); err != nil {
			return Verified{Outcome: receipt.Invalid, Why: err}
		}
	}
	switch {
	case p.archive != nil:
		v.Outcome, v.Why = a.Verify(p.archive, receipt.Canonical{})
		if v.Outcome == receipt.Valid {
			v.Warning = DamageBeside(a, p.archive.Document)
		}
	case p.set != nil:
		v.Outcome, v.Why = a.VerifySet(p.set)
	case p.in.File != "":
		v.Outcome, v.Why = fileio.VerifyReceiptFile(p.in.File, receipt.Canonical{})
	default:
		v.Outcome, v.Why = a.VerifyOriginal([]byte(p.in.Receipt), receipt.Canonical{})
	}
	return v
}

// DamageBeside is the warning beside a VALID verdict for a receipt of
// document doc when the archive can no longer reach the document through
// its names or indexes (db.Findable): the receipt is right to verify
// from the document's bytes, and the archive is damaged all the same.
// "" when nothing is wrong.
func DamageBeside(a *db.Archive, doc db.Digest) string {
	if err := a.Findable(doc); err != nil {
		return fmt.Sprintf("warning: the receipt is VALID from its document's bytes, but archive %s is damaged (%v); run `chronicle check`",
			a.Path(), strings.TrimSuffix(err.Error(), " (run `chronicle check`)"))
	}
	return ""
}
