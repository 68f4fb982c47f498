package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
	"github.com/casper-chronicle/chronicle/engine"
)

// Document sizes. Pieces are cut to targets drawn from a log-normal
// distribution around the median (sigma pieceSigma), which gives the
// spread of real collections: most documents of a few KB, a tail of a few
// hundred KB. A file smaller than its target stays whole.
const (
	startMedian = 4096      // median piece target tried first, bytes
	minMedian   = 512       // below this the corpus is called short
	pieceSigma  = 1.3       // log-normal sigma of the targets
	minPiece    = 256       // smallest target drawn
	maxPiece    = 320 << 10 // largest document (cut at a newline below it when one exists)
	maxUnit     = 64 << 20  // bytes read from one source file
	corpusVer   = "v1"      // bump when the cutting changes, so caches are rebuilt
	manifestFil = "manifest.json"
)

// unit is one source file's text, before cutting.
type unit struct {
	source string // short source name, the document name prefix
	path   string
	text   []byte
}

// source is one kind of real text on the machine.
type source struct {
	name, desc string
	units      func() []unit
}

// sources lists the real text this machine has, in the order the corpus
// takes it. None of it is Go: the Go tree and module cache are left out on
// purpose (Chronicle is written in Go; its own sources would flatter it).
func sources() []source {
	textExt := func(exts ...string) func(string) bool {
		return func(p string) bool {
			for _, e := range exts {
				if strings.HasSuffix(p, e) {
					return true
				}
			}
			return false
		}
	}
	return []source{
		{"py", "Python: /usr/lib/python3.11 and /usr/lib/python3/dist-packages (.py, .txt, .rst)", func() []unit {
			keep := textExt(".py", ".txt", ".rst")
			return append(walkUnits("py", "/usr/lib/python3.11", keep), walkUnits("py", "/usr/lib/python3/dist-packages", keep)...)
		}},
		{"man", "man pages: /usr/share/man, every language (gunzipped roff)", func() []unit {
			return walkUnits("man", "/usr/share/man", nil)
		}},
		{"lic", "licenses: /usr/share/common-licenses", func() []unit {
			return walkUnits("lic", "/usr/share/common-licenses", nil)
		}},
		{"doc", "package docs: /usr/share/doc text files (.gz gunzipped; images, PDFs and other binaries skipped)", func() []unit {
			return walkUnits("doc", "/usr/share/doc", func(p string) bool { return !binaryExt(p) })
		}},
		{"ar", "Arabic: hunspell-ar, aspell-ar(-large) word lists, mythes-ar thesaurus, freedict ara-eng, Arabic .mo translations (msgstr)", arabicUnits},
		{"perl", "Perl: /usr/share/perl (.pm, .pl, .pod)", func() []unit {
			return walkUnits("perl", "/usr/share/perl", textExt(".pm", ".pl", ".pod"))
		}},
		{"inc", "C headers: /usr/include (.h)", func() []unit {
			return walkUnits("inc", "/usr/include", textExt(".h"))
		}},
	}
}

// binaryExt reports file names whose contents are not text.
func binaryExt(p string) bool {
	p = strings.ToLower(strings.TrimSuffix(p, ".gz"))
	for _, e := range []string{".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".svgz", ".woff", ".woff2", ".ttf",
		".otf", ".zip", ".whl", ".pyc", ".so", ".mo", ".db", ".bz2", ".xz", ".zst", ".jar", ".class", ".tgz", ".der", ".bin"} {
		if strings.HasSuffix(p, e) {
			return true
		}
	}
	// No Go package documentation (the golang-* packages) either.
	return strings.Contains(p, "/golang")
}

// walkUnits reads every regular text file under root (lexical order) that
// keep accepts (nil: all).
func walkUnits(src, root string, keep func(string) bool) []unit {
	var out []unit
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || (keep != nil && !keep(path)) {
			return nil
		}
		if b, ok := readText(path); ok && len(b) > 0 {
			out = append(out, unit{src, path, b})
		}
		return nil
	})
	return out
}

// readText reads a file, gunzipping .gz and .dz (dictzip is gzip), and
// reports whether it looks like text: no NUL in its first 8 KiB.
func readText(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".dz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, false
		}
		r = zr
	}
	b, err := io.ReadAll(io.LimitReader(r, maxUnit))
	if err != nil && len(b) == 0 {
		return nil, false
	}
	if bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0 {
		return nil, false
	}
	return b, true
}

