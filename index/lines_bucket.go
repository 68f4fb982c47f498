package index

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// bucketLines maps a document's sequence number (u64 BE) to its line index
// record (BuildLines).
var bucketLines = []byte("lines")

func linesKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// PutLines stores a line index record built by BuildLines for document
// seq.
func PutLines(tx *bolt.Tx, seq uint64, rec []byte) error {
	b := tx.Bucket(bucketLines)
	if b == nil {
		return fmt.Errorf("index: %s bucket missing", bucketLines)
	}
	b.FillPercent = fillAppend // keyed by sequence number
	return b.Put(linesKey(seq), rec)
}

// LinesRecord returns document seq's line index record, nil when it has
// none. The bytes are valid for the life of the transaction only.
func LinesRecord(tx *bolt.Tx, seq uint64) []byte {
	b := tx.Bucket(bucketLines)
	if b == nil {
		return nil
	}
	return b.Get(linesKey(seq))
}

// CheckLines reports whether document seq's stored line index is exactly
// the one its source gives, with its dictionary cut at DictBlock bytes or,
// for a record written before that size, at legacyDictBlock.
func CheckLines(tx *bolt.Tx, seq uint64, src []byte, chunkSize int) bool {
	rec := LinesRecord(tx, seq)
	return bytes.Equal(rec, BuildLines(src, chunkSize)) ||
		rec != nil && bytes.Equal(rec, buildLines(src, chunkSize, legacyDictBlock))
}

// StrayLines counts line index records of unknown documents and malformed
// keys.
func StrayLines(tx *bolt.Tx, known func(seq uint64) bool) (int, error) {
	b := tx.Bucket(bucketLines)
	if b == nil {
		return 0, fmt.Errorf("index: %s bucket missing", bucketLines)
	}
	stray := 0
	err := b.ForEach(func(k, _ []byte) error {
		if len(k) != 8 || !known(binary.BigEndian.Uint64(k)) {
			stray++
		}
		return nil
	})
	return stray, err
}
