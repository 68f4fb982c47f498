package db_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/index"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// This file checks the term and entity indexes of package index through a
// real archive: random corpora of several 64-document groups, the indexed
// cross-archive find compared with a scan of every document, entity lookups
// compared with a scan of every stored event, reindex, and check finding a
// hand-damaged index.

// Word and name pools of the random corpora. Names include prefixes of other
// names, a trailing space, Arabic names and the ASCII letters the Arabic
// grammar accepts.
var (
	ixEnglish = []string{"Alice", "Bob", "Saud", "owes", "paid", "the", "of", "ledger",
		"transfer", "receipt", "book", "day", "a", "I", "an", "al", "Ali", "Alicia", "café", "naïve", "€100"}
	ixArabic = []string{"أحمد", "خالد", "سعود", "مبلغ", "ريال", "في", "اليوم", "الحوالة",
		"المجلس", "القرية", "السفر", "المطر", "دفتر", "رسالة", "ع", "لا"}
	ixTypedNames = []string{"Alice", "Ali", "Al", "Alicia", "Alice ", "Bob", "Saud", "A",
		"a b", "Q\"uote", `back\slash`, "سعود", "سع", "أحمد", "أحمد علي", "خالد", "Bo\rb"}
	ixArabicNames = []string{"أحمد", "خالد", "سعود", "سع", "أحمد علي", "Ali", "فاطمة"}
	ixDays        = []string{"الأول", "الثاني", "الثالث", "العاشر"}
	// ixRandPieces make random lines: ASCII, separators, lone CR, and 2-,
	// 3- and 4-byte UTF-8 characters.
	ixRandPieces = []string{"a", "b", "l", "i", "A", "x", " ", " ", ".", ",", ";", ":", "?", "!", "\t",
		"\r", "é", "ع", "ل", "ي", "€", "😀", "ء", "1", "@", "\"", "\\", "\x01", "\x7f"}
)

// ixRareLetters make the rare words of prose: English consonants, then
// Arabic letters.
const ixRareLetters = "bcdfghjkmnpqrstvwxzبتثجحخدذرزسشصضطظعغفقكلمنهوي"

func ixPick(r *rand.Rand, pool []string) string { return pool[r.IntN(len(pool))] }

// ixLine returns one random physical line (without its line ending).
func ixLine(r *rand.Rand) string {
	switch r.IntN(12) {
	case 0, 1:
		words := make([]string, 1+r.IntN(10))
		for i := range words {
			words[i] = ixPick(r, ixEnglish)
			if r.IntN(6) == 0 {
				words[i] = ixRare(r, ixRareLetters[:19], 4+r.IntN(4))
			}
		}
		return strings.Join(words, " ") + ixPick(r, []string{"", ".", "!", " "})
	case 2, 3:
		words := make([]string, 1+r.IntN(10))
		for i := range words {
			words[i] = ixPick(r, ixArabic)
			if r.IntN(6) == 0 {
				words[i] = ixRare(r, ixRareLetters[19:], 3+r.IntN(3))
			}
		}
		return strings.Join(words, " ") + ixPick(r, []string{"", ".", "؟"})
	case 4:
		amount := ixPick(r, []string{"100", "-", "1/3", "40", "60"})
		currency := ixPick(r, []string{"SAR", "-", "ريال", "USD"})
		pred := ixPick(r, []string{engine.PredBorrowedFrom, engine.PredPaidTo, engine.PredIntermediaryFor, engine.PredTransferTo})
		mod := ixPick(r, []string{"ASSERTED", "UNCERTAIN", "LITERAL"})
		pol := ixPick(r, []string{"POSITIVE", "NEGATIVE"})
		status := ixPick(r, []string{"ASSERTED", "CONFIRMED", "PENDING", "DENIED"})
		return strings.Join([]string{"@chronicle", ixPick(r, ixTypedNames), pred, ixPick(r, ixTypedNames),
			amount, currency, fmt.Sprintf("T%d", r.IntN(9)), mod, pol, status}, "\t")
	case 5:
		s, o := ixPick(r, ixArabicNames), ixPick(r, ixArabicNames)
		day := "اليوم " + ixPick(r, ixDays)
		switch r.IntN(5) {
		case 0:
			return fmt.Sprintf("أقر %s بأنه اقترض من %s مبلغ %d ريال سعودي في %s.", s, o, 1+r.IntN(500), day)
		case 1:
			return fmt.Sprintf("اقترض %s من %s مبلغ %d دولار أمريكي في %s.", s, o, 1+r.IntN(500), day)
		case 2:
			return fmt.Sprintf("أكد %s استلام مبلغ %d ريال سعودي من %s في %s.", o, 1+r.IntN(500), s, day)
		case 3:
			return fmt.Sprintf("%s %s أن %s وسيط عنه في %s.", ixPick(r, []string{"أكد", "نفى"}), o, s, day)
		default:
			return fmt.Sprintf("حوّل %s إلى %s مبلغ %d ريال سعودي في %s ولم يثبت وصول الحوالة.", s, o, 1+r.IntN(500), day)
		}
	case 6:
		// Literal statement: three tokens and a period.
		return fmt.Sprintf("%s%s %s\t%s.", ixPick(r, []string{"", " "}), ixPick(r, ixTypedNames[:8]),
			ixPick(r, []string{"owns", "owes", "knows", "يملك"}), ixPick(r, []string{"Book", "Car", "سعود", "Al"}))
	case 7:
		return "" // empty line
	case 8:
		// A very short line: one to three pieces.
		return ixRandLine(r, 1+r.IntN(3))
	default:
		return ixRandLine(r, 1+r.IntN(40))
	}
}

