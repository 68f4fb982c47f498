package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"sync"

	"github.com/casper-chronicle/chronicle/engine"
	bolt "go.etcd.io/bbolt"
)

// Role says where a name appears in an event.
type Role byte

// Roles of a name in an event.
const (
	RoleSubject Role = 1
	RoleObject  Role = 2
)

// crcTable tags the entity index keys. It is built on first use: built at
// package init, its 16 KiB of tables were a cost of every command's
// start-up.
var crcTable = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

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

// SpanDoc is what every kept span says of its document: its SHA-256 and
// its store version (whose grammar profile re-derives the event), so that
// a lookup re-derives and names each event without reading the document's
// record.
type SpanDoc struct {
	SHA256  [32]byte
	Version byte // the store version: 1 or 2
}

// AddEntities records the subject and object of every event of document
// seq, and keeps what each event was extracted from (the document, line
// number, byte_start, span digest and span bytes: EntitySpan) so that a
// lookup can re-derive the whole event from the index alone
// (engine.ExtractLine) without reading the document. src is the document's
// source.
func AddEntities(tx *bolt.Tx, seq uint64, doc SpanDoc, events []engine.Event, src []byte) error {
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
	added := map[string]uint64{}
	var order []string
	for i := range events {
		v, err := entityValue(seq, i, doc, &events[i], src)
		if err != nil {
			return err
		}
		// One kept span per event, shared by its subject and object entries.
		if err := spans.Put(spanKey(seq, i), v); err != nil {
			return err
		}
		for _, name := range []string{events[i].Subject, events[i].Object} {
			if added[name] == 0 {
				order = append(order, name)
			}
			added[name]++
		}
		for _, k := range entityKeys(seq, i, &events[i]) {
			if err := b.Put(k, entityTag(k)); err != nil {
				return err
			}
		}
	}
	counts := tx.Bucket(bucketEntityCounts)
	if counts == nil {
		return fmt.Errorf("index: %s bucket missing", bucketEntityCounts)
	}
	for _, name := range order {
		n := uint64(0)
		if v := counts.Get([]byte(name)); v != nil {
			var ok bool
			if n, ok = decodeEntityCount(name, v); !ok {
				return fmt.Errorf("%w: the entity count of %q does not match its digest (run `chronicle check`, then `chronicle reindex`)", ErrDamaged, name)
			}
		}
		if err := counts.Put([]byte(name), entityCount(name, n+added[name])); err != nil {
			return err
		}
	}
	return nil
}

// ErrDamaged: an index entry does not match its digest or the entries it
// accounts for.
var ErrDamaged = errors.New("damaged index entry")

// bucketEntityCounts maps an entity name to the number of its entity keys
// (u64 BE) and a tag binding both (entityCount): a lookup or listing that
// finds a different number of keys under the name fails instead of
// answering without the entries a damaged key lost.
var bucketEntityCounts = []byte("entity_counts")

func entityCountTag(name string, n uint64) []byte {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(binary.BigEndian.AppendUint64(nil, n))
	return h.Sum(nil)[:8]
}

func entityCount(name string, n uint64) []byte {
	return append(binary.BigEndian.AppendUint64(make([]byte, 0, 16), n), entityCountTag(name, n)...)
}

func decodeEntityCount(name string, v []byte) (uint64, bool) {
	if len(v) != 16 {
		return 0, false
	}
	n := binary.BigEndian.Uint64(v)
	return n, bytes.Equal(v[8:], entityCountTag(name, n))
}

// checkEntityCount checks that name has exactly n entity keys.
func checkEntityCount(tx *bolt.Tx, name string, n int) error {
	counts := tx.Bucket(bucketEntityCounts)
	if counts == nil {
		return fmt.Errorf("index: %s bucket missing", bucketEntityCounts)
	}
	v := counts.Get([]byte(name))
	if v == nil && n == 0 {
		return nil
	}
	want, ok := decodeEntityCount(name, v)
	switch {
	case v == nil:
		return fmt.Errorf("%w: the entity index holds %d entries for %q, which has no entity count", ErrDamaged, n, name)
	case !ok:
		return fmt.Errorf("%w: the entity count of %q does not match its digest", ErrDamaged, name)
	case want != uint64(n):
		return fmt.Errorf("%w: the entity index holds %d entries for %q, its count says %d", ErrDamaged, n, name, want)
	}
	return nil
}

