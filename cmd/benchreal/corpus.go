package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
)

// docSize is the target size of one corpus document.
const docSize = 1 << 20

// cutPoint returns where to end a document of at most max bytes taken from
// the front of b (valid UTF-8): just after the last newline in the second
// half, else at the last character boundary. len(b) when it all fits.
func cutPoint(b []byte, max int) int {
	if len(b) <= max {
		return len(b)
	}
	if i := bytes.LastIndexByte(b[:max], '\n'); i >= max/2 {
		return i + 1
	}
	i := max
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}

// cutter writes a stream of text into numbered ~1 MB documents.
type cutter struct {
	dir, prefix string
	buf         []byte
	n           int   // documents written
	bytes       int64 // bytes written
	limit       int64 // stop once this many bytes are written (0: none)
	err         error
}

func (c *cutter) full() bool { return c.err != nil || (c.limit > 0 && c.bytes >= c.limit) }

// add appends text (sanitized here) and writes every complete document.
func (c *cutter) add(text []byte) {
	if c.full() {
		return
	}
	text = benchtool.Sanitize(text)
	if len(text) == 0 {
		return
	}
	c.buf = append(c.buf, text...)
	if c.buf[len(c.buf)-1] != '\n' {
		c.buf = append(c.buf, '\n')
	}
	for len(c.buf) >= docSize && !c.full() {
		c.emit(cutPoint(c.buf, docSize))
	}
}

func (c *cutter) emit(n int) {
	c.n++
	name := filepath.Join(c.dir, fmt.Sprintf("%s-%04d.txt", c.prefix, c.n))
	if err := os.WriteFile(name, c.buf[:n], 0o644); err != nil {
		c.err = err
	}
	c.bytes += int64(n)
	c.buf = append(c.buf[:0], c.buf[n:]...)
}

func (c *cutter) close() error {
	if len(c.buf) > 0 && !c.full() {
		c.emit(len(c.buf))
	}
	return c.err
}

// readText reads a file, gunzipping .gz/.dz, and reports whether it looks
// like text (no NUL in its first 8 KiB).
func readText(path string) ([]byte, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	if strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".dz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, false
		}
		b, err = io.ReadAll(io.LimitReader(zr, 64<<20))
		if err != nil && len(b) == 0 {
			return nil, false
		}
	}
	if bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0 {
		return nil, false
	}
	return b, true
}

// walkText feeds every text file under root (lexical order) to c, each
// preceded by a header line naming it.
func walkText(c *cutter, root string, skip func(path string) bool) {
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || c.full() {
			if c.full() {
				return filepath.SkipAll
			}
			return nil
		}
		if !d.Type().IsRegular() || (skip != nil && skip(path)) {
			return nil
		}
		if b, ok := readText(path); ok && len(b) > 0 {
			c.add([]byte("==> " + path + " <==\n"))
			c.add(b)
		}
		return nil
	})
}

// stream is one source of a corpus, written to documents PREFIX-NNNN.txt.
type stream struct {
	prefix string
	fill   func(c *cutter)
}

func englishStreams() []stream {
	return []stream{
		{"doc", func(c *cutter) { walkText(c, "/usr/share/doc", nil) }},
		{"man", func(c *cutter) { walkText(c, "/usr/share/man", nil) }},
		{"go", func(c *cutter) {
			walkText(c, filepath.Join(goRoot(), "src"), func(p string) bool {
				return strings.HasSuffix(p, ".zip") || strings.HasSuffix(p, ".gz")
			})
		}},
	}
}

func goRoot() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if s := strings.TrimSpace(string(out)); s != "" {
			return s
		}
	}
	return "/usr/local/go"
}

// arabicSources lists the Arabic material of Debian's packages, as text.
func arabicSources(c *cutter) (words []string) {
	var dict [][]byte
	for _, d := range []string{"ar", "ar-large"} {
		if out, err := exec.Command("aspell", "-d", d, "dump", "master").Output(); err == nil {
			dict = append(dict, out)
		}
	}
	if b, ok := readText("/usr/share/hunspell/ar.dic"); ok {
		lines := bytes.Split(b, []byte("\n"))
		for i, l := range lines {
			if j := bytes.IndexByte(l, '/'); j >= 0 {
				lines[i] = l[:j]
			}
		}
		dict = append(dict, bytes.Join(lines, []byte("\n")))
	}
	for _, b := range dict {
		for _, w := range strings.Fields(string(b)) {
			if arabicWord(w) {
				words = append(words, w)
			}
		}
		c.add(b)
	}
	mythes, _ := filepath.Glob("/usr/share/mythes/th_ar*.dat")
	fd, _ := filepath.Glob("/usr/share/dictd/freedict-ara-eng*.dict.dz")
	for _, p := range append(mythes, fd...) {
		if b, ok := readText(p); ok {
			c.add(b)
		}
	}
	mos, _ := filepath.Glob("/usr/share/locale/ar*/LC_MESSAGES/*.mo")
	slices.Sort(mos)
	for _, p := range mos {
		if b, err := os.ReadFile(p); err == nil {
			c.add(benchtool.MoStrings(b))
		}
	}
	return words
}