// ixRare returns a random word of n letters of alphabet: rare words make
// selective terms.
func ixRare(r *rand.Rand, alphabet string, n int) string {
	letters := []rune(alphabet)
	w := make([]rune, n)
	for i := range w {
		w[i] = letters[r.IntN(len(letters))]
	}
	return string(w)
}

func ixRandLine(r *rand.Rand, pieces int) string {
	var b strings.Builder
	for range pieces {
		b.WriteString(ixPick(r, ixRandPieces))
	}
	return b.String()
}

// ixSource returns a random document the V2 grammars accept: a line whose
// extraction fails is dropped and the document rebuilt (a random line may,
// for example, end a typed record with a CR that is not the line's last).
func ixSource(t testing.TB, r *rand.Rand) []byte {
	lines := make([]string, r.IntN(40))
	for i := range lines {
		lines[i] = ixLine(r)
	}
	endings := []string{"\n", "\n", "\n", "\r\n", "\r\r\n", "\n\n"}
	for {
		var b strings.Builder
		first := make([]int, len(lines)) // physical line number of each generated line
		for i, l := range lines {
			first[i] = 1 + strings.Count(b.String(), "\n")
			b.WriteString(l)
			if i < len(lines)-1 || r.IntN(3) > 0 {
				b.WriteString(ixPick(r, endings))
			} else if r.IntN(2) == 0 {
				b.WriteString("\r") // final line ending in a lone CR
			}
		}
		src := []byte(b.String())
		_, err := engine.NewStore(src, 1)
		if err == nil {
			return src
		}
		var xe *engine.ExtractError
		require.True(t, errors.As(err, &xe), "%v", err)
		i := slices.Index(first, xe.Line)
		require.GreaterOrEqual(t, i, 0, "%v", err)
		lines = slices.Delete(lines, i, i+1)
	}
}

// ixCorpus is an archive built from random documents, with the bytes of
// every document kept for the reference scans.
type ixCorpus struct {
	path string
	a    *db.Archive
	src  map[db.Digest][]byte
}

func ixBuild(t *testing.T, seed uint64, ndocs int) *ixCorpus {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 6))
	c := &ixCorpus{path: filepath.Join(t.TempDir(), "ix.db"), src: map[db.Digest][]byte{}}
	var err error
	c.a, err = db.Open(c.path, db.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { c.a.Close() })
	var prev []byte
	for i := range ndocs {
		src := ixSource(t, r)
		if i == 7 || i == 100 {
			src = prev // the same bytes again: reused, no new sequence number
		}
		if i == 3 {
			src = nil // an empty document
		}
		res, err := c.a.Ingest(src, 1750000000+uint64(i), fmt.Sprintf("doc-%03d.txt", i))
		require.NoError(t, err)
		c.src[res.Doc.SHA256] = src
		prev = src
	}
	return c
}

// sources returns the source bytes of docs, in the same order.
func (c *ixCorpus) sources(docs []*db.Document) [][]byte {
	srcs := make([][]byte, len(docs))
	for i, d := range docs {
		srcs[i] = c.src[d.SHA256]
	}
	return srcs
}

