package db_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/receipt"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// setStories are ingested in this order; later ones change the answers of
// "alpha beta" and of entity Alice.
var setStories = []struct{ name, text string }{
	{"one.txt", "alpha one\n@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"},
	{"two.txt", "nothing here\nBob owns Book.\n"},
	{"three.txt", "alpha beta\nbeta alpha\nAlice owns Book.\n"},
	{"four.txt", "alpha beta gamma\nCarol owns Alice.\n"},
	{"five.txt", "alpha beta\nalpha beta\nalpha beta\n@chronicle\tAlice\tPAID_TO\tBob\t40\tSAR\tT2\tASSERTED\tPOSITIVE\tCONFIRMED\n"},
}

// ingestStories ingests setStories[from:to] into a.
func ingestStories(t testing.TB, a *db.Archive, from, to int) []*db.Document {
	t.Helper()
	var docs []*db.Document
	for _, s := range setStories[from:to] {
		res, err := a.Ingest([]byte(s.text), goldenTime, s.name)
		require.NoError(t, err, s.name)
		docs = append(docs, res.Doc)
	}
	return docs
}

// setFixture is an archive of the first three stories with one receipt of
// each kind issued over them.
type setFixture struct {
	path   string
	a      *db.Archive
	docs   []*db.Document
	find   *db.SetReceipt // "alpha beta", limit 2
	entity *db.SetReceipt // Alice
}

func newSetFixture(t *testing.T) *setFixture {
	t.Helper()
	f := &setFixture{path: newPath(t)}
	f.a = openArchive(t, f.path)
	f.docs = ingestStories(t, f.a, 0, 3)
	q, err := find.NewQuery("alpha beta")
	require.NoError(t, err)
	hits, r, err := f.a.FindWithReceipt(q, 2)
	require.NoError(t, err)
	require.Len(t, hits, 2)
	f.find = r
	ents, r, err := f.a.EntityWithReceipt("Alice")
	require.NoError(t, err)
	require.Len(t, ents, 2)
	f.entity = r
	return f
}

func requireValid(t *testing.T, a *db.Archive, r *db.SetReceipt) {
	t.Helper()
	outcome, err := a.VerifySet(r)
	require.NoError(t, err, "%s", r.Encode())
	require.Equal(t, receipt.Valid, outcome)
}

func requireInvalid(t *testing.T, a *db.Archive, r *db.SetReceipt, target error) {
	t.Helper()
	outcome, err := a.VerifySet(r)
	require.Equal(t, receipt.Invalid, outcome)
	require.Error(t, err, "an INVALID outcome says why")
	require.NotContains(t, err.Error(), "\n", "the reason is one line")
	if target != nil {
		require.ErrorIs(t, err, target)
	}
}

