package db_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
	"hash/crc32"
	"hash/crc64"
	"maps"
	"math/bits"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/index"
	"github.com/casper-chronicle/chronicle/internal/mdtable"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// The tests below hold db/FORMAT.md to the code: its tables are parsed and
// compared with a fresh archive, db.Upgrades and the code's constants, and
// a small verifier written from the document alone (no db or index
// internals) checks every key, seal and digest of a real archive.

const formatDoc = "FORMAT.md"

// formatSection returns the text of the section of FORMAT.md under
// heading (a whole heading line, e.g. "### Buckets"), up to the next
// heading of the same or a higher level.
func formatSection(t *testing.T, heading string) string {
	t.Helper()
	doc := string(readFile(t, formatDoc))
	level := strings.Index(heading, " ")
	lines := strings.Split(doc, "\n")
	start := slices.Index(lines, heading)
	require.GreaterOrEqual(t, start, 0, "FORMAT.md has no heading %q", heading)
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if l := lines[i]; strings.HasPrefix(l, "#") {
			if n := strings.Index(l, " "); n > 0 && n <= level && strings.Trim(l[:n], "#") == "" {
				end = i
				break
			}
		}
	}
	return strings.Join(lines[start+1:end], "\n")
}

// formatTable returns the rows (cells trimmed, header and rule left out)
// of the first table of the section under heading, each with want cells.
func formatTable(t *testing.T, heading string, want int) [][]string {
	t.Helper()
	rows := mdtable.Body(strings.Split(formatSection(t, heading), "\n"))
	for _, cells := range rows {
		require.Len(t, cells, want, "a row of the table under %q: %v", heading, cells)
	}
	require.NotEmpty(t, rows, "no table under %q", heading)
	return rows
}

// unquote strips the backticks of a code span.
func unquote(s string) string { return strings.Trim(s, "`") }

// rawView reads a closed archive file with bbolt alone, not opening it as
// an archive (which would upgrade an older schema).
func rawView(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.View(fn))
}

// rootBuckets lists the top-level buckets of a closed archive file.
func rootBuckets(t *testing.T, path string) []string {
	t.Helper()
	var names []string
	rawView(t, path, func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, string(name))
			return nil
		})
	})
	slices.Sort(names)
	return names
}

// TestFormatDocBuckets: the bucket table lists exactly the buckets of a
// fresh archive, each once, and none is nested.
func TestFormatDocBuckets(t *testing.T) {
	path := newPath(t)
	a, err := db.Open(path, db.Options{})
	require.NoError(t, err)
	require.NoError(t, a.Close())

	var listed []string
	for _, row := range formatTable(t, "### Buckets", 5) {
		name := unquote(row[0])
		require.NotContains(t, listed, name, "bucket %s listed twice", name)
		listed = append(listed, name)
		since, ok := db.BucketSince[name]
		require.True(t, ok, "bucket %s is not in db.BucketSince", name)
		require.Equal(t, strconv.Itoa(since), row[4], "bucket %s: since schema (db.BucketSince)", name)
	}
	slices.Sort(listed)
	require.Equal(t, rootBuckets(t, path), listed)
	require.Equal(t, listed, slices.Sorted(maps.Keys(db.BucketSince)), "db.BucketSince names the buckets of a new archive")
	require.Contains(t, formatSection(t, "## The file"), fmt.Sprintf("Chronicle puts %d top-level buckets", len(listed)))
}

// TestFormatDocBucketsSince: db.BucketSince (the buckets table's "since
// schema") against archives the older schemas wrote: an archive of schema
// N has exactly the buckets introduced at N or before, and a new archive
// (the current schema) all of them.
func TestFormatDocBucketsSince(t *testing.T) {
	for _, v := range db.BucketSince {
		require.True(t, v >= 1 && v <= db.SchemaVersion, "since schema %d", v)
	}
	upTo := func(schema int) []string {
		var names []string
		for name, since := range db.BucketSince {
			if since <= schema {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		return names
	}
	fixtures, err := filepath.Glob("../testdata/archives/schema*.db")
	require.NoError(t, err)
	require.NotEmpty(t, fixtures)
	for _, path := range fixtures {
		schema, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "schema"), ".db"))
		require.NoError(t, err, path)
		require.Equal(t, strconv.Itoa(schema), metaValue(t, path, "schema_version"), "%s is an archive of schema %d", path, schema)
		require.Equal(t, upTo(schema), rootBuckets(t, path), "the buckets of a schema-%d archive (%s)", schema, path)
	}
	path := newPath(t)
	a, err := db.Open(path, db.Options{})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	require.Equal(t, upTo(db.SchemaVersion), rootBuckets(t, path))
	// The steps that only add a bucket add the one introduced at their
	// target schema (run here on an empty bbolt file).
	for _, step := range db.Upgrades {
		if !strings.HasPrefix(step.Summary, "add the bucket") {
			continue
		}
		before := rootBuckets(t, path)
		scratch := newPath(t)
		b, err := bolt.Open(scratch, 0o600, nil)
		require.NoError(t, err)
		require.NoError(t, b.Update(func(tx *bolt.Tx) error { return step.Apply(nil, tx) }), "step %d", step.From)
		require.NoError(t, b.Close())
		added := rootBuckets(t, scratch)
		require.Len(t, added, 1, "step %d adds one bucket", step.From)
		require.Contains(t, before, added[0])
		require.Equal(t, step.From+1, db.BucketSince[added[0]], "bucket %s is added by the step to schema %d", added[0], step.From+1)
	}
}

// metaValue reads one entry of the meta bucket of a closed archive file.
func metaValue(t *testing.T, path, key string) string {
	t.Helper()
	var v string
	rawView(t, path, func(tx *bolt.Tx) error {
		v = string(tx.Bucket([]byte("meta")).Get([]byte(key)))
		return nil
	})
	return v
}

