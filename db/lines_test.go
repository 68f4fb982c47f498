package db_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/klauspost/compress/zstd"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// editLineRecord replaces document seq's line index record by what fn
// returns (nil deletes it).
func editLineRecord(seq uint64, fn func(rec []byte) []byte) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("lines"))
		k := binary.BigEndian.AppendUint64(nil, seq)
		rec := b.Get(k)
		if rec == nil {
			return fmt.Errorf("document #%d has no line index", seq)
		}
		if out := fn(bytes.Clone(rec)); out != nil {
			return b.Put(k, out)
		}
		return b.Delete(k)
	}
}

// TestLineIndexDamage: a missing line index falls back to scanning the
// document (same answer, reported by check); a damaged one fails find with
// the document's name, never a wrong answer; a stray one is reported;
// reindex repairs all three.
func TestLineIndexDamage(t *testing.T) {
	t.Parallel()
	c := ixBuild(t, 31, 40)
	docs := c.docs(t)
	srcs := c.sources(docs)
	queries := randomQueries(t, srcs, 31, 40)
	answers := func() []string {
		var out []string
		for _, q := range queries {
			hits, err := c.a.Find(q, 0)
			require.NoError(t, err)
			out = append(out, findLines(t, hits))
		}
		return out
	}
	want := answers()
	for i, q := range queries {
		require.Equal(t, findLines(t, c.scanRanking(t, docs, q.Text())), want[i], "terms %q", q.Text())
	}

	// Missing: the document is scanned whole, the answers do not change.
	missing := docs[5]
	c.edit(t, editLineRecord(missing.Seq, func([]byte) []byte { return nil }))
	require.Equal(t, want, answers())
	probs := c.problems(t)
	require.Len(t, probs, 1, "%v", probs)
	require.Equal(t, missing.Label(), probs[0].Doc)
	require.Contains(t, probs[0].Detail, "line index does not match")

	// Damaged header (a flipped byte under the header's checksum): every
	// find touching the document fails with its name.
	damaged := docs[9]
	require.NotEmpty(t, srcs[9])
	flip := editLineRecord(damaged.Seq, func(rec []byte) []byte {
		rec[10] ^= 0x04
		return rec
	})
	c.edit(t, flip)
	term := string(bytes.Fields(srcs[9])[0])
	_, err := c.a.Find(mustQuery(t, term), 0)
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.ErrorContains(t, err, damaged.Label())
	require.ErrorContains(t, err, "line index")
	c.edit(t, flip) // flipped back, for the next step

	// Damaged dictionary block: the record's last byte is in the posting
	// of the document's last token (in byte order), in its last block.
	// A find that reads that block fails with the document's name, and
	// check reports it (finds that read other blocks only are tested in
	// package index).
	blockDamaged := docs[10]
	last := lastToken(srcs[10])
	require.NotEmpty(t, last)
	c.edit(t, editLineRecord(blockDamaged.Seq, func(rec []byte) []byte {
		rec[len(rec)-1] ^= 0x01
		return rec
	}))
	_, err = c.a.Find(mustQuery(t, string(last)), 0)
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.ErrorContains(t, err, blockDamaged.Label())
	require.ErrorContains(t, err, "line index")
	probs = c.problems(t)
	require.Len(t, probs, 2, "%v", probs)
	require.Equal(t, blockDamaged.Label(), probs[1].Doc)
	require.Contains(t, probs[1].Detail, "line index does not match")
	c.edit(t, editLineRecord(blockDamaged.Seq, func(rec []byte) []byte {
		rec[len(rec)-1] ^= 0x01
		return rec
	}))
	require.Equal(t, want, answers())

	// Another document's record (a valid one): the listed lines are checked
	// against the chunk digests and their own bytes.
	swapped := docs[12]
	var other []byte
	c.edit(t, func(tx *bolt.Tx) error {
		other = bytes.Clone(tx.Bucket([]byte("lines")).Get(binary.BigEndian.AppendUint64(nil, docs[13].Seq)))
		return nil
	})
	c.edit(t, editLineRecord(swapped.Seq, func([]byte) []byte { return other }))
	_, err = c.a.Find(mustQuery(t, string(bytes.Fields(srcs[12])[0])), 0)
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.ErrorContains(t, err, swapped.Label())

	// A record for no document.
	c.edit(t, flip)
	c.edit(t, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("lines")).Put(binary.BigEndian.AppendUint64(nil, 999), other)
	})
	probs = c.problems(t)
	require.Len(t, probs, 4, "%v", probs)
	for i, d := range []*db.Document{missing, damaged, swapped} {
		require.Equal(t, d.Label(), probs[i].Doc)
		require.Contains(t, probs[i].Detail, "line index does not match")
	}
	require.Contains(t, probs[3].Detail, "line index holds 1 records for unknown documents")

	_, err = c.a.Reindex(context.Background())
	require.NoError(t, err)
	require.Empty(t, c.problems(t))
	require.Equal(t, want, answers())
}