func arabicWord(w string) bool {
	for _, r := range w {
		if !unicode.Is(unicode.Arabic, r) {
			return false
		}
	}
	return w != ""
}

// arabicSentences writes sentences of 4..17 words drawn from words with a
// Zipf-like distribution (deterministic) until c is full.
func arabicSentences(c *cutter, words []string) {
	if len(words) == 0 || c.limit == 0 {
		return
	}
	rng := rand.New(rand.NewPCG(13, 13))
	words = slices.Clone(words)
	rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	zipf := rand.NewZipf(rand.New(rand.NewPCG(1, 13)), 1.1, 1, uint64(len(words)-1))
	var line []byte
	for !c.full() {
		line = line[:0]
		for range 256 {
			n := 4 + rng.IntN(14)
			for i := range n {
				if i > 0 {
					line = append(line, ' ')
				}
				line = append(line, words[zipf.Uint64()]...)
			}
			if rng.IntN(3) == 0 {
				line = append(line, "،"...)
				line = append(line, ' ')
				line = append(line, words[zipf.Uint64()]...)
			}
			line = append(line, ".\n"...)
		}
		c.add(line)
	}
}

// corpus is a built corpus: its documents, by stream, in order.
type corpus struct {
	name    string
	dir     string
	streams [][]string // file names per stream
	sources []string   // description of the sources
}

// buildCorpus builds (or reuses) the corpus under work/corpus-NAME-CAPmb.
func buildCorpus(work, name string, capMB, arMB int) (*corpus, error) {
	dir := filepath.Join(work, fmt.Sprintf("corpus-%s-%dmb", name, capMB))
	if name == "ar" {
		dir = filepath.Join(work, fmt.Sprintf("corpus-ar-%dmb", arMB))
	}
	done := filepath.Join(dir, ".done")
	if _, err := os.Stat(done); err != nil {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "benchreal: building corpus %s in %s\n", name, dir)
		limit := int64(capMB) << 20
		switch name {
		case "en":
			ss := englishStreams()
			for i, s := range ss {
				// Split the cap evenly; a stream left short passes its share on.
				var used int64
				for _, p := range ss[:i] {
					used += dirBytes(dir, p.prefix)
				}
				c := &cutter{dir: dir, prefix: s.prefix, limit: (limit - used) / int64(len(ss)-i)}
				s.fill(c)
				if err := c.close(); err != nil {
					return nil, err
				}
			}
		case "ar":
			c := &cutter{dir: dir, prefix: "dict", limit: int64(arMB) << 20}
			words := arabicSources(c)
			if err := c.close(); err != nil {
				return nil, err
			}
			s := &cutter{dir: dir, prefix: "sent", limit: int64(arMB)<<20 - c.bytes}
			if s.limit > 0 {
				arabicSentences(s, words)
			}
			if err := s.close(); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unknown corpus %q (en, ar)", name)
		}
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return nil, err
		}
	}
	cp := &corpus{name: name, dir: dir}
	prefixes := []string{"doc", "man", "go"}
	cp.sources = []string{"doc: /usr/share/doc (.gz decompressed)", "man: /usr/share/man (roff)", "go: " + filepath.Join(goRoot(), "src")}
	if name == "ar" {
		prefixes = []string{"dict", "sent"}
		cp.sources = []string{"dict: aspell-ar, aspell-ar-large (aspell dump), hunspell-ar, mythes-ar, dict-freedict-ara-eng, /usr/share/locale/ar*/*.mo msgstr",
			"sent: sentences drawn from those dictionaries' Arabic words (Zipf 1.1, seeded)"}
	}
	for _, p := range prefixes {
		m, _ := filepath.Glob(filepath.Join(dir, p+"-*.txt"))
		slices.Sort(m)
		cp.streams = append(cp.streams, m)
	}
	return cp, nil
}

func dirBytes(dir, prefix string) int64 {
	m, _ := filepath.Glob(filepath.Join(dir, prefix+"-*.txt"))
	var n int64
	for _, f := range m {
		if st, err := os.Stat(f); err == nil {
			n += st.Size()
		}
	}
	return n
}

// subset picks about mb MB of documents, taken from each stream in
// proportion to its size (at least one each); all when mb is 0 or larger.
func (cp *corpus) subset(mb int) []string {
	total := 0
	for _, s := range cp.streams {
		total += len(s)
	}
	var out []string
	for _, s := range cp.streams {
		k := len(s)
		if mb > 0 && mb < total {
			k = max(1, min(len(s), (len(s)*mb+total/2)/total))
		}
		out = append(out, s[:k]...)
	}
	return out
}