// randomQueries returns n random valid queries over srcs (ixTerms), from seed.
func randomQueries(t testing.TB, srcs [][]byte, seed uint64, n int) []*find.Query {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []*find.Query
	for len(out) < n {
		if q, err := find.NewQuery(ixTerms(r, srcs)); err == nil {
			out = append(out, q)
		}
	}
	return out
}

func (c *ixCorpus) docs(t testing.TB) []*db.Document {
	docs, err := c.a.Docs()
	require.NoError(t, err)
	return docs
}

// ixTerms returns a random terms string (CONTRACT 11.2): words of the pools,
// pieces of the documents (whole characters, so the string stays UTF-8),
// 1- and 2-byte terms, multibyte characters, absent terms, duplicates.
func ixTerms(r *rand.Rand, docs [][]byte) string {
	n := 1 + r.IntN(5)
	kinds := 10
	switch r.IntN(6) {
	case 0:
		n = 16
	case 1, 2, 3:
		// Selective: one or two rare or absent words.
		n, kinds = 1+r.IntN(2), -1
	}
	var terms []string
	for len(terms) < n {
		var term string
		kind := r.IntN(10)
		if kinds < 0 {
			kind = []int{7, 8, 10, 10, 10, 10}[r.IntN(6)]
		}
		switch kind {
		case 10:
			// A rare word of a document (or a piece of one from its
			// second character): few documents hold it.
			var rare []string
			for _, w := range strings.Fields(string(docs[r.IntN(len(docs))])) {
				if len(w) >= 6 && !strings.ContainsFunc(w, func(c rune) bool { return !strings.ContainsRune(ixRareLetters, c) }) &&
					!slices.Contains(ixArabic, w) && !slices.Contains(ixArabicNames, w) {
					rare = append(rare, w)
				}
			}
			if len(rare) == 0 {
				continue
			}
			w := []rune(ixPick(r, rare))
			term = string(w[r.IntN(2):])
		case 0:
			term = ixPick(r, ixEnglish)
		case 1:
			term = ixPick(r, ixArabic)
		case 2, 3:
			// A piece of a document: 1..6 characters from a random offset.
			src := []rune(string(docs[r.IntN(len(docs))]))
			if len(src) == 0 {
				continue
			}
			i := r.IntN(len(src))
			term = string(src[i:min(len(src), i+1+r.IntN(6))])
		case 4:
			term = ixPick(r, []string{"a", "b", "l", "A", "x", "1", "@", "\"", "\\", "\x01", "\x7f", "y", "Z"}) // 1 byte
		case 5:
			term = ixPick(r, []string{"é", "ع", "ل", "ء", "ab", "Al", "li", "AA", "ïv", "\x01a", "zq"}) // 2 bytes
		case 6:
			term = ixPick(r, []string{"€", "😀", "عل", "لا", "سع", "ود ", "دخ", "ريا", "€1", "éa"}) // crossing characters
		case 7:
			term = ixPick(r, []string{"zebra", "Saudi", "ﻻ", "ط", "€€", "😀😀", "qqq", "Zz", "Ω"}) // mostly absent
		case 8:
			if len(terms) > 0 {
				term = terms[r.IntN(len(terms))] // duplicate
			}
		default:
			term = ixRandLine(r, 1+r.IntN(3))
		}
		if term != "" {
			terms = append(terms, term)
		}
	}
	seps := []string{" ", "\t", ".", ",", ";", ":", "?", "!", "  "}
	var b strings.Builder
	if r.IntN(5) == 0 {
		b.WriteString(ixPick(r, seps))
	}
	for i, t := range terms {
		if i > 0 {
			b.WriteString(ixPick(r, seps))
		}
		b.WriteString(t)
	}
	if r.IntN(5) == 0 {
		b.WriteString(ixPick(r, seps))
	}
	s := b.String()
	if len(s) > find.MaxTermsBytes {
		s = s[:find.MaxTermsBytes]
	}
	return s
}

// crossArchive is the indexed path of `chronicle find` without --doc:
// Candidates, then a real search of each candidate. It returns the result
// JSON per candidate in candidate order.
func (c *ixCorpus) crossArchive(t testing.TB, q *find.Query) ([]*db.Document, map[db.Digest]string) {
	cands, err := c.a.Candidates(q.Terms())
	require.NoError(t, err)
	out := map[db.Digest]string{}
	for _, d := range cands {
		s, err := c.a.Load(d)
		require.NoError(t, err)
		out[d.SHA256] = string(q.Search(s.Source, s.Document).JSON())
	}
	return cands, out
}