// The receipts bind what the commands print, without names: the set of
// documents #1..#S, the question and the canonical result.
func TestSetReceiptRoundTrip(t *testing.T) {
	f := newSetFixture(t)
	docs := f.docs

	// The set digest is SHA-256 over document ‖ store digests in import order.
	var cat []byte
	for _, d := range docs {
		cat = append(append(cat, d.SHA256[:]...), d.StoreSHA256[:]...)
	}
	wantSet := db.Digest(sha256.Sum256(cat))
	require.Equal(t, wantSet, db.SetDigest(docs))

	// The find result is the per-document find JSON of the best documents,
	// wrapped without names.
	var want []byte
	for _, d := range []*db.Document{docs[2], docs[0]} { // three.txt: 2 terms, 2 lines; one.txt: 1 term
		s, err := f.a.Load(d)
		require.NoError(t, err)
		per, err := find.Find(s, "alpha beta")
		require.NoError(t, err)
		want = fmt.Appendf(want, "{\"document_sha256\":\"%s\",\"result\":%s}\n", d.SHA256, per)
	}
	require.Equal(t, &db.SetReceipt{Kind: db.KindArchiveFind, Documents: 3, Set: wantSet, Question: "alpha beta",
		Limit: 2, Result: sha256.Sum256(want)}, f.find)
	require.Equal(t, "CHRONICLE-ARCHIVE-SET-RECEIPT-V1\n"+
		"kind:ARCHIVE-FIND\n"+
		"documents:3\n"+
		"set_sha256:"+wantSet.String()+"\n"+
		"question_hex:616c7068612062657461\n"+
		"limit:2\n"+
		"result_sha256:"+hex.EncodeToString(f.find.Result[:])+"\n", string(f.find.Encode()))

	// The entity result is the printed lines without "names".
	hits, err := f.a.Entity("Alice")
	require.NoError(t, err)
	var printed, canonical []byte
	for i := range hits {
		printed = append(append(printed, db.EntityHitJSON(&hits[i], true)...), '\n')
		canonical = append(append(canonical, db.EntityHitJSON(&hits[i], false)...), '\n')
	}
	require.Equal(t, canonical, db.EntityResult(hits))
	for _, d := range docs {
		names := fmt.Sprintf(`,"names":["%s"]`, d.Names[0])
		printed = bytes.ReplaceAll(printed, []byte(names), nil)
	}
	require.Equal(t, string(canonical), string(printed))
	require.Equal(t, &db.SetReceipt{Kind: db.KindEntity, Documents: 3, Set: wantSet, Question: "Alice",
		Result: sha256.Sum256(canonical)}, f.entity)
	require.Contains(t, string(f.entity.Encode()), "\nkind:ENTITY\ndocuments:3\n")
	require.Contains(t, string(f.entity.Encode()), "\nquestion_hex:416c696365\nlimit:0\n")

	for _, r := range []*db.SetReceipt{f.find, f.entity} {
		parsed, err := db.ParseSetReceipt(r.Encode())
		require.NoError(t, err)
		require.Equal(t, r, parsed)
		require.True(t, db.IsSetReceipt(r.Encode()))
		require.False(t, db.IsArchiveReceipt(r.Encode()))
		_, err = db.ParseReceipt(r.Encode())
		require.ErrorIs(t, err, db.ErrReceipt, "the document receipt parser refuses a cross-archive receipt")
		require.Equal(t, db.Digest(sha256.Sum256(r.Encode())), r.ID())
		requireValid(t, f.a, r)
	}

	// The archive keeps them: SetReceipts lists them in issue order,
	// Receipts (document receipts) does not, check is content.
	sets, err := f.a.SetReceipts()
	require.NoError(t, err)
	require.Equal(t, []*db.SetReceipt{f.find, f.entity}, sets)
	all, err := f.a.Receipts(nil)
	require.NoError(t, err)
	require.Len(t, all, 3, "the three INGEST receipts")
	for _, d := range docs {
		own, err := f.a.Receipts(&d.SHA256)
		require.NoError(t, err)
		require.Len(t, own, 1)
		require.Equal(t, db.KindIngest, own[0].Kind)
	}
	require.Empty(t, problemsOf(t, f.a))

	// Issued twice, kept once; they survive a reopen read-only.
	require.NoError(t, f.a.KeepSetReceipt(f.find))
	require.NoError(t, f.a.Close())
	a := openArchive(t, f.path, db.Options{ReadOnly: true})
	sets, err = a.SetReceipts()
	require.NoError(t, err)
	require.Equal(t, []*db.SetReceipt{f.find, f.entity}, sets)
	v := a.NewSetVerifier()
	for _, r := range sets {
		outcome, err := v.Verify(r)
		require.NoError(t, err)
		require.Equal(t, receipt.Valid, outcome)
	}
}

