package db_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

func TestCheckCleanArchive(t *testing.T) {
	a := openArchive(t, newPath(t))
	ingestGolden(t, a, loadGolden(t), goldenTime)
	_, err := a.Ingest([]byte("Alice owns Book.\n"), goldenTime, "extra-name-for-g0", "another")
	require.NoError(t, err)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
}

// corruptionFixture is a closed archive holding every golden input, with
// the document damaged by hand being golden g1 (several events, queries and
// a find).
type corruptionFixture struct {
	path   string
	cases  []goldenCase
	victim *goldenCase
	ingest *db.Receipt // the victim's INGEST receipt
	query  *db.Receipt // a QUERY receipt of the victim
}

func newCorruptionFixture(t *testing.T) *corruptionFixture {
	t.Helper()
	f := &corruptionFixture{path: newPath(t), cases: loadGolden(t)}
	f.victim = &f.cases[1]
	a := openArchive(t, f.path)
	res := ingestGolden(t, a, f.cases, goldenTime)
	f.ingest = res[1].Receipt
	s, err := a.Load(res[1].Doc)
	require.NoError(t, err)
	cmd := f.victim.Cmds[0]
	require.Equal(t, db.KindQuery, cmd.Kind)
	f.query = &db.Receipt{Kind: db.KindQuery, Document: res[1].Doc.SHA256, Store: res[1].Doc.StoreSHA256,
		Question: cmd.Question, Result: digestOf(replay(t, s, cmd.Kind, cmd.Question))}
	require.NoError(t, a.KeepReceipt(f.query))
	require.Empty(t, problemsOf(t, a))
	require.NoError(t, a.Close())
	return f
}

// copyFor gives a subtest its own copy of the fixture's archive file.
func (f *corruptionFixture) copyFor(t *testing.T) *corruptionFixture {
	t.Helper()
	c := *f
	c.path = newPath(t)
	require.NoError(t, writeFile(c.path, readFile(t, f.path)))
	return &c
}

// recordOf returns the victim's stored record as a JSON object.
func recordOf(t testing.TB, tx *bolt.Tx, doc db.Digest) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(tx.Bucket([]byte("docs")).Get(doc[:]), &m))
	return m
}

func putRecord(t testing.TB, tx *bolt.Tx, doc db.Digest, m map[string]any) error {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return tx.Bucket([]byte("docs")).Put(doc[:], b)
}