// lastToken returns the greatest token of src in byte order (tokens are
// runs of bytes outside find's separators).
func lastToken(src []byte) []byte {
	var last []byte
	for _, tok := range bytes.FieldsFunc(src, func(r rune) bool { return r < 0x80 && find.IsSeparator(byte(r)) }) {
		if bytes.Compare(tok, last) > 0 {
			last = tok
		}
	}
	return last
}

func mustQuery(t testing.TB, terms string) *find.Query {
	q, err := find.NewQuery(terms)
	require.NoError(t, err)
	return q
}

// TestLineIndexV1Records: line index records of version 1 (CLX1, written
// before schema 11; index/testdata/lines-v1 holds those of the sample
// documents) still answer find exactly; check reports them as not what
// the source gives now, and the schema 11 upgrade rebuilds them as
// version 2.
func TestLineIndexV1Records(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.db")
	a, err := db.Open(path, db.Options{})
	require.NoError(t, err)
	samples, err := filepath.Glob("../testdata/samples/*.txt")
	require.NoError(t, err)
	require.Len(t, samples, 2)
	a.SetChunkSizeForTest(64 << 10) // the chunks of a schema 10 archive, as the V1 records say
	for i, p := range samples {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		_, err = a.Ingest(src, uint64(i+1), filepath.Base(p))
		require.NoError(t, err)
	}
	queries := []string{"أحمد", "Alice Bob", "ال", "ريال سعودي", "e", "nobody", "ي أ", "Saud"}
	answers := func(a *db.Archive) (out []string) {
		for _, terms := range queries {
			hits, err := a.Find(mustQuery(t, terms), 0)
			require.NoError(t, err)
			out = append(out, findLines(t, hits))
		}
		return out
	}
	want := answers(a)
	require.NoError(t, a.Close())

	// Write the version 1 records, as a schema 10 archive holds them.
	setV1 := func(tx *bolt.Tx) error {
		for i, p := range samples {
			rec, err := os.ReadFile(filepath.Join("../index/testdata/lines-v1", filepath.Base(p)+".clx1"))
			if err != nil {
				return err
			}
			if err := tx.Bucket([]byte("lines")).Put(binary.BigEndian.AppendUint64(nil, uint64(i+1)), rec); err != nil {
				return err
			}
		}
		return nil
	}
	b, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(setV1))
	require.NoError(t, b.Close())
	a, err = db.Open(path, db.Options{})
	require.NoError(t, err)
	require.Equal(t, want, answers(a))
	probs := problemsOf(t, a)
	require.Len(t, probs, 2, "%v", probs)
	for _, p := range probs {
		require.Contains(t, p.Detail, "line index does not match")
	}
	require.NoError(t, a.Close())

	// The upgrade from schema 10.
	b, err = bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), []byte("10"))
	}))
	require.NoError(t, b.Close())
	a, err = db.Open(path, db.Options{})
	require.NoError(t, err)
	require.Equal(t, 10, a.UpgradedFrom)
	v, err := a.Schema()
	require.NoError(t, err)
	require.Equal(t, db.SchemaVersion, v)
	require.Empty(t, problemsOf(t, a))
	require.Equal(t, want, answers(a))
	require.NoError(t, a.Close())
	b, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("lines")).ForEach(func(k, rec []byte) error {
			require.Equal(t, "CLX2", string(rec[:4]), "document %x", k)
			return nil
		})
	}))
}

// editDocRecord rewrites document d's record (JSON) with fn.
func editDocRecord(d *db.Document, fn func(rec map[string]any)) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("docs"))
		var rec map[string]any
		if err := json.Unmarshal(b.Get(d.SHA256[:]), &rec); err != nil {
			return err
		}
		delete(rec, "record_sha256")
		fn(rec)
		out, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if out, err = db.SealRecordForTest(d.SHA256[:], out); err != nil {
			return err
		}
		return b.Put(d.SHA256[:], out)
	}
}

