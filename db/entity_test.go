package db_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/index"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

const entityStory = "Opening prose.\n" +
	"@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n" +
	"Alice owns Book.\n"

// TestEntityReadsOnlyTheIndex: a lookup re-derives its events from the
// spans kept in the entity index, so it answers without the document's
// chunks, and any damage to a kept span is corruption, never an answer.
func TestEntityReadsOnlyTheIndex(t *testing.T) {
	path := newPath(t)
	a := openArchive(t, path)
	res, err := a.Ingest([]byte(entityStory), 1750000000, "story.txt")
	require.NoError(t, err)
	want, err := a.Entity("Alice")
	require.NoError(t, err)
	require.Len(t, want, 2)
	require.Equal(t, "BORROWED_FROM", want[0].Event.Predicate)
	require.Equal(t, "owns", want[1].Event.Predicate)
	s, err := a.Load(res.Doc)
	require.NoError(t, err)
	require.Equal(t, s.Events[0], want[0].Event, "the re-derived event is the stored event")
	require.Equal(t, s.Events[1], want[1].Event)
	require.NoError(t, a.Close())

	// Without the document's chunks the lookup still answers.
	editBolt(t, path, func(tx *bolt.Tx) error { return tx.Bucket([]byte("chunks")).Delete(chunkKey(res.Doc.SHA256, 0)) })
	a = openArchive(t, path, db.Options{ReadOnly: true})
	got, err := a.Entity("Alice")
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.NoError(t, a.Close())

	// A flipped byte in a kept span fails the lookup with the document named.
	editBolt(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("spans"))
		k, v := b.Cursor().First() // the first event: the typed record naming Alice
		v = bytes.Clone(v)
		v[len(v)-2] ^= 0x01
		return b.Put(bytes.Clone(k), v)
	})
	a = openArchive(t, path, db.Options{ReadOnly: true})
	_, err = a.Entity("Alice")
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.ErrorContains(t, err, "story.txt")
	problems := problemsOf(t, a)
	require.NotEmpty(t, problems)
}

// entityHitsOf builds an archive of four documents naming Alice in about
// 250 events (several batches of the parallel lookup: as subject, as
// object, as both, among other names and prose) and returns its path, its
// documents in import order and the hits a scan of their stored events
// gives, in import then source order.
func entityHitsOf(t *testing.T) (string, []*db.Document, []db.EntityHit) {
	t.Helper()
	path := newPath(t)
	a := openArchive(t, path)
	rng := rand.New(rand.NewPCG(3, 5))
	record := func(s, o string) string {
		return "@chronicle\t" + s + "\tPAID_TO\t" + o + "\t7\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"
	}
	var docs []*db.Document
	var want []db.EntityHit
	for k := range 4 {
		var src strings.Builder
		for i := range 120 {
			switch p := rng.IntN(20); {
			case p < 7:
				fmt.Fprintf(&src, "Prose line %d of part %d.\n", i, k)
			case p < 13:
				src.WriteString(record("Alice", fmt.Sprintf("Bob %d", i)))
			case p < 16:
				src.WriteString(record("Carol", "Alice"))
			case p < 17:
				src.WriteString(record("Alice", "Alice"))
			case p < 18:
				src.WriteString("Alice owns Book.\n")
			default:
				src.WriteString(record("Alice ", "Alicia"))
			}
		}
		res, err := a.Ingest([]byte(src.String()), 1750000000+uint64(k), fmt.Sprintf("part%d.txt", k))
		require.NoError(t, err)
		docs = append(docs, res.Doc)
		s, err := a.Load(res.Doc)
		require.NoError(t, err)
		for i, e := range s.Events {
			text := s.Source[e.ByteStart:e.ByteEnd]
			if e.Subject == "Alice" {
				want = append(want, db.EntityHit{Doc: res.Doc, Document: res.Doc.SHA256, Seq: res.Doc.Seq, Event: e, Index: i, Role: index.RoleSubject, Text: text})
			}
			if e.Object == "Alice" {
				want = append(want, db.EntityHit{Doc: res.Doc, Document: res.Doc.SHA256, Seq: res.Doc.Seq, Event: e, Index: i, Role: index.RoleObject, Text: text})
			}
		}
	}
	require.Greater(t, len(want), 4*64)
	require.NoError(t, a.Close())
	return path, docs, want
}

