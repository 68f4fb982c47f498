package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/casper-chronicle/chronicle/engine/archivelog"
	"github.com/klauspost/compress/s2"
	bolt "go.etcd.io/bbolt"
)

// Originals and derivations (schema 20). Evidence comes as mail, saved
// web pages and PDFs; Chronicle's documents are UTF-8 text. The file as
// received (an *original file*) is kept byte for byte under its own
// SHA-256, and each text derived from it becomes an ordinary document,
// linked to it by a *derivation*: the original, the part of it (an
// attachment's name, an mbox message), the tool that derived it with its
// exact version and options, and what came out (a document, or an inner
// original such as an attachment, extracted in turn). db keeps and reads
// them; engine/extract derives the texts.
//
//	origfiles    original digest (32) → seal (32) ‖ record (JSON)
//	origchunks   original digest (32) ‖ chunk (u32 BE) → S2 block of up to OriginalChunk bytes
//	derivations  output digest (32) ‖ input digest (32) ‖ part → seal (32) ‖ derivation (JSON)
//
// A seal is SHA-256(key ‖ body): a record or derivation read with any
// other key or bytes fails. An original's chunks are checked against its
// digest whenever it is read whole (ExportOriginal, check).

var (
	bucketOrigFiles   = []byte("origfiles")
	bucketOrigChunks  = []byte("origchunks")
	bucketDerivations = []byte("derivations")
)

// OriginalChunk is the most bytes of an original one chunk holds.
const OriginalChunk = 1 << 20

// ErrNoOriginal: the archive keeps no original file of that digest.
var ErrNoOriginal = errors.New("no such original file")

// OriginalFile is the record of an original file.
type OriginalFile struct {
	SHA256      Digest   `json:"-"`
	Size        int64    `json:"size"`
	Kind        string   `json:"kind"`                   // html, email, mbox, pdf, binary (kept unread)
	ContentType string   `json:"content_type,omitempty"` // as an enclosing mail declared it
	Names       []string `json:"names"`
	ImportedAt  uint64   `json:"imported_at"`
	Chunks      int      `json:"chunks"`
	StoredBytes int64    `json:"stored_bytes"`
}

// Tool is the extractor of a derivation: its name, exact version and
// options.
type Tool struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Options []string `json:"options"`
}

// Derivation links an output (a document, or an inner original) to the
// original it came from.
type Derivation struct {
	Output     Digest `json:"-"`
	OutputKind string `json:"output_kind"` // "document" or "original"
	Input      Digest `json:"-"`
	Part       string `json:"part"` // "" for the original's own text
	Tool       Tool   `json:"tool"`
	// InputKind is the kind of the input's original file (email, pdf,
	// ...), set by the reads that name an origin (originOf,
	// DerivedFrom); never stored: the original's record says it.
	InputKind string `json:"-"`
}

// derivationJSON is a derivation's stored form: the digests as hex too, so
// that the record reads on its own.
type derivationJSON struct {
	Output string `json:"output_sha256"`
	Input  string `json:"input_sha256"`
	Derivation
}

// sealValue is SHA-256(key ‖ body) ‖ body: the form of a kept claims
// check, an original file's record and a derivation.
func sealValue(key, body []byte) []byte {
	h := sha256.New()
	h.Write(key)
	h.Write(body)
	return append(h.Sum(nil), body...)
}

// unseal returns the body of a sealed value of key, ok false when it does
// not match its seal.
func unseal(key, v []byte) ([]byte, bool) {
	if len(v) < sha256.Size {
		return nil, false
	}
	h := sha256.New()
	h.Write(key)
	h.Write(v[sha256.Size:])
	return v[sha256.Size:], bytes.Equal(h.Sum(nil), v[:sha256.Size])
}

// derivationKey is output ‖ input ‖ the tool's digest (toolDigest) ‖
// part: the same text derived by two versions of a tool is two
// derivations, each of which its own DERIVE receipt names.
func derivationKey(out, in Digest, tool Tool, part string) []byte {
	k := make([]byte, 0, 72+len(part))
	k = append(k, out[:]...)
	k = append(k, in[:]...)
	td := toolDigest(tool)
	k = append(k, td[:]...)
	return append(k, part...)
}

