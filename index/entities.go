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

// AddEntities records the subject and object of every event of document seq.
func AddEntities(tx *bolt.Tx, seq uint64, events []engine.Event) error {
	b := tx.Bucket(bucketEntities)
	if b == nil {
		return fmt.Errorf("index: %s bucket missing", bucketEntities)
	}
	for i := range events {
		for _, e := range entityKeys(seq, i, &events[i]) {
			if err := b.Put(e, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

func entityKeys(seq uint64, i int, e *engine.Event) [][]byte {
	return [][]byte{entityKey(e.Subject, seq, i, RoleSubject), entityKey(e.Object, seq, i, RoleObject)}
}

// Entity returns every event whose subject or object is exactly name, in
// document sequence then source order.
func Entity(tx *bolt.Tx, name string) ([]EntityRef, error) {
	b := tx.Bucket(bucketEntities)
	if b == nil {
		return nil, fmt.Errorf("index: %s bucket missing", bucketEntities)
	}
	prefix := append([]byte(name), 0)
	var out []EntityRef
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		rest := k[len(prefix):]
		if len(rest) != 13 {
			return nil, fmt.Errorf("index: malformed entity key %q", k)
		}
		out = append(out, EntityRef{
			Seq:   binary.BigEndian.Uint64(rest),
			Event: int(binary.BigEndian.Uint32(rest[8:])),
			Role:  Role(rest[12]),
		})
	}
	return out, nil
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

// CheckEntities counts the entity keys of document seq's events that are
// missing from the index.
func CheckEntities(tx *bolt.Tx, seq uint64, events []engine.Event) (missing int, err error) {
	b := tx.Bucket(bucketEntities)
	if b == nil {
		return 0, fmt.Errorf("index: %s bucket missing", bucketEntities)
	}
	for i := range events {
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
