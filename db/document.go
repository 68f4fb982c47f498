package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/casper-chronicle/chronicle/engine"
)

// Digest is a SHA-256 digest; it renders as 64 lowercase hex digits.
type Digest [32]byte

func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// Short is the 12-digit prefix shown in listings.
func (d Digest) Short() string { return d.String()[:12] }

// MarshalText renders hex.
func (d Digest) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses 64 lowercase hex digits, the only spelling the
// archive writes (uppercase would be other bytes for the same digest).
func (d *Digest) UnmarshalText(b []byte) error {
	if len(b) != 64 {
		return fmt.Errorf("digest %q is not 64 hex digits", b)
	}
	if _, err := hex.Decode(d[:], b); err != nil {
		return err
	}
	if !bytes.Equal(b, hex.AppendEncode(nil, d[:])) {
		return fmt.Errorf("digest %q is not lowercase hex", b)
	}
	return nil
}

// Document is the record of one stored document: enough to rebuild its
// canonical store and to check every byte read back.
type Document struct {
	SHA256       Digest `json:"sha256"`        // of the source bytes; the document's identity
	Seq          uint64 `json:"seq"`           // import order, from 1
	Version      int    `json:"version"`       // store version: 2, or 1 for imported legacy stores
	ImportedAt   uint64 `json:"imported_at"`   // the store's imported_at (first import)
	SourceSize   int64  `json:"source_size"`   // bytes
	EventCount   int    `json:"event_count"`   // events in the store
	StoreSHA256  Digest `json:"store_sha256"`  // of the canonical store bytes
	EventsSHA256 Digest `json:"events_sha256"` // of the canonical event table
	// FrameSHA256 is the SHA-256 of the stored (compressed) event table
	// frame, kept since schema 7: a read that needs the table intact but
	// not its events checks it without decompressing. Nil for documents
	// stored before.
	FrameSHA256 *Digest  `json:"events_frame_sha256,omitempty"`
	ChunkSize   int      `json:"chunk_size"`      // source bytes per compressed chunk
	Codec       string   `json:"codec,omitempty"` // chunk frames: CodecS2, or "" for zstd (schema ≤ 5)
	StoredBytes int64    `json:"stored_bytes"`    // compressed source and event table
	Names       []string `json:"names"`           // aliases, first one first
	// Sources maps each name that was a file path to the cleaned
	// absolute path it was read from (schema 12; names.go): DOC
	// arguments written as another path to the same file find it.
	Sources map[string]string `json:"sources,omitempty"`
	// From is the original file the document was derived from, set by
	// the reads that ask for it (ListOptions.Origins); never stored.
	From *Derivation `json:"-"`
}

// Imported is ImportedAt as a time.
func (d *Document) Imported() time.Time { return time.Unix(int64(d.ImportedAt), 0).UTC() }

// Label is how listings refer to the document: its first name, else its
// hash prefix.
func (d *Document) Label() string {
	if len(d.Names) > 0 {
		return d.Names[0]
	}
	return d.SHA256.Short()
}

// Chunks is the number of source chunks.
func (d *Document) Chunks() int {
	if d.ChunkSize <= 0 {
		return 0
	}
	return int((d.SourceSize + int64(d.ChunkSize) - 1) / int64(d.ChunkSize))
}

func (d *Document) hasName(name string) bool {
	for _, n := range d.Names {
		if n == name {
			return true
		}
	}
	return false
}

// A document record (schema 9) is its JSON object with a last member
// "record_sha256": the SHA-256 of the record's key (the document digest)
// followed by the object without that member. Every read checks it, so no
// field of a record (size, events, import time, sequence, names) is used
// unless it is the one written.
const recordTag = `,"record_sha256":"`

// recordTail is the length of the digest member and the closing brace.
const recordTail = len(recordTag) + 64 + 2

func recordDigest(key, body []byte) Digest {
	h := sha256.New()
	h.Write(key)
	h.Write(body)
	return Digest(h.Sum(nil))
}

func (d *Document) encode() []byte {
	b, err := json.Marshal(d)
	if err != nil {
		panic(err) // a Document always marshals
	}
	sum := recordDigest(d.SHA256[:], b)
	out := make([]byte, 0, len(b)+recordTail)
	out = append(out, b[:len(b)-1]...)
	out = append(out, recordTag...)
	out = hex.AppendEncode(out, sum[:])
	return append(out, '"', '}')
}

