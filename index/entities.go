package index

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"chronicle/engine"
	bolt "go.etcd.io/bbolt"
)

// Role says where a name appears in an event.
type Role byte

// Roles of a name in an event.
const (
	RoleSubject Role = 1
	RoleObject  Role = 2
)

func (r Role) String() string {
	if r == RoleObject {
		return "object"
	}
	return "subject"
}

// EntityRef is one event naming an entity.
type EntityRef struct {
	Seq   uint64 // document sequence number
	Event int    // index of the event in the document's store
	Role  Role
}

func entityKey(name string, seq uint64, event int, role Role) []byte {
	k := make([]byte, 0, len(name)+1+8+4+1)
	k = append(k, name...)
	k = append(k, 0)
	k = binary.BigEndian.AppendUint64(k, seq)
	k = binary.BigEndian.AppendUint32(k, uint32(event))
	return append(k, byte(role))
}

// AddEntities records the subject and object of every event of document
// seq, and keeps what each event was extracted from (line number,
// byte_start, span digest and span bytes: EntitySpan) so that a lookup can
// re-derive the whole event from the index alone (engine.ExtractLine)
// without decompressing the document. src is the document's source.
func AddEntities(tx *bolt.Tx, seq uint64, events []engine.Event, src []byte) error {
	b, spans := tx.Bucket(bucketEntities), tx.Bucket(bucketSpans)
	if b == nil || spans == nil {
		return fmt.Errorf("index: %s or %s bucket missing", bucketEntities, bucketSpans)
	}
	// Spans are keyed by sequence number, so a new document's go after all
	// others: pages can be packed full. A name's entries are keyed by
	// sequence number after the name, so a new document's go at the end of
	// each name's range: nearly append-only too. bbolt's default (half-full
	// pages) suits random inserts and doubled both buckets.
	spans.FillPercent = fillAppend
	b.FillPercent = fillMostlyAppend
	for i := range events {
		v, err := entityValue(&events[i], src)
		if err != nil {
			return err
		}
		// One kept span per event, shared by its subject and object entries.
		if err := spans.Put(spanKey(seq, i), v); err != nil {
			return err
		}
		for _, k := range entityKeys(seq, i, &events[i]) {
			if err := b.Put(k, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// spanKey is seq (u64 BE) ‖ event index (u32 BE).
func spanKey(seq uint64, event int) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(make([]byte, 0, 12), seq), uint32(event))
}

// entityValue is line (u64 BE) ‖ byte_start (u64 BE) ‖ span SHA-256 ‖ span.
func entityValue(e *engine.Event, src []byte) ([]byte, error) {
	if e.ByteStart > e.ByteEnd || e.ByteEnd > uint64(len(src)) {
		return nil, fmt.Errorf("index: event span %d..%d outside the %d-byte source", e.ByteStart, e.ByteEnd, len(src))
	}
	v := make([]byte, 0, SpanHeaderSize+e.ByteEnd-e.ByteStart)
	v = binary.BigEndian.AppendUint64(v, e.LineStart)
	v = binary.BigEndian.AppendUint64(v, e.ByteStart)
	v = append(v, e.SpanHash[:]...)
	return append(v, src[e.ByteStart:e.ByteEnd]...), nil
}

// EntitySpan is what an entity entry keeps of its event.
type EntitySpan struct {
	Line      uint64
	ByteStart uint64
	SpanHash  [32]byte
	Text      []byte
}

// SpanHeaderSize is the size of a kept span's fixed part: line (u64 BE),
// byte_start (u64 BE) and span SHA-256; the span bytes follow.
const SpanHeaderSize = 48

// DecodeEntitySpan decodes a kept span value (Spans.Value). Text aliases
// v: it is valid only as long as v is, so a caller keeping it past the
// transaction copies it. ok is false for a value that does not decode.
func DecodeEntitySpan(v []byte) (sp EntitySpan, ok bool) {
	if len(v) < SpanHeaderSize {
		return EntitySpan{}, false
	}
	sp = EntitySpan{Line: binary.BigEndian.Uint64(v), ByteStart: binary.BigEndian.Uint64(v[8:]), Text: v[SpanHeaderSize:]}
	copy(sp.SpanHash[:], v[16:SpanHeaderSize])
	return sp, true
}

func entityKeys(seq uint64, i int, e *engine.Event) [][]byte {
	return [][]byte{entityKey(e.Subject, seq, i, RoleSubject), entityKey(e.Object, seq, i, RoleObject)}
}

// Entity returns every event whose subject or object is exactly name, in
// document sequence then source order. It reads the entity keys alone (one
// cursor run over the name's keys); Spans reads what each event was
// extracted from.
func Entity(tx *bolt.Tx, name string) ([]EntityRef, error) {
	b, spans := tx.Bucket(bucketEntities), tx.Bucket(bucketSpans)
	if b == nil || spans == nil {
		return nil, fmt.Errorf("index: %s or %s bucket missing", bucketEntities, bucketSpans)
	}
	prefix := append([]byte(name), 0)
	var refs []EntityRef
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		rest := k[len(prefix):]
		if len(rest) != 13 {
			return nil, fmt.Errorf("index: malformed entity key %q", k)
		}
		refs = append(refs, EntityRef{
			Seq:   binary.BigEndian.Uint64(rest),
			Event: int(binary.BigEndian.Uint32(rest[8:])),
			Role:  Role(rest[12]),
		})
	}
	return refs, nil
}

// Spans reads the kept spans of entity entries (one value per event,
// shared by its subject and object entries) through one cursor, for
// lookups in key order: an entity's events cluster in few documents, so a
// lookup near the previous one steps the cursor forward instead of seeking
// from the root of the bucket.
type Spans struct {
	c    *bolt.Cursor
	key  [12]byte
	k, v []byte // where the cursor is; k is nil when it is nowhere
}

// spansStep is how many keys Spans.Value steps over before it seeks.
const spansStep = 32

// NewSpans returns a reader of the kept spans in tx.
func NewSpans(tx *bolt.Tx) (*Spans, error) {
	b := tx.Bucket(bucketSpans)
	if b == nil {
		return nil, fmt.Errorf("index: %s bucket missing", bucketSpans)
	}
	return &Spans{c: b.Cursor()}, nil
}

// Value returns the kept span value of event `event` of document seq (see
// DecodeEntitySpan), or nil when there is none. The bytes belong to the
// transaction: they are valid until it ends and must not be modified.
func (s *Spans) Value(seq uint64, event int) []byte {
	key := s.key[:]
	binary.BigEndian.PutUint64(key, seq)
	binary.BigEndian.PutUint32(key[8:], uint32(event))
	if len(s.k) == len(key) && binary.BigEndian.Uint64(s.k) == seq {
		at := binary.BigEndian.Uint32(s.k[8:])
		if at == uint32(event) {
			return s.v // the other role of the same event
		}
		if at < uint32(event) && uint32(event)-at <= spansStep {
			for range spansStep {
				if s.k, s.v = s.c.Next(); s.k == nil {
					return nil
				}
				switch c := bytes.Compare(s.k, key); {
				case c == 0:
					return s.v
				case c > 0:
					return nil // keys are sorted: there is none
				}
			}
		}
	}
	if s.k, s.v = s.c.Seek(key); !bytes.Equal(s.k, key) {
		return nil
	}
	return s.v
}

// NameCount is a known entity name and the number of events naming it.
type NameCount struct {
	Name   string
	Events int
}

// EntityNames lists the known names starting with prefix, in byte order,
// with the number of events that name them (an event naming an entity as
// both subject and object counts once).
func EntityNames(tx *bolt.Tx, prefix string) ([]NameCount, error) {
	b := tx.Bucket(bucketEntities)
	if b == nil {
		return nil, fmt.Errorf("index: %s bucket missing", bucketEntities)
	}
	var out []NameCount
	var lastEvent []byte
	c := b.Cursor()
	for k, _ := c.Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, _ = c.Next() {
		sep := bytes.IndexByte(k, 0)
		if sep < 0 || len(k)-sep != 14 {
			return nil, fmt.Errorf("index: malformed entity key %q", k)
		}
		name, event := k[:sep], k[:len(k)-1] // event identity: name, seq, index
		if len(out) == 0 || out[len(out)-1].Name != string(name) {
			out = append(out, NameCount{Name: string(name)})
			lastEvent = nil
		}
		if !bytes.Equal(event, lastEvent) {
			out[len(out)-1].Events++
			lastEvent = append(lastEvent[:0], event...)
		}
	}
	return out, nil
}

// CheckEntities counts the entity entries of document seq's events that are
// missing from the index, and kept spans that differ from the event's.
func CheckEntities(tx *bolt.Tx, seq uint64, events []engine.Event, src []byte) (missing int, err error) {
	b, spans := tx.Bucket(bucketEntities), tx.Bucket(bucketSpans)
	if b == nil || spans == nil {
		return 0, fmt.Errorf("index: %s or %s bucket missing", bucketEntities, bucketSpans)
	}
	for i := range events {
		want, err := entityValue(&events[i], src)
		if err != nil {
			return 0, err
		}
		if !bytes.Equal(spans.Get(spanKey(seq, i)), want) {
			missing++
		}
		for _, k := range entityKeys(seq, i, &events[i]) {
			if b.Get(k) == nil {
				missing++
			}
		}
	}
	return missing, nil
}

// StrayEntities counts entity keys that name no event of a known document:
// valid(seq, event, role, name) says whether the key is expected.
func StrayEntities(tx *bolt.Tx, valid func(seq uint64, event int, role Role, name string) bool) (int, error) {
	b := tx.Bucket(bucketEntities)
	if b == nil {
		return 0, fmt.Errorf("index: %s bucket missing", bucketEntities)
	}
	stray := 0
	err := b.ForEach(func(k, _ []byte) error {
		sep := bytes.IndexByte(k, 0)
		if sep < 0 || len(k)-sep != 14 {
			stray++
			return nil
		}
		rest := k[sep+1:]
		if !valid(binary.BigEndian.Uint64(rest), int(binary.BigEndian.Uint32(rest[8:])), Role(rest[12]), string(k[:sep])) {
			stray++
		}
		return nil
	})
	return stray, err
}