// CheckEntityCounts compares every name's entity keys with its count; it
// returns the number of names that differ and the first difference.
func CheckEntityCounts(tx *bolt.Tx) (int, error) {
	b, counts := tx.Bucket(bucketEntities), tx.Bucket(bucketEntityCounts)
	if b == nil || counts == nil {
		return 0, fmt.Errorf("index: %s or %s bucket missing", bucketEntities, bucketEntityCounts)
	}
	keys := map[string]int{}
	if err := b.ForEach(func(k, _ []byte) error {
		if sep := bytes.IndexByte(k, 0); sep >= 0 {
			keys[string(k[:sep])]++
		}
		return nil
	}); err != nil {
		return 0, err
	}
	bad := 0
	var first error
	note := func(err error) {
		if err != nil {
			if bad++; first == nil {
				first = err
			}
		}
	}
	for name, n := range keys {
		note(checkEntityCount(tx, name, n))
	}
	if err := counts.ForEach(func(k, _ []byte) error {
		if _, ok := keys[string(k)]; !ok {
			note(checkEntityCount(tx, string(k), 0))
			if bad == 0 || first == nil {
				note(fmt.Errorf("%w: the entity count of %q accounts for entries that are missing", ErrDamaged, k))
			}
		}
		return nil
	}); err != nil {
		return bad, err
	}
	return bad, first
}

// spanKey is seq (u64 BE) ‖ event index (u32 BE).
func spanKey(seq uint64, event int) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(make([]byte, 0, 12), seq), uint32(event))
}

// entityValue is line (u64 BE) ‖ byte_start (u64 BE) ‖ span SHA-256 ‖
// document SHA-256 ‖ store version ‖ tag ‖ span, where tag binds the
// header to its key (spanTag); the span bytes are bound by their SHA-256.
func entityValue(seq uint64, event int, doc SpanDoc, e *engine.Event, src []byte) ([]byte, error) {
	if e.ByteStart > e.ByteEnd || e.ByteEnd > uint64(len(src)) {
		return nil, fmt.Errorf("index: event span %d..%d outside the %d-byte source", e.ByteStart, e.ByteEnd, len(src))
	}
	v := make([]byte, 0, SpanHeaderSize+e.ByteEnd-e.ByteStart)
	v = binary.BigEndian.AppendUint64(v, e.LineStart)
	v = binary.BigEndian.AppendUint64(v, e.ByteStart)
	v = append(v, e.SpanHash[:]...)
	v = append(v, doc.SHA256[:]...)
	v = append(v, doc.Version)
	v = append(v, spanTag(seq, event, v)...)
	return append(v, src[e.ByteStart:e.ByteEnd]...), nil
}

// spanTag is the first 8 bytes of the SHA-256 of a kept span's key and the
// 81 bytes of its value before the tag (line, byte_start, span digest,
// document digest, store version).
func spanTag(seq uint64, event int, head []byte) []byte {
	h := sha256.New()
	h.Write(spanKey(seq, event))
	h.Write(head[:SpanHeaderSize-8])
	return h.Sum(nil)[:8]
}

// EntitySpan is what an entity entry keeps of its event.
type EntitySpan struct {
	Doc       SpanDoc
	Line      uint64
	ByteStart uint64
	SpanHash  [32]byte
	Text      []byte
}

// SpanHeaderSize is the size of a kept span's fixed part: line (u64 BE),
// byte_start (u64 BE), span SHA-256, document SHA-256, store version and
// the tag binding them to the key; the span bytes follow.
const SpanHeaderSize = 89

// DecodeEntitySpan decodes the kept span value v (Spans.Value) of event
// `event` of document seq. Text aliases v: it is valid only as long as v
// is, so a caller keeping it past the transaction copies it. ok is false
// for a value that does not decode or whose header does not match its tag.
func DecodeEntitySpan(seq uint64, event int, v []byte) (sp EntitySpan, ok bool) {
	if len(v) < SpanHeaderSize || !bytes.Equal(spanTag(seq, event, v), v[SpanHeaderSize-8:SpanHeaderSize]) {
		return EntitySpan{}, false
	}
	sp = EntitySpan{Line: binary.BigEndian.Uint64(v), ByteStart: binary.BigEndian.Uint64(v[8:]), Text: v[SpanHeaderSize:]}
	copy(sp.SpanHash[:], v[16:48])
	copy(sp.Doc.SHA256[:], v[48:80])
	sp.Doc.Version = v[80]
	return sp, true
}

// entityTag is the value of entity key k: its CRC-64, so a key whose
// bytes changed (another event, role or document under the same name keeps
// the name's count right) reads as damage.
func entityTag(k []byte) []byte {
	return binary.LittleEndian.AppendUint64(make([]byte, 0, 8), crc64.Checksum(k, crcTable()))
}