// TestFormatDocSchemaVersions: one row per upgrade step, with its numbers
// and its Summary, and the current schema version stated.
func TestFormatDocSchemaVersions(t *testing.T) {
	rows := formatTable(t, "## Schema versions", 4)
	require.Len(t, rows, len(db.Upgrades), "one row per step of db.Upgrades")
	for i, step := range db.Upgrades {
		row := rows[i]
		require.Equal(t, strconv.Itoa(step.From), row[0], "row %d: from", i+1)
		require.Equal(t, strconv.Itoa(step.From+1), row[1], "row %d: to", i+1)
		summary, cut := strings.CutSuffix(row[2], "…")
		if cut {
			require.True(t, strings.HasPrefix(step.Summary, summary), "step %d: %q is not a prefix of its Summary %q", step.From, summary, step.Summary)
		} else {
			require.Equal(t, step.Summary, summary, "step %d: the Summary", step.From)
		}
		require.NotEmpty(t, row[3], "step %d: what it does", step.From)
	}
	require.Equal(t, db.SchemaVersion, db.Upgrades[len(db.Upgrades)-1].From+1)

	section := formatSection(t, "## Schema versions")
	m := regexp.MustCompile(`The current schema version is (\d+)\.`).FindStringSubmatch(section)
	require.NotNil(t, m, "the section states the current schema version")
	require.Equal(t, strconv.Itoa(db.SchemaVersion), m[1])
	meta := formatTable(t, "## meta", 2)
	require.Equal(t, "`schema_version`", meta[0][0])
	require.Contains(t, meta[0][1], fmt.Sprintf("`%d`", db.SchemaVersion))
}

// sampleDoc is the document of the example keys: the first document of a
// new archive, under sampleName.
const (
	sampleDoc  = "../testdata/samples/alice-bob-en.txt"
	sampleName = "alice-bob-en.txt"
)

// exampleArchive is a closed archive holding the example document alone.
func exampleArchive(t *testing.T) string {
	t.Helper()
	path := newPath(t)
	a := openArchive(t, path)
	_, err := a.Ingest(readFile(t, sampleDoc), goldenTime, sampleName)
	require.NoError(t, err)
	require.NoError(t, a.Close())
	return path
}

// valueLen is the length of the value of key in bucket (-1 when absent).
func valueLen(t *testing.T, path, bucket string, key []byte) int {
	t.Helper()
	n := -1
	rawView(t, path, func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte(bucket))
		require.NotNil(t, bk, "bucket %s", bucket)
		if v := bk.Get(key); v != nil {
			n = len(v)
		}
		return nil
	})
	return n
}

// TestFormatDocConstants: every constant of the table has the code's value
// (or the size measured in a real archive), and the table has them all.
func TestFormatDocConstants(t *testing.T) {
	path := exampleArchive(t)
	entity, err := hex.DecodeString("416c69636500" + "0000000000000001" + "00000000" + "01")
	require.NoError(t, err)
	want := map[string]int{
		"`SchemaVersion`":      db.SchemaVersion,
		"`ChunkSize`":          db.ChunkSize,
		"`GroupSize`":          index.GroupSize,
		"`SuperSize`":          index.SuperSize,
		"`DictBlock`":          index.DictBlock,
		"`LineCheckpoint`":     index.LineCheckpoint,
		"`TokenGroup`":         index.TokenGroup,
		"`SpanHeaderSize`":     index.SpanHeaderSize,
		"receipt seal":         db.ReceiptSealLenForTest,
		"totals value":         db.TotalsLenForTest,
		"record digest member": db.RecordTailForTest,
		// Measured: the index keeps these unexported.
		"block seal":         blockSealLen(t, path),
		"folded mark value":  valueLen(t, path, "gramgroups", []byte{0xFF, 0xFF, 0xFF, 0xFF}),
		"entity key value":   valueLen(t, path, "entities", entity),
		"entity count value": valueLen(t, path, "entity_counts", []byte("Alice")),
	}
	seen := map[string]bool{}
	for _, row := range formatTable(t, "## Constants", 3) {
		v, ok := want[row[0]]
		require.True(t, ok, "the constant %s is not known to the test", row[0])
		require.Equal(t, strconv.Itoa(v), row[1], "constant %s", row[0])
		seen[row[0]] = true
	}
	for name := range want {
		require.True(t, seen[name], "FORMAT.md does not state %s", name)
	}
	// GroupSize and SuperSize as the prose states them too.
	terms := formatSection(t, "## The term index")
	require.Contains(t, terms, fmt.Sprintf("`GroupSize` = %d", index.GroupSize))
	require.Contains(t, terms, fmt.Sprintf("`SuperSize` = %d documents, %d groups", index.SuperSize, index.SuperSize/index.GroupSize))
}

// blockSealLen finds the seal length of the term index blocks: the n for
// which the last n bytes of every block are its seal as FORMAT.md computes
// it (checked for 8 only: the seal is a u64).
func blockSealLen(t *testing.T, path string) int {
	t.Helper()
	n := 0
	rawView(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("grams")).ForEach(func(k, v []byte) error {
			switch {
			case n < 0:
			case blockSealOK(k, v):
				n = 8
			default:
				n = -1
			}
			return nil
		})
	})
	return n
}

// blockSealOK checks a block's seal as FORMAT.md describes it.
func blockSealOK(k, v []byte) bool {
	if len(v) < 9 {
		return false
	}
	body := v[:len(v)-8]
	c := crc32.Update(crc32.Checksum(k, crc32.MakeTable(crc32.Castagnoli)), crc32.MakeTable(crc32.Castagnoli), body)
	i := crc32.Update(crc32.ChecksumIEEE(k), crc32.IEEETable, body)
	return binary.LittleEndian.Uint64(v[len(v)-8:]) == uint64(c)<<32|uint64(i)
}