// toolDigest is the first 8 bytes of the SHA-256 of the tool's compact
// JSON (name, version, options).
func toolDigest(t Tool) [8]byte {
	if t.Options == nil {
		t.Options = []string{}
	}
	b, _ := json.Marshal(t)
	h := sha256.Sum256(b)
	return [8]byte(h[:8])
}

// keptOriginal is an original's digest and compressed chunks: the costly
// part of keeping it, done while preparing, outside the write
// transaction (in it, S2 and SHA-256 of a batch's originals ran on the
// commit goroutine alone: at S2's 200-270 MB/s on one core, about 0.15 s
// for 32 MB of web pages).
type keptOriginal struct {
	digest Digest
	size   int
	blocks [][]byte // S2 blocks of OriginalChunk bytes each
}

// keepOriginal digests and compresses data.
func keepOriginal(data []byte) *keptOriginal {
	k := &keptOriginal{digest: sha256.Sum256(data), size: len(data)}
	for i := 0; i == 0 || i*OriginalChunk < len(data); i++ {
		k.blocks = append(k.blocks, s2.EncodeBetter(nil, data[i*OriginalChunk:min(len(data), (i+1)*OriginalChunk)]))
	}
	return k
}

// putOriginal stores an original file (or adds names to the one already
// kept), in tx.
func putOriginal(tx *bolt.Tx, k *keptOriginal, kind, contentType string, names []string, importedAt uint64) (Digest, error) {
	d := k.digest
	files := tx.Bucket(bucketOrigFiles)
	if files == nil {
		return d, fmt.Errorf("archive: %s bucket missing", bucketOrigFiles)
	}
	rec := &OriginalFile{SHA256: d, Size: int64(k.size), Kind: kind, ContentType: contentType, ImportedAt: importedAt}
	if old, err := originalIn(tx, d); err == nil {
		rec = old
	} else if !errors.Is(err, ErrNoOriginal) {
		return d, err
	} else {
		name := ""
		if len(names) > 0 {
			name = names[0]
		}
		if err := appendLeaf(tx, &archivelog.Leaf{Kind: archivelog.KindFile, SHA256: d, Size: rec.Size, Name: name}, nil); err != nil {
			return d, err
		}
		chunks := tx.Bucket(bucketOrigChunks)
		for i, block := range k.blocks {
			if err := chunks.Put(binary.BigEndian.AppendUint32(bytes.Clone(d[:]), uint32(i)), block); err != nil {
				return d, err
			}
			rec.Chunks++
			rec.StoredBytes += int64(len(block))
		}
	}
	for _, n := range names {
		if n != "" && !slices.Contains(rec.Names, n) {
			rec.Names = append(rec.Names, n)
		}
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return d, err
	}
	return d, files.Put(d[:], sealValue(d[:], body))
}

// originalIn reads and checks the record of original d.
func originalIn(tx *bolt.Tx, d Digest) (*OriginalFile, error) {
	files := tx.Bucket(bucketOrigFiles)
	if files == nil {
		return nil, fmt.Errorf("%w %x", ErrNoOriginal, d[:])
	}
	v := files.Get(d[:])
	if v == nil {
		return nil, fmt.Errorf("%w %x", ErrNoOriginal, d[:])
	}
	body, ok := unseal(d[:], v)
	var rec OriginalFile
	if !ok || json.Unmarshal(body, &rec) != nil {
		return nil, fmt.Errorf("%w: the record of original file %x does not match its digest (run `chronicle check`)", ErrCorrupt, d[:])
	}
	rec.SHA256 = d
	return &rec, nil
}