// splitRecord returns the body of a record whose digest member checks, and
// false for a record without a valid one.
func splitRecord(key, value []byte) ([]byte, Digest, bool) {
	if len(value) < recordTail+2 || !bytes.HasSuffix(value, []byte(`"}`)) {
		return nil, Digest{}, false
	}
	at := len(value) - recordTail
	if !bytes.Equal(value[at:at+len(recordTag)], []byte(recordTag)) {
		return nil, Digest{}, false
	}
	var want Digest
	digits := value[at+len(recordTag) : len(value)-2]
	if _, err := hex.Decode(want[:], digits); err != nil {
		return nil, Digest{}, false
	}
	// Only the canonical lowercase digits: hex.Decode also takes
	// uppercase, and a record whose bytes changed must not check.
	if !bytes.Equal(digits, hex.AppendEncode(nil, want[:])) {
		return nil, Digest{}, false
	}
	body := append(bytes.Clone(value[:at]), '}')
	return body, want, recordDigest(key, body) == want
}

// decodeDocument decodes a document record and checks its digest.
func decodeDocument(key, value []byte) (*Document, error) {
	body, digest, ok := splitRecord(key, value)
	if !ok {
		return nil, fmt.Errorf("document %x: %w: its record does not match its digest (run `chronicle check`; restore the archive from a copy)", key, ErrCorrupt)
	}
	if !keepDecoded.Load() {
		return decodeRecord(key, body)
	}
	if d := decoded.get(digest); d != nil {
		return d, nil
	}
	d, err := decodeRecord(key, body)
	if err == nil {
		decoded.put(digest, d)
	}
	return d, err
}

// keepDecoded turns the cache of decoded records on (KeepDecodedRecords).
var keepDecoded atomic.Bool

// KeepDecodedRecords makes this process keep the document records it
// decodes, by their digests, for the next request: for the processes that
// answer many (chronicle serve, mcp, the interactive REPL). A command run
// once would only pay for the copies.
func KeepDecodedRecords() { keepDecoded.Store(true) }

// decoded keeps the documents decoded from records by the records'
// digests, once KeepDecodedRecords was called, for the processes that
// answer many requests (chronicle serve, mcp, the REPL), each of which
// opens the archive anew: an entity or
// settle lookup decodes the record of every document with a matching
// event, and encoding/json was half of that. A record's digest is checked
// on every read before it is looked up here, and it covers the key and
// every byte of the record, so the same digest is the same record and
// decodes to the same document. Callers get a copy they may change.
var decoded = &recordCache{m: map[Digest]*Document{}}

// maxDecoded bounds the cache: 131,072 documents of about a kilobyte
// each, so at most about 128 MiB of a server's heap; a full cache starts
// again empty.
const maxDecoded = 1 << 17

type recordCache struct {
	mu sync.Mutex
	m  map[Digest]*Document
}

func (c *recordCache) get(digest Digest) *Document {
	c.mu.Lock()
	d := c.m[digest]
	c.mu.Unlock()
	if d == nil {
		return nil
	}
	return d.clone()
}

func (c *recordCache) put(digest Digest, d *Document) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxDecoded {
		clear(c.m)
	}
	c.m[digest] = d.clone()
}

// clone is a copy of d sharing nothing with it.
func (d *Document) clone() *Document {
	c := *d
	c.Names = slices.Clone(d.Names)
	c.Sources = maps.Clone(d.Sources)
	if d.FrameSHA256 != nil {
		f := *d.FrameSHA256
		c.FrameSHA256 = &f
	}
	return &c
}

// decodeLegacyDocument decodes a record written before schema 9 (no
// digest member) or after.
func decodeLegacyDocument(key, value []byte) (*Document, error) {
	if body, _, ok := splitRecord(key, value); ok {
		return decodeRecord(key, body)
	}
	return decodeRecord(key, value)
}

func decodeRecord(key, value []byte) (*Document, error) {
	var d Document
	if err := json.Unmarshal(value, &d); err != nil {
		return nil, fmt.Errorf("document %x: %w: record: %v", key, ErrCorrupt, err)
	}
	if string(d.SHA256[:]) != string(key) {
		return nil, fmt.Errorf("document %x: %w: record names document %s", key, ErrCorrupt, d.SHA256)
	}
	if d.Codec != "" && d.Codec != CodecS2 {
		return nil, fmt.Errorf("document %x: %w: unknown chunk codec %q", key, ErrCorrupt, d.Codec)
	}
	// Reads divide by ChunkSize and size buffers from these fields.
	if d.ChunkSize <= 0 || d.SourceSize < 0 || d.SourceSize > engine.MaxSourceSize ||
		d.EventCount < 0 || d.EventCount > engine.MaxEvents {
		return nil, fmt.Errorf("document %x: %w: record has chunk_size %d, source_size %d, event_count %d",
			key, ErrCorrupt, d.ChunkSize, d.SourceSize, d.EventCount)
	}
	return &d, nil
}