// arabicUnits reads Debian's Arabic dictionaries and translations (what
// benchreal installs): one unit per dictionary, cut like any file.
func arabicUnits() []unit {
	var out []unit
	for _, d := range []string{"ar", "ar-large"} {
		if b, err := exec.Command("aspell", "-d", d, "dump", "master").Output(); err == nil && len(b) > 0 {
			out = append(out, unit{"ar", "aspell " + d, b})
		}
	}
	if b, ok := readText("/usr/share/hunspell/ar.dic"); ok {
		// Drop the affix flags after '/': the words are the text.
		lines := bytes.Split(b, []byte("\n"))
		for i, l := range lines {
			if j := bytes.IndexByte(l, '/'); j >= 0 {
				lines[i] = l[:j]
			}
		}
		out = append(out, unit{"ar", "/usr/share/hunspell/ar.dic", bytes.Join(lines, []byte("\n"))})
	}
	mythes, _ := filepath.Glob("/usr/share/mythes/th_ar*.dat")
	fd, _ := filepath.Glob("/usr/share/dictd/freedict-ara-eng*.dict.dz")
	for _, p := range append(mythes, fd...) {
		if b, ok := readText(p); ok {
			out = append(out, unit{"ar", p, b})
		}
	}
	mos, _ := filepath.Glob("/usr/share/locale/ar*/LC_MESSAGES/*.mo")
	slices.Sort(mos)
	for _, p := range mos {
		if b, err := os.ReadFile(p); err == nil {
			if s := benchtool.MoStrings(b); len(s) > 0 {
				out = append(out, unit{"ar", p, s})
			}
		}
	}
	return out
}

// cutPoint returns where a piece of about target bytes taken from the
// front of b (valid UTF-8) ends: after the last newline before target
// (when it leaves at least a quarter of target), else after the first
// newline past target within limit, else at a character boundary at limit.
// len(b) when b fits in target.
func cutPoint(b []byte, target, limit int) int {
	if len(b) <= target {
		return len(b)
	}
	if i := bytes.LastIndexByte(b[:target], '\n'); i >= target/4 {
		return i + 1
	}
	if j := bytes.IndexByte(b[target:min(len(b), limit)], '\n'); j >= 0 {
		return target + j + 1
	}
	if len(b) <= limit {
		return len(b)
	}
	i := limit
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}

// cutUnit cuts text into pieces whose target sizes are drawn log-normally
// around median (seeded by the unit's path, so a corpus is reproducible).
// A last piece shorter than a quarter of its target joins the one before
// so that files do not end in slivers.
func cutUnit(text []byte, path string, median float64) [][]byte {
	h := fnv.New64a()
	h.Write([]byte(path))
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(median)))
	var out [][]byte
	for len(text) > 0 {
		target := int(math.Exp(math.Log(median) + pieceSigma*rng.NormFloat64()))
		target = min(max(target, minPiece), maxPiece)
		if len(text) <= target+target/4 && len(text) <= maxPiece {
			out = append(out, text)
			break
		}
		n := cutPoint(text, target, maxPiece)
		if n == 0 { // cannot happen on valid UTF-8; never loop
			n = len(text)
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// piece is one corpus document before it is written.
type piece struct {
	source string
	text   []byte
}

// cutStats counts what cutting dropped.
type cutStats struct {
	dupes, blank, rejected int
	rejectedWhy            map[string]int
}

// cutAll cuts every unit at median, drops blank pieces and duplicates, and
// drops pieces chronicle would reject (its own extraction decides: an
// event line over a limit, more than 4,096 events...), so that every
// document of the corpus ingests.
func cutAll(units []unit, median float64) ([]piece, cutStats) {
	seen := map[[32]byte]bool{}
	st := cutStats{rejectedWhy: map[string]int{}}
	var out []piece
	for _, u := range units {
		for _, p := range cutUnit(u.text, u.path, median) {
			if len(bytes.TrimSpace(p)) == 0 {
				st.blank++
				continue
			}
			sum := sha256.Sum256(p)
			if seen[sum] {
				st.dupes++
				continue
			}
			seen[sum] = true
			if _, err := engine.NewStore(p, 0); err != nil {
				st.rejected++
				var xe *engine.ExtractError
				why := "other"
				if errors.As(err, &xe) && xe.Err != nil {
					why = xe.Err.Error()
				}
				st.rejectedWhy[why]++
				continue
			}
			out = append(out, piece{u.source, p})
		}
	}
	return out, st
}

// manifest describes a built corpus pool (cached beside its documents).
type manifest struct {
	Version  string         `json:"version"`
	Median   int            `json:"median_target"`
	Files    []string       `json:"files"` // in source order; sampling takes evenly spaced ones
	Sources  []string       `json:"sources"`
	Units    map[string]int `json:"units"`    // source files read, per source
	UnitMB   map[string]int `json:"units_mb"` // their MB (after gunzip), per source
	Dupes    int            `json:"dupes"`
	Blank    int            `json:"blank"`
	Rejected map[string]int `json:"rejected"`

	target int  // the documents asked for (not cached: pools are shared)
	short  bool // fewer documents than target even at minMedian
}

// buildPool returns a pool of at least target documents under work, cut
// as large as that allows: the median target starts at startMedian and
// shrinks by a fifth until the pool is big enough. Each median's pool is
// cached in its own directory, so smaller runs reuse a larger pool and a
// run of the largest size builds only what it lacks; the sources are read
// only when a pool has to be built.
func buildPool(work string, target int) (string, *manifest, error) {
	var units []unit
	var unitCount, unitMB map[string]int
	var descs []string
	for median := startMedian; ; median = median * 4 / 5 {
		dir := filepath.Join(work, fmt.Sprintf("corpus-%s-m%d", corpusVer, median))
		m, err := loadManifest(dir)
		if err != nil {
			if units == nil {
				logf("building a corpus of at least %d documents under %s: reading the sources", target, work)
				units, unitCount, unitMB, descs = readSources()
				if len(units) == 0 {
					return "", nil, errors.New("no text found on this machine (looked in /usr/share/man, /usr/share/doc, /usr/lib/python3.11...)")
				}
			}
			if m, err = writePool(dir, units, median, func(m *manifest) {
				m.Units, m.UnitMB, m.Sources = unitCount, unitMB, descs
			}); err != nil {
				return "", nil, err
			}
			logf("  cut at median target %d bytes: %d documents in %s", median, len(m.Files), dir)
		}
		m.target = target
		if len(m.Files) >= target {
			return filepath.Join(dir, "docs"), m, nil
		}
		if median*4/5 < minMedian {
			m.short = true
			return filepath.Join(dir, "docs"), m, nil
		}
	}
}

// loadManifest reads a complete pool's manifest (written last).
func loadManifest(dir string) (*manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFil))
	if err != nil {
		return nil, fmt.Errorf("read corpus manifest: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("corpus manifest %s: %w", dir, err)
	}
	if m.Version != corpusVer {
		return nil, fmt.Errorf("corpus manifest %s: version %q, want %q", dir, m.Version, corpusVer)
	}
	return &m, nil
}

func saveManifest(dir string, m *manifest) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode corpus manifest: %w", err)
	}
	// The manifest is written last: its presence marks a complete pool.
	if err := os.WriteFile(filepath.Join(dir, manifestFil), b, 0o644); err != nil {
		return fmt.Errorf("write corpus manifest: %w", err)
	}
	return nil
}