// Documents imported after a receipt play no part in it: the answer over
// the whole archive changes, the receipt still verifies. So do new names.
func TestSetReceiptValidAfterLaterImports(t *testing.T) {
	f := newSetFixture(t)
	later := ingestStories(t, f.a, 3, 5)
	_, err := f.a.Ingest([]byte(setStories[2].text), goldenTime+1, "renamed three.txt")
	require.NoError(t, err)

	q, err := find.NewQuery("alpha beta")
	require.NoError(t, err)
	hits, now, err := f.a.FindWithReceipt(q, 2)
	require.NoError(t, err)
	require.Equal(t, later[1].SHA256, hits[0].Doc.SHA256, "five.txt now ranks first")
	require.Equal(t, uint64(5), now.Documents)
	require.NotEqual(t, f.find.Result, now.Result)
	require.NotEqual(t, f.find.Set, now.Set)
	ents, nowEntity, err := f.a.EntityWithReceipt("Alice")
	require.NoError(t, err)
	require.Len(t, ents, 4)
	require.NotEqual(t, f.entity.Result, nowEntity.Result)

	for _, r := range []*db.SetReceipt{f.find, f.entity, now, nowEntity} {
		requireValid(t, f.a, r)
	}

	// Damage to a document outside the old set does not concern the old
	// receipts (their replay never reads it); the new ones are INVALID.
	require.NoError(t, f.a.Close())
	editBolt(t, f.path, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("chunks")).Put(chunkKey(later[1].SHA256, 0), chunkFrame(t, []byte("alpha beta alpha beta\n")))
	})
	a := openArchive(t, f.path, db.Options{ReadOnly: true})
	requireValid(t, a, f.find)
	requireValid(t, a, f.entity)
	requireInvalid(t, a, now, db.ErrCorrupt)
	requireInvalid(t, a, nowEntity, db.ErrCorrupt)
}

// FindUpTo and EntityUpTo over an archive answer exactly as an archive
// holding only its first documents.
func TestFindUpToIsTheSmallerArchive(t *testing.T) {
	big := openArchive(t, newPath(t))
	ingestStories(t, big, 0, len(setStories))
	for n := 1; n <= len(setStories); n++ {
		small := openArchive(t, newPath(t))
		ingestStories(t, small, 0, n)
		for _, terms := range []string{"alpha beta", "alpha", "owns", "Book alpha", "zzz"} {
			q, err := find.NewQuery(terms)
			require.NoError(t, err)
			for _, limit := range []int{0, 1, 2, 3, 10} {
				want, err := small.Find(q, limit)
				require.NoError(t, err)
				got, _, err := big.FindUpTo(q, limit, uint64(n))
				require.NoError(t, err)
				require.Equal(t, string(db.FindResult(want)), string(db.FindResult(got)), "%q limit %d over %d documents", terms, limit, n)
			}
		}
		for _, name := range []string{"Alice", "Bob", "Book", "Nobody"} {
			want, err := small.Entity(name)
			require.NoError(t, err)
			got, err := big.EntityUpTo(name, uint64(n))
			require.NoError(t, err)
			require.Equal(t, string(db.EntityResult(want)), string(db.EntityResult(got)), "%q over %d documents", name, n)
		}
	}
}

