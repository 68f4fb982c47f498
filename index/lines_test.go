package index_test

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/index"

	"github.com/stretchr/testify/require"
)

// lineWords mixes English and Arabic words, substrings of each other,
// NUL and bytes that only differ in case, so that terms hit several tokens.
var lineWords = strings.Fields("Ali Alice alice Bob paid paidto the there other ع عبد عبدالله في فيروز x xy xyz 7 77 a\x00b é")

// randomSource is a document of random lines: words, separators of every
// kind, runs of separators, empty lines, CRLF and a final line with or
// without LF.
func randomSource(r *rand.Rand) []byte {
	var b bytes.Buffer
	lines := r.IntN(200)
	seps := []string{" ", "  ", "\t", ".", ",", ";", ":", "?", "!", "\r", " . "}
	for range lines {
		switch r.IntN(10) {
		case 0: // empty
		case 1:
			b.WriteString(seps[r.IntN(len(seps))])
		default:
			for w := range 1 + r.IntN(8) {
				if w > 0 {
					b.WriteString(seps[r.IntN(len(seps))])
				}
				b.WriteString(lineWords[r.IntN(len(lineWords))])
				if r.IntN(5) == 0 {
					b.WriteString(lineWords[r.IntN(len(lineWords))])
				}
			}
		}
		if r.IntN(8) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteByte('\n')
		}
	}
	if r.IntN(2) == 0 {
		b.WriteString(lineWords[r.IntN(len(lineWords))])
	}
	return b.Bytes()
}

// randomTerms is a terms string: words, pieces of words (1–3 bytes,
// multibyte halves included), absent words and repetitions.
func randomTerms(r *rand.Rand) string {
	var ts []string
	for range 1 + r.IntN(5) {
		w := lineWords[r.IntN(len(lineWords))]
		switch r.IntN(4) {
		case 0: // a piece of a word, never half a character
			i := r.IntN(len(w))
			if p := w[i : i+1+r.IntN(len(w)-i)]; utf8.ValidString(p) {
				w = p
			}
		case 1:
			w = "zz" + w
		}
		ts = append(ts, w)
		if r.IntN(6) == 0 {
			ts = append(ts, w)
		}
	}
	if terms := strings.Join(ts, " "); validTerms(terms) {
		return terms
	}
	return randomTerms(r) // a NUL byte: terms must be strict text
}

// scoreScan is what the line index must agree with: the canonical scan.
func scoreScan(t *testing.T, src []byte, terms string) (int, []index.LineScore) {
	q, err := find.NewQuery(terms)
	require.NoError(t, err)
	res := q.Search(src, sha256.Sum256(src))
	var top []index.LineScore
	for _, m := range res.Matches {
		top = append(top, index.LineScore{Line: m.Line, Score: m.MatchedTerms})
	}
	return res.TotalMatchingLines, top
}

// lineBuilds are the record versions the tests read: version 2 with
// dictionary blocks of a random size (so that small documents have many
// blocks, groups cut by blocks, tokens longer than a block), version 2 as
// written, and version 1.
var lineBuilds = []struct {
	name  string
	build func(r *rand.Rand, src []byte, chunk int) []byte
}{
	{"v2-small-blocks", func(r *rand.Rand, src []byte, chunk int) []byte {
		return index.BuildLinesBlocks(src, chunk, 1+r.IntN(600))
	}},
	{"v2", func(_ *rand.Rand, src []byte, chunk int) []byte { return index.BuildLines(src, chunk) }},
	{"v1", func(_ *rand.Rand, src []byte, chunk int) []byte { return index.BuildLinesV1(src, chunk) }},
}