// TestFormatDocExampleKeys: every example key is in its bucket of the
// sample archive, with a value of the stated length.
func TestFormatDocExampleKeys(t *testing.T) {
	section := formatSection(t, "## Example keys")
	sum := sha256.Sum256(readFile(t, sampleDoc))
	require.Contains(t, section, hex.EncodeToString(sum[:]), "the example document's SHA-256")
	require.Contains(t, section, "`"+sampleName+"`")
	path := exampleArchive(t)
	rows := formatTable(t, "## Example keys", 4)
	for _, row := range rows {
		bucket := unquote(row[0])
		key, err := hex.DecodeString(strings.ReplaceAll(unquote(row[1]), " ", ""))
		require.NoError(t, err, "key %s", row[1])
		got := valueLen(t, path, bucket, key)
		require.GreaterOrEqual(t, got, 0, "bucket %s has no key %s (%s)", bucket, row[1], row[3])
		if row[2] != "-" {
			require.Equal(t, row[2], strconv.Itoa(got), "bucket %s, key %s: value bytes", bucket, row[1])
		}
	}
}

// TestFormatDocRecordMembers: a document record's members are the table's,
// in its order (optional ones may be absent).
func TestFormatDocRecordMembers(t *testing.T) {
	path := exampleArchive(t)
	var members []string
	optional := map[string]bool{}
	for _, row := range formatTable(t, "### The document record (`docs`)", 3) {
		name := unquote(row[0])
		members = append(members, name)
		optional[name] = strings.Contains(row[1], "optional")
	}
	rawView(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("docs")).ForEach(func(k, v []byte) error {
			dec := json.NewDecoder(bytes.NewReader(v))
			_, err := dec.Token() // {
			require.NoError(t, err)
			var got []string
			for dec.More() {
				tok, err := dec.Token()
				require.NoError(t, err)
				got = append(got, tok.(string))
				var skip json.RawMessage
				require.NoError(t, dec.Decode(&skip))
			}
			var want []string
			for _, m := range members {
				if !optional[m] || slices.Contains(got, m) {
					want = append(want, m)
				}
			}
			require.Equal(t, want, got)
			return nil
		})
	})
}

// TestFormatDocVerifier reads an archive of many documents (English,
// Arabic, a batch and single ingests) with nothing but FORMAT.md's rules,
// and checks every entry of every bucket.
func TestFormatDocVerifier(t *testing.T) {
	path := newPath(t)
	a := openArchive(t, path)
	skey, vkey, err := note.GenerateKey(rand.Reader, "chronicle-test")
	require.NoError(t, err)
	signer, err := note.NewSigner(skey)
	require.NoError(t, err)
	a.LogSigner(signer)
	samples, err := filepath.Glob("../testdata/samples/*.txt")
	require.NoError(t, err)
	stories, err := filepath.Glob("../testdata/stories/*.txt")
	require.NoError(t, err)
	for _, f := range append(samples, stories...) {
		_, err := a.IngestFile(a.Prepare(readFile(t, f), goldenTime), f)
		require.NoError(t, err)
	}
	a.BeginBatch()
	for _, c := range loadGolden(t) {
		_, err := a.Ingest(c.Input, goldenTime, c.DocName())
		require.NoError(t, err)
	}
	// Short notes past the first 4,096 documents, so that super-group 0
	// is packed (grampacks).
	docs, err := a.Docs()
	require.NoError(t, err)
	for i := len(docs); i < 4096+70; i++ {
		note := fmt.Sprintf("Note %d: Khalid lent Ahmed %d dinars.\nعقد رقم %d\n", i, i%97+1, i)
		_, err := a.Ingest([]byte(note), goldenTime, fmt.Sprintf("notes/%05d.txt", i))
		require.NoError(t, err)
	}
	require.NoError(t, a.EndBatch())
	// A cross-archive receipt too (its result digest is arbitrary: the
	// layout is what is checked).
	docs, err = a.Docs()
	require.NoError(t, err)
	require.NoError(t, a.KeepSetReceipt(&db.SetReceipt{Kind: db.KindArchiveFind, Documents: uint64(len(docs)),
		Set: db.SetDigest(docs), Question: "Alice", Result: sha256.Sum256([]byte("result"))}))
	require.NoError(t, a.Close())

	rawView(t, path, func(tx *bolt.Tx) error {
		v := &formatVerifier{t: t, tx: tx, verifierKey: vkey}
		v.run()
		return nil
	})
}

type formatVerifier struct {
	t           *testing.T
	tx          *bolt.Tx
	verifierKey string                   // the note verifier key that signs the log's checkpoints
	docs        map[string]*formatRecord // by key
	// postings: each gram key's bitmap (grams level)
	postings map[string]uint64
	packed   uint32 // super-groups packed (grampacks)
	follows  int    // trigram entries with follow masks
	// followOf: each trigram key's follow masks by document bit.
	followOf map[string]map[uint64]byte
}