// entityAtProcs looks Alice up with each number of goroutines.
func entityAtProcs(t *testing.T, path string) ([][]db.EntityHit, []error) {
	t.Helper()
	a := openArchive(t, path, db.Options{ReadOnly: true})
	defer a.Close()
	var hits [][]db.EntityHit
	var errs []error
	for _, procs := range []int{1, 2, 3, 8} {
		old := runtime.GOMAXPROCS(procs)
		h, err := a.Entity("Alice")
		runtime.GOMAXPROCS(old)
		hits, errs = append(hits, h), append(errs, err)
	}
	return hits, errs
}

func sameHits(t *testing.T, want, got []db.EntityHit) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i].Doc.SHA256, got[i].Doc.SHA256, "hit %d", i)
		require.Equal(t, want[i].Document, got[i].Document, "hit %d", i)
		require.Equal(t, want[i].Seq, got[i].Seq, "hit %d", i)
		require.Equal(t, want[i].Index, got[i].Index, "hit %d", i)
		require.Equal(t, want[i].Role, got[i].Role, "hit %d", i)
		require.Equal(t, want[i].Event, got[i].Event, "hit %d", i)
		require.Equal(t, want[i].Text, got[i].Text, "hit %d", i)
		if i > 0 && want[i].Doc.SHA256 == want[i-1].Doc.SHA256 {
			require.Same(t, got[i-1].Doc, got[i].Doc, "hits of a document share its record")
		}
	}
}

// TestEntityBatches: the lookup re-derives its entries in batches on
// several goroutines, and answers as one that checks them in order: the
// same hits in import then source order, and on damage the error of the
// first damaged entry with the hits before it, whatever the number of
// goroutines and wherever the damage lies.
func TestEntityBatches(t *testing.T) {
	path, docs, want := entityHitsOf(t)
	hits, errs := entityAtProcs(t, path)
	for i := range hits {
		require.NoError(t, errs[i])
		sameHits(t, want, hits[i])
	}

	spanKey := func(h db.EntityHit) []byte {
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, h.Doc.Seq), uint32(h.Index))
	}
	// flip flips byte at of a hit's kept span value: 16 is in its digest,
	// -1 the last byte of its text.
	flip := func(h db.EntityHit, at int) func(tx *bolt.Tx) error {
		return func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("spans"))
			v := bytes.Clone(b.Get(spanKey(h)))
			v[(at+len(v))%len(v)] ^= 0x01
			return b.Put(spanKey(h), v)
		}
	}
	firstOf := func(d *db.Document) int {
		return slices.IndexFunc(want, func(h db.EntityHit) bool { return h.Doc.SHA256 == d.SHA256 })
	}
	require.True(t, slices.ContainsFunc(want[1:], func(h db.EntityHit) bool {
		return h.Role == index.RoleObject && h.Event.Subject == "Alice"
	}), "an event names Alice twice: its span is read once for both entries")
	for _, c := range []struct {
		name   string
		damage []func(tx *bolt.Tx) error
		first  int    // the first failing hit
		detail string // in its error
	}{
		{"spans in two batches", []func(tx *bolt.Tx) error{flip(want[200], -1), flip(want[70], 16)}, 70,
			fmt.Sprintf("event %d (line 0) does not match its digest", want[70].Index+1)},
		{"span in the last entry", []func(tx *bolt.Tx) error{flip(want[len(want)-1], -1)}, len(want) - 1, "does not re-derive to an event naming it"},
		{"missing span", []func(tx *bolt.Tx) error{func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("spans")).Delete(spanKey(want[130]))
		}}, 130, "is malformed"},
		{"sequence entry", []func(tx *bolt.Tx) error{func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("seqs")).Delete(binary.BigEndian.AppendUint64(nil, docs[2].Seq))
		}}, firstOf(docs[2]), fmt.Sprintf("document #%d: %v: no sequence entry", docs[2].Seq, db.ErrCorrupt)},
		{"span before a sequence entry", []func(tx *bolt.Tx) error{
			func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("seqs")).Delete(binary.BigEndian.AppendUint64(nil, docs[2].Seq))
			},
			flip(want[firstOf(docs[2])-1], 16),
		}, firstOf(docs[2]) - 1, "part1.txt"},
		{"document record", []func(tx *bolt.Tx) error{func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("docs")).Put(docs[1].SHA256[:], []byte("{"))
		}}, firstOf(docs[1]), "record"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "copy.db")
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, raw, 0o644))
			for _, fn := range c.damage {
				editBolt(t, p, fn)
			}
			hits, errs := entityAtProcs(t, p)
			for i := range hits {
				require.ErrorIs(t, errs[i], db.ErrCorrupt)
				require.ErrorContains(t, errs[i], c.detail)
				require.Equal(t, errs[0].Error(), errs[i].Error())
				sameHits(t, want[:c.first], hits[i])
			}
		})
	}
}