// TestEventFrameDigest: find checks a listed document's event table by the
// digest of its stored frame; a record without one (stored before schema 7)
// is checked by decompressing the table; a wrong digest is reported by
// find and by check.
func TestEventFrameDigest(t *testing.T) {
	t.Parallel()
	c := ixBuild(t, 33, 12)
	docs := c.docs(t)
	d := docs[4]
	require.NotNil(t, d.FrameSHA256)
	term := string(bytes.Fields(c.src[d.SHA256])[0])
	want, err := c.a.Find(mustQuery(t, term), 0)
	require.NoError(t, err)

	c.edit(t, editDocRecord(d, func(rec map[string]any) { delete(rec, "events_frame_sha256") }))
	got, err := c.a.Find(mustQuery(t, term), 0)
	require.NoError(t, err)
	require.Equal(t, findLines(t, want), findLines(t, got))
	require.Empty(t, c.problems(t))

	c.edit(t, editDocRecord(d, func(rec map[string]any) { rec["events_frame_sha256"] = strings.Repeat("ab", 32) }))
	_, err = c.a.Find(mustQuery(t, term), 0)
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.ErrorContains(t, err, d.Label())
	require.ErrorContains(t, err, "event table frame")
	probs := c.problems(t)
	require.Len(t, probs, 1, "%v", probs)
	require.Equal(t, d.Label(), probs[0].Doc)
	require.Contains(t, probs[0].Detail, "event table frame does not hash")
}

// TestSameTableOtherFrame: a stored event table frame changed in a byte
// that the decoder ignores (a flag of the frame header) still decodes to
// the table, but it is not the frame the record's digest names: verify's
// rebuild, find and check all call the document damaged, so no command
// answers VALID where another reports damage.
func TestSameTableOtherFrame(t *testing.T) {
	t.Parallel()
	c := ixBuild(t, 34, 6)
	d := c.docs(t)[2]
	require.NotNil(t, d.FrameSHA256)
	term := string(bytes.Fields(c.src[d.SHA256])[0])
	_, _, err := c.a.Rebuild(d)
	require.NoError(t, err)

	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	c.edit(t, func(tx *bolt.Tx) error {
		events := tx.Bucket([]byte("events"))
		frame := bytes.Clone(events.Get(d.SHA256[:]))
		table, err := dec.DecodeAll(frame, nil)
		require.NoError(t, err)
		for i := range frame {
			for x := 1; x < 256; x++ {
				f := bytes.Clone(frame)
				f[i] ^= byte(x)
				if out, err := dec.DecodeAll(f, nil); err == nil && bytes.Equal(out, table) {
					return events.Put(d.SHA256[:], f)
				}
			}
		}
		return fmt.Errorf("no changed frame decodes to the same table")
	})

	d = c.docs(t)[2]
	_, _, err = c.a.Rebuild(d)
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.ErrorContains(t, err, "event table frame does not hash")
	_, err = c.a.Find(mustQuery(t, term), 0)
	require.ErrorIs(t, err, db.ErrCorrupt)
	probs := c.problems(t)
	require.Len(t, probs, 1, "%v", probs)
	require.Contains(t, probs[0].Detail, "event table frame does not hash")
}

// TestFindLinesAcrossChunks: listed lines that straddle chunk boundaries
// (longer than a chunk, CR and LF in different chunks, the last line
// without LF) read back exactly as the scan sees them.
func TestFindLinesAcrossChunks(t *testing.T) {
	t.Parallel()
	a, err := db.Open(filepath.Join(t.TempDir(), "a.db"), db.Options{})
	require.NoError(t, err)
	defer a.Close()
	var b bytes.Buffer
	b.WriteString("Alice opens\n")
	b.WriteString(strings.Repeat("word ", 3*db.ChunkSize/5) + "Alice in a long line\n") // spans 3+ chunks
	for b.Len()+len("filler line\n") <= 4*db.ChunkSize-len(" Alice CR")-1 {
		b.WriteString("filler line\n")
	}
	pad := 4*db.ChunkSize - b.Len() - len(" Alice CR") - 1
	b.WriteString(strings.Repeat("x", pad) + " Alice CR\r") // CR ends chunk 3
	b.WriteString("\nAlice after the boundary\r\n")
	for range 40 {
		b.WriteString("Bob and Alice\n")
	}
	b.WriteString("Alice at the end, no LF")
	src := b.Bytes()
	require.Equal(t, byte('\r'), src[4*db.ChunkSize-1])
	res, err := a.Ingest(src, 1, "long.txt")
	require.NoError(t, err)
	for _, terms := range []string{"Alice", "Alice Bob", "CR", "end", "word", "x", "LF"} {
		q := mustQuery(t, terms)
		hits, err := a.Find(q, 0)
		require.NoError(t, err)
		want := q.Search(src, res.Doc.SHA256)
		if want.TotalMatchingLines == 0 {
			require.Empty(t, hits, terms)
			continue
		}
		require.Len(t, hits, 1, terms)
		require.Equal(t, string(want.JSON()), string(hits[0].Result.JSON()), terms)
	}
}