// readSources reads (and sanitizes) every source's files.
func readSources() ([]unit, map[string]int, map[string]int, []string) {
	var units []unit
	count, mb := map[string]int{}, map[string]int{}
	var descs []string
	for _, s := range sources() {
		us := s.units()
		var n int64
		for i := range us {
			us[i].text = benchtool.Sanitize(us[i].text)
			n += int64(len(us[i].text))
		}
		logf("  %s: %d files, %.1f MB", s.name, len(us), float64(n)/1e6)
		if len(us) > 0 {
			descs = append(descs, s.name+": "+s.desc)
		}
		count[s.name], mb[s.name] = len(us), int((n+500_000)/1_000_000)
		units = append(units, us...)
	}
	return units, count, mb, descs
}

// writePool cuts units at median and writes the pieces as
// SOURCE-NNNNNN.txt, in order, to dir/docs, with the manifest (completed
// by fill). It writes into a fresh directory beside dir and renames it
// into place, so that two runs sharing the work directory never see, or
// remove, each other's half-written pool: the first rename wins and the
// other run takes its pool.
func writePool(dir string, units []unit, median int, fill func(*manifest)) (*manifest, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".building-")
	if err != nil {
		return nil, fmt.Errorf("create corpus directory: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; a failed build leaves nothing
	docs := filepath.Join(tmp, "docs")
	if err := os.Mkdir(docs, 0o755); err != nil {
		return nil, fmt.Errorf("create corpus directory: %w", err)
	}
	pieces, st := cutAll(units, float64(median))
	m := &manifest{Version: corpusVer, Median: median, Dupes: st.dupes, Blank: st.blank, Rejected: st.rejectedWhy}
	for i, p := range pieces {
		name := fmt.Sprintf("%s-%06d.txt", p.source, i)
		if err := os.WriteFile(filepath.Join(docs, name), p.text, 0o644); err != nil {
			return nil, fmt.Errorf("write corpus document: %w", err)
		}
		m.Files = append(m.Files, name)
	}
	fill(m)
	if err := saveManifest(tmp, m); err != nil {
		return nil, err
	}
	if _, err := loadManifest(dir); err != nil {
		// No complete pool there: a stale half-built one from before this
		// scheme, or none.
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("clear stale corpus %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if other, lerr := loadManifest(dir); lerr == nil {
			return other, nil // another run built it first
		}
		return nil, fmt.Errorf("move the corpus into place: %w", err)
	}
	return m, nil
}

// sample returns n of files, evenly spaced, so every source keeps its
// share; all of them when n is not smaller.
func sample(files []string, n int) []string {
	if n >= len(files) {
		return slices.Clone(files)
	}
	out := make([]string, n)
	for i := range n {
		out[i] = files[i*len(files)/n]
	}
	return out
}

// sizeStats summarises document sizes.
type sizeStats struct {
	n                int
	total            int64
	median, p90, max int64
}

func summarise(sizes []int64) sizeStats {
	if len(sizes) == 0 {
		return sizeStats{}
	}
	s := slices.Clone(sizes)
	slices.Sort(s)
	var t int64
	for _, v := range s {
		t += v
	}
	return sizeStats{n: len(s), total: t, median: s[len(s)/2], p90: s[len(s)*9/10], max: s[len(s)-1]}
}
