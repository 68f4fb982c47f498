package archivelog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/casper-chronicle/chronicle/engine/canonjson"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// BundleFormat opens every proof bundle.
const BundleFormat = "chronicle-log-proof/1"

// MaxBundleSize bounds a proof bundle read back: a leaf, 64 hashes and a
// note fit in far less.
const MaxBundleSize = 1 << 20

// Bundle proves offline that a leaf is entry Index of the tree a signed
// checkpoint names: the leaf's bytes, the RFC 6962 inclusion proof (the
// hashes tlog.ProveRecord gives) and the signed checkpoint.
type Bundle struct {
	Index      int64
	Leaf       []byte
	Proof      tlog.RecordProof
	Checkpoint []byte // a signed note
}

// Encode is the bundle's canonical bytes: one line of compact JSON,
// {"format","index","leaf","proof":[base64…],"checkpoint"}, then LF.
func (b *Bundle) Encode() []byte {
	var j canonjson.Buf
	j.Raw("{")
	j.Key("format", true)
	j.Str(BundleFormat)
	j.Key("index", false)
	j.Int(b.Index)
	j.Key("leaf", false)
	j.Str(string(b.Leaf))
	j.Key("proof", false)
	j.Raw("[")
	for i, h := range b.Proof {
		if i > 0 {
			j.Raw(",")
		}
		j.Str(base64.StdEncoding.EncodeToString(h[:]))
	}
	j.Raw("]")
	j.Key("checkpoint", false)
	j.Str(string(b.Checkpoint))
	j.Raw("}\n")
	return j.Bytes()
}

// ErrBundle: bytes that are not a proof bundle, or a bundle that does not
// prove its leaf.
var ErrBundle = errors.New("not a valid proof bundle")

// IsBundle reports whether data looks like a proof bundle (its first
// member names the format), so that verify can tell it from a receipt.
func IsBundle(data []byte) bool {
	return bytes.HasPrefix(data, []byte(`{"format":"`+BundleFormat+`"`))
}

type bundleJSON struct {
	Format     string   `json:"format"`
	Index      int64    `json:"index"`
	Leaf       string   `json:"leaf"`
	Proof      []string `json:"proof"`
	Checkpoint string   `json:"checkpoint"`
}

// ParseBundle reads a bundle strictly: exactly its canonical encoding.
func ParseBundle(data []byte) (*Bundle, error) {
	if len(data) > MaxBundleSize {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrBundle, len(data), MaxBundleSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var j bundleJSON
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBundle, err)
	}
	if j.Format != BundleFormat {
		return nil, fmt.Errorf("%w: format %.40q, want %q", ErrBundle, j.Format, BundleFormat)
	}
	b := &Bundle{Index: j.Index, Leaf: []byte(j.Leaf), Checkpoint: []byte(j.Checkpoint)}
	for i, s := range j.Proof {
		h, err := base64.StdEncoding.Strict().DecodeString(s)
		if err != nil || len(h) != tlog.HashSize {
			return nil, fmt.Errorf("%w: proof hash %d is not 32 bytes in base64", ErrBundle, i+1)
		}
		b.Proof = append(b.Proof, tlog.Hash(h))
	}
	if !bytes.Equal(b.Encode(), data) {
		return nil, fmt.Errorf("%w: not in canonical form", ErrBundle)
	}
	return b, nil
}

// Verify checks the bundle with the archive's public key alone: the
// checkpoint's signature, the leaf's encoding, and that the inclusion
// proof leads from the leaf's hash at Index to the checkpoint's root. It
// returns the leaf and the checkpoint it is proven in.
func (b *Bundle) Verify(verifier note.Verifier) (*Leaf, *Checkpoint, error) {
	c, err := OpenSigned(b.Checkpoint, verifier)
	if err != nil {
		return nil, nil, err
	}
	leaf, err := ParseLeaf(b.Leaf)
	if err != nil {
		return nil, nil, err
	}
	if b.Index < 0 || b.Index >= c.Size {
		return nil, nil, fmt.Errorf("%w: leaf %d is outside the tree of %d leaves", ErrBundle, b.Index, c.Size)
	}
	if err := tlog.CheckRecord(b.Proof, c.Size, c.Root, b.Index, tlog.RecordHash(b.Leaf)); err != nil {
		return nil, nil, fmt.Errorf("%w: the inclusion proof of leaf %d does not lead to the checkpoint's root (%v)", ErrBundle, b.Index, err)
	}
	return leaf, c, nil
}
