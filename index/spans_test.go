package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// testSpanDoc is the document the tests' kept spans name for sequence seq.
func testSpanDoc(seq uint64) SpanDoc {
	return SpanDoc{SHA256: sha256.Sum256(binary.BigEndian.AppendUint64(nil, seq)), Version: 2}
}

// spanEvent is an event over "Ali paid Omar 5." at line 3, byte 10 of src.
func spanEvent() (engine.Event, []byte) {
	src := []byte("0123456789Ali paid Omar 5.\n")
	text := src[10:26]
	return engine.Event{Subject: "Ali", Object: "Omar", LineStart: 3, ByteStart: 10, ByteEnd: 26, SpanHash: sha256.Sum256(text)}, src
}

// TestSpanValue: a kept span decodes to what was kept, its document
// included, and a change of any byte of its header (the document's digest
// and store version too) or of its key reads as damage.
func TestSpanValue(t *testing.T) {
	e, src := spanEvent()
	doc := testSpanDoc(7)
	v, err := entityValue(7, 2, doc, &e, src)
	require.NoError(t, err)
	require.Len(t, v, SpanHeaderSize+16)
	sp, ok := DecodeEntitySpan(7, 2, v)
	require.True(t, ok)
	require.Equal(t, EntitySpan{Doc: doc, Line: 3, ByteStart: 10, SpanHash: e.SpanHash, Text: src[10:26]}, sp)
	for at := range SpanHeaderSize {
		bad := bytes.Clone(v)
		bad[at] ^= 0x01
		_, ok := DecodeEntitySpan(7, 2, bad)
		require.False(t, ok, "byte %d changed", at)
	}
	_, ok = DecodeEntitySpan(7, 3, v)
	require.False(t, ok, "another event's key")
	_, ok = DecodeEntitySpan(8, 2, v)
	require.False(t, ok, "another document's key")
	_, ok = DecodeEntitySpan(7, 2, v[:SpanHeaderSize-1])
	require.False(t, ok, "short")

	e.ByteEnd = uint64(len(src) + 1)
	_, err = entityValue(7, 2, doc, &e, src)
	require.Error(t, err, "a span past the source")
}

// schema16Value is a kept span as schema 16 wrote it: line ‖ byte_start ‖
// span SHA-256 ‖ SHA-256(key ‖ those 48 bytes)[:8] ‖ span.
func schema16Value(seq uint64, event int, e *engine.Event, src []byte) []byte {
	v := binary.BigEndian.AppendUint64(nil, e.LineStart)
	v = binary.BigEndian.AppendUint64(v, e.ByteStart)
	v = append(v, e.SpanHash[:]...)
	tag := sha256.Sum256(append(spanKey(seq, event), v...))
	return append(append(v, tag[:8]...), src[e.ByteStart:e.ByteEnd]...)
}

func knownDoc(seq uint64) (SpanDoc, error) { return testSpanDoc(seq), nil }

// TestUpgradeSpans: schema 16's kept spans are rewritten exactly as
// AddEntities writes them now, each document asked for once; a damaged
// span or an unknown document fails with ErrDamaged and writes nothing.
func TestUpgradeSpans(t *testing.T) {
	e, src := spanEvent()
	keys := []struct {
		seq   uint64
		event int
	}{{1, 0}, {1, 1}, {1, 5}, {2, 0}, {300, 3}}
	fill := func(t *testing.T, db *bolt.DB) {
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketSpans)
			for _, k := range keys {
				if err := b.Put(spanKey(k.seq, k.event), schema16Value(k.seq, k.event, &e, src)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	snapshot := func(t *testing.T, db *bolt.DB) map[string]string {
		out := map[string]string{}
		require.NoError(t, db.View(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketSpans).ForEach(func(k, v []byte) error { out[string(k)] = string(v); return nil })
		}))
		return out
	}

	t.Run("rewritten", func(t *testing.T) {
		db := openTestDB(t)
		fill(t, db)
		var asked []uint64
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			return UpgradeSpans(tx, func(seq uint64) (SpanDoc, error) {
				asked = append(asked, seq)
				return knownDoc(seq)
			})
		}))
		require.Equal(t, []uint64{1, 2, 300}, asked)
		got := snapshot(t, db)
		require.Len(t, got, len(keys))
		for _, k := range keys {
			want, err := entityValue(k.seq, k.event, testSpanDoc(k.seq), &e, src)
			require.NoError(t, err)
			require.Equal(t, string(want), got[string(spanKey(k.seq, k.event))])
		}
	})

	for _, c := range []struct {
		name   string
		damage func(tx *bolt.Tx) error
		docOf  func(seq uint64) (SpanDoc, error)
		detail string
	}{
		{"a span's header", func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketSpans)
			v := bytes.Clone(b.Get(spanKey(2, 0)))
			v[20] ^= 1
			return b.Put(spanKey(2, 0), v)
		}, knownDoc, "does not match its digest"},
		{"a short span", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketSpans).Put(spanKey(300, 3), []byte("short"))
		}, knownDoc, "is malformed"},
		{"a document unknown", nil, func(seq uint64) (SpanDoc, error) {
			if seq == 300 {
				return SpanDoc{}, errors.New("no such document")
			}
			return knownDoc(seq)
		}, "no such document"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := openTestDB(t)
			fill(t, db)
			if c.damage != nil {
				require.NoError(t, db.Update(c.damage))
			}
			before := snapshot(t, db)
			require.NoError(t, db.Update(func(tx *bolt.Tx) error {
				err := UpgradeSpans(tx, c.docOf)
				require.ErrorIs(t, err, ErrDamaged)
				require.ErrorContains(t, err, c.detail)
				return nil
			}))
			require.Equal(t, before, snapshot(t, db), "nothing written")
		})
	}
}