// manyWords is a document of a few thousand distinct words, English and
// Arabic, so that written records have several full blocks.
func manyWords(r *rand.Rand) []byte {
	syll := strings.Fields("ka ro mel tan si bu ter va lo nim pe dra gu ال ب ت ر س ي ة و ن م ك ع ظ")
	var b bytes.Buffer
	for range 4000 + r.IntN(4000) {
		for range 1 + r.IntN(4) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		if r.IntN(8) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()
}

func TestLineIndexEqualsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	var scorer index.LineScorer
	// Odd documents are parsed into one Lines, reusing the buffers of
	// records of every size and version before them.
	var reused index.Lines
	for doc := range 300 {
		src := randomSource(r)
		if doc%30 == 0 {
			src = append(manyWords(r), src...)
		}
		chunk := 1 + r.IntN(300)
		for _, build := range lineBuilds {
			rec := build.build(r, src, chunk)
			l, err := index.ParseLines(rec, nil)
			if doc%2 == 1 {
				l, err = index.ParseLinesReusing(rec, &reused)
			}
			require.NoError(t, err, "doc %d %s", doc, build.name)
			require.NoError(t, index.VerifyLines(l), "doc %d %s", doc, build.name)
			require.Equal(t, uint64(len(src)), l.SourceSize)
			require.Equal(t, bytes.Count(src, []byte{'\n'})+boolInt(len(src) > 0 && src[len(src)-1] != '\n'), l.NumLines)
			loc, err := l.Locator()
			require.NoError(t, err)
			require.Equal(t, (len(src)+chunk-1)/chunk, loc.Chunks())
			for i := range loc.Chunks() {
				require.Equal(t, sha256.Sum256(src[i*chunk:min(len(src), (i+1)*chunk)]), loc.ChunkDigest(i))
			}
			starts := lineStarts(src)
			for n := 1; n <= l.NumLines; n++ {
				line, off := loc.Checkpoint(n)
				require.LessOrEqual(t, line, n)
				require.Greater(t, line+index.LineCheckpoint, n)
				require.Equal(t, starts[line-1], off, "doc %d line %d", doc, n)
			}
			for range 20 {
				terms := randomTerms(r)
				if r.IntN(4) == 0 && len(src) > 0 {
					terms = pieceOf(r, src)
				}
				q, err := find.NewQuery(terms)
				require.NoError(t, err)
				wantTotal, wantTop := scoreScan(t, src, terms)
				total, top, err := scorer.Score(l, q, find.MaxMatches)
				require.NoError(t, err)
				require.Equal(t, wantTotal, total, "doc %d %s terms %q", doc, build.name, terms)
				require.Equal(t, wantTop, top, "doc %d %s terms %q", doc, build.name, terms)
			}
		}
	}
}

// pieceOf returns a terms string of 1 to 3 pieces of src (1 to 12 bytes
// each, cut anywhere that leaves valid UTF-8), or a word of the source
// when no cut is valid.
func pieceOf(r *rand.Rand, src []byte) string {
	var ts []string
	for range 1 + r.IntN(3) {
		for try := 0; try < 20; try++ {
			i := r.IntN(len(src))
			p := src[i:min(len(src), i+1+r.IntN(12))]
			if utf8.Valid(p) && validTerms(string(p)) {
				ts = append(ts, string(p))
				break
			}
		}
	}
	if terms := strings.Join(ts, " "); validTerms(terms) {
		return terms
	}
	return lineWords[r.IntN(len(lineWords))]
}