func TestIndexedFindEqualsScan(t *testing.T) {
	t.Parallel()
	for _, cfg := range []struct {
		seed  uint64
		ndocs int
		sets  int
	}{{1, 150, 250}, {2, 230, 150}} {
		t.Run(fmt.Sprint("seed", cfg.seed), func(t *testing.T) {
			t.Parallel()
			c := ixBuild(t, cfg.seed, cfg.ndocs)
			docs := c.docs(t)
			require.Greater(t, docs[len(docs)-1].Seq, uint64(2*index.GroupSize), "several 64-document groups")
			srcs := c.sources(docs)
			for i := 1; i < len(docs); i++ {
				require.Less(t, docs[i-1].Seq, docs[i].Seq)
			}
			r := rand.New(rand.NewPCG(cfg.seed, 11))
			candidates, matching := 0, 0
			var selectivity [4]int // term sets matching 0, 1..5, 6..50, more documents
			for range cfg.sets {
				terms := ixTerms(r, srcs)
				q, err := find.NewQuery(terms)
				if err != nil {
					continue // only separators after truncation
				}
				cands, indexed := c.crossArchive(t, q)
				// Candidates come in import order, each document once.
				for i := 1; i < len(cands); i++ {
					require.Less(t, cands[i-1].Seq, cands[i].Seq, "terms %q", terms)
				}
				candidates += len(cands)
				matched := 0
				for i, d := range docs {
					scan, err := find.SearchSource(srcs[i], d.SHA256, terms)
					require.NoError(t, err)
					want := string(scan.JSON())
					got, ok := indexed[d.SHA256]
					if scan.TotalMatchingLines > 0 {
						matching++
						matched++
						require.True(t, ok, "terms %q: document %s (#%d) matches but is not a candidate", terms, d.Label(), d.Seq)
					}
					if ok {
						require.Equal(t, want, got, "terms %q: document %s (#%d)", terms, d.Label(), d.Seq)
					}
				}
				switch {
				case matched == 0:
					selectivity[0]++
				case matched <= 5:
					selectivity[1]++
				case matched <= 50:
					selectivity[2]++
				default:
					selectivity[3]++
				}
			}
			t.Logf("%d documents, %d term sets: %d candidates for %d matching documents; sets matching 0 / 1-5 / 6-50 / >50 documents: %v",
				len(docs), cfg.sets, candidates, matching, selectivity)
			for _, n := range selectivity {
				require.GreaterOrEqual(t, n, 5, "every selectivity class is exercised")
			}
		})
	}
}

// ixHit is one entity hit: the document, the event's position in its store,
// the role, the event and its span text.
type ixHit struct {
	doc   db.Digest
	index int
	role  index.Role
	event engine.Event
	text  string
}

// events loads every document's events from the archive and checks them
// against a fresh extraction of its source.
func (c *ixCorpus) events(t testing.TB) map[db.Digest][]engine.Event {
	out := map[db.Digest][]engine.Event{}
	for _, d := range c.docs(t) {
		s, err := c.a.Load(d)
		require.NoError(t, err)
		require.Equal(t, c.src[d.SHA256], s.Source)
		want, err := engine.NewStore(c.src[d.SHA256], d.ImportedAt)
		require.NoError(t, err)
		require.Equal(t, len(want.Events), len(s.Events))
		for i := range want.Events {
			require.Equal(t, want.Events[i], s.Events[i])
		}
		out[d.SHA256] = s.Events
	}
	return out
}

// entityScan is the reference: every stored event whose subject or object
// is exactly name, in import then source order, subject before object.
func (c *ixCorpus) entityScan(t testing.TB, docs []*db.Document, events map[db.Digest][]engine.Event, name string) []ixHit {
	var out []ixHit
	for _, d := range docs {
		for i, e := range events[d.SHA256] {
			text := string(c.src[d.SHA256][e.ByteStart:e.ByteEnd])
			if e.Subject == name {
				out = append(out, ixHit{d.SHA256, i, index.RoleSubject, e, text})
			}
			if e.Object == name {
				out = append(out, ixHit{d.SHA256, i, index.RoleObject, e, text})
			}
		}
	}
	return out
}

