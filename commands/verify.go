package commands

import (
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// VerifyIn is a receipt to verify: its text, and the file it was read
// from ("" when it was given as text: the MCP tool, the Go API).
type VerifyIn struct {
	Receipt string `json:"receipt"`
	File    string `json:"-"`
}

// Verdict is the outcome of `verify`: its JSON is the `verify --json`
// line (fields in the order of their names).
type Verdict struct {
	File    string `json:"file,omitempty"`
	Problem string `json:"problem,omitempty"`
	Verdict string `json:"verdict"`
	Warning string `json:"warning,omitempty"`
}

// Verified is what Verify found: the outcome, why it is not VALID (or
// why the replay could not finish) and, beside a VALID receipt of a
// document the archive can no longer reach by its names or indexes, a
// warning that the archive is damaged all the same.
type Verified struct {
	Outcome receipt.Outcome
	Why     error
	Warning string
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
func Verify(open func() (*db.Archive, error), in VerifyIn) Verified {
	return ParseReceipt(in).Replay(open)
}

// Parsed is a receipt read, ready to be replayed (ParseReceipt).
type Parsed struct {
	in      VerifyIn
	archive *db.Receipt
	set     *db.SetReceipt
	done    *Verified // malformed: INVALID without a replay
}

// ParseReceipt reads a receipt without the archive: one too long, or an
// archive or set receipt that does not parse, is INVALID at once
// (Malformed), with no lock taken.
func ParseReceipt(in VerifyIn) *Parsed {
	p := &Parsed{in: in}
	data := []byte(in.Receipt)
	var err error
	switch {
	case len(data) > db.MaxReceiptSize:
		err = fmt.Errorf("the receipt is %d bytes; a receipt is at most %d", len(data), db.MaxReceiptSize)
	case db.IsArchiveReceipt(data):
		p.archive, err = db.ParseReceipt(data)
	case db.IsSetReceipt(data):
		p.set, err = db.ParseSetReceipt(data)
	}
	if err != nil {
		p.done = &Verified{Outcome: receipt.Invalid, Why: err}
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