// Every edit of a field that still parses verifies INVALID.
func TestSetReceiptTampered(t *testing.T) {
	f := newSetFixture(t)
	later := ingestStories(t, f.a, 3, 4)
	allDocs := append(append([]*db.Document{}, f.docs...), later...)
	edit := func(r *db.SetReceipt, fn func(*db.SetReceipt)) *db.SetReceipt {
		c := *r
		fn(&c)
		parsed, err := db.ParseSetReceipt(c.Encode())
		require.NoError(t, err, "the edited receipt still parses")
		return parsed
	}
	flip := func(d db.Digest) db.Digest { d[31] ^= 1; return d }
	for _, tc := range []struct {
		name   string
		r      *db.SetReceipt
		fn     func(*db.SetReceipt)
		reason error
	}{
		{"find question", f.find, func(r *db.SetReceipt) { r.Question = "alpha gamma" }, db.ErrReceiptResult},
		{"find question emptied", f.find, func(r *db.SetReceipt) { r.Question = "" }, nil},
		{"find limit", f.find, func(r *db.SetReceipt) { r.Limit = 1 }, db.ErrReceiptResult},
		{"find result", f.find, func(r *db.SetReceipt) { r.Result = flip(r.Result) }, db.ErrReceiptResult},
		{"find documents fewer", f.find, func(r *db.SetReceipt) { r.Documents = 2 }, db.ErrReceiptSet},
		{"find documents more", f.find, func(r *db.SetReceipt) { r.Documents = 4 }, db.ErrReceiptSet},
		{"find documents beyond the archive", f.find, func(r *db.SetReceipt) { r.Documents = 5 }, db.ErrReceiptSetMissing},
		{"find set", f.find, func(r *db.SetReceipt) { r.Set = flip(r.Set) }, db.ErrReceiptSet},
		{"find set and documents of the larger archive", f.find, func(r *db.SetReceipt) {
			r.Documents, r.Set = 4, db.SetDigest(allDocs)
		}, db.ErrReceiptResult},
		{"find kind ENTITY", f.find, func(r *db.SetReceipt) { r.Kind, r.Limit = db.KindEntity, 0 }, db.ErrReceiptResult},
		{"entity name", f.entity, func(r *db.SetReceipt) { r.Question = "Bob" }, db.ErrReceiptResult},
		{"entity name prefix", f.entity, func(r *db.SetReceipt) { r.Question = "Alic" }, db.ErrReceiptResult},
		{"entity result", f.entity, func(r *db.SetReceipt) { r.Result = flip(r.Result) }, db.ErrReceiptResult},
		{"entity documents fewer", f.entity, func(r *db.SetReceipt) { r.Documents = 1 }, db.ErrReceiptSet},
		{"entity set", f.entity, func(r *db.SetReceipt) { r.Set = flip(r.Set) }, db.ErrReceiptSet},
		{"entity kind ARCHIVE-FIND", f.entity, func(r *db.SetReceipt) { r.Kind = db.KindArchiveFind }, db.ErrReceiptResult},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireInvalid(t, f.a, edit(tc.r, tc.fn), tc.reason)
		})
	}
	requireValid(t, f.a, f.find)
	requireValid(t, f.a, f.entity)

	// An edit that leaves the answer as it was states a true fact: with or
	// without a limit of 2, two documents match over #1..#3.
	requireValid(t, f.a, edit(f.find, func(r *db.SetReceipt) { r.Limit, r.Result = 0, f.find.Result }))
}

// A bound document whose stored bytes are damaged makes every receipt
// binding it INVALID, whether or not the answer reads it; so does a
// missing document.
func TestSetReceiptCorruptDocument(t *testing.T) {
	f := newSetFixture(t)
	two := f.docs[1] // neither matches "alpha beta" nor names Alice
	require.NoError(t, f.a.Close())
	editBolt(t, f.path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("chunks"))
		frame := unchunk(t, b.Get(chunkKey(two.SHA256, 0)))
		frame[0] ^= 0x20
		return b.Put(chunkKey(two.SHA256, 0), chunkFrame(t, frame))
	})
	a := openArchive(t, f.path, db.Options{ReadOnly: true})
	for _, r := range []*db.SetReceipt{f.find, f.entity} {
		requireInvalid(t, a, r, db.ErrCorrupt)
		_, err := a.VerifySet(r)
		require.ErrorContains(t, err, "two.txt")
	}
	v := a.NewSetVerifier() // one verifier, the damage found for both
	for _, r := range []*db.SetReceipt{f.find, f.entity} {
		outcome, err := v.Verify(r)
		require.Equal(t, receipt.Invalid, outcome)
		require.ErrorIs(t, err, db.ErrCorrupt)
	}
	require.NoError(t, a.Close())

	// A missing sequence entry: the document cannot be found by number.
	editBolt(t, f.path, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("seqs")).Delete(binaryKey(2))
	})
	a = openArchive(t, f.path, db.Options{ReadOnly: true})
	requireInvalid(t, a, f.entity, db.ErrReceiptSetMissing)
}

func binaryKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// An empty archive has nothing to bind: no receipt is issued or kept.
func TestSetReceiptEmptyArchive(t *testing.T) {
	a := openArchive(t, newPath(t))
	q, err := find.NewQuery("alpha")
	require.NoError(t, err)
	_, _, err = a.FindWithReceipt(q, 0)
	require.ErrorIs(t, err, db.ErrEmptyArchive)
	_, _, err = a.EntityWithReceipt("Alice")
	require.ErrorIs(t, err, db.ErrEmptyArchive)
	sets, err := a.SetReceipts()
	require.NoError(t, err)
	require.Empty(t, sets)
}

// KeepSetReceipt keeps only what SetReceipts can read back.
func TestKeepSetReceiptRefuses(t *testing.T) {
	f := newSetFixture(t)
	for name, fn := range map[string]func(*db.SetReceipt){
		"long question":     func(r *db.SetReceipt) { r.Question = strings.Repeat("q", db.MaxQuestion+1) },
		"no documents":      func(r *db.SetReceipt) { r.Documents = 0 },
		"unknown document":  func(r *db.SetReceipt) { r.Documents = 9 },
		"entity with limit": func(r *db.SetReceipt) { r.Kind = db.KindEntity },
		"document kind":     func(r *db.SetReceipt) { r.Kind = db.KindFind },
		"negative limit":    func(r *db.SetReceipt) { r.Limit = -1 },
	} {
		t.Run(name, func(t *testing.T) {
			r := *f.find
			fn(&r)
			require.Error(t, f.a.KeepSetReceipt(&r))
		})
	}
	sets, err := f.a.SetReceipts()
	require.NoError(t, err)
	require.Equal(t, []*db.SetReceipt{f.find, f.entity}, sets)
	_, _, err = f.a.EntityWithReceipt(strings.Repeat("a", db.MaxQuestion+1))
	require.ErrorIs(t, err, db.ErrReceipt)
	sets, err = f.a.SetReceipts()
	require.NoError(t, err)
	require.Len(t, sets, 2)
}

// A kept cross-archive receipt that no longer parses is corruption.
func TestCorruptStoredSetReceipt(t *testing.T) {
	f := newSetFixture(t)
	require.NoError(t, f.a.Close())
	editBolt(t, f.path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("receipts"))
		return b.ForEach(func(k, v []byte) error {
			if !bytes.Contains(v, []byte("kind:ENTITY")) {
				return nil
			}
			v = bytes.Replace(bytes.Clone(v), []byte("limit:0"), []byte("limit:7"), 1)
			return b.Put(bytes.Clone(k), v)
		})
	})
	a := openArchive(t, f.path)
	_, err := a.SetReceipts()
	require.ErrorIs(t, err, db.ErrCorrupt)
	_, err = a.Receipts(nil)
	require.ErrorIs(t, err, db.ErrCorrupt)
	problems := problemsOf(t, a)
	require.Len(t, problems, 1, "%v", problems)
	require.Contains(t, problems[0].String(), "receipt")
}

