package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// spanHeaderSize16 is the fixed part of a kept span before schema 17:
// line ‖ byte_start ‖ span SHA-256 ‖ tag, the tag being the first 8 bytes
// of SHA-256(key ‖ the 48 bytes before it).
const spanHeaderSize16 = 56

// UpgradeSpans rewrites every kept span of schema 16 in the current
// format, adding its document's SHA-256 and store version (docOf, called
// once per document in sequence order). A value whose header does not
// match its tag, or a document docOf cannot give, fails with ErrDamaged
// before anything is written: the caller rebuilds the indexes from the
// documents instead.
//
// The new values are put in key order once the walk is over (bbolt must
// not be written under a running cursor), into pages packed full, as
// AddEntities packs them.
func UpgradeSpans(tx *bolt.Tx, docOf func(seq uint64) (SpanDoc, error)) error {
	b := tx.Bucket(bucketSpans)
	if b == nil {
		return fmt.Errorf("index: %s bucket missing", bucketSpans)
	}
	type entry struct{ k, v []byte }
	var out []entry
	var doc SpanDoc
	var docSeq uint64
	err := b.ForEach(func(k, v []byte) error {
		if len(k) != 12 || len(v) < spanHeaderSize16 {
			return fmt.Errorf("%w: kept span %x is malformed", ErrDamaged, k)
		}
		tag := sha256.Sum256(append(append(make([]byte, 0, 12+spanHeaderSize16-8), k...), v[:spanHeaderSize16-8]...))
		if !bytes.Equal(tag[:8], v[spanHeaderSize16-8:spanHeaderSize16]) {
			return fmt.Errorf("%w: kept span %x does not match its digest", ErrDamaged, k)
		}
		seq, event := binary.BigEndian.Uint64(k), int(binary.BigEndian.Uint32(k[8:]))
		if len(out) == 0 || seq != docSeq {
			var err error
			if doc, err = docOf(seq); err != nil {
				return fmt.Errorf("%w: kept span %x: %v", ErrDamaged, k, err)
			}
			docSeq = seq
		}
		nv := make([]byte, 0, len(v)+SpanHeaderSize-spanHeaderSize16)
		nv = append(nv, v[:48]...) // line, byte_start, span SHA-256
		nv = append(nv, doc.SHA256[:]...)
		nv = append(nv, doc.Version)
		nv = append(nv, spanTag(seq, event, nv)...)
		out = append(out, entry{bytes.Clone(k), append(nv, v[spanHeaderSize16:]...)})
		return nil
	})
	if err != nil {
		return err
	}
	b.FillPercent = fillAppend
	for _, e := range out {
		if err := b.Put(e.k, e.v); err != nil {
			return err
		}
	}
	return nil
}
