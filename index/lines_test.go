package index_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"chronicle/engine/find"
	"chronicle/index"

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

func TestLineIndexEqualsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	var scorer index.LineScorer
	for doc := range 300 {
		src := randomSource(r)
		chunk := 1 + r.IntN(300)
		rec := index.BuildLines(src, chunk)
		l, err := index.ParseLines(rec, nil)
		require.NoError(t, err, "doc %d", doc)
		require.Equal(t, uint64(len(src)), l.SourceSize)
		require.Equal(t, bytes.Count(src, []byte{'\n'})+boolInt(len(src) > 0 && src[len(src)-1] != '\n'), l.NumLines)
		require.Equal(t, (len(src)+chunk-1)/chunk, l.Chunks())
		for i := range l.Chunks() {
			require.Equal(t, sha256.Sum256(src[i*chunk:min(len(src), (i+1)*chunk)]), l.ChunkDigest(i))
		}
		starts := lineStarts(src)
		for n := 1; n <= l.NumLines; n++ {
			line, off := l.Checkpoint(n)
			require.LessOrEqual(t, line, n)
			require.Greater(t, line+index.LineCheckpoint, n)
			require.Equal(t, starts[line-1], off, "doc %d line %d", doc, n)
		}
		for range 20 {
			terms := randomTerms(r)
			q, err := find.NewQuery(terms)
			require.NoError(t, err)
			wantTotal, wantTop := scoreScan(t, src, terms)
			total, top, err := scorer.Score(l, q, find.MaxMatches)
			require.NoError(t, err)
			require.Equal(t, wantTotal, total, "doc %d terms %q", doc, terms)
			require.Equal(t, wantTop, top, "doc %d terms %q", doc, terms)
		}
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
	l, err := index.ParseLines(index.BuildLines(nil, 64), nil)
	require.NoError(t, err)
	require.Zero(t, l.NumLines)
	require.Zero(t, l.Chunks())
	var s index.LineScorer
	total, top, err := s.Score(l, mustQuery(t, "a"), 8)
	require.NoError(t, err)
	require.Zero(t, total)
	require.Empty(t, top)
}

func TestLineIndexRejectsDamage(t *testing.T) {
	src := []byte("Alice paid Bob.\nBob paid Alice\r\n\nفي السوق\n")
	rec := index.BuildLines(src, 16)
	_, err := index.ParseLines(rec, nil)
	require.NoError(t, err)
	for i := range rec {
		bad := bytes.Clone(rec)
		bad[i] ^= 0x20
		_, err := index.ParseLines(bad, nil)
		require.ErrorIs(t, err, index.ErrLineIndex, "flip at byte %d", i)
	}
	for n := range len(rec) {
		_, err := index.ParseLines(rec[:n], nil)
		require.ErrorIs(t, err, index.ErrLineIndex, "truncated to %d bytes", n)
	}
	_, err = index.ParseLines(append(bytes.Clone(rec), 0), nil)
	require.ErrorIs(t, err, index.ErrLineIndex, "trailing byte")
}

// withChecksum rewrites a record's CRC so that damage reaches the
// structural checks behind it.
func withChecksum(rec []byte) []byte {
	if len(rec) >= 8 {
		binary.LittleEndian.PutUint32(rec[4:8], crc32.Checksum(rec[8:], crc32.MakeTable(crc32.Castagnoli)))
	}
	return rec
}

func TestLineIndexStructuralChecks(t *testing.T) {
	src := []byte("Alice paid Bob.\nBob paid Alice\r\n\nفي السوق\nthe end")
	rec := index.BuildLines(src, 16)
	terms := mustQuery(t, "Bob ي e")
	var s index.LineScorer
	rejected := 0
	for i := 8; i < len(rec); i++ {
		for _, x := range []byte{0x01, 0x80, 0xFF} {
			bad := withChecksum(bytes.Clone(rec))
			bad[i] ^= x
			withChecksum(bad)
			l, err := index.ParseLines(bad, nil)
			if err != nil {
				require.ErrorIs(t, err, index.ErrLineIndex)
				rejected++
				continue
			}
			// A record that parses is scored without panicking; bad
			// posting bytes surface as errors.
			if _, _, err := s.Score(l, terms, 8); err != nil {
				require.ErrorIs(t, err, index.ErrLineIndex)
			}
		}
	}
	require.Positive(t, rejected)
}

func FuzzParseLines(f *testing.F) {
	f.Add(index.BuildLines([]byte("Alice paid Bob.\nBob paid Alice\r\n\nفي السوق\n"), 16), "Bob ي")
	f.Add(index.BuildLines(nil, 64), "a")
	f.Add([]byte("CLX1\x00\x00\x00\x00\x05\x10\x01"), "x")
	f.Fuzz(func(t *testing.T, rec []byte, terms string) {
		l, err := index.ParseLines(withChecksum(rec), nil)
		if err != nil {
			require.ErrorIs(t, err, index.ErrLineIndex)
			return
		}
		q, err := find.NewQuery(terms)
		if err != nil {
			return
		}
		var s index.LineScorer
		total, top, err := s.Score(l, q, find.MaxMatches)
		if err != nil {
			require.ErrorIs(t, err, index.ErrLineIndex)
			return
		}
		require.LessOrEqual(t, total, l.NumLines)
		require.LessOrEqual(t, len(top), find.MaxMatches)
		for _, h := range top {
			require.GreaterOrEqual(t, h.Line, 1)
			require.LessOrEqual(t, h.Line, l.NumLines)
			line, _ := l.Checkpoint(h.Line)
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