// formatRecord is a document record as FORMAT.md lists its members.
type formatRecord struct {
	SHA256       string            `json:"sha256"`
	Seq          uint64            `json:"seq"`
	Version      int               `json:"version"`
	ImportedAt   uint64            `json:"imported_at"`
	SourceSize   int64             `json:"source_size"`
	EventCount   int               `json:"event_count"`
	StoreSHA256  string            `json:"store_sha256"`
	EventsSHA256 string            `json:"events_sha256"`
	FrameSHA256  string            `json:"events_frame_sha256"`
	ChunkSize    int               `json:"chunk_size"`
	Codec        string            `json:"codec"`
	StoredBytes  int64             `json:"stored_bytes"`
	Names        []string          `json:"names"`
	Sources      map[string]string `json:"sources"`
	source       []byte
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

func sha(parts ...[]byte) []byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

func (v *formatVerifier) bucket(name string) *bolt.Bucket {
	b := v.tx.Bucket([]byte(name))
	require.NotNil(v.t, b, "bucket %s", name)
	return b
}

func (v *formatVerifier) run() {
	v.records()
	v.meta()
	v.names()
	v.receipts()
	v.postings, v.followOf = map[string]uint64{}, map[string]map[uint64]byte{}
	v.readPacked()
	require.Positive(v.t, v.packed, "the archive has a packed super-group")
	v.termLevel("grams", true)
	v.packs()
	require.Positive(v.t, v.follows, "trigram entries keep follow masks")
	v.termLevel("gramgroups", false)
	v.grams()
	v.entities()
	v.lines()
	v.log()
}

// mth is RFC 6962's Merkle Tree Hash of leaves, by its definition (2.1):
// the test's own tree hashing, independent of the code under test.
func mth(leaves [][]byte) [32]byte {
	switch len(leaves) {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return sha256.Sum256(append([]byte{0}, leaves[0]...))
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	l, r := mth(leaves[:k]), mth(leaves[k:])
	return sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
}

// log checks the log: leaves 0..n-1 and nothing else numbered, each a
// one-line JSON object opening with its kind; a document leaf per record
// and a receipt leaf per kept receipt, with their digests; the subject
// entries; each leaf's stored hash; and the signed checkpoint: its text
// (origin, size, root by RFC 6962 over the leaves) and its Ed25519
// signature over that text, checked with crypto/ed25519.
func (v *formatVerifier) log() {
	t := v.t
	b := v.bucket("log")
	n := int(b.Sequence())
	var leaves [][]byte
	kinds := map[string]int{}
	docLeaves := map[string]int{}
	receiptLeaves := map[uint64]string{}
	locators := map[string]uint64{} // locator → leaf index
	require.NoError(t, b.ForEach(func(k, val []byte) error {
		switch {
		case k[0] == 'l' && len(k) == 9:
			require.Equal(t, uint64(len(leaves)), binary.BigEndian.Uint64(k[1:]), "leaves numbered from 0 without gaps")
			leaves = append(leaves, bytes.Clone(val))
			var m map[string]any
			require.NoError(t, json.Unmarshal(val, &m))
			require.True(t, bytes.HasPrefix(val, []byte(`{"kind":"`)))
			kind := m["kind"].(string)
			kinds[kind]++
			switch kind {
			case "document":
				docLeaves[m["sha256"].(string)]++
				require.Equal(t, float64(v.docs[mustHex(t, m["sha256"].(string))].SourceSize), m["size"])
			case "receipt":
				receiptLeaves[uint64(m["number"].(float64))] = m["sha256"].(string)
			}
		case k[0] == 'h' && len(k) == 9:
			require.Len(t, val, 32)
		case k[0] == 'x':
			require.Len(t, val, 8)
			locators[string(k[1:])] = binary.BigEndian.Uint64(val)
		default:
			require.Contains(t, []string{"origin", "checkpoint"}, string(k))
		}
		return nil
	}))
	require.Len(t, leaves, n, "the bucket's sequence counts the leaves")
	// A locator entry for each document (by sequence number) and kept
	// receipt (by number), pointing at its leaf.
	require.Len(t, locators, len(v.docs)+len(receiptLeaves))
	for key, d := range v.docs {
		at, ok := locators[string(binary.BigEndian.AppendUint64([]byte{'d'}, d.Seq))]
		require.True(t, ok, "document #%d's locator", d.Seq)
		require.Contains(t, string(leaves[at]), `"kind":"document","sha256":"`+hex.EncodeToString([]byte(key))+`"`)
	}
	for num, sum := range receiptLeaves {
		at, ok := locators[string(binary.BigEndian.AppendUint64([]byte{'r'}, num))]
		require.True(t, ok, "receipt %d's locator", num)
		require.Contains(t, string(leaves[at]), `"number":`+fmt.Sprint(num)+`,"sha256":"`+sum+`"`)
	}
	for i, l := range leaves {
		h := sha256.Sum256(append([]byte{0}, l...))
		require.Equal(t, h[:], b.Get(binary.BigEndian.AppendUint64([]byte{'h'}, uint64(tlog.StoredHashIndex(0, int64(i))))), "leaf %d's stored hash", i)
	}
	require.Len(t, docLeaves, len(v.docs), "a document leaf per record")
	for sha, c := range docLeaves {
		require.Equal(t, 1, c, sha)
	}
	receipts := v.bucket("receipts")
	require.Len(t, receiptLeaves, int(receipts.Sequence()), "a receipt leaf per kept receipt")
	require.NoError(t, receipts.ForEach(func(k, val []byte) error {
		num := binary.BigEndian.Uint64(val)
		require.Equal(t, hex.EncodeToString(k[32:]), receiptLeaves[num], "receipt %d", num)
		return nil
	}))
	require.Positive(t, kinds["name"], "a document under two names")

	origin := string(b.Get([]byte("origin")))
	require.Regexp(t, `^chronicle\.archive/[0-9a-f]{32}$`, origin)
	signed := string(b.Get([]byte("checkpoint")))
	root := mth(leaves)
	text := fmt.Sprintf("%s\n%d\n%s\n", origin, n, base64.StdEncoding.EncodeToString(root[:]))
	require.True(t, strings.HasPrefix(signed, text+"\n"), "checkpoint text: %q", signed)
	sigLine := strings.TrimPrefix(signed, text+"\n")
	parts := strings.Split(strings.TrimSuffix(sigLine, "\n"), " ")
	require.Len(t, parts, 3)
	require.Equal(t, "\u2014", parts[0])
	require.Equal(t, "chronicle-test", parts[1])
	sig, err := base64.StdEncoding.DecodeString(parts[2])
	require.NoError(t, err)
	vk := strings.SplitN(v.verifierKey, "+", 3) // name, key hash, key (whose base64 may hold a +)
	pub, err := base64.StdEncoding.DecodeString(vk[2])
	require.NoError(t, err)
	require.Equal(t, byte(1), pub[0], "algorithm Ed25519")
	require.Len(t, sig, 4+ed25519.SignatureSize)
	require.True(t, ed25519.Verify(ed25519.PublicKey(pub[1:]), []byte(text), sig[4:]), "the checkpoint's signature")
}

// mustHex is the key of a record by its digest in hex.
func mustHex(t *testing.T, s string) string {
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return string(b)
}

// records checks every document record, its chunks, its event frame and
// its canonical store, and the sequence entries.
func (v *formatVerifier) records() {
	t := v.t
	v.docs = map[string]*formatRecord{}
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	const tag = `,"record_sha256":"`
	require.NoError(t, v.bucket("docs").ForEach(func(k, val []byte) error {
		at := len(val) - len(tag) - 64 - 2
		require.Equal(t, tag, string(val[at:at+len(tag)]))
		body := append(bytes.Clone(val[:at]), '}')
		require.Equal(t, hexOf(sha(k, body)), string(val[at+len(tag):len(val)-2]), "record digest")
		var d formatRecord
		require.NoError(t, json.Unmarshal(body, &d))
		require.Equal(t, hexOf(k), d.SHA256)
		require.Equal(t, "s2", d.Codec)

		// Chunks: S2 blocks of chunk_size bytes.
		chunks := v.bucket("chunks")
		var src []byte
		for i := 0; int64(i*d.ChunkSize) < d.SourceSize; i++ {
			frame := chunks.Get(binary.BigEndian.AppendUint32(bytes.Clone(k), uint32(i)))
			require.NotNil(t, frame, "chunk %d", i)
			chunk, err := s2.Decode(nil, frame)
			require.NoError(t, err)
			require.Equal(t, min(int64(d.ChunkSize), d.SourceSize-int64(i*d.ChunkSize)), int64(len(chunk)))
			src = append(src, chunk...)
		}
		require.Equal(t, k, sha(src), "the source hashes to the document digest")
		d.source = src

		// The event frame and table.
		frame := v.bucket("events").Get(k)
		require.Equal(t, d.FrameSHA256, hexOf(sha(frame)))
		table, err := dec.DecodeAll(frame, nil)
		require.NoError(t, err)
		require.Equal(t, d.EventsSHA256, hexOf(sha(table)))
		events := 0
		for p := table; len(p) > 0; events++ {
			require.GreaterOrEqual(t, len(p), 145)
			p = p[145:]
			for range 8 {
				n := int(binary.LittleEndian.Uint32(p))
				p = p[4+n:]
			}
		}
		require.Equal(t, d.EventCount, events)

		// The canonical store.
		store := []byte("CASPER-CHRON-V2\x00")
		store = append(store, k...)
		store = binary.LittleEndian.AppendUint64(store, uint64(d.SourceSize))
		store = binary.LittleEndian.AppendUint64(store, d.ImportedAt)
		store = binary.LittleEndian.AppendUint32(store, uint32(d.EventCount))
		store = append(append(store, src...), table...)
		require.Equal(t, d.StoreSHA256, hexOf(sha(store)))

		require.Equal(t, k, v.bucket("seqs").Get(binary.BigEndian.AppendUint64(nil, d.Seq)))
		v.docs[string(k)] = &d
		return nil
	}))
	require.Equal(t, uint64(len(v.docs)), v.bucket("docs").Sequence())
}

// meta checks the schema version and the running totals.
func (v *formatVerifier) meta() {
	t := v.t
	meta := v.bucket("meta")
	require.Equal(t, strconv.Itoa(db.SchemaVersion), string(meta.Get([]byte("schema_version"))))
	require.Nil(t, meta.Get([]byte("reindex_next")))
	tot := meta.Get([]byte("totals"))
	require.Len(t, tot, 65)
	require.Equal(t, byte(1), tot[0])
	require.Equal(t, sha([]byte("totals"), tot[:57])[:8], tot[57:])
	require.Equal(t, v.bucket("docs").Sequence(), binary.BigEndian.Uint64(tot[1:]), "documents")
	require.Equal(t, v.bucket("receipts").Sequence(), binary.BigEndian.Uint64(tot[1+4*8:])+binary.BigEndian.Uint64(tot[1+5*8:]), "receipts")
}

// names checks that every name and source path points at a record that
// lists it, and the way back.
func (v *formatVerifier) names() {
	t := v.t
	nb := v.bucket("names")
	paths := 0
	require.NoError(t, nb.ForEach(func(k, val []byte) error {
		d := v.docs[string(val)]
		require.NotNil(t, d, "name %q", k)
		if k[0] == 0 {
			paths++
			var sources []string
			for _, p := range d.Sources {
				sources = append(sources, p)
			}
			require.Contains(t, sources, string(k[1:]))
		} else {
			require.Contains(t, d.Names, string(k))
		}
		return nil
	}))
	for _, d := range v.docs {
		for _, n := range d.Names {
			require.Equal(t, d.SHA256, hexOf(nb.Get([]byte(n))))
		}
	}
	require.Positive(t, paths, "the documents ingested from files have source path entries")
}

// receipts checks every kept receipt's seal, key and number.
func (v *formatVerifier) receipts() {
	t := v.t
	rb := v.bucket("receipts")
	seen := map[uint64]bool{}
	sets := 0
	require.NoError(t, rb.ForEach(func(k, val []byte) error {
		n := len(val) - 8
		require.Equal(t, sha(k, val[:n])[:8], val[n:], "receipt seal")
		data := val[8:n]
		require.Equal(t, k[32:], sha(data), "the key names the receipt")
		owner := v.docs[string(k[:32])]
		require.NotNil(t, owner, "the owner is a document")
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		field := func(i int, name string) string {
			value, ok := strings.CutPrefix(lines[i], name+":")
			require.True(t, ok, "line %d of %q is %s", i+1, data, name)
			return value
		}
		switch lines[0] {
		case "CHRONICLE-ARCHIVE-RECEIPT-V1":
			require.Len(t, lines, 6)
			field(1, "kind")
			require.Equal(t, owner.SHA256, field(2, "document_sha256"))
			require.Equal(t, owner.StoreSHA256, field(3, "store_sha256"))
			field(4, "question_hex")
			field(5, "result_sha256")
		case "CHRONICLE-ARCHIVE-SET-RECEIPT-V1":
			require.Len(t, lines, 7)
			require.Equal(t, "ARCHIVE-FIND", field(1, "kind"))
			s, err := strconv.ParseUint(field(2, "documents"), 10, 64)
			require.NoError(t, err)
			require.Equal(t, s, owner.Seq, "a set receipt is kept under document #S")
			set := sha256.New()
			for i := uint64(1); i <= s; i++ {
				d := v.docs[string(v.bucket("seqs").Get(binary.BigEndian.AppendUint64(nil, i)))]
				set.Write(d.key())
				store, err := hex.DecodeString(d.StoreSHA256)
				require.NoError(t, err)
				set.Write(store)
			}
			require.Equal(t, hexOf(set.Sum(nil)), field(3, "set_sha256"))
			require.Equal(t, hexOf([]byte("Alice")), field(4, "question_hex"))
			require.Equal(t, "0", field(5, "limit"))
			field(6, "result_sha256")
			sets++
		default:
			t.Fatalf("receipt %q has no known header", data)
		}
		seq := binary.BigEndian.Uint64(val)
		require.False(t, seen[seq])
		seen[seq] = true
		return nil
	}))
	for i := uint64(1); i <= rb.Sequence(); i++ {
		require.True(t, seen[i], "receipt #%d", i)
	}
	require.Len(t, seen, int(rb.Sequence()))
	require.Equal(t, 1, sets, "the set receipt")
}

// key is the document digest of a record.
func (d *formatRecord) key() []byte {
	k, err := hex.DecodeString(d.SHA256)
	if err != nil {
		panic(err)
	}
	return k
}

// termLevel checks every block of a level of the term index: its key, its
// seal, its entries and its group's chain, and the folded mark. A packed
// group (below v.packed super-groups) keeps its start entry alone, linked
// 0xFF.
func (v *formatVerifier) termLevel(bucket string, counted bool) {
	t := v.t
	b := v.bucket(bucket)
	var prevUnit []byte
	var prevLink []byte
	starts := 0
	endOf := func(unit []byte) []byte {
		if counted && binary.BigEndian.Uint32(unit)/64 < v.packed {
			return []byte{0xFF}
		}
		return []byte{0}
	}
	require.NoError(t, b.ForEach(func(k, val []byte) error {
		if bucket == "gramgroups" && bytes.Equal(k, []byte{0xFF, 0xFF, 0xFF, 0xFF}) {
			require.Len(t, val, 16)
			require.True(t, blockSealOK(k, val), "the folded mark's seal")
			w := binary.BigEndian.Uint64(val)
			require.Equal(t, v.bucket("docs").Sequence()+1, w, "every document is folded")
			return nil
		}
		require.True(t, blockSealOK(k, val), "%s block %x: seal", bucket, k)
		require.LessOrEqual(t, k[4], byte(4))
		require.Len(t, k, 5+formatPrefixLen[k[4]])
		if !bytes.Equal(prevUnit, k[:4]) {
			if prevUnit != nil {
				require.Equal(t, endOf(prevUnit), prevLink, "the unit's last block ends the chain")
			}
			require.Equal(t, byte(0), k[4], "a unit starts with its start entry")
			starts++
		} else {
			require.Equal(t, prevLink, k[4:], "the chain names this key")
		}
		prevUnit, prevLink = bytes.Clone(k[:4]), v.block(k, val, counted)
		return nil
	}))
	require.Equal(t, endOf(prevUnit), prevLink)
	units := (v.bucket("docs").Sequence() + 64) / 64
	if !counted {
		units = (v.bucket("docs").Sequence() + 4096) / 4096
	}
	require.Equal(t, int(units), starts, "%s: a start entry per unit", bucket)
}

// formatPrefixLen is the prefix length of a block key of each kind.
var formatPrefixLen = map[byte]int{0: 0, 1: 0, 2: 1, 3: 2, 4: 2}

// block checks the entries of block value val of key k (its seal checked)
// and returns its link; a counted (group) block's postings go to
// v.postings.
func (v *formatVerifier) block(k, val []byte, counted bool) []byte {
	t := v.t
	body := val[:len(val)-8]
	linkLen := 1
	if body[0] != 0 && body[0] != 0xFF {
		linkLen += formatPrefixLen[body[0]]
	}
	if body[0] == 0xFF {
		require.Equal(t, byte(0), k[4], "only a start entry says packed")
	}
	entries := 0
	last := -1
	for p := body[linkLen:]; len(p) > 0; entries++ {
		require.Greater(t, int(p[0]), last)
		last = int(p[0])
		docs := int(p[1])
		p = p[2:]
		var bm uint64
		if docs <= 7 {
			for _, c := range p[:docs] {
				bm |= 1 << c
			}
			p = p[docs:]
		} else {
			bm = binary.LittleEndian.Uint64(p)
			p = p[8:]
		}
		require.Equal(t, docs, bits.OnesCount64(bm))
		if counted && k[4] != 0 {
			v.postings[string(k)+string([]byte{byte(last)})] = bm
		}
		size, n := binary.Uvarint(p)
		require.Positive(t, n)
		p = p[n:]
		counts := p[:size]
		p = p[size:]
		if !counted {
			require.Empty(t, counts)
			continue
		}
		for range docs {
			_, n := binary.Uvarint(counts)
			require.Positive(t, n)
			counts = counts[n:]
		}
		if k[4] == 3 && len(counts) > 0 {
			// A trigram's follow masks: a byte per document.
			require.Len(t, counts, docs)
			v.follows++
			masks := map[uint64]byte{}
			for i, w := 0, bm; w != 0; i, w = i+1, w&(w-1) {
				masks[w&-w] = counts[i]
			}
			v.followOf[string(k)+string([]byte{byte(last)})] = masks
			continue
		}
		require.Empty(t, counts)
	}
	require.Positive(t, entries)
	if k[4] == 0 {
		require.Equal(t, 1, entries, "a start block holds one entry")
	}
	return bytes.Clone(body[:linkLen])
}

// readPacked reads the packed mark: how many super-groups are packed.
func (v *formatVerifier) readPacked() {
	val := v.bucket("grampacks").Get([]byte{0xFF, 0xFF, 0xFF, 0xFF})
	if val == nil {
		return
	}
	require.Len(v.t, val, 16)
	require.True(v.t, blockSealOK([]byte{0xFF, 0xFF, 0xFF, 0xFF}, val), "the packed mark's seal")
	v.packed = uint32(binary.BigEndian.Uint64(val))
	require.LessOrEqual(v.t, uint64(v.packed)*4096, v.bucket("docs").Sequence()+1, "only wholly folded super-groups are packed")
}

// packs checks every pack: key, header seal, chain, the start pack's
// groups, and each group's block inside (seal bound to its group key,
// entries, postings into v.postings).
func (v *formatVerifier) packs() {
	t := v.t
	var prevUnit, prevLink []byte
	supers := 0
	require.NoError(t, v.bucket("grampacks").ForEach(func(k, val []byte) error {
		if bytes.Equal(k, []byte{0xFF, 0xFF, 0xFF, 0xFF}) {
			return nil // readPacked
		}
		require.LessOrEqual(t, k[4], byte(4))
		require.Len(t, k, 5+formatPrefixLen[k[4]])
		require.Less(t, binary.BigEndian.Uint32(k), v.packed)
		if !bytes.Equal(prevUnit, k[:4]) {
			if prevUnit != nil {
				require.Equal(t, []byte{0}, prevLink)
			}
			require.Equal(t, byte(0), k[4], "a packed super-group starts with its start pack")
			supers++
		} else {
			require.Equal(t, prevLink, k[4:], "the chain names this pack")
		}
		linkLen := 1
		if val[0] != 0 {
			linkLen += formatPrefixLen[val[0]]
		}
		groups := binary.LittleEndian.Uint64(val[linkLen:])
		p := linkLen + 8
		var sizes []uint64
		if k[4] != 0 {
			for range bits.OnesCount64(groups) {
				n, m := binary.Uvarint(val[p:])
				require.Positive(t, m)
				sizes, p = append(sizes, n), p+m
			}
		}
		require.True(t, blockSealOK(k, val[:p+8]), "pack %x: header seal", k)
		prevUnit, prevLink = bytes.Clone(k[:4]), bytes.Clone(val[:linkLen])
		p += 8
		if k[4] == 0 {
			require.Equal(t, ^uint64(0), groups, "a packed super-group has all its groups")
			require.Len(t, val, p)
			return nil
		}
		i := 0
		for w := groups; w != 0; w &= w - 1 {
			gk := binary.BigEndian.AppendUint32(nil, binary.BigEndian.Uint32(k)*64+uint32(bits.TrailingZeros64(w)))
			gk = append(gk, k[4:]...)
			blk := val[p : p+int(sizes[i])]
			require.True(t, blockSealOK(gk, blk), "pack %x: group block %x: seal", k, gk)
			v.block(gk, blk, true)
			p += int(sizes[i])
			i++
		}
		require.Len(t, val, p)
		return nil
	}))
	if prevUnit != nil {
		require.Equal(t, []byte{0}, prevLink)
	}
	require.Equal(t, int(v.packed), supers, "a start pack per packed super-group")
}

// entities checks the entity keys, counts and kept spans.
func (v *formatVerifier) entities() {
	t := v.t
	table := crc64.MakeTable(crc64.ECMA)
	perName := map[string]uint64{}
	bySeq := map[uint64]*formatRecord{}
	for _, d := range v.docs {
		bySeq[d.Seq] = d
	}
	spans := v.bucket("spans")
	require.NoError(t, v.bucket("entities").ForEach(func(k, val []byte) error {
		require.Equal(t, binary.LittleEndian.AppendUint64(nil, crc64.Checksum(k, table)), val)
		sep := bytes.IndexByte(k, 0)
		require.Len(t, k, sep+1+8+4+1)
		perName[string(k[:sep])]++
		seq := binary.BigEndian.Uint64(k[sep+1:])
		require.NotNil(t, bySeq[seq])
		require.Contains(t, []byte{1, 2}, k[len(k)-1])
		span := spans.Get(k[sep+1 : sep+1+12])
		require.NotNil(t, span)
		require.Equal(t, sha(k[sep+1:sep+1+12], span[:81])[:8], span[81:89], "span tag")
		require.Equal(t, span[16:48], sha(span[89:]), "span digest")
		require.Equal(t, bySeq[seq].SHA256, hex.EncodeToString(span[48:80]), "the span's document")
		require.Equal(t, byte(bySeq[seq].Version), span[80], "the span's store version")
		start := binary.BigEndian.Uint64(span[8:])
		require.Equal(t, bySeq[seq].source[start:start+uint64(len(span)-89)], span[89:])
		return nil
	}))
	require.NotEmpty(t, perName)
	counts := v.bucket("entity_counts")
	require.Equal(t, len(perName), counts.Stats().KeyN)
	for name, n := range perName {
		val := counts.Get([]byte(name))
		require.Len(t, val, 16)
		require.Equal(t, n, binary.BigEndian.Uint64(val))
		require.Equal(t, sha([]byte(name), []byte{0}, val[:8])[:8], val[8:])
	}
}

// lines checks every line index record's framing, checksums and chunk
// digests.
func (v *formatVerifier) lines() {
	t := v.t
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	bySeq := map[uint64]*formatRecord{}
	for _, d := range v.docs {
		bySeq[d.Seq] = d
	}
	records := 0
	require.NoError(t, v.bucket("lines").ForEach(func(k, rec []byte) error {
		records++
		d := bySeq[binary.BigEndian.Uint64(k)]
		require.NotNil(t, d)
		require.Equal(t, "CLX2", string(rec[:4]))
		p := rec[8:]
		uv := func() uint64 {
			x, n := binary.Uvarint(p)
			require.Positive(t, n)
			p = p[n:]
			return x
		}
		u32 := func() uint32 {
			x := binary.LittleEndian.Uint32(p)
			p = p[4:]
			return x
		}
		size := uv()
		headerEnd := len(rec) - len(p) + int(size)
		require.Equal(t, crc32.Checksum(rec[8:headerEnd], castagnoli), binary.LittleEndian.Uint32(rec[4:8]), "header checksum")
		require.Equal(t, uint64(d.SourceSize), uv())
		require.Equal(t, uint64(d.ChunkSize), uv())
		uv() // lines
		uv() // tokens
		blocks := uv()
		require.Equal(t, uint64(4), uv(), "probes")
		locSize := uv()
		locCRC := u32()
		type block struct{ dict, post, filter uint64 }
		var bs []block
		var crcs []uint32
		for range blocks {
			uv() // tokens
			uv() // rawSize
			bs = append(bs, block{dict: uv(), post: uv(), filter: uv()})
			crcs = append(crcs, u32())
		}
		var filters [][]byte
		for _, b := range bs {
			filters = append(filters, p[:b.filter])
			p = p[b.filter:]
		}
		require.Equal(t, headerEnd, len(rec)-len(p), "the header ends after the filters")
		loc := p[:locSize]
		p = p[locSize:]
		require.Equal(t, locCRC, crc32.Checksum(loc, castagnoli), "locator checksum")
		for i := 0; int64(i*d.ChunkSize) < d.SourceSize; i++ {
			chunk := d.source[i*d.ChunkSize : min(int64((i+1)*d.ChunkSize), d.SourceSize)]
			require.Equal(t, sha(chunk), loc[32*i:32*i+32], "chunk %d digest", i)
		}
		for i, b := range bs {
			require.Equal(t, crcs[i], crc32.Checksum(p[:b.dict+b.post], castagnoli), "block %d checksum", i)
			dict, err := s2.Decode(nil, p[:b.dict])
			require.NoError(t, err)
			require.True(t, bytes.HasSuffix(dict, []byte("\n")))
			checkFilter(t, filters[i], bytes.Split(dict[:len(dict)-1], []byte("\n")))
			p = p[b.dict+b.post:]
		}
		require.Empty(t, p, "the blocks fill the record")
		return nil
	}))
	require.Equal(t, len(v.docs), records)
}

// formatSeparator is FORMAT.md's separator set.
func formatSeparator(c byte) bool { return strings.IndexByte(" \t\n\r.,;:?!", c) >= 0 }

// formatUnit decodes the character (unit) at the start of b as FORMAT.md
// delimits it: a valid UTF-8 encoding is its code point, any other byte a
// unit of 0x110000 + the byte.
func formatUnit(b []byte) (uint32, int) {
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		return 0x110000 + uint32(b[0]), 1
	}
	return uint32(r), n
}

// grams checks that every gram FORMAT.md says a document has is in the
// postings with the document's bit.
func (v *formatVerifier) grams() {
	t := v.t
	cp := 0
	for _, d := range v.docs {
		group, bit := uint32(d.Seq/64), uint64(1)<<(d.Seq%64)
		has := func(kind byte, gram []byte) {
			k := append(binary.BigEndian.AppendUint32(nil, group), kind)
			k = append(k, gram...)
			require.NotZero(t, v.postings[string(k)]&bit, "document #%d lacks gram %d %x", d.Seq, kind, gram)
		}
		src := d.source
		follow := map[string]byte{} // trigram -> bit b&7 of each byte after it
		for i := range src {
			for n := 1; n <= 3 && i+n <= len(src); n++ {
				g := src[i : i+n]
				if n == 1 && g[0] == '\n' || !slices.ContainsFunc(g, formatSeparator) {
					has(byte(n), g)
					if n == 3 && i+3 < len(src) {
						follow[string(g)] |= 1 << (src[i+3] & 7)
					} else if n == 3 {
						follow[string(g)] |= 0
					}
				}
			}
		}
		for g, want := range follow {
			k := append(binary.BigEndian.AppendUint32(nil, group), 3)
			if masks, ok := v.followOf[string(append(k, g...))]; ok {
				require.Equal(t, want, masks[bit], "document #%d: the follow mask of %q", d.Seq, g)
			}
		}
		// Code-point trigrams: runs of three characters, no separator, a
		// byte >= 0x80.
		var vals []uint32
		var starts []int
		for p := 0; p < len(src); {
			u, n := formatUnit(src[p:])
			vals, starts = append(vals, u), append(starts, p)
			p += n
		}
		starts = append(starts, len(src))
		for i := 0; i+3 <= len(vals); i++ {
			run := src[starts[i]:starts[i+3]]
			if slices.ContainsFunc(run, formatSeparator) || !slices.ContainsFunc(run, func(c byte) bool { return c >= 0x80 }) {
				continue
			}
			h := vals[i]*0x9E3779B1 ^ vals[i+1]*0x85EBCA77 ^ vals[i+2]*0xC2B2AE3D
			h ^= h >> 15
			h *= 0x2C1B3C6D
			h ^= h >> 12
			h &= 0xFFFFFF
			has(4, []byte{byte(h >> 16), byte(h >> 8), byte(h)})
			cp++
		}
	}
	require.Positive(t, cp, "the Arabic sample has code-point trigrams")
}

// checkFilter checks a dictionary block's Bloom filter as FORMAT.md
// describes it: its size, and every bit of every gram of its tokens.
func checkFilter(t *testing.T, f []byte, tokens [][]byte) {
	t.Helper()
	mix := func(k uint64) uint64 {
		k ^= k >> 30
		k *= 0xbf58476d1ce4e5b9
		k ^= k >> 27
		k *= 0x94d049bb133111eb
		return k ^ k>>31
	}
	hashes := map[uint64]bool{}
	for _, tok := range tokens {
		var units []uint64
		for p := 0; p < len(tok); {
			u, n := formatUnit(tok[p:])
			units = append(units, uint64(u))
			p += n
			hashes[mix(uint64(u)|1<<63)] = true
			if m := len(units); m >= 3 {
				hashes[mix(units[m-3]|units[m-2]<<21|units[m-1]<<42)] = true
			}
		}
	}
	require.Len(t, f, max(1, (len(hashes)*6+7)/8), "filter size")
	m := uint64(len(f)) * 8
	for h := range hashes {
		for k := range 4 {
			b := uint64(uint32(h)+uint32(k)*(uint32(h>>32)|1)) * m >> 32
			require.NotZero(t, f[b>>3]&(1<<(b&7)), "filter bit %d of gram hash %x", k, h)
		}
	}
}

// TestFormatDocLinked: the README's guide table links FORMAT.md.
func TestFormatDocLinked(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	require.Contains(t, string(readme), "| [db/FORMAT.md](db/FORMAT.md) |")
}