// Damage to a document's stored bytes is corruption named after the
// document, on every read: Load, Rebuild, Verify and Check. The other
// documents stay readable.
func TestCorruptDocument(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, tx *bolt.Tx, doc db.Digest) error
		// loads: the damage is to a record field that Load does not use
		// to read events and source (only Rebuild's store digest sees it).
		loads bool
	}{
		{"chunk holds modified bytes", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			chunks := tx.Bucket([]byte("chunks"))
			src := unchunk(t, chunks.Get(chunkKey(doc, 0)))
			src = bytes.Replace(src, []byte("Alice"), []byte("Alicf"), 1)
			return chunks.Put(chunkKey(doc, 0), chunkFrame(t, src))
		}, false},
		{"chunk is longer", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			chunks := tx.Bucket([]byte("chunks"))
			src := unchunk(t, chunks.Get(chunkKey(doc, 0)))
			return chunks.Put(chunkKey(doc, 0), chunkFrame(t, append(src, "x\n"...)))
		}, false},
		{"chunk is not a frame", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			return tx.Bucket([]byte("chunks")).Put(chunkKey(doc, 0), []byte("Alice owns Book.\n"))
		}, false},
		{"chunk frame byte flipped", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			chunks := tx.Bucket([]byte("chunks"))
			frame := bytes.Clone(chunks.Get(chunkKey(doc, 0)))
			frame[len(frame)/2] ^= 0x20
			return chunks.Put(chunkKey(doc, 0), frame)
		}, false},
		{"chunk missing", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			return tx.Bucket([]byte("chunks")).Delete(chunkKey(doc, 0))
		}, false},
		{"events frame byte flipped", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			events := tx.Bucket([]byte("events"))
			frame := bytes.Clone(events.Get(doc[:]))
			frame[len(frame)/2] ^= 0x01
			return events.Put(doc[:], frame)
		}, false},
		{"events table modified", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			events := tx.Bucket([]byte("events"))
			table := unzstd(t, events.Get(doc[:]))
			table[70] ^= 0x01 // inside the first event's byte_start
			return events.Put(doc[:], zstdFrame(t, table))
		}, false},
		{"events missing", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			return tx.Bucket([]byte("events")).Delete(doc[:])
		}, false},
		{"record imported_at changed", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["imported_at"] = goldenTime + 1
			return putRecord(t, tx, doc, m)
		}, true},
		{"record event_count changed", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["event_count"] = m["event_count"].(float64) - 1
			return putRecord(t, tx, doc, m)
		}, false},
		{"record source_size changed", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["source_size"] = m["source_size"].(float64) - 1
			return putRecord(t, tx, doc, m)
		}, false},
		{"record source_size negative", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["source_size"] = -m["source_size"].(float64)
			return putRecord(t, tx, doc, m)
		}, false},
		{"record source_size huge", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["source_size"] = 1 << 50
			return putRecord(t, tx, doc, m)
		}, false},
		{"record event_count huge", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["event_count"] = 1 << 40
			return putRecord(t, tx, doc, m)
		}, false},
		{"record chunk_size changed", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["chunk_size"] = 100
			return putRecord(t, tx, doc, m)
		}, false},
		{"record chunk_size zero", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["chunk_size"] = 0
			return putRecord(t, tx, doc, m)
		}, false},
		{"record chunk_size negative", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			// One changed byte: "chunk_size":16384 → "chunk_size":-6384.
			raw := tx.Bucket([]byte("docs")).Get(doc[:])
			require.Contains(t, string(raw), `"chunk_size":16384`)
			return tx.Bucket([]byte("docs")).Put(doc[:], bytes.Replace(raw, []byte(`:16384`), []byte(`:-6384`), 1))
		}, false},
		{"record version changed", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["version"] = 1
			return putRecord(t, tx, doc, m)
		}, true},
		{"record store digest changed", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["store_sha256"] = strings.Repeat("0", 64)
			return putRecord(t, tx, doc, m)
		}, true},
		{"record names another document", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			m := recordOf(t, tx, doc)
			m["sha256"] = strings.Repeat("1", 64)
			return putRecord(t, tx, doc, m)
		}, false},
		{"record is not JSON", func(t *testing.T, tx *bolt.Tx, doc db.Digest) error {
			return tx.Bucket([]byte("docs")).Put(doc[:], []byte("{"))
		}, false},
	}
	template := newCorruptionFixture(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := template.copyFor(t)
			doc := f.victim.Digest()
			editBolt(t, f.path, func(tx *bolt.Tx) error { return tc.damage(t, tx, doc) })
			a := openArchive(t, f.path)

			problems := problemsOf(t, a)
			require.NotEmpty(t, problems, "Check found nothing")
			mentions := false
			for _, p := range problems {
				if p.Doc == f.victim.DocName() || strings.Contains(p.String(), doc.String()) {
					mentions = true
				}
				for _, c := range f.cases {
					if c.Name != f.victim.Name {
						require.NotContains(t, p.String(), c.DocName(), "an intact document is reported")
					}
				}
			}
			require.True(t, mentions, "no problem names the damaged document: %v", problems)

			for _, r := range []*db.Receipt{f.ingest, f.query} {
				outcome, err := a.Verify(r, receipt.Canonical{})
				require.Equal(t, receipt.Invalid, outcome, "%s receipt of a corrupted document", r.Kind)
				require.Error(t, err)
			}

			// Reads of the damaged document fail with ErrCorrupt naming it,
			// wherever its record is still readable.
			d, err := a.Document(doc)
			if err != nil {
				require.ErrorIs(t, err, db.ErrCorrupt)
				require.Contains(t, err.Error(), doc.String())
				_, err = a.Docs()
				require.ErrorIs(t, err, db.ErrCorrupt)
				_, err = a.Resolve(f.victim.DocName())
				require.ErrorIs(t, err, db.ErrCorrupt)
				return
			}
			s, err := a.Load(d)
			if tc.loads {
				require.NoError(t, err)
				require.Equal(t, f.victim.Input, s.Source)
			} else {
				requireCorrupt(t, err, f.victim.DocName(), doc)
			}
			_, _, err = a.Rebuild(d)
			requireCorrupt(t, err, f.victim.DocName(), doc)
			// LoadEvidence reads the event table and the spans only: it
			// fails, or it gives exactly the golden events and spans.
			evidence, err := a.LoadEvidence(d)
			if err != nil {
				requireCorrupt(t, err, f.victim.DocName(), doc)
			} else {
				want := eventsOfGolden(t, f.victim)
				require.Equal(t, want, evidence.Events)
				for _, e := range want {
					require.Equal(t, f.victim.Input[e.ByteStart:e.ByteEnd], evidence.Source[e.ByteStart:e.ByteEnd])
				}
			}
			// Span either fails the same way or returns the exact bytes.
			for i := range min(d.EventCount, 3) {
				e := eventOfGolden(t, f.victim, i)
				span, err := a.Span(d, e)
				if err != nil {
					requireCorrupt(t, err, f.victim.DocName(), doc)
					continue
				}
				require.Equal(t, f.victim.Input[e.ByteStart:e.ByteEnd], span)
			}

			// Every other document is intact.
			docs, err := a.Docs()
			require.NoError(t, err)
			for i, od := range docs {
				if od.SHA256 == doc {
					continue
				}
				storeBytes, _, err := a.Rebuild(od)
				require.NoError(t, err)
				require.Equal(t, f.cases[i].Store, storeBytes)
			}
		})
	}
}