// ParseSetReceipt accepts only the canonical form.
func TestParseSetReceipt(t *testing.T) {
	h := func(c string) string { return strings.Repeat(c, 64) }
	build := func(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }
	fields := func(kind, docs, set, q, limit, result string) []byte {
		return build(db.SetReceiptHeader, "kind:"+kind, "documents:"+docs, "set_sha256:"+set, "question_hex:"+q, "limit:"+limit, "result_sha256:"+result)
	}
	arabic := hex.EncodeToString([]byte("سعود الحوالة"))
	valid := fields("ARCHIVE-FIND", "12", h("a"), arabic, "20", h("c"))
	r, err := db.ParseSetReceipt(valid)
	require.NoError(t, err)
	require.Equal(t, &db.SetReceipt{Kind: db.KindArchiveFind, Documents: 12, Set: hexDigest(h("a")), Question: "سعود الحوالة",
		Limit: 20, Result: hexDigest(h("c"))}, r)

	for _, ok := range []*db.SetReceipt{
		{Kind: db.KindEntity, Documents: 1},
		{Kind: db.KindEntity, Documents: 1<<64 - 1, Question: "\xff\x00\n"},
		{Kind: db.KindArchiveFind, Documents: 3, Limit: db.MaxLimit, Question: strings.Repeat("q", db.MaxQuestion)},
		{Kind: db.KindArchiveFind, Documents: 3, Limit: 0},
	} {
		got, err := db.ParseSetReceipt(ok.Encode())
		require.NoError(t, err)
		require.Equal(t, ok, got)
	}

	bad := map[string][]byte{
		"empty":                   nil,
		"only LF":                 []byte("\n"),
		"header only":             build(db.SetReceiptHeader),
		"no final LF":             valid[:len(valid)-1],
		"CRLF":                    bytes.ReplaceAll(valid, []byte("\n"), []byte("\r\n")),
		"leading blank line":      append([]byte("\n"), valid...),
		"extra line":              append(bytes.Clone(valid), "note:x\n"...),
		"extra blank line":        append(bytes.Clone(valid), '\n'),
		"document receipt header": bytes.Replace(valid, []byte(db.SetReceiptHeader), []byte(db.ReceiptHeader), 1),
		"V2 header":               bytes.Replace(valid, []byte("RECEIPT-V1"), []byte("RECEIPT-V2"), 1),
		"kind FIND":               fields("FIND", "12", h("a"), arabic, "20", h("c")),
		"kind lower case":         fields("archive-find", "12", h("a"), arabic, "20", h("c")),
		"kind empty":              fields("", "12", h("a"), arabic, "20", h("c")),
		"documents zero":          fields("ARCHIVE-FIND", "0", h("a"), arabic, "20", h("c")),
		"documents leading zero":  fields("ARCHIVE-FIND", "012", h("a"), arabic, "20", h("c")),
		"documents plus":          fields("ARCHIVE-FIND", "+12", h("a"), arabic, "20", h("c")),
		"documents negative":      fields("ARCHIVE-FIND", "-12", h("a"), arabic, "20", h("c")),
		"documents empty":         fields("ARCHIVE-FIND", "", h("a"), arabic, "20", h("c")),
		"documents hex":           fields("ARCHIVE-FIND", "0x0c", h("a"), arabic, "20", h("c")),
		"documents overflow":      fields("ARCHIVE-FIND", "18446744073709551616", h("a"), arabic, "20", h("c")),
		"documents space":         fields("ARCHIVE-FIND", " 12", h("a"), arabic, "20", h("c")),
		"limit leading zero":      fields("ARCHIVE-FIND", "12", h("a"), arabic, "020", h("c")),
		"limit double zero":       fields("ARCHIVE-FIND", "12", h("a"), arabic, "00", h("c")),
		"limit empty":             fields("ARCHIVE-FIND", "12", h("a"), arabic, "", h("c")),
		"limit negative":          fields("ARCHIVE-FIND", "12", h("a"), arabic, "-1", h("c")),
		"limit too large":         fields("ARCHIVE-FIND", "12", h("a"), arabic, strconv.Itoa(db.MaxLimit+1), h("c")),
		"limit on ENTITY":         fields("ENTITY", "12", h("a"), arabic, "20", h("c")),
		"set upper case":          fields("ARCHIVE-FIND", "12", h("A"), arabic, "20", h("c")),
		"set short":               fields("ARCHIVE-FIND", "12", h("a")[1:], arabic, "20", h("c")),
		"set not hex":             fields("ARCHIVE-FIND", "12", h("g"), arabic, "20", h("c")),
		"result upper case":       fields("ARCHIVE-FIND", "12", h("a"), arabic, "20", h("C")),
		"result long":             fields("ARCHIVE-FIND", "12", h("a"), arabic, "20", h("c")+"0"),
		"question upper case":     fields("ARCHIVE-FIND", "12", h("a"), strings.ToUpper(arabic), "20", h("c")),
		"question odd hex":        fields("ARCHIVE-FIND", "12", h("a"), "414", "20", h("c")),
		"question not hex":        fields("ARCHIVE-FIND", "12", h("a"), "4g", "20", h("c")),
		"trailing space":          bytes.Replace(valid, []byte("limit:20"), []byte("limit:20 "), 1),
		"NUL":                     bytes.Replace(valid, []byte("kind:"), []byte("kind:\x00"), 1),
		"lines swapped": build(db.SetReceiptHeader, "kind:ARCHIVE-FIND", "set_sha256:"+h("a"), "documents:12",
			"question_hex:"+arabic, "limit:20", "result_sha256:"+h("c")),
		"limit line missing": build(db.SetReceiptHeader, "kind:ENTITY", "documents:12", "set_sha256:"+h("a"),
			"question_hex:"+arabic, "result_sha256:"+h("c")),
		"key without colon": bytes.Replace(valid, []byte("limit:"), []byte("limit "), 1),
		"too long":          fields("ENTITY", "12", h("a"), strings.Repeat("41", db.MaxQuestion+1024), "0", h("c")),
	}
	for name, data := range bad {
		r, err := db.ParseSetReceipt(data)
		require.ErrorIs(t, err, db.ErrReceipt, name)
		require.Nil(t, r, name)
	}
	require.False(t, db.IsSetReceipt([]byte(db.SetReceiptHeader)))
	require.False(t, db.IsSetReceipt(valid[1:]))
}