// emptyIndexes empties every index bucket and marks a rebuild in progress
// from document #next, as an interrupted reindex leaves the archive (with
// the documents before next indexed again by the caller's fn, if any).
func emptyIndexes(next uint64) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		for _, name := range []string{"grams", "lines", "entities", "spans", "entity_counts"} {
			if err := tx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
			if _, err := tx.CreateBucket([]byte(name)); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte("meta")).Put([]byte("reindex_next"), []byte(strconv.FormatUint(next, 10)))
	}
}

// TestReindexResumes: a rebuild of the indexes interrupted after its mark
// was set (here: emptied indexes, mark at #1) is finished by the next open,
// read-write or read-only, and the answers are those of the intact archive.
func TestReindexResumes(t *testing.T) {
	t.Parallel()
	c := ixBuild(t, 35, 90) // more than one batch of reindexBatchDocs
	docs := c.docs(t)
	queries := randomQueries(t, c.sources(docs), 35, 30)
	names := append(append([]string{"nobody"}, ixTypedNames...), ixArabicNames...)
	answers := func(a *db.Archive) (out []string) {
		for _, q := range queries {
			hits, err := a.Find(q, 0)
			require.NoError(t, err)
			out = append(out, findLines(t, hits))
		}
		for _, n := range names {
			hits, err := a.Entity(n)
			require.NoError(t, err)
			out = append(out, fmt.Sprint(len(hits)))
		}
		return out
	}
	want := answers(c.a)

	// Read-write open.
	c.edit(t, emptyIndexes(1))
	require.Equal(t, want, answers(c.a))
	require.Empty(t, c.problems(t))

	// Read-only open: a brief write open finishes it first.
	require.NoError(t, c.a.Close())
	b, err := bolt.Open(c.path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(emptyIndexes(1)))
	require.NoError(t, b.Close())
	ro, err := db.Open(c.path, db.Options{ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, want, answers(ro))
	require.NoError(t, ro.Close())
	c.a, err = db.Open(c.path, db.Options{})
	require.NoError(t, err)
	require.Empty(t, c.problems(t))

	// Reindex itself, in batches, gives the same answers.
	n, err := c.a.Reindex(context.Background())
	require.NoError(t, err)
	require.Equal(t, len(docs), n)
	require.Equal(t, want, answers(c.a))
}

// TestReindexSkipsUnreadable: a document whose source cannot be read is
// left out of a rebuild and reported; the others are indexed, the archive
// still opens, and check names the damaged document.
func TestReindexSkipsUnreadable(t *testing.T) {
	t.Parallel()
	c := ixBuild(t, 36, 10)
	docs := c.docs(t)
	bad := docs[6]
	c.edit(t, func(tx *bolt.Tx) error {
		k := append(bytes.Clone(bad.SHA256[:]), 0, 0, 0, 0)
		return tx.Bucket([]byte("chunks")).Put(k, []byte("not a frame"))
	})
	n, err := c.a.Reindex(context.Background())
	require.ErrorIs(t, err, db.ErrReindexSkipped)
	require.ErrorContains(t, err, bad.Label())
	require.Equal(t, len(docs)-1, n)
	// The unreadable document is in no index, so every find must read
	// it, and fails naming it rather than answer without it.
	for _, d := range docs {
		if d == bad || len(c.src[d.SHA256]) == 0 {
			continue
		}
		q := mustQuery(t, string(bytes.Fields(c.src[d.SHA256])[0]))
		_, err := c.a.Find(q, 0)
		require.ErrorIs(t, err, db.ErrCorrupt)
		require.ErrorContains(t, err, bad.Label())
	}
	c.edit(t, func(*bolt.Tx) error { return nil }) // reopens
	probs := c.problems(t)
	require.NotEmpty(t, probs)
	for _, p := range probs {
		require.Equal(t, bad.Label(), p.Doc, "%v", p)
	}
}