func requireCorrupt(t testing.TB, err error, name string, doc db.Digest) {
	t.Helper()
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.Contains(t, err.Error(), name, "the error names the document")
	require.Contains(t, err.Error(), doc.String(), "the error gives the document hash")
}

// Damage to the cross references between buckets is found by Check.
func TestCheckFindsBrokenReferences(t *testing.T) {
	tests := []struct {
		name   string
		damage func(tx *bolt.Tx, f *corruptionFixture) error
		want   string // a word of the problem
		doc    bool   // the problem is attributed to the victim
	}{
		{"name entry deleted", func(tx *bolt.Tx, f *corruptionFixture) error {
			return tx.Bucket([]byte("names")).Delete([]byte(f.victim.DocName()))
		}, "does not point back", true},
		{"name entry points elsewhere", func(tx *bolt.Tx, f *corruptionFixture) error {
			d := f.cases[0].Digest()
			return tx.Bucket([]byte("names")).Put([]byte(f.victim.DocName()), d[:])
		}, "not in the document's record", true},
		{"name entry points at no document", func(tx *bolt.Tx, f *corruptionFixture) error {
			return tx.Bucket([]byte("names")).Put([]byte("ghost.txt"), bytes.Repeat([]byte{7}, 32))
		}, "ghost.txt", false},
		{"name entry with a short value", func(tx *bolt.Tx, f *corruptionFixture) error {
			return tx.Bucket([]byte("names")).Put([]byte("short.txt"), []byte{1, 2, 3})
		}, "short.txt", false},
		{"name entry with a long value", func(tx *bolt.Tx, f *corruptionFixture) error {
			d := f.victim.Digest()
			return tx.Bucket([]byte("names")).Put([]byte("long.txt"), append(d[:], 0))
		}, "long.txt", false},
		{"orphan chunk", func(tx *bolt.Tx, f *corruptionFixture) error {
			return tx.Bucket([]byte("chunks")).Put(chunkKey(db.Digest{0xde, 0xad}, 0), []byte("x"))
		}, "chunk entry dead", false},
		{"extra chunk of a document", func(tx *bolt.Tx, f *corruptionFixture) error {
			return tx.Bucket([]byte("chunks")).Put(chunkKey(f.victim.Digest(), 7), []byte("x"))
		}, "chunk", false},
		{"short chunk key", func(tx *bolt.Tx, f *corruptionFixture) error {
			return tx.Bucket([]byte("chunks")).Put([]byte{1}, []byte("x"))
		}, "chunk entry", false},
		{"orphan event table", func(tx *bolt.Tx, f *corruptionFixture) error {
			return tx.Bucket([]byte("events")).Put(bytes.Repeat([]byte{0xbe}, 32), []byte("x"))
		}, "event table entry", false},
		{"orphan receipt", func(tx *bolt.Tx, f *corruptionFixture) error {
			r := &db.Receipt{Kind: db.KindIngest, Document: db.Digest{0xca, 0xfe}}
			id := r.ID()
			return tx.Bucket([]byte("receipts")).Put(append(r.Document[:], id[:]...), append(make([]byte, 8), r.Encode()...))
		}, "receipt entry", false},
	}
	template := newCorruptionFixture(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := template.copyFor(t)
			editBolt(t, f.path, func(tx *bolt.Tx) error { return tc.damage(tx, f) })
			a := openArchive(t, f.path)
			problems, err := a.Check(context.Background())
			require.NoError(t, err)
			require.NotEmpty(t, problems, "Check found nothing")
			var all []string
			for _, p := range problems {
				all = append(all, p.String())
			}
			require.Contains(t, strings.Join(all, "\n"), tc.want)
			if tc.doc {
				attributed := false
				for _, p := range problems {
					attributed = attributed || p.Doc == f.victim.DocName()
				}
				require.True(t, attributed, "no problem is attributed to %s: %v", f.victim.DocName(), all)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	require.Equal(t, "x", db.Problem{Detail: "x"}.String())
	require.Equal(t, "a.txt: x", db.Problem{Doc: "a.txt", Detail: "x"}.String())
}

// eventsOfGolden are the events of a golden store.
func eventsOfGolden(t testing.TB, c *goldenCase) []engine.Event {
	t.Helper()
	s, err := engine.Load(c.Store)
	require.NoError(t, err)
	return s.Events
}

// eventOfGolden is event i of a golden store.
func eventOfGolden(t testing.TB, c *goldenCase, i int) *engine.Event {
	t.Helper()
	s, err := engine.Load(c.Store)
	require.NoError(t, err)
	require.Less(t, i, len(s.Events))
	return &s.Events[i]
}

func digestOf(b []byte) db.Digest { return sha256.Sum256(b) }

// A damaged name entry does not break a later ingest under that name: the
// name is pointed at the new document and the archive checks clean again.
func TestIngestOverBrokenNameEntry(t *testing.T) {
	for name, value := range map[string][]byte{
		"short value":       {1, 2, 3},
		"unknown document":  bytes.Repeat([]byte{9}, 32),
		"empty value":       {},
		"value of 33 bytes": bytes.Repeat([]byte{9}, 33),
	} {
		t.Run(name, func(t *testing.T) {
			g := loadGolden(t)
			path := newPath(t)
			a := openArchive(t, path)
			ingestGolden(t, a, g[:1], goldenTime)
			require.NoError(t, a.Close())
			editBolt(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("names")).Put([]byte("broken.txt"), value)
			})
			a = openArchive(t, path)
			require.NotEmpty(t, problemsOf(t, a))
			res, err := a.Ingest(g[1].Input, goldenTime, "broken.txt")
			require.NoError(t, err)
			require.Equal(t, []string{"broken.txt"}, res.Added)
			got, err := a.Resolve("broken.txt")
			require.NoError(t, err)
			require.Equal(t, g[1].Digest(), got.SHA256)
			require.Empty(t, problemsOf(t, a))
		})
	}
}
