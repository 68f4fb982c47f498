package index

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Golden tests of the ingest-side index code (gram counting, line
// records): the SHA-256 of every output, on random bytes, real-like
// English, Arabic and code, invalid UTF-8 and odd line structures, is the
// one in testdata/ingest-golden.txt. Those digests were computed by the
// code as it was before it was made faster (the straightforward version,
// kept in the repository's history: commit 313b128's ref_grams_test.go and
// ref_lines_test.go), less the trigrams holding a separator, which the
// gram count leaves out since. CHRONICLE_UPDATE_GOLDEN=1 rewrites the file
// after a deliberate change of the outputs.

// realLike returns about size bytes of lines mixing English and Arabic
// words, code, digits and punctuation, with odd bytes (invalid UTF-8,
// lone lead and continuation bytes, NUL, CR, 0xFF) at random places when
// odd is set.
func realLike(r *rand.Rand, size int, odd bool) []byte {
	en := strings.Fields("the of and to in is that for it as with was on be by this are or from at an not which have but had they his her one all were we there their been has will would more if no out so can said what up its about into than them only some could other time new these two may first then do any like my now over such our man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three")
	ar := strings.Fields("في من على إلى أن هذا التي الذي كان عن مع هذه كل بين قد ذلك لا ما هو أو بعد عند حتى إذا كما لم ثم قبل مستودع الكتاب العربية اللغة القاموس المعجم كلمة جملة ترجمة نص")
	code := strings.Fields("func return if else for range := == != && || {} () [] err nil int64 []byte 0x1F <= >= /* */ // #include <stdio.h> printf(\"%d\\n\", x);")
	oddBytes := [][]byte{{0x80}, {0xBF}, {0xC0}, {0xC1}, {0xD8}, {0xD9, 0x0A}, {0xE0, 0x80}, {0xED, 0xA0, 0x80}, {0xF4, 0x90}, {0xFF}, {0xFE}, {0x00}, {'\r'}, {0xF0, 0x9F, 0x98, 0x80}, {0xE2, 0x80, 0x99}}
	var b bytes.Buffer
	for b.Len() < size {
		words := 1 + r.IntN(16)
		if r.IntN(20) == 0 {
			words = 200 + r.IntN(400) // a long line
		}
		for w := range words {
			if w > 0 {
				b.WriteString([]string{" ", " ", " ", ", ", ". ", "\t", ":", "; ", "?", "!"}[r.IntN(10)])
			}
			switch k := r.IntN(10); {
			case k < 5:
				b.WriteString(en[r.IntN(len(en))])
			case k < 8:
				b.WriteString(ar[r.IntN(len(ar))])
			case k < 9:
				b.WriteString(code[r.IntN(len(code))])
			default:
				fmt.Fprintf(&b, "%d", r.IntN(100000))
			}
			if odd && r.IntN(30) == 0 {
				b.Write(oddBytes[r.IntN(len(oddBytes))])
			}
		}
		switch r.IntN(12) {
		case 0:
			b.WriteString("\r\n")
		case 1:
			b.WriteString("\n\n\n")
		default:
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// diffInputs are the sources of the differential tests.
func diffInputs(t testing.TB) map[string][]byte {
	r := rand.New(rand.NewPCG(13, 1))
	in := map[string][]byte{
		"empty":       nil,
		"lf":          []byte("\n"),
		"lfs":         []byte("\n\n\n\n"),
		"no-final-lf": []byte("ab\nab\nab"),
		"one-byte":    []byte("x"),
		"two-bytes":   []byte("x\xd8"),
		"cut-char":    []byte("\xd8\xa7\xd9"),
		"cut-at-lf":   []byte("\xd8\xa7\xd9\n\xa7\xd8\n\xe2\x80\n"),
		"lead-cont":   []byte("\x80\x80\xd8\xa7\xd8\xa8\xd8"),
		"repeats":     bytes.Repeat([]byte("word "), 20000),
		"arabic-rep":  bytes.Repeat([]byte("مستودع "), 5000),
		"one-line":    bytes.Repeat([]byte("abcdefghij\xd8\xa7"), 30000),
		"crlf":        []byte("a b\r\nc d\r\n\r\n"),
	}
	for i := range 150 {
		in[fmt.Sprintf("random-%d", i)] = randBytes(r, r.IntN(600))
		// Few distinct bytes, so that grams and tokens repeat.
		small := make([]byte, r.IntN(2000))
		for j := range small {
			const alphabet = " \na\xd8\xa7\x80b."
			small[j] = alphabet[r.IntN(len(alphabet))]
		}
		in[fmt.Sprintf("small-alphabet-%d", i)] = small
	}
	for i := range 12 {
		in[fmt.Sprintf("real-like-%d", i)] = realLike(r, 1+r.IntN(40000), i%2 == 0)
	}
	in["real-like-big"] = realLike(r, 600_000, true)
	in["real-like-big-valid"] = realLike(r, 400_000, false)
	// Enough distinct trigrams and code-point trigrams to grow every table.
	wide := make([]byte, 0, 400_000)
	for len(wide) < 400_000 {
		if r.IntN(40) == 0 {
			wide = append(wide, '\n')
		}
		wide = append(wide, 0xD8+byte(r.IntN(2)), 0x80+byte(r.IntN(64)))
	}
	in["arabic-random"] = wide
	// Tokens sharing their first eight bytes, or equal to a shorter one
	// padded with zero bytes, in random order (the sort's ties).
	stems := []string{"abcdefgh", "abcdefg", "ab", "", "\x00", "مستودع", "\xd8\xa7\xd9\x84\xd9\x83\xd8\xaa"}
	var ties []byte
	for range 3000 {
		tok := stems[r.IntN(len(stems))] + strings.Repeat("\x00", r.IntN(3)) + string("xyz\x00"[:r.IntN(5)])
		if tok == "" {
			tok = "q"
		}
		ties = append(append(ties, tok...), " \n"[r.IntN(2)])
	}
	in["prefix-ties"] = ties
	in["bytes-random-big"] = randBytes(r, 300_000)
	return in
}

// goldenLineConfigs are the chunk and dictionary block sizes the line
// records are built with: the real ones (the legacy 16 KiB blocks of
// older records, which check still accepts, and DictBlock's) and small
// blocks.
var goldenLineConfigs = []struct{ chunk, block int }{
	{64 << 10, legacyDictBlock}, {16 << 10, legacyDictBlock}, {16 << 10, DictBlock}, {4096, 64}, {1 << 20, 300},
}

// gramsDigest is the SHA-256 of a gram list, each gram as n, gram and
// line count.
func gramsDigest(gs []gramCount) [32]byte {
	h := sha256.New()
	for _, g := range gs {
		fmt.Fprintf(h, "%d %06x %d\n", g.n, g.gram, g.lines)
	}
	return [32]byte(h.Sum(nil))
}

type gramCount struct {
	n           int
	gram, lines uint32
}

func gramList(each func(fn func(n int, gram, lines uint32, follow uint8) error) error) []gramCount {
	var out []gramCount
	each(func(n int, gram, lines uint32, _ uint8) error {
		out = append(out, gramCount{n, gram, lines})
		return nil
	})
	return out
}

// withoutSeparatorTrigrams drops the trigrams holding a separator, which
// countGrams does not count (indexedGram leaves them out of the postings).
func withoutSeparatorTrigrams(gs []gramCount) []gramCount {
	return slices.DeleteFunc(gs, func(g gramCount) bool { return g.n == 3 && !indexedGram(3, g.gram) })
}

// TestIngestOutputsAreGolden: every gram count list (computed twice, so
// that pooled tables are reused) and every line record hashes to its
// golden digest.
func TestIngestOutputsAreGolden(t *testing.T) {
	in := diffInputs(t)
	got := map[string]string{}
	for name, src := range in {
		for range 2 {
			g := countGrams(src)
			got[name+" grams"] = fmt.Sprintf("%x", gramsDigest(gramList(g.each)))
			g.release()
		}
		for _, c := range goldenLineConfigs {
			got[fmt.Sprintf("%s lines-%d-%d", name, c.chunk, c.block)] = fmt.Sprintf("%x", sha256.Sum256(buildLines(src, c.chunk, c.block)))
		}
	}
	const path = "testdata/ingest-golden.txt"
	if os.Getenv("CHRONICLE_UPDATE_GOLDEN") != "" {
		var lines []string
		for k, v := range got {
			lines = append(lines, k+" "+v)
		}
		slices.Sort(lines)
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	}
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	want := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		i := strings.LastIndexByte(l, ' ')
		want[l[:i]] = l[i+1:]
	}
	require.Len(t, want, len(got), "one digest per input and output")
	for k, v := range got {
		require.Equal(t, want[k], v, "%s: the output changed", k)
	}
}

// TestSortGramPairs: the radix sort orders distinct 24-bit grams as a
// comparison sort does, carrying each count with its gram.
func TestSortGramPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 3))
	for _, n := range []int{0, 1, 2, 3, 255, 256, 257, 1000, 70000} {
		seen := map[uint32]bool{}
		pairs := []uint64{}
		for len(pairs) < n {
			g := r.Uint32() & 0xFFFFFF
			if n < 300 && r.IntN(2) == 0 {
				g &= 0x0101FF // grams sharing bytes
			}
			if !seen[g] {
				seen[g] = true
				pairs = append(pairs, uint64(g)<<32|uint64(r.Uint32()))
			}
		}
		want := slices.Clone(pairs)
		slices.Sort(want) // distinct grams: the counts never decide
		got := sortGramPairs(slices.Clone(pairs), make([]uint64, n))
		require.Equal(t, want, got, "n %d", n)
	}
}
