package db_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// spanSource builds a source of five chunks with literal statements at the
// given offsets; the rest are lines of dashes, which extract nothing.
func spanSource(t testing.TB, at []int, size int) []byte {
	t.Helper()
	var b bytes.Buffer
	pad := func(to int) {
		for b.Len() < to {
			n := min(to-b.Len(), 80)
			b.Write(bytes.Repeat([]byte{'-'}, n-1))
			b.WriteByte('\n')
		}
		require.Equal(t, to, b.Len())
	}
	for i, off := range at {
		pad(off)
		fmt.Fprintf(&b, "Alice owns Book%d.\n", i)
	}
	pad(size)
	return b.Bytes()
}

// Span decompresses only the chunks that hold the span: damage to any other
// chunk does not disturb it, while Load (which reads everything) fails.
func TestSpanReadsOnlyItsChunks(t *testing.T) {
	const cs = db.ChunkSize
	offsets := []int{
		100,          // chunk 0
		2*cs - 8,     // straddles chunks 1 and 2
		3*cs + 500,   // chunk 3
		4*cs - 18,    // its LF is the last byte of chunk 3
		4*cs + 1_000, // chunk 4, the last and short one
	}
	src := spanSource(t, offsets, 4*cs+4_000)
	require.Greater(t, len(src), 3*cs)

	path := newPath(t)
	a := openArchive(t, path)
	res, err := a.Ingest(src, goldenTime, "big.txt")
	require.NoError(t, err)
	d := res.Doc
	require.Equal(t, 5, d.Chunks())
	require.Equal(t, len(offsets), d.EventCount)
	s, err := a.Load(d)
	require.NoError(t, err)
	events := s.Events
	chunksOf := make([][]int, len(events))
	for i := range events {
		e := &events[i]
		require.Equal(t, uint64(offsets[i]), e.ByteStart)
		for c := int(e.ByteStart) / cs; c <= int(e.ByteEnd-1)/cs; c++ {
			chunksOf[i] = append(chunksOf[i], c)
		}
		span, err := a.Span(d, e)
		require.NoError(t, err)
		require.Equal(t, src[e.ByteStart:e.ByteEnd], span)
		require.Equal(t, fmt.Sprintf("Alice owns Book%d.", i), string(span))
	}
	require.Equal(t, [][]int{{0}, {1, 2}, {3}, {3}, {4}}, chunksOf)
	require.NoError(t, a.Close())
	pristine := readFile(t, path)

	for damaged := range d.Chunks() {
		t.Run(fmt.Sprintf("chunk %d damaged", damaged), func(t *testing.T) {
			require.NoError(t, writeFile(path, pristine))
			editBolt(t, path, func(tx *bolt.Tx) error {
				chunks := tx.Bucket([]byte("chunks"))
				b := unchunk(t, chunks.Get(chunkKey(d.SHA256, damaged)))
				b[len(b)/2] ^= 0x01 // a dash becomes a comma: still valid text
				return chunks.Put(chunkKey(d.SHA256, damaged), chunkFrame(t, b))
			})
			a := openArchive(t, path)
			_, err := a.Load(d)
			requireCorrupt(t, err, "big.txt", d.SHA256)
			// LoadEvidence reads the chunks of every span: it fails only
			// when the damage hits a span.
			evidence, evErr := a.LoadEvidence(d)
			hit := false
			for i := range events {
				span, err := a.Span(d, &events[i])
				if err == nil {
					require.Equal(t, span, evidence.Source[events[i].ByteStart:events[i].ByteEnd])
				}
				hit = hit || err != nil
			}
			if hit {
				requireCorrupt(t, evErr, "big.txt", d.SHA256)
			} else {
				require.NoError(t, evErr)
				require.Equal(t, events, evidence.Events)
			}
			for i := range events {
				span, err := a.Span(d, &events[i])
				holds := false
				for _, c := range chunksOf[i] {
					holds = holds || c == damaged
				}
				if !holds {
					require.NoError(t, err, "event %d is not in chunk %d", i, damaged)
					require.Equal(t, src[events[i].ByteStart:events[i].ByteEnd], span)
				}
				// A damaged chunk that holds the span either fails or, when
				// the flipped byte lies outside the span, still gives the
				// exact bytes: the span digest is what is checked.
				if holds && err == nil {
					require.Equal(t, src[events[i].ByteStart:events[i].ByteEnd], span)
				}
				if holds && err != nil {
					requireCorrupt(t, err, "big.txt", d.SHA256)
				}
			}
		})
	}

	t.Run("damaged inside a span", func(t *testing.T) {
		require.NoError(t, writeFile(path, pristine))
		e := &events[1]
		editBolt(t, path, func(tx *bolt.Tx) error {
			chunks := tx.Bucket([]byte("chunks"))
			b := unchunk(t, chunks.Get(chunkKey(d.SHA256, 2)))
			copy(b[:3], "Bok") // the tail of the straddling span
			return chunks.Put(chunkKey(d.SHA256, 2), chunkFrame(t, b))
		})
		a := openArchive(t, path)
		_, err := a.Span(d, e)
		requireCorrupt(t, err, "big.txt", d.SHA256)
		_, err = a.Span(d, &events[0])
		require.NoError(t, err)
		_, err = a.LoadEvidence(d)
		requireCorrupt(t, err, "big.txt", d.SHA256)
	})

	t.Run("chunk missing", func(t *testing.T) {
		require.NoError(t, writeFile(path, pristine))
		editBolt(t, path, func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("chunks")).Delete(chunkKey(d.SHA256, 3))
		})
		a := openArchive(t, path)
		_, err := a.Span(d, &events[2])
		requireCorrupt(t, err, "big.txt", d.SHA256)
		span, err := a.Span(d, &events[4])
		require.NoError(t, err)
		require.Equal(t, "Alice owns Book4.", string(span))
	})
}

// Span checks what the caller asks for against the span digest and the
// document's extent.
func TestSpanRejectsBadEvents(t *testing.T) {
	g := loadGolden(t)[1]
	a := openArchive(t, newPath(t))
	res, err := a.Ingest(g.Input, goldenTime, g.DocName())
	require.NoError(t, err)
	s, err := a.Load(res.Doc)
	require.NoError(t, err)
	require.NotEmpty(t, s.Events)
	tests := map[string]func(e *engine.Event){
		"wrong digest":        func(e *engine.Event) { e.SpanHash[0] ^= 1 },
		"shifted":             func(e *engine.Event) { e.ByteStart++; e.ByteEnd++ },
		"end beyond source":   func(e *engine.Event) { e.ByteEnd = uint64(len(g.Input)) + 1 },
		"start after end":     func(e *engine.Event) { e.ByteStart = e.ByteEnd + 1 },
		"empty with a digest": func(e *engine.Event) { e.ByteEnd = e.ByteStart },
	}
	for name, edit := range tests {
		t.Run(name, func(t *testing.T) {
			e := s.Events[0]
			edit(&e)
			_, err := a.Span(res.Doc, &e)
			requireCorrupt(t, err, g.DocName(), res.Doc.SHA256)
		})
	}
}