func hexDigest(s string) db.Digest {
	var d db.Digest
	if err := d.UnmarshalText([]byte(s)); err != nil {
		panic(err)
	}
	return d
}

// FuzzParseSetReceipt: the cross-archive receipt parser never panics,
// accepts only the canonical encoding of a receipt and wraps every refusal
// in ErrReceipt. Seeds are in testdata/fuzz/FuzzParseSetReceipt.
func FuzzParseSetReceipt(f *testing.F) {
	for _, r := range []*db.SetReceipt{
		{Kind: db.KindArchiveFind, Documents: 3, Question: "alpha beta", Limit: 20},
		{Kind: db.KindArchiveFind, Documents: 1, Question: "سعود الحوالة"},
		{Kind: db.KindEntity, Documents: 1<<64 - 1, Question: "Alice"},
	} {
		f.Add(r.Encode())
	}
	f.Add((&db.Receipt{Kind: db.KindFind, Question: "alpha"}).Encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := db.ParseSetReceipt(data)
		if err != nil {
			require.ErrorIs(t, err, db.ErrReceipt)
			require.Nil(t, r)
			return
		}
		require.True(t, bytes.Equal(data, r.Encode()), "accepted a non-canonical receipt")
		require.True(t, db.IsSetReceipt(data))
		require.False(t, db.IsArchiveReceipt(data))
		require.Contains(t, []db.ReceiptKind{db.KindArchiveFind, db.KindEntity, db.KindArchiveSettle}, r.Kind)
		require.NotZero(t, r.Documents)
		require.True(t, r.Limit >= 0 && r.Limit <= db.MaxLimit)
		if r.Kind == db.KindEntity {
			require.Zero(t, r.Limit)
		}
		again, err := db.ParseSetReceipt(r.Encode())
		require.NoError(t, err)
		require.Equal(t, r, again)
	})
}