func (c *ixCorpus) entityIndexed(t testing.TB, name string) []ixHit {
	hits, err := c.a.Entity(name)
	require.NoError(t, err)
	var out []ixHit
	for _, h := range hits {
		out = append(out, ixHit{h.Doc.SHA256, h.Index, h.Role, h.Event, string(h.Text)})
	}
	return out
}

// nameCountScan counts, per name, the events naming it (an event naming it
// twice counts once), for the names starting with prefix, in byte order.
func nameCountScan(events map[db.Digest][]engine.Event, prefix string) []index.NameCount {
	counts := map[string]int{}
	for _, evs := range events {
		for _, e := range evs {
			if strings.HasPrefix(e.Subject, prefix) {
				counts[e.Subject]++
			}
			if e.Object != e.Subject && strings.HasPrefix(e.Object, prefix) {
				counts[e.Object]++
			}
		}
	}
	var out []index.NameCount
	for n, k := range counts {
		out = append(out, index.NameCount{Name: n, Events: k})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func TestEntityEqualsScan(t *testing.T) {
	t.Parallel()
	c := ixBuild(t, 3, 140)
	docs := c.docs(t)
	events := c.events(t)
	total := 0
	for _, evs := range events {
		total += len(evs)
	}
	require.Greater(t, total, 500)

	names := map[string]bool{}
	for _, evs := range events {
		for _, e := range evs {
			names[e.Subject], names[e.Object] = true, true
		}
	}
	for _, n := range append(append([]string{}, ixTypedNames...), ixArabicNames...) {
		names[n] = true
	}
	for _, n := range []string{"", "A", "Alic", "Ali  ", "أ", "أحمد ", "Bo", "nobody", "\xd8"} {
		names[n] = true // prefixes of real names and absent names
	}
	hitNames := 0
	for name := range names {
		want := c.entityScan(t, docs, events, name)
		got := c.entityIndexed(t, name)
		require.Equal(t, want, got, "entity %q", name)
		if len(want) > 0 {
			hitNames++
		}
	}
	require.Greater(t, hitNames, 15)

	for _, prefix := range []string{"", "A", "Al", "Ali", "Alice", "Alice ", "أ", "أحمد", "أحمد ", "س", "\xd8", "B", "Book", "zz", "Q\""} {
		got, err := c.a.EntityNames(prefix)
		require.NoError(t, err)
		require.Equal(t, nameCountScan(events, prefix), got, "prefix %q", prefix)
	}
}

// ixSnapshot records every index answer the tests compare across reindex.
type ixSnapshot struct {
	cands    map[string][]db.Digest
	entities map[string][]ixHit
	names    []index.NameCount
}

func (c *ixCorpus) snapshot(t testing.TB, termSets []string, names []string) ixSnapshot {
	s := ixSnapshot{cands: map[string][]db.Digest{}, entities: map[string][]ixHit{}}
	for _, terms := range termSets {
		q, err := find.NewQuery(terms)
		require.NoError(t, err)
		cands, err := c.a.Candidates(q.Terms())
		require.NoError(t, err)
		s.cands[terms] = []db.Digest{}
		for _, d := range cands {
			s.cands[terms] = append(s.cands[terms], d.SHA256)
		}
	}
	for _, n := range names {
		s.entities[n] = c.entityIndexed(t, n)
	}
	var err error
	s.names, err = c.a.EntityNames("")
	require.NoError(t, err)
	return s
}

func (c *ixCorpus) problems(t testing.TB) []db.Problem {
	p, err := c.a.Check(context.Background())
	require.NoError(t, err)
	return p
}

// edit closes the archive, lets fn edit the bbolt file by hand, and opens
// the archive again.
func (c *ixCorpus) edit(t testing.TB, fn func(tx *bolt.Tx) error) {
	t.Helper()
	require.NoError(t, c.a.Close())
	b, err := bolt.Open(c.path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(fn))
	require.NoError(t, b.Close())
	c.a, err = db.Open(c.path, db.Options{})
	require.NoError(t, err)
}

// clearTermBits clears document seq's bit in every posting of bucket grams.
func clearTermBits(seq uint64) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		type posting struct {
			k []byte
			p index.Posting
		}
		var cleared []posting
		bit := uint64(1) << (seq % index.GroupSize)
		err := index.EachPosting(tx, func(k []byte, p index.Posting) error {
			if uint64(binary.BigEndian.Uint32(k)) != seq/index.GroupSize || k[4] == 0 || p.Bitmap&bit == 0 {
				return nil // the group's start entry still marks it indexed
			}
			i := bits.OnesCount64(p.Bitmap & (bit - 1))
			p.Bitmap &^= bit
			p.Counts = slices.Delete(p.Counts, i, i+1)
			cleared = append(cleared, posting{k, p})
			return nil
		})
		if err != nil {
			return err
		}
		if len(cleared) == 0 {
			return fmt.Errorf("document #%d has no term bits", seq)
		}
		for _, c := range cleared {
			if err := index.SetPosting(tx, c.k, c.p.Bitmap, c.p.Counts); err != nil {
				return err
			}
		}
		return nil
	}
}