// TestBuildLinesDeterministic: a record is a function of its source (check
// rebuilds records and compares bytes), whatever the token table's seed.
func TestBuildLinesDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for range 20 {
		src := append(manyWords(r), randomSource(r)...)
		require.Equal(t, index.BuildLines(src, 4096), index.BuildLines(src, 4096))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func lineStarts(src []byte) []uint64 {
	var out []uint64
	for at := 0; at < len(src); {
		out = append(out, uint64(at))
		i := bytes.IndexByte(src[at:], '\n')
		if i < 0 {
			break
		}
		at += i + 1
	}
	return out
}

func TestLineIndexEmptySource(t *testing.T) {
	for _, src := range []string{"", " . \n\n", "\r\n"} { // no token
		for _, build := range lineBuilds {
			l, err := index.ParseLines(build.build(rand.New(rand.NewPCG(1, 1)), []byte(src), 64), nil)
			require.NoError(t, err, build.name)
			require.Equal(t, strings.Count(src, "\n"), l.NumLines)
			require.Equal(t, boolInt(build.name == "v1"), index.LinesBlocks(l))
			loc, err := l.Locator()
			require.NoError(t, err)
			require.Equal(t, boolInt(src != ""), loc.Chunks())
			var s index.LineScorer
			total, top, err := s.Score(l, mustQuery(t, "a"), 8)
			require.NoError(t, err)
			require.Zero(t, total)
			require.Empty(t, top)
		}
	}
}

// damageSource is a small document whose dictionary, cut at 16 bytes, is
// several blocks.
var damageSource = []byte("Alice paid Bob.\nBob paid Alice\r\n\nفي السوق\nthe end of the ledger\nخالد وسعود في السوق\nzebra\n")

// TestLineIndexRejectsDamage: every flipped byte of a record is caught by
// ParseLines (magic, header and filters), by Locator or by reading a
// block; every truncation and a trailing byte by ParseLines.
func TestLineIndexRejectsDamage(t *testing.T) {
	for name, rec := range map[string][]byte{
		"v2-blocks": index.BuildLinesBlocks(damageSource, 16, 16),
		"v2":        index.BuildLines(damageSource, 16),
		"v1":        index.BuildLinesV1(damageSource, 16),
	} {
		l, err := index.ParseLines(rec, nil)
		require.NoError(t, err, name)
		require.NoError(t, index.VerifyLines(l), name)
		if name == "v2-blocks" {
			require.Greater(t, index.LinesBlocks(l), 3)
		}
		for i := range rec {
			for _, x := range []byte{0x01, 0x20, 0x80} {
				bad := bytes.Clone(rec)
				bad[i] ^= x
				l, err := index.ParseLines(bad, nil)
				if err == nil {
					err = index.VerifyLines(l)
				}
				require.ErrorIs(t, err, index.ErrLineIndex, "%s: flip %#x at byte %d", name, x, i)
			}
		}
		for n := range len(rec) {
			_, err := index.ParseLines(rec[:n], nil)
			require.ErrorIs(t, err, index.ErrLineIndex, "%s: truncated to %d bytes", name, n)
		}
		_, err = index.ParseLines(append(bytes.Clone(rec), 0), nil)
		require.ErrorIs(t, err, index.ErrLineIndex, "%s: trailing byte", name)
	}
}

// TestLineIndexDamageWhereRead: damage in the header or the filters fails
// every query; damage in a block fails the queries that read it and no
// other (they answer as the scan does); damage in the locator fails only
// Locator, which find reads for the documents it lists.
func TestLineIndexDamageWhereRead(t *testing.T) {
	rec := index.BuildLinesBlocks(damageSource, 16, 16)
	l, err := index.ParseLines(rec, nil)
	require.NoError(t, err)
	loc, blocks := index.LinesBlockRanges(rec, l)
	require.Greater(t, len(blocks), 3)
	var s index.LineScorer
	for i := range loc[0] {
		bad := bytes.Clone(rec)
		bad[i] ^= 0x10
		_, err := index.ParseLines(bad, nil)
		require.ErrorIs(t, err, index.ErrLineIndex, "header byte %d", i)
	}
	for i := loc[0]; i < loc[1]; i++ {
		bad := bytes.Clone(rec)
		bad[i] ^= 0x10
		l, err := index.ParseLines(bad, nil)
		require.NoError(t, err)
		_, _, err = s.Score(l, mustQuery(t, "Alice"), 8)
		require.NoError(t, err)
		_, err = l.Locator()
		require.ErrorIs(t, err, index.ErrLineIndex, "locator byte %d", i)
	}
	// "Alice" sorts first and "وسعود" last: they are in the first and the
	// last block, and no filter of another block lets them through.
	first, last := blocks[0], blocks[len(blocks)-1]
	for _, c := range []struct {
		at          [2]int
		fails, safe string
	}{{first, "Alice", "وسعود"}, {last, "وسعود", "Alice"}} {
		for i := c.at[0]; i < c.at[1]; i++ {
			bad := bytes.Clone(rec)
			bad[i] ^= 0x10
			l, err := index.ParseLines(bad, nil)
			require.NoError(t, err)
			_, _, err = s.Score(l, mustQuery(t, c.fails), 8)
			require.ErrorIs(t, err, index.ErrLineIndex, "block byte %d, %q", i, c.fails)
			total, top, err := s.Score(l, mustQuery(t, c.safe), 8)
			require.NoError(t, err, "block byte %d, %q", i, c.safe)
			wantTotal, wantTop := scoreScan(t, damageSource, c.safe)
			require.Equal(t, wantTotal, total)
			require.Equal(t, wantTop, top)
		}
	}
}

// TestLinesV1Golden: records written by version 1 (before commit a8a4765's
// successor; testdata/lines-v1) are still read and answer as the scan
// does, and the test builder of version 1 writes them byte for byte.
func TestLinesV1Golden(t *testing.T) {
	srcs, err := filepath.Glob("../testdata/samples/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, srcs)
	var s index.LineScorer
	for _, p := range srcs {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		rec, err := os.ReadFile(filepath.Join("testdata", "lines-v1", filepath.Base(p)+".clx1"))
		require.NoError(t, err)
		require.Equal(t, rec, index.BuildLinesV1(src, 64<<10), p)
		l, err := index.ParseLines(rec, nil)
		require.NoError(t, err)
		require.NoError(t, index.VerifyLines(l))
		for _, terms := range []string{"أحمد", "Alice Bob", "ال", "ريال سعودي", "e", "nobody", "ي أ"} {
			total, top, err := s.Score(l, mustQuery(t, terms), find.MaxMatches)
			require.NoError(t, err)
			wantTotal, wantTop := scoreScan(t, src, terms)
			require.Equal(t, wantTotal, total, "%s %q", p, terms)
			require.Equal(t, wantTop, top, "%s %q", p, terms)
		}
	}
}

func TestLineIndexStructuralChecks(t *testing.T) {
	terms := mustQuery(t, "Bob ي e")
	for name, rec := range map[string][]byte{
		"v2-blocks": index.BuildLinesBlocks(damageSource, 16, 16),
		"v1":        index.BuildLinesV1(damageSource, 16),
	} {
		var s index.LineScorer
		rejected := 0
		for i := 8; i < len(rec); i++ {
			for _, x := range []byte{0x01, 0x80, 0xFF} {
				bad := bytes.Clone(rec)
				bad[i] ^= x
				l, err := index.ParseLines(index.ResealLines(bad), nil)
				if err != nil {
					require.ErrorIs(t, err, index.ErrLineIndex)
					rejected++
					continue
				}
				// A record that parses is scored without panicking; bad
				// block or posting bytes surface as errors.
				if _, _, err := s.Score(l, terms, 8); err != nil {
					require.ErrorIs(t, err, index.ErrLineIndex)
				}
				if _, err := l.Locator(); err != nil {
					require.ErrorIs(t, err, index.ErrLineIndex)
				}
			}
		}
		require.Positive(t, rejected, name)
	}
}

func FuzzParseLines(f *testing.F) {
	f.Add(index.BuildLines(damageSource, 16), "Bob ي")
	f.Add(index.BuildLinesBlocks(damageSource, 16, 16), "zebra السوق")
	f.Add(index.BuildLines(nil, 64), "a")
	f.Add(index.BuildLinesV1(damageSource, 16), "Bob ي")
	f.Add([]byte("CLX1\x00\x00\x00\x00\x05\x10\x01"), "x")
	f.Add([]byte("CLX2\x00\x00\x00\x00\x0a\x05\x10\x01\x01\x01\x04\x00"), "x")
	f.Fuzz(func(t *testing.T, rec []byte, terms string) {
		l, err := index.ParseLines(index.ResealLines(rec), nil)
		if err != nil {
			require.ErrorIs(t, err, index.ErrLineIndex)
			return
		}
		verr := index.VerifyLines(l)
		if verr != nil {
			require.ErrorIs(t, verr, index.ErrLineIndex)
		}
		q, err := find.NewQuery(terms)
		if err != nil {
			return
		}
		var s index.LineScorer
		total, top, err := s.Score(l, q, find.MaxMatches)
		if err != nil {
			require.ErrorIs(t, err, index.ErrLineIndex)
			require.Error(t, verr, "a record that verifies scores every query")
			return
		}
		require.LessOrEqual(t, total, l.NumLines)
		require.LessOrEqual(t, len(top), find.MaxMatches)
		loc, err := l.Locator()
		if err != nil {
			require.ErrorIs(t, err, index.ErrLineIndex)
			return
		}
		for _, h := range top {
			require.GreaterOrEqual(t, h.Line, 1)
			require.LessOrEqual(t, h.Line, l.NumLines)
			line, _ := loc.Checkpoint(h.Line)
			require.LessOrEqual(t, line, h.Line)
		}
	})
}

func validTerms(terms string) bool {
	_, err := find.NewQuery(terms)
	return err == nil
}

func mustQuery(t testing.TB, terms string) *find.Query {
	q, err := find.NewQuery(terms)
	require.NoError(t, err)
	return q
}
