package db

import (
	"bytes"
	"slices"

	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/s2"

	bolt "go.etcd.io/bbolt"
)

// ChunkSize is the number of source bytes per compressed frame of a new
// document (each document records its own: older ones keep 64 KiB). Every
// line find lists, and every evidence span, costs decompressing and
// hashing its chunk, so smaller chunks make each listed line cheaper. The
// price is S2 finding less repetition in a smaller frame and bbolt
// rounding each frame up to whole pages: a larger archive for the same
// sources (figures in cmd/benchreal/PERFORMANCE.md).
const ChunkSize = 16 << 10

// newChunkSize is the chunk size of the documents a writes (ChunkSize
// unless a test set another).
func (a *Archive) newChunkSize() int {
	if a.chunkSize > 0 {
		return a.chunkSize
	}
	return ChunkSize
}

// ErrCorrupt: bytes read back from the archive do not match their digests.
var ErrCorrupt = errors.New("archive corruption")

func chunkKey(doc Digest, i int) []byte {
	k := make([]byte, 36)
	copy(k, doc[:])
	binary.BigEndian.PutUint32(k[32:], uint32(i))
	return k
}

// CodecS2 names S2 chunk frames (klauspost/compress/s2), used for every
// document stored since schema 6. On mixed Arabic/English prose
// (BenchmarkChunkCodec) S2 (better) keeps somewhat more of the bytes than
// zstd but decodes much faster, and zstd decoding dominated cross-archive
// find, so S2's faster scans win over zstd's smaller archive (both far
// below the sources' size; figures in cmd/benchreal/PERFORMANCE.md).
// Older documents keep their zstd chunks.
const CodecS2 = "s2"

// compressSource cuts src into S2 frames of chunkSize bytes. Each frame is
// encoded into one scratch buffer and copied out at its size: encoding
// into a new buffer would keep s2.MaxEncodedLen (76 KiB) per chunk alive
// until the commit, 5.6 MB for a 5 MB document of any compressibility.
func compressSource(src []byte, chunkSize int) [][]byte {
	var frames [][]byte
	scratch := make([]byte, s2.MaxEncodedLen(chunkSize))
	for i := 0; i*chunkSize < len(src); i++ {
		end := min((i+1)*chunkSize, len(src))
		frames = append(frames, bytes.Clone(s2.EncodeBetter(scratch, src[i*chunkSize:end])))
	}
	return frames
}

// putSource stores a document's frames (compressSource); it returns their
// total size.
func (a *Archive) putSource(tx *bolt.Tx, doc Digest, frames [][]byte) (int64, error) {
	chunks := tx.Bucket(bucketChunks)
	var stored int64
	for i, frame := range frames {
		stored += int64(len(frame))
		if err := chunks.Put(chunkKey(doc, i), frame); err != nil {
			return 0, err
		}
	}
	return stored, nil
}

// readChunks decompresses chunks [first, last] of a document.
func (a *Archive) readChunks(tx *bolt.Tx, d *Document, first, last int) ([]byte, error) {
	return a.appendChunks(tx, d, make([]byte, 0, (last-first+1)*d.ChunkSize), first, last)
}

// appendChunks decompresses chunks [first, last] of a document onto out
// (Rebuild decompresses a whole source straight into its store bytes).
func (a *Archive) appendChunks(tx *bolt.Tx, d *Document, out []byte, first, last int) ([]byte, error) {
	chunks := tx.Bucket(bucketChunks)
	for i := first; i <= last; i++ {
		frame := chunks.Get(chunkKey(d.SHA256, i))
		if frame == nil {
			return nil, fmt.Errorf("document %s (%s): %w: chunk %d is missing", d.Label(), d.SHA256, ErrCorrupt, i)
		}
		want := min(d.ChunkSize, int(d.SourceSize)-i*d.ChunkSize)
		before := len(out)
		var err error
		if d.Codec == CodecS2 {
			out, err = decodeS2(frame, out, want)
		} else {
			out, err = a.dec.DecodeAll(frame, out)
		}
		if err != nil {
			return nil, fmt.Errorf("document %s (%s): %w: chunk %d: %v", d.Label(), d.SHA256, ErrCorrupt, i, err)
		}
		if len(out)-before != want {
			return nil, fmt.Errorf("document %s (%s): %w: chunk %d holds %d bytes, want %d", d.Label(), d.SHA256, ErrCorrupt, i, len(out)-before, want)
		}
	}
	return out, nil
}

// decodeS2 appends the decoded S2 block to out; a block that does not
// decode to exactly want bytes is refused before anything is allocated.
func decodeS2(frame, out []byte, want int) ([]byte, error) {
	n, err := s2.DecodedLen(frame)
	if err != nil {
		return out, err
	}
	if n != want {
		return out, fmt.Errorf("block decodes to %d bytes, want %d", n, want)
	}
	out = slices.Grow(out, n)
	if _, err := s2.Decode(out[len(out):len(out)+n], frame); err != nil {
		return out, err
	}
	return out[:len(out)+n], nil
}

// readSource decompresses a whole document and checks its SHA-256.
func (a *Archive) readSource(tx *bolt.Tx, d *Document) ([]byte, error) {
	if d.SourceSize == 0 {
		return []byte{}, nil
	}
	reclaimBefore(d.SourceSize)
	src, err := a.appendChunks(tx, d, make([]byte, 0, d.SourceSize), 0, d.Chunks()-1)
	if err != nil {
		return nil, err
	}
	if Digest(sha256.Sum256(src)) != d.SHA256 {
		return nil, fmt.Errorf("document %s (%s): %w: source bytes do not hash to the document digest", d.Label(), d.SHA256, ErrCorrupt)
	}
	return src, nil
}

// spanReader re-reads evidence spans of one document: it decompresses only
// the chunks covering the spans asked for, each chunk at most once, and
// checks every span against its SHA-256.
type spanReader struct {
	a      *Archive
	tx     *bolt.Tx
	d      *Document
	chunks map[int][]byte
}

func (a *Archive) newSpanReader(tx *bolt.Tx, d *Document) *spanReader {
	return &spanReader{a: a, tx: tx, d: d, chunks: map[int][]byte{}}
}

// span returns a copy of source[start:end] after checking it hashes to want.
func (r *spanReader) span(start, end uint64, want [32]byte) ([]byte, error) {
	d := r.d
	if end < start || end > uint64(d.SourceSize) {
		return nil, fmt.Errorf("document %s (%s): %w: span %d..%d outside the source", d.Label(), d.SHA256, ErrCorrupt, start, end)
	}
	out := make([]byte, 0, end-start)
	for pos := start; pos < end; {
		c := int(pos) / d.ChunkSize
		chunk, ok := r.chunks[c]
		if !ok {
			var err error
			if chunk, err = r.a.readChunks(r.tx, d, c, c); err != nil {
				return nil, err
			}
			r.chunks[c] = chunk
		}
		from := pos - uint64(c*d.ChunkSize)
		to := min(uint64(len(chunk)), end-uint64(c*d.ChunkSize))
		out = append(out, chunk[from:to]...)
		pos += to - from
	}
	if sha256.Sum256(out) != want {
		return nil, fmt.Errorf("document %s (%s): %w: span %d..%d does not hash to its span digest", d.Label(), d.SHA256, ErrCorrupt, start, end)
	}
	return out, nil
}
