package db

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/casper-chronicle/chronicle/engine/extract"
	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// deriveQuestion is the question of a DERIVE receipt: the derivation,
// members in this order, compact JSON.
type deriveQuestion struct {
	Input string `json:"input_sha256"`
	Part  string `json:"part"`
	Tool  Tool   `json:"tool"`
}

// DeriveQuestion is the question a DERIVE receipt carries for dv: which
// original, which part of it, which tool with which version and options.
func DeriveQuestion(dv *Derivation) string {
	opts := dv.Tool.Options
	if opts == nil {
		opts = []string{}
	}
	b, _ := json.Marshal(deriveQuestion{Input: hex.EncodeToString(dv.Input[:]), Part: dv.Part,
		Tool: Tool{Name: dv.Tool.Name, Version: dv.Tool.Version, Options: opts}})
	return string(b)
}

// Reasons a DERIVE receipt is not VALID.
var (
	ErrNoDerivation = errors.New("the archive keeps no such derivation of the document")
	ErrRederived    = errors.New("deriving the text again from the original gives other bytes")
	// ErrOtherTool: the extractor the receipt names is not installed here
	// in that version (UNSUPPORTED: only integrity was checked).
	ErrOtherTool = errors.New("the extractor of this derivation is not installed in that version")
)

// verifyDerive checks the rest of a DERIVE receipt, once Verify has
// rebuilt the document's store to the receipt's: the archive keeps the derivation it names and the
// original (checked against its digest), and, when the same tool in the
// same version is installed, extracting the original again gives the
// document's bytes exactly (VALID, or INVALID); with another version or
// none it is UNSUPPORTED, saying which it would need, once everything else
// checks.
func (a *Archive) verifyDerive(r *Receipt) (receipt.Outcome, error) {
	if r.Result != r.Document {
		return receipt.Invalid, fmt.Errorf("%w: a DERIVE receipt's result is its document's digest", ErrReceiptResult)
	}
	var q deriveQuestion
	if err := json.Unmarshal([]byte(r.Question), &q); err != nil {
		return receipt.Invalid, fmt.Errorf("%w: its question is not a derivation: %v", ErrReceipt, err)
	}
	in, err := hex.DecodeString(q.Input)
	if err != nil || len(in) != len(Digest{}) {
		return receipt.Invalid, fmt.Errorf("%w: its question names no original", ErrReceipt)
	}
	dvs, err := a.derivationsOf(r.Document)
	if err != nil {
		return receipt.Invalid, err
	}
	if !slices.ContainsFunc(dvs, func(dv Derivation) bool {
		return dv.Input == Digest(in) && dv.Part == q.Part && dv.Tool.Name == q.Tool.Name &&
			dv.Tool.Version == q.Tool.Version && slices.Equal(dv.Tool.Options, q.Tool.Options)
	}) {
		return receipt.Invalid, ErrNoDerivation
	}
	data, rec, err := a.OriginalBytes(Digest(in))
	if err != nil {
		return receipt.Invalid, err
	}
	installed, err := extract.Installed(context.Background(), q.Tool.Name)
	if err != nil || installed != q.Tool.Version {
		have := "none is installed"
		if err == nil {
			have = "this machine has " + installed
		}
		return receipt.Unsupported, fmt.Errorf("%w: re-deriving needs %s %s, and %s; the original and the text check against their digests",
			ErrOtherTool, q.Tool.Name, q.Tool.Version, have)
	}
	parts, err := extract.Extract(context.Background(), extract.Kind(rec.Kind), data, extract.Options{OCR: q.Tool.Name == "tesseract"})
	if err != nil {
		return receipt.Invalid, fmt.Errorf("%w: %v", ErrRederived, err)
	}
	for _, p := range parts {
		if p.Path != q.Part {
			continue
		}
		text, tool := p.Text, p.Tool
		if p.Original != nil { // a text attachment: its bytes are the text
			text = p.Original
		}
		if tool.Name != q.Tool.Name || tool.Version != q.Tool.Version || !slices.Equal(tool.Options, q.Tool.Options) {
			return receipt.Unsupported, fmt.Errorf("%w: this build derives it with %s %s %v", ErrOtherTool, tool.Name, tool.Version, tool.Options)
		}
		if Digest(sha256.Sum256(text)) != r.Document {
			return receipt.Invalid, ErrRederived
		}
		return receipt.Valid, nil
	}
	return receipt.Invalid, fmt.Errorf("%w: the original has no part %q now", ErrRederived, q.Part)
}