// entityKeyOK reports whether v is the tag of entity key k.
func entityKeyOK(k, v []byte) bool {
	return len(v) == 8 && binary.LittleEndian.Uint64(v) == crc64.Checksum(k, crcTable())
}

// errEntityKey is the error of an entity key that does not match its tag.
func errEntityKey(k []byte) error {
	name := k
	if sep := bytes.IndexByte(k, 0); sep >= 0 {
		name = k[:sep]
	}
	return fmt.Errorf("%w: an entity index entry of %q does not match its digest", ErrDamaged, name)
}

// ascending checks that a cursor walk went from key prev to key k upward.
// A damaged branch page can send a walk through one leaf twice and past
// another: a name could keep its count with one event listed twice and
// another missing; the keys then go back.
func ascending(prev, k []byte) error {
	if prev != nil && bytes.Compare(prev, k) >= 0 {
		return fmt.Errorf("%w: the entity index walks back from %q to %q (damaged pages)", ErrDamaged, prev, k)
	}
	return nil
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
	var prev []byte
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		rest := k[len(prefix):]
		if len(rest) != 13 {
			return nil, fmt.Errorf("index: malformed entity key %q", k)
		}
		if !entityKeyOK(k, v) {
			return nil, errEntityKey(k)
		}
		if err := ascending(prev, k); err != nil {
			return nil, err
		}
		prev = k
		refs = append(refs, EntityRef{
			Seq:   binary.BigEndian.Uint64(rest),
			Event: int(binary.BigEndian.Uint32(rest[8:])),
			Role:  Role(rest[12]),
		})
	}
	// A count that differs is returned with the entries (errors.Is
	// ErrDamaged): the caller checks them first, for the most precise
	// error, and must fail either way.
	return refs, checkEntityCount(tx, name, len(refs))
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
	var keys []int // entity keys of each name listed
	var lastEvent []byte
	c := b.Cursor()
	var prev []byte
	for k, v := c.Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, v = c.Next() {
		sep := bytes.IndexByte(k, 0)
		if sep < 0 || len(k)-sep != 14 {
			return nil, fmt.Errorf("index: malformed entity key %q", k)
		}
		if !entityKeyOK(k, v) {
			return nil, errEntityKey(k)
		}
		if err := ascending(prev, k); err != nil {
			return nil, err
		}
		prev = k
		name, event := k[:sep], k[:len(k)-1] // event identity: name, seq, index
		if len(out) == 0 || out[len(out)-1].Name != string(name) {
			out = append(out, NameCount{Name: string(name)})
			keys = append(keys, 0)
			lastEvent = nil
		}
		if !bytes.Equal(event, lastEvent) {
			out[len(out)-1].Events++
			lastEvent = append(lastEvent[:0], event...)
		}
		keys[len(out)-1]++
	}
	// Every name listed must be counted with exactly its keys, and every
	// counted name must be listed.
	for i, nc := range out {
		if err := checkEntityCount(tx, nc.Name, keys[i]); err != nil {
			return nil, err
		}
	}
	counts := tx.Bucket(bucketEntityCounts)
	if counts == nil {
		return nil, fmt.Errorf("index: %s bucket missing", bucketEntityCounts)
	}
	i := 0
	cc := counts.Cursor()
	for k, _ := cc.Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, _ = cc.Next() {
		if i >= len(out) || out[i].Name != string(k) {
			return nil, fmt.Errorf("%w: the entity index lost the entries of %q", ErrDamaged, k)
		}
		i++
	}
	if i != len(out) {
		return nil, fmt.Errorf("%w: the entity index lists %d names, their counts %d", ErrDamaged, len(out), i)
	}
	return out, nil
}

// CheckEntities counts the entity entries of document seq's events that are
// missing from the index, and kept spans that differ from the event's.
func CheckEntities(tx *bolt.Tx, seq uint64, doc SpanDoc, events []engine.Event, src []byte) (missing int, err error) {
	b, spans := tx.Bucket(bucketEntities), tx.Bucket(bucketSpans)
	if b == nil || spans == nil {
		return 0, fmt.Errorf("index: %s or %s bucket missing", bucketEntities, bucketSpans)
	}
	for i := range events {
		want, err := entityValue(seq, i, doc, &events[i], src)
		if err != nil {
			return 0, err
		}
		if !bytes.Equal(spans.Get(spanKey(seq, i)), want) {
			missing++
		}
		for _, k := range entityKeys(seq, i, &events[i]) {
			if !entityKeyOK(k, b.Get(k)) {
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
	err := b.ForEach(func(k, v []byte) error {
		sep := bytes.IndexByte(k, 0)
		if sep < 0 || len(k)-sep != 14 || !entityKeyOK(k, v) {
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
