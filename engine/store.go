package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Store magics (CONTRACT 3.1): 15 ASCII bytes and one NUL.
var (
	MagicV2 = []byte("CASPER-CHRON-V2\x00")
	MagicV1 = []byte("CASPER-CHRON-V1\x00")
)

const (
	// HeaderSize is the fixed store header: magic, digest, size, time, count.
	HeaderSize = 68
	// minEventRecord is an event record with eight empty text fields.
	minEventRecord = 177
	// maxEventRecord is an event record with eight fields of MaxFieldLen.
	maxEventRecord = minEventRecord + 8*MaxFieldLen
	fixedEventSize = 145
)

// Store is a decoded canonical store: one document and its events.
type Store struct {
	Version    int // 1 or 2, from the magic
	Document   [32]byte
	ImportedAt uint64
	Source     []byte
	Events     []Event
}

// NewStore extracts src with the V2 profile and returns the store a new
// ingest writes. Extraction errors are *ExtractError values.
func NewStore(src []byte, importedAt uint64) (*Store, error) {
	doc := sha256.Sum256(src)
	events, err := Extract(src, doc, ProfileV2)
	if err != nil {
		return nil, err
	}
	return &Store{Version: 2, Document: doc, ImportedAt: importedAt, Source: src, Events: events}, nil
}

// Profile is the parser profile that replays this store's event table.
func (s *Store) Profile() Profile {
	if s.Version == 1 {
		return ProfileV1
	}
	return ProfileV2
}

// EncodedSize is len(s.Encode()).
func (s *Store) EncodedSize() int {
	n := HeaderSize + len(s.Source)
	for i := range s.Events {
		n += fixedEventSize
		for _, f := range s.Events[i].Fields() {
			n += 4 + len(f)
		}
	}
	return n
}

// Encode serialises the store byte for byte as CONTRACT 3.1–3.2. It copies
// the whole source: WriteTo and SHA256 give the same bytes and digest
// without that copy, EncodeEventTable the part after the source.
func (s *Store) Encode() []byte {
	out := s.appendHeader(make([]byte, 0, s.EncodedSize()))
	out = append(out, s.Source...)
	return s.AppendEventTable(out)
}

// appendHeader appends the 68-byte header: magic, document digest, source
// size, import time and event count.
func (s *Store) appendHeader(out []byte) []byte {
	if s.Version == 1 {
		out = append(out, MagicV1...)
	} else {
		out = append(out, MagicV2...)
	}
	out = append(out, s.Document[:]...)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(s.Source)))
	out = binary.LittleEndian.AppendUint64(out, s.ImportedAt)
	return binary.LittleEndian.AppendUint32(out, uint32(len(s.Events)))
}

// EncodeEventTable returns the event table: the bytes of the encoded store
// after the source.
func (s *Store) EncodeEventTable() []byte {
	return s.AppendEventTable(make([]byte, 0, s.EncodedSize()-HeaderSize-len(s.Source)))
}

// AppendEventTable appends the event table to out.
func (s *Store) AppendEventTable(out []byte) []byte {
	for i := range s.Events {
		out = appendEvent(out, &s.Events[i])
	}
	return out
}

// appendEvent appends one event record (CONTRACT 3.2).
func appendEvent(out []byte, e *Event) []byte {
	out = append(out, e.ID[:]...)
	out = append(out, e.SpanID[:]...)
	out = binary.LittleEndian.AppendUint64(out, e.ByteStart)
	out = binary.LittleEndian.AppendUint64(out, e.ByteEnd)
	out = binary.LittleEndian.AppendUint64(out, e.LineStart)
	out = binary.LittleEndian.AppendUint64(out, e.LineEnd)
	out = append(out, e.SpanHash[:]...)
	if e.AmountPresent {
		out = append(out, 1)
	} else {
		out = append(out, 0)
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(e.Amount.Num))
	out = binary.LittleEndian.AppendUint64(out, uint64(e.Amount.Den))
	for _, f := range e.Fields() {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(f)))
		out = append(out, f...)
	}
	return out
}

// writeBatch bounds the buffer WriteTo encodes event records into: a full
// table of 4096 events can reach 4.9 MB.
const writeBatch = 32 << 10

// WriteTo writes exactly Encode's bytes to w, the source straight from
// s.Source and the event table in batches of at most writeBatch bytes, so
// that writing (or hashing) a store never holds a second copy of its
// source.
func (s *Store) WriteTo(w io.Writer) (int64, error) {
	buf := s.appendHeader(make([]byte, 0, writeBatch))
	var written int64
	flush := func() error {
		n, err := w.Write(buf)
		written += int64(n)
		buf = buf[:0]
		return err
	}
	if err := flush(); err != nil {
		return written, err
	}
	n, err := w.Write(s.Source)
	written += int64(n)
	if err != nil {
		return written, err
	}
	for i := range s.Events {
		buf = appendEvent(buf, &s.Events[i])
		if len(buf) > writeBatch-maxEventRecord {
			if err := flush(); err != nil {
				return written, err
			}
		}
	}
	if len(buf) > 0 {
		err = flush()
	}
	return written, err
}

