package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// ChunkSize is the number of source bytes per compressed frame: small
// enough that re-reading one evidence span decompresses little, large
// enough for zstd to find repetition.
const ChunkSize = 64 << 10

// ErrCorrupt: bytes read back from the archive do not match their digests.
var ErrCorrupt = errors.New("archive corruption")

func chunkKey(doc Digest, i int) []byte {
	k := make([]byte, 36)
	copy(k, doc[:])
	binary.BigEndian.PutUint32(k[32:], uint32(i))
	return k
}

// putSource stores src as zstd frames of ChunkSize bytes; it returns the
// compressed size.
func (a *Archive) putSource(tx *bolt.Tx, doc Digest, src []byte) (int64, error) {
	chunks := tx.Bucket(bucketChunks)
	var stored int64
	for i := 0; i*ChunkSize < len(src); i++ {
		end := min((i+1)*ChunkSize, len(src))
		frame := a.enc.EncodeAll(src[i*ChunkSize:end], nil)
		stored += int64(len(frame))
		if err := chunks.Put(chunkKey(doc, i), frame); err != nil {
			return 0, err
		}
	}
	return stored, nil
}

// readChunks decompresses chunks [first, last] of a document.
func (a *Archive) readChunks(tx *bolt.Tx, d *Document, first, last int) ([]byte, error) {
	chunks := tx.Bucket(bucketChunks)
	out := make([]byte, 0, (last-first+1)*d.ChunkSize)
	for i := first; i <= last; i++ {
		frame := chunks.Get(chunkKey(d.SHA256, i))
		if frame == nil {
			return nil, fmt.Errorf("document %s (%s): %w: chunk %d is missing", d.Label(), d.SHA256, ErrCorrupt, i)
		}
		var err error
		before := len(out)
		out, err = a.dec.DecodeAll(frame, out)
		if err != nil {
			return nil, fmt.Errorf("document %s (%s): %w: chunk %d: %v", d.Label(), d.SHA256, ErrCorrupt, i, err)
		}
		want := min(d.ChunkSize, int(d.SourceSize)-i*d.ChunkSize)
		if len(out)-before != want {
			return nil, fmt.Errorf("document %s (%s): %w: chunk %d holds %d bytes, want %d", d.Label(), d.SHA256, ErrCorrupt, i, len(out)-before, want)
		}
	}
	return out, nil
}

// readSource decompresses a whole document and checks its SHA-256.
func (a *Archive) readSource(tx *bolt.Tx, d *Document) ([]byte, error) {
	if d.SourceSize == 0 {
		return []byte{}, nil
	}
	src, err := a.readChunks(tx, d, 0, d.Chunks()-1)
	if err != nil {
		return nil, err
	}
	if Digest(sha256.Sum256(src)) != d.SHA256 {
		return nil, fmt.Errorf("document %s (%s): %w: source bytes do not hash to the document digest", d.Label(), d.SHA256, ErrCorrupt)
	}
	return src, nil
}

// readSpan decompresses only the chunks covering [start, end) and checks the
// span against its SHA-256.
func (a *Archive) readSpan(tx *bolt.Tx, d *Document, start, end uint64, want [32]byte) ([]byte, error) {
	if end < start || end > uint64(d.SourceSize) {
		return nil, fmt.Errorf("document %s (%s): %w: span %d..%d outside the source", d.Label(), d.SHA256, ErrCorrupt, start, end)
	}
	if start == end {
		return checkSpan(d, nil, start, end, want)
	}
	first, last := int(start)/d.ChunkSize, int(end-1)/d.ChunkSize
	buf, err := a.readChunks(tx, d, first, last)
	if err != nil {
		return nil, err
	}
	off := uint64(first * d.ChunkSize)
	return checkSpan(d, buf[start-off:end-off], start, end, want)
}

func checkSpan(d *Document, span []byte, start, end uint64, want [32]byte) ([]byte, error) {
	if sha256.Sum256(span) != want {
		return nil, fmt.Errorf("document %s (%s): %w: span %d..%d does not hash to its span digest", d.Label(), d.SHA256, ErrCorrupt, start, end)
	}
	return bytes.Clone(span), nil
}