// originalBytes reads original d whole and checks it against its digest.
func originalBytes(tx *bolt.Tx, rec *OriginalFile) ([]byte, error) {
	chunks := tx.Bucket(bucketOrigChunks)
	out := make([]byte, 0, rec.Size)
	for i := range rec.Chunks {
		block := chunks.Get(binary.BigEndian.AppendUint32(bytes.Clone(rec.SHA256[:]), uint32(i)))
		if block == nil {
			return nil, fmt.Errorf("%w: original file %x lacks its chunk %d (run `chronicle check`)", ErrCorrupt, rec.SHA256[:], i)
		}
		n, err := s2.DecodedLen(block)
		if err != nil || n > OriginalChunk || int64(len(out)+n) > rec.Size {
			return nil, fmt.Errorf("%w: original file %x: chunk %d cannot be decoded (run `chronicle check`)", ErrCorrupt, rec.SHA256[:], i)
		}
		part, err := s2.Decode(out[len(out):len(out)+n], block)
		if err != nil {
			return nil, fmt.Errorf("%w: original file %x: chunk %d cannot be decoded (run `chronicle check`)", ErrCorrupt, rec.SHA256[:], i)
		}
		out = out[:len(out)+len(part)]
	}
	if int64(len(out)) != rec.Size || Digest(sha256.Sum256(out)) != rec.SHA256 {
		return nil, fmt.Errorf("%w: original file %x does not match its digest (run `chronicle check`)", ErrCorrupt, rec.SHA256[:])
	}
	return out, nil
}

// putDerivation records that out came from in (part, by tool), in tx.
func putDerivation(tx *bolt.Tx, dv *Derivation) error {
	b := tx.Bucket(bucketDerivations)
	if b == nil {
		return fmt.Errorf("archive: %s bucket missing", bucketDerivations)
	}
	k, v := encodeDerivation(dv)
	body := v[sha256.Size:]
	if old := b.Get(k); old != nil {
		if was, ok := unseal(k, old); ok && bytes.Equal(was, body) {
			return nil // derived again, the same way: nothing new
		}
	}
	if err := appendLeaf(tx, &archivelog.Leaf{Kind: archivelog.KindDerivation, SHA256: dv.Output, Input: dv.Input, Part: dv.Part, Record: sha256.Sum256(body)}, nil); err != nil {
		return err
	}
	return b.Put(k, v)
}

// encodeDerivation is dv's key and sealed value.
func encodeDerivation(dv *Derivation) (k, v []byte) {
	if dv.Tool.Options == nil {
		dv.Tool.Options = []string{}
	}
	k = derivationKey(dv.Output, dv.Input, dv.Tool, dv.Part)
	body, _ := json.Marshal(derivationJSON{Output: fmt.Sprintf("%x", dv.Output[:]), Input: fmt.Sprintf("%x", dv.Input[:]), Derivation: *dv})
	return k, sealValue(k, body)
}

// derivationsOf returns the checked derivations whose output is out.
func derivationsOf(tx *bolt.Tx, out Digest) ([]Derivation, error) {
	b := tx.Bucket(bucketDerivations)
	if b == nil {
		return nil, nil
	}
	var all []Derivation
	c := b.Cursor()
	for k, v := c.Seek(out[:]); k != nil && bytes.HasPrefix(k, out[:]); k, v = c.Next() {
		dv, err := decodeDerivation(k, v)
		if err != nil {
			return nil, err
		}
		all = append(all, *dv)
	}
	return all, nil
}

func decodeDerivation(k, v []byte) (*Derivation, error) {
	body, ok := unseal(k, v)
	var j derivationJSON
	if len(k) < 72 || !ok || json.Unmarshal(body, &j) != nil || j.Part != string(k[72:]) ||
		j.Output != fmt.Sprintf("%x", k[:32]) || j.Input != fmt.Sprintf("%x", k[32:64]) || toolDigest(j.Tool) != [8]byte(k[64:72]) {
		return nil, fmt.Errorf("%w: a derivation record does not match its digest (run `chronicle check`)", ErrCorrupt)
	}
	dv := j.Derivation
	dv.Output, dv.Input = Digest(k[:32]), Digest(k[32:64])
	return &dv, nil
}

// originOf is the derivation document d came from (the first, when two
// versions of a tool derived it), nil for a text ingested as it is.
func originOf(tx *bolt.Tx, d Digest) (*Derivation, error) {
	dvs, err := derivationsOf(tx, d)
	if err != nil || len(dvs) == 0 {
		return nil, err
	}
	rec, err := originalIn(tx, dvs[0].Input)
	if err != nil {
		return nil, err
	}
	dvs[0].InputKind = rec.Kind
	return &dvs[0], nil
}