// SHA256 is the SHA-256 of Encode's bytes, computed without encoding the
// store (the store_sha256 of its receipts).
func (s *Store) SHA256() [32]byte {
	h := sha256.New()
	s.WriteTo(h) // a hash.Hash never fails to write
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// Sentinel errors of Load; a *StoreError wraps exactly one of them.
var (
	// ErrNotStore: the bytes do not start with a store magic.
	ErrNotStore = errors.New("not a Chronicle store")
	// ErrMalformed: the layout is broken (truncated, oversized, trailing
	// bytes, invalid field values).
	ErrMalformed = errors.New("malformed store")
	// ErrDigest: the source does not hash to the header digest.
	ErrDigest = errors.New("document digest mismatch")
	// ErrReplay: re-extracting the source does not give the stored events.
	ErrReplay = errors.New("event table differs from canonical replay")
)

// StoreError says why store bytes were rejected and where.
type StoreError struct {
	Offset int    // byte offset in the store file
	Detail string // the check that failed
	Err    error  // sentinel
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("%v at byte %d: %s", e.Err, e.Offset, e.Detail)
}

// Unwrap returns the sentinel error.
func (e *StoreError) Unwrap() error { return e.Err }

func storeErr(sentinel error, off int, format string, args ...any) error {
	return &StoreError{Offset: off, Err: sentinel, Detail: fmt.Sprintf(format, args...)}
}

// storeReader reads little-endian fields and remembers its offset.
type storeReader struct {
	b   []byte
	off int
}

// need fails unless n bytes remain; what (formatted with args only on
// failure, to keep the hot path free of allocations) names the field.
func (r *storeReader) need(n int, what string, args ...any) error {
	if len(r.b)-r.off < n {
		return storeErr(ErrMalformed, r.off, "truncated %s: need %d bytes, %d left", fmt.Sprintf(what, args...), n, len(r.b)-r.off)
	}
	return nil
}

func (r *storeReader) bytes(n int) []byte {
	b := r.b[r.off : r.off+n]
	r.off += n
	return b
}

func (r *storeReader) u64() uint64 { return binary.LittleEndian.Uint64(r.bytes(8)) }
func (r *storeReader) u32() uint32 { return binary.LittleEndian.Uint32(r.bytes(4)) }

// Load parses store bytes and accepts them only if every check of CONTRACT 3.3
// holds, including the canonical replay of the event table with the parser
// profile of the magic. Source in the returned store aliases data.
func Load(data []byte) (*Store, error) {
	s, err := decode(data)
	if err != nil {
		return nil, err
	}
	if off, ok := InvalidTextOffset(s.Source); !ok {
		return nil, storeErr(ErrMalformed, HeaderSize+off, "source is not strict UTF-8 text")
	}
	if sha256.Sum256(s.Source) != s.Document {
		return nil, storeErr(ErrDigest, 16, "SHA-256 of the stored source differs from the header digest")
	}
	// decode bounded the size and the check above validated the text, so
	// the replay runs the grammars without validating 8 MiB again.
	replayed, err := extractLines(s.Source, s.Document, s.Profile())
	if err != nil {
		return nil, storeErr(ErrReplay, HeaderSize, "source no longer extracts: %v", err)
	}
	if len(replayed) != len(s.Events) {
		return nil, storeErr(ErrReplay, 64, "store holds %d events, the V%d replay extracts %d", len(s.Events), s.Version, len(replayed))
	}
	for i := range replayed {
		if replayed[i] != s.Events[i] {
			return nil, storeErr(ErrReplay, HeaderSize+len(s.Source),
				"event %d (line %d) differs from the V%d replay", i+1, s.Events[i].LineStart, s.Version)
		}
	}
	return s, nil
}

// decode checks the layout (CONTRACT 3.3 points 1–5) without validating content.
func decode(data []byte) (*Store, error) {
	r := &storeReader{b: data}
	if len(data) < len(MagicV2) {
		return nil, storeErr(ErrNotStore, 0, "file is %d bytes, shorter than the 16-byte magic", len(data))
	}
	s := &Store{}
	switch magic := r.bytes(len(MagicV2)); {
	case bytes.Equal(magic, MagicV2):
		s.Version = 2
	case bytes.Equal(magic, MagicV1):
		s.Version = 1
	default:
		return nil, storeErr(ErrNotStore, 0, "magic is not CASPER-CHRON-V2 or CASPER-CHRON-V1")
	}
	if err := r.need(HeaderSize-len(MagicV2), "header"); err != nil {
		return nil, err
	}
	copy(s.Document[:], r.bytes(32))
	sourceSize := r.u64()
	s.ImportedAt = r.u64()
	count := r.u32()
	if count > MaxEvents {
		return nil, storeErr(ErrMalformed, 64, "event_count %d exceeds %d", count, MaxEvents)
	}
	if sourceSize > MaxSourceSize {
		return nil, storeErr(ErrMalformed, 48, "source_size %d exceeds %d", sourceSize, MaxSourceSize)
	}
	rest := uint64(len(data) - HeaderSize)
	if sourceSize > rest || uint64(count) > (rest-sourceSize)/minEventRecord {
		return nil, storeErr(ErrMalformed, 48, "source_size %d and event_count %d do not fit the %d bytes after the header",
			sourceSize, count, rest)
	}
	s.Source = r.bytes(int(sourceSize))
	events, err := decodeEvents(r, int(count), sourceSize)
	if err != nil {
		return nil, err
	}
	s.Events = events
	return s, nil
}

// decodeEvents reads exactly count event records up to the end of r.
func decodeEvents(r *storeReader, count int, sourceSize uint64) ([]Event, error) {
	events := make([]Event, count)
	for i := range events {
		if err := decodeEvent(r, &events[i], sourceSize, i+1); err != nil {
			return nil, err
		}
	}
	if r.off != len(r.b) {
		return nil, storeErr(ErrMalformed, r.off, "%d bytes follow the last event", len(r.b)-r.off)
	}
	return events, nil
}

// DecodeEventTable parses an event table (the bytes after the source in a
// store) with the layout checks of CONTRACT 3.3 point 4 and 5 but without the
// canonical replay. The archive uses it for tables whose digest it has
// already checked; offsets in errors are relative to the table.
func DecodeEventTable(table []byte, count int, sourceSize uint64) ([]Event, error) {
	if count < 0 || count > MaxEvents || count > len(table)/minEventRecord {
		return nil, storeErr(ErrMalformed, 0, "event_count %d does not fit a %d-byte event table", count, len(table))
	}
	return decodeEvents(&storeReader{b: table}, count, sourceSize)
}

func decodeEvent(r *storeReader, e *Event, sourceSize uint64, n int) error {
	start := r.off
	if err := r.need(fixedEventSize, "event %d", n); err != nil {
		return err
	}
	copy(e.ID[:], r.bytes(32))
	copy(e.SpanID[:], r.bytes(32))
	e.ByteStart, e.ByteEnd, e.LineStart, e.LineEnd = r.u64(), r.u64(), r.u64(), r.u64()
	copy(e.SpanHash[:], r.bytes(32))
	present := r.bytes(1)[0]
	num, den := r.u64(), r.u64()
	switch {
	case present > 1:
		return storeErr(ErrMalformed, start+128, "event %d: amount_present is %d, want 0 or 1", n, present)
	case den == 0:
		return storeErr(ErrMalformed, start+137, "event %d: amount denominator is 0", n)
	case num > math.MaxInt64 || den > math.MaxInt64:
		return storeErr(ErrMalformed, start+129, "event %d: amount part exceeds 2^63-1", n)
	case e.ByteStart > e.ByteEnd || e.ByteEnd > sourceSize:
		return storeErr(ErrMalformed, start+64, "event %d: span %d..%d outside the %d-byte source", n, e.ByteStart, e.ByteEnd, sourceSize)
	}
	e.AmountPresent = present == 1
	e.Amount = Rational{Num: int64(num), Den: int64(den)}
	var text [8]string
	for k := range text {
		if err := r.need(4, "event %d field length", n); err != nil {
			return err
		}
		at := r.off
		length := r.u32()
		if length > MaxFieldLen {
			return storeErr(ErrMalformed, at, "event %d: text field %d is %d bytes, the limit is %d", n, k+1, length, MaxFieldLen)
		}
		if err := r.need(int(length), "event %d text field %d", n, k+1); err != nil {
			return err
		}
		b := r.bytes(int(length))
		if !ValidText(b) {
			return storeErr(ErrMalformed, at+4, "event %d: text field %d is not strict UTF-8 text", n, k+1)
		}
		text[k] = string(b)
	}
	e.Subject, e.Predicate, e.Object, e.Currency = text[0], text[1], text[2], text[3]
	e.Time, e.Modality, e.Polarity, e.Status = text[4], text[5], text[6], text[7]
	return nil
}