// deleteEntityKeys deletes every entity key of document seq.
func deleteEntityKeys(seq uint64) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("entities"))
		var doomed [][]byte
		err := b.ForEach(func(k, _ []byte) error {
			sep := bytes.IndexByte(k, 0)
			if binary.BigEndian.Uint64(k[sep+1:]) == seq {
				doomed = append(doomed, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(doomed) == 0 {
			return fmt.Errorf("document #%d has no entity keys", seq)
		}
		for _, k := range doomed {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	}
}

// ixProblemsAbout returns the details of the problems naming doc label.
func ixProblemsAbout(problems []db.Problem, label string) []string {
	var out []string
	for _, p := range problems {
		if p.Doc == label {
			out = append(out, p.Detail)
		}
	}
	return out
}

func TestReindexAndCheck(t *testing.T) {
	t.Parallel()
	c := ixBuild(t, 4, 140)
	require.Empty(t, c.problems(t), "a fresh archive checks clean")
	docs := c.docs(t)
	require.Greater(t, docs[len(docs)-1].Seq, uint64(2*index.GroupSize))
	r := rand.New(rand.NewPCG(4, 12))
	srcs := c.sources(docs)
	var termSets []string
	for len(termSets) < 80 {
		terms := ixTerms(r, srcs)
		if _, err := find.NewQuery(terms); err == nil {
			termSets = append(termSets, terms)
		}
	}
	names := append(append([]string{"", "Al", "nobody"}, ixTypedNames...), ixArabicNames...)
	before := c.snapshot(t, termSets, names)

	n, err := c.a.Reindex(context.Background())
	require.NoError(t, err)
	require.Equal(t, len(docs), n)
	require.Equal(t, before, c.snapshot(t, termSets, names))
	require.Empty(t, c.problems(t))

	// Documents with events in the second and third groups.
	var victims []*db.Document
	for _, d := range docs {
		if d.Seq > index.GroupSize && d.EventCount > 0 && (len(victims) == 0 || d.Seq > 2*index.GroupSize) {
			victims = append(victims, d)
		}
	}
	require.GreaterOrEqual(t, len(victims), 3)
	v1, v2, v3 := victims[0], victims[1], victims[2]

	// v1 removed from the term index: check names it, and no term finds it.
	c.edit(t, clearTermBits(v1.Seq))
	probs := c.problems(t)
	require.Len(t, probs, 1, "only the damaged document is reported: %v", probs)
	require.Equal(t, v1.Label(), probs[0].Doc)
	require.Contains(t, probs[0].Detail, "term index misses")
	for i, b := range c.src[v1.SHA256] {
		if find.IsSeparator(b) {
			continue // not a term: every document is its candidate
		}
		cands, err := c.a.Candidates([][]byte{c.src[v1.SHA256][i : i+1]})
		require.NoError(t, err)
		for _, d := range cands {
			require.NotEqual(t, v1.SHA256, d.SHA256)
		}
	}
	_, err = c.a.Reindex(context.Background())
	require.NoError(t, err)
	require.Empty(t, c.problems(t))
	require.Equal(t, before, c.snapshot(t, termSets, names))

	// v1 out of the term index, v2 out of the entity index, v3 out of both;
	// bits of two documents that do not exist (one in a group no document
	// reaches) and an entity key naming no event.
	last := docs[len(docs)-1].Seq
	ghosts := []uint64{last + 1, last + 70}
	c.edit(t, func(tx *bolt.Tx) error {
		for _, fn := range []func(*bolt.Tx) error{clearTermBits(v1.Seq), deleteEntityKeys(v2.Seq), clearTermBits(v3.Seq), deleteEntityKeys(v3.Seq)} {
			if err := fn(tx); err != nil {
				return err
			}
		}
		for _, ghost := range ghosts {
			k := binary.BigEndian.AppendUint32(nil, uint32(ghost/index.GroupSize))
			k = append(k, 3, 'A', 'l', 'i')
			var p index.Posting
			if err := index.EachPosting(tx, func(pk []byte, pp index.Posting) error {
				if bytes.Equal(pk, k) {
					p = pp
				}
				return nil
			}); err != nil {
				return err
			}
			bit := uint64(1) << (ghost % index.GroupSize)
			i := bits.OnesCount64(p.Bitmap & (bit - 1))
			if err := index.SetPosting(tx, k, p.Bitmap|bit, slices.Insert(p.Counts, i, 1)); err != nil {
				return err
			}
		}
		k := append([]byte("Alice\x00"), binary.BigEndian.AppendUint64(nil, last+1)...)
		k = append(binary.BigEndian.AppendUint32(k, 0), byte(index.RoleSubject))
		// Tagged as the index tags its keys (CRC-64): a well-formed key
		// that names no document.
		return tx.Bucket([]byte("entities")).Put(k, binary.LittleEndian.AppendUint64(nil, crc64.Checksum(k, crc64.MakeTable(crc64.ECMA))))
	})
	probs = c.problems(t)
	require.Len(t, probs, 7, "%v", probs)
	about := func(d *db.Document) []string { return ixProblemsAbout(probs, d.Label()) }
	require.Len(t, about(v1), 1)
	require.Contains(t, about(v1)[0], "term index misses")
	require.Len(t, about(v2), 1)
	require.Contains(t, about(v2)[0], "entity index misses")
	require.Len(t, about(v3), 2)
	require.Contains(t, about(v3)[0], "term index misses")
	require.Contains(t, about(v3)[1], "entity index misses")
	archive := ixProblemsAbout(probs, "")
	require.Len(t, archive, 3)
	require.Contains(t, archive[0], "names do not match their counts")
	require.Contains(t, archive[1], "term index holds 2 entries for unknown documents")
	require.Contains(t, archive[2], "entity index holds 1 entries that name no event")
	// Stray bits never yield a document; an entity key naming no document
	// is reported as corruption, never turned into a hit.
	cands, err := c.a.Candidates([][]byte{[]byte("Ali")})
	require.NoError(t, err)
	for _, d := range cands {
		require.NotContains(t, ghosts, d.Seq)
	}
	_, err = c.a.Entity("Alice")
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.ErrorContains(t, err, fmt.Sprintf("document #%d", last+1))

	_, err = c.a.Reindex(context.Background())
	require.NoError(t, err)
	require.Empty(t, c.problems(t))
	require.Equal(t, before, c.snapshot(t, termSets, names))
}

// TestIndexSameTransaction: a rejected ingest leaves no index entry, and the
// next document gets the next sequence number with a clean check.
func TestIndexSameTransaction(t *testing.T) {
	c := ixBuild(t, 5, 3)
	docs := c.docs(t)
	_, err := c.a.Ingest([]byte("ok line\n@chronicle broken\n"), 1, "bad.txt")
	require.Error(t, err)
	src := []byte("@chronicle\tZed\tPAID_TO\tYann\t1\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\nzedword\n")
	res, err := c.a.Ingest(src, 2, "zed.txt")
	require.NoError(t, err)
	require.Equal(t, docs[len(docs)-1].Seq+1, res.Doc.Seq)
	c.src[res.Doc.SHA256] = src
	require.Empty(t, c.problems(t))
	cands, err := c.a.Candidates([][]byte{[]byte("zedword")})
	require.NoError(t, err)
	require.Len(t, cands, 1)
	require.Equal(t, res.Doc.SHA256, cands[0].SHA256)
	hits, err := c.a.Entity("Zed")
	require.NoError(t, err)
	require.Len(t, hits, 1)
	require.Equal(t, "subject", hits[0].Role.String())
	require.Equal(t, string(src[:bytes.IndexByte(src, '\n')]), string(hits[0].Text))
	require.Equal(t, sha256.Sum256(hits[0].Text), hits[0].Event.SpanHash)
	hits, err = c.a.Entity("Yann")
	require.NoError(t, err)
	require.Len(t, hits, 1)
	require.Equal(t, index.RoleObject, hits[0].Role)
}
