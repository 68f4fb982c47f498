package archivelog

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/casper-chronicle/chronicle/engine/canonjson"
)

// Leaf kinds: one per change to what the archive holds.
const (
	KindDocument = "document" // a document stored: its digest, size and the name it came under
	KindName     = "name"     // a name given to a stored document (added, or moved to it)
	KindOriginal = "original" // a receipt of the original tool imported with its store
	KindReceipt  = "receipt"  // a receipt kept, by its number and digest
	KindClaims   = "claims"   // a claims check kept, by its identity and file digest
	// Original files (a mail, a web page, a PDF) and what was derived
	// from them.
	KindFile       = "file"       // an original file kept: its digest, size and the name it came under
	KindDerivation = "derivation" // an output (document or inner original) derived from an input original: both digests, the part, the record's digest
)

// Leaf is one entry of the log. Which fields a kind uses, in which order
// they are encoded, is fixed (Encode); the others stay zero.
type Leaf struct {
	Kind      string
	SHA256    [32]byte // document (document, name, original), receipt bytes (receipt), claims file (claims)
	Size      int64    // document: its size in bytes
	Name      string   // document, name: the name; original: the original receipt's file name
	Receipt   [32]byte // original: the SHA-256 of the original receipt's bytes
	Number    uint64   // receipt: its number in issue order (1, 2, …)
	Namespace string   // claims
	RunID     string   // claims
	Input     [32]byte // derivation: the original the output came from
	Part      string   // derivation: where in the input ("" for its own text)
	Record    [32]byte // derivation: SHA-256 of the derivation record (tool, version, options)
}

// MaxLeafSize bounds an encoded leaf: names are at most 4,096 bytes, each
// escaped to at most 6.
const MaxLeafSize = 64 << 10

// Encode is the leaf's canonical bytes, the record the tree hashes: one
// line of compact JSON, members in the kind's fixed order, strings
// escaped as canonjson escapes them, no trailing newline.
func (l *Leaf) Encode() []byte {
	var j canonjson.Buf
	j.Raw("{")
	j.Key("kind", true)
	j.Str(l.Kind)
	switch l.Kind {
	case KindDocument, KindFile: // an original file's leaf has a document's members
		j.Key("sha256", false)
		j.Digest(l.SHA256)
		j.Key("size", false)
		j.Int(l.Size)
		j.Key("name", false)
		j.Str(l.Name)
	case KindName:
		j.Key("sha256", false)
		j.Digest(l.SHA256)
		j.Key("name", false)
		j.Str(l.Name)
	case KindOriginal:
		j.Key("sha256", false)
		j.Digest(l.SHA256)
		j.Key("receipt_sha256", false)
		j.Digest(l.Receipt)
		j.Key("name", false)
		j.Str(l.Name)
	case KindReceipt:
		j.Key("number", false)
		j.Uint(l.Number)
		j.Key("sha256", false)
		j.Digest(l.SHA256)
	case KindClaims:
		j.Key("namespace", false)
		j.Str(l.Namespace)
		j.Key("run_id", false)
		j.Str(l.RunID)
		j.Key("sha256", false)
		j.Digest(l.SHA256)
	case KindDerivation:
		j.Key("sha256", false)
		j.Digest(l.SHA256)
		j.Key("input_sha256", false)
		j.Digest(l.Input)
		j.Key("part", false)
		j.Str(l.Part)
		j.Key("record_sha256", false)
		j.Digest(l.Record)
	}
	j.Raw("}")
	return j.Bytes()
}

// ErrLeaf: bytes that are not a leaf's canonical encoding.
var ErrLeaf = errors.New("not a canonical log leaf")

// leafJSON is what a leaf's JSON may hold.
type leafJSON struct {
	Kind      string  `json:"kind"`
	SHA256    string  `json:"sha256"`
	Size      *int64  `json:"size"`
	Name      *string `json:"name"`
	Receipt   string  `json:"receipt_sha256"`
	Number    *uint64 `json:"number"`
	Namespace *string `json:"namespace"`
	RunID     *string `json:"run_id"`
	Input     string  `json:"input_sha256"`
	Part      *string `json:"part"`
	Record    string  `json:"record_sha256"`
}

// ParseLeaf reads a leaf strictly: its bytes must be exactly the
// canonical encoding of a leaf of a known kind (so that one leaf has one
// encoding, and its hash one meaning).
func ParseLeaf(data []byte) (*Leaf, error) {
	if len(data) > MaxLeafSize {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrLeaf, len(data), MaxLeafSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var j leafJSON
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLeaf, err)
	}
	l := &Leaf{Kind: j.Kind, Namespace: deref(j.Namespace), RunID: deref(j.RunID), Name: deref(j.Name), Part: deref(j.Part)}
	if j.Size != nil {
		l.Size = *j.Size
	}
	if j.Number != nil {
		l.Number = *j.Number
	}
	var err error
	if j.SHA256 != "" {
		if l.SHA256, err = digest(j.SHA256); err != nil {
			return nil, err
		}
	}
	for _, d := range []struct {
		hex string
		to  *[32]byte
	}{{j.Receipt, &l.Receipt}, {j.Input, &l.Input}, {j.Record, &l.Record}} {
		if d.hex != "" {
			if *d.to, err = digest(d.hex); err != nil {
				return nil, err
			}
		}
	}
	switch l.Kind {
	case KindDocument, KindName, KindOriginal, KindReceipt, KindClaims, KindFile, KindDerivation:
	default:
		return nil, fmt.Errorf("%w: kind %.40q", ErrLeaf, l.Kind)
	}
	if !bytes.Equal(l.Encode(), data) {
		return nil, fmt.Errorf("%w: the bytes differ from the %s leaf's encoding", ErrLeaf, l.Kind)
	}
	return l, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// digest decodes 64 lowercase hex digits.
func digest(s string) ([32]byte, error) {
	var d [32]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return d, fmt.Errorf("%w: %.70q is not a SHA-256 in hex", ErrLeaf, s)
	}
	copy(d[:], b)
	return d, nil
}