// reseal writes the kept span of event `event` of document seq as edit
// leaves its value, with the tag recomputed: a change only a check against
// the documents can see.
func reseal(seq uint64, event int, edit func(v []byte)) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("spans"))
		k := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, seq), uint32(event))
		v := bytes.Clone(b.Get(k))
		edit(v)
		tag := sha256.Sum256(append(slices.Clone(k), v[:index.SpanHeaderSize-8]...))
		copy(v[index.SpanHeaderSize-8:], tag[:8])
		return b.Put(k, v)
	}
}

// TestEntityEventsReadNoRecord: EntityEvents answers Entity's events from
// the entity index alone, so a document record that cannot be read fails
// Entity but not EntityEvents; a kept span naming another document than
// the record of its sequence number, or a store version no grammar has,
// is corruption that Entity and check see.
func TestEntityEventsReadNoRecord(t *testing.T) {
	path, docs, want := entityHitsOf(t)
	events := func(t *testing.T, path string) ([]db.EntityHit, error) {
		a := openArchive(t, path, db.Options{ReadOnly: true})
		defer a.Close()
		return a.EntityEvents("Alice")
	}
	withoutDocs := make([]db.EntityHit, len(want))
	for i, h := range want {
		h.Doc = nil
		withoutDocs[i] = h
	}
	got, err := events(t, path)
	require.NoError(t, err)
	require.Equal(t, withoutDocs, got)

	copyOf := func(t *testing.T, damage func(tx *bolt.Tx) error) string {
		p := filepath.Join(t.TempDir(), "copy.db")
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, raw, 0o644))
		editBolt(t, p, damage)
		return p
	}
	t.Run("record unreadable", func(t *testing.T) {
		p := copyOf(t, func(tx *bolt.Tx) error { return tx.Bucket([]byte("docs")).Put(docs[1].SHA256[:], []byte("{")) })
		got, err := events(t, p)
		require.NoError(t, err)
		require.Equal(t, withoutDocs, got)
		_, errs := entityAtProcs(t, p)
		require.ErrorIs(t, errs[0], db.ErrCorrupt)
	})
	second := slices.IndexFunc(want, func(h db.EntityHit) bool { return h.Seq == docs[1].Seq })
	h := want[second]
	t.Run("span names another document", func(t *testing.T) {
		p := copyOf(t, reseal(h.Seq, h.Index, func(v []byte) { copy(v[48:80], docs[0].SHA256[:]) }))
		_, errs := entityAtProcs(t, p)
		for _, err := range errs {
			require.ErrorIs(t, err, db.ErrCorrupt)
			require.ErrorContains(t, err, "part1.txt")
			require.ErrorContains(t, err, "names document "+docs[0].SHA256.String())
		}
		a := openArchive(t, p, db.Options{ReadOnly: true})
		defer a.Close()
		problems := problemsOf(t, a)
		require.NotEmpty(t, problems)
		require.Contains(t, fmt.Sprint(problems), "entity index")
	})
	t.Run("span names no store version", func(t *testing.T) {
		p := copyOf(t, reseal(h.Seq, h.Index, func(v []byte) { v[80] = 3 }))
		_, err := events(t, p)
		require.ErrorIs(t, err, db.ErrCorrupt)
		require.ErrorContains(t, err, "part1.txt")
		require.ErrorContains(t, err, "names store version 3")
	})
}
