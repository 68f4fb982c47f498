package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
)

var (
	workFlag  = flag.String("work", filepath.Join(os.TempDir(), "chronicle-bench-scale"), "work directory (corpora cached here)")
	docsFlag  = flag.String("docs", "10000,100000", "corpus sizes, in documents, comma-separated")
	runsFlag  = flag.Int("runs", 5, "timed runs per query (median; one untimed warm-up run before them)")
	binFlag   = flag.String("bin", "bin", "directory of the chronicle binary (make build)")
	sqlFlag   = flag.String("sqlite3", "sqlite3", "the sqlite3 command-line shell (FTS5 with the trigram tokenizer: SQLite 3.34 or later)")
	noInstall = flag.Bool("no-install", false, "do not apt-get install missing tools")
	keepFlag  = flag.Bool("keep", false, "keep each size's run directory (archive, FTS5 database, linked files) instead of removing it")
	linkFlag  = flag.String("link", "", "only build the pool, link the documents of the first -docs size into this new directory, and exit (cmd/benchserve builds its archive so)")
)

func main() {
	if argv := os.Getenv(peakRSS.OfEnv); argv != "" {
		os.Exit(peakRSS.Helper(argv))
	}
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchscale:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchscale: "+format+"\n", args...)
}

// tools are the commands a run compares.
type tools struct {
	chron, sqlite, rg string
	docsLimit         bool   // chronicle docs takes --limit
	chronSum          string // SHA-256 of the chronicle binary at the start
	chronChanged      bool   // it was replaced during the run
}

func run() error {
	start := time.Now()
	sizes, err := parseSizes(*docsFlag)
	if err != nil {
		return err
	}
	if *runsFlag < 1 {
		return fmt.Errorf("-runs %d: at least one run is needed", *runsFlag)
	}
	if !*noInstall {
		install()
	}
	if *linkFlag != "" {
		return linkOnly(*linkFlag, sizes[0])
	}
	t, err := findTools()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*workFlag, 0o755); err != nil {
		return fmt.Errorf("create work directory: %w", err)
	}
	docsDir, m, err := buildPool(*workFlag, slices.Max(sizes))
	if err != nil {
		return err
	}
	var results []*result
	for _, n := range sizes {
		r, err := benchSize(t, docsDir, m, n)
		if err != nil {
			return fmt.Errorf("%d documents: %w", n, err)
		}
		results = append(results, r)
		// The largest size runs for a long time: keep the table of the
		// sizes done so far, in case the run is stopped.
		if len(results) < len(sizes) {
			if err := savePartial(t, m, results); err != nil {
				logf("%v", err)
			}
		}
	}
	if sum, err := fileSHA256(t.chron); err != nil || sum != t.chronSum {
		t.chronChanged = true
		logf("%s changed during the run: the figures mix two binaries", t.chron)
	}
	printReport(os.Stdout, t, m, results)
	logf("total run time %s", time.Since(start).Round(time.Second))
	return nil
}

// linkOnly builds (or reuses) the pool for n documents and links n of
// them, evenly spaced as a benchmark run takes them, into dir, which must
// not exist yet: the corpus of another benchmark, measured on the same
// documents as benchscale's size n.
func linkOnly(dir string, n int) error {
	if err := os.MkdirAll(*workFlag, 0o755); err != nil {
		return fmt.Errorf("create work directory: %w", err)
	}
	pool, m, err := buildPool(*workFlag, n)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("-link: %w", err)
	}
	files := sample(m.Files, n)
	if _, err := benchtool.LinkFiles(pool, dir, files); err != nil {
		return err
	}
	logf("%d documents linked into %s", len(files), dir)
	return nil
}

// savePartial writes the report of the sizes done so far to
// work/report-partial.md.
func savePartial(t tools, m *manifest, results []*result) error {
	var b bytes.Buffer
	printReport(&b, t, m, results)
	path := filepath.Join(*workFlag, "report-partial.md")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("save the partial report: %w", err)
	}
	logf("the table so far is in %s", path)
	return nil
}

// fileSHA256 is the hex SHA-256 of a file's bytes.
func fileSHA256(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b)), nil
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ReplaceAll(f, "_", ""))
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-docs %q: want positive document counts separated by commas, like 10000,100000", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// install apt-gets what is missing: ripgrep, the sqlite3 shell, GNU time
// (for peak RSS) and Debian's Arabic dictionaries (part of the corpus).
// Failures are reported and the run goes on with what is there; findTools
// then says what is still missing.
func install() {
	if runtime.GOOS != "linux" {
		return
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return
	}
	var pkgs []string
	for bin, pkg := range map[string]string{"rg": "ripgrep", "sqlite3": "sqlite3", "aspell": "aspell", "/usr/bin/time": "time"} {
		if _, err := exec.LookPath(bin); err != nil {
			pkgs = append(pkgs, pkg)
		}
	}
	for f, pkg := range map[string]string{
		"/usr/share/hunspell/ar.dic":        "hunspell-ar",
		"/usr/share/aspell/ar.cwl.gz":       "aspell-ar",
		"/usr/share/aspell/ar-large.cwl.gz": "aspell-ar-large",
	} {
		if _, err := os.Stat(f); err != nil {
			pkgs = append(pkgs, pkg)
		}
	}
	if m, _ := filepath.Glob("/usr/share/mythes/th_ar*.dat"); len(m) == 0 {
		pkgs = append(pkgs, "mythes-ar")
	}
	if m, _ := filepath.Glob("/usr/share/dictd/freedict-ara-eng*.dict.dz"); len(m) == 0 {
		pkgs = append(pkgs, "dict-freedict-ara-eng")
	}
	benchtool.AptInstall(logf, pkgs)
	// GNU time is looked up once at start; it may have just arrived.
	if timeBin == "" {
		timeBin, _ = exec.LookPath("/usr/bin/time")
	}
}

// findTools checks that every command is there and can do its part, and
// says what to install when one is not.
func findTools() (tools, error) {
	var t tools
	bin, err := filepath.Abs(*binFlag)
	if err != nil {
		return t, fmt.Errorf("-bin %s: %w", *binFlag, err)
	}
	t.chron = filepath.Join(bin, "chronicle")
	if runtime.GOOS == "windows" {
		t.chron += ".exe"
	}
	if _, err := os.Stat(t.chron); err != nil {
		return t, fmt.Errorf("%s is missing: run `make build` first (or give -bin DIR)", t.chron)
	}
	if t.rg, err = exec.LookPath("rg"); err != nil {
		return t, errors.New("rg not found: install ripgrep (apt-get install ripgrep; benchscale does so itself without -no-install)")
	}
	if t.sqlite, err = exec.LookPath(*sqlFlag); err != nil {
		return t, fmt.Errorf("%s not found: install the SQLite shell (apt-get install sqlite3), 3.34 or later for FTS5's trigram tokenizer", *sqlFlag)
	}
	probe := "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram case_sensitive 1');"
	if p, err := runProc("", t.sqlite, ":memory:", probe); err != nil || p.code != 0 {
		return t, fmt.Errorf("%s has no FTS5 trigram tokenizer with case_sensitive (SQLite 3.34 or later, built with FTS5, is needed): %s", t.sqlite, p.firstLine())
	}
	// The binary's digest goes in the report, and is checked again at the
	// end: a binary replaced mid-run (a rebuild, someone else's copy) would
	// mix two programs' figures in one table.
	if t.chronSum, err = fileSHA256(t.chron); err != nil {
		return t, err
	}
	if p, err := runProc("", t.chron, "help", "docs"); err == nil {
		t.docsLimit = bytes.Contains(p.out, []byte("--limit"))
	}
	if timeBin == "" && runtime.GOOS == "linux" {
		logf("GNU time (/usr/bin/time) is missing: peak RSS is measured through a helper process instead")
	}
	return t, nil
}

// measure is one timed command: the median wall time of the timed runs
// and the peak RSS of the warm-up run.
type measure struct {
	wall   time.Duration
	rssKiB int64
	ok     bool
	note   string
}

// findRow is one query's figures for the three tools.
type findRow struct {
	q                          benchtool.Query
	chron20, chronAll, fts, rg measure
	// chronHeap: chronicle's memory figures in one more run of the
	// --limit 20 query (CHRONICLE_MEMSTATS; the sampler's own pages stay
	// out of the measured runs).
	chronHeap             benchtool.Memstats
	chronDocs, chronLines int // from the listing of every matching document
	ftsDocs               int
	rgFiles, rgLines      int
	ftsScan               bool // a term under 3 characters: FTS5 scanned with instr()
	disagree              []string
}

// result is everything measured at one size.
type result struct {
	docs       int
	sizes      sizeStats
	perSource  map[string]int
	ingest     measure
	ingestNew  int
	rejected   []string
	archive    int64
	ftsLoad    measure
	ftsDB      int64
	ftsCount   int
	rows       []findRow
	entityName string
	entityN    int
	entity     measure
	buckets    []bucketUse // where the archive's bytes go
	docsCmd    measure
	docsN      int
	stats      measure
}

// benchSize measures every tool on n documents of the pool.
func benchSize(t tools, pool string, m *manifest, n int) (*result, error) {
	files := sample(m.Files, n)
	r := &result{docs: len(files), perSource: map[string]int{}}
	// A directory of this run's own: two runs sharing the work directory
	// (it happens on a shared machine) must not remove each other's
	// archives mid-measure.
	dir, err := os.MkdirTemp(*workFlag, fmt.Sprintf("run-%d-", len(files)))
	if err != nil {
		return nil, fmt.Errorf("create the run directory: %w", err)
	}
	if *keepFlag {
		logf("%d documents: archives kept in %s", len(files), dir)
	} else {
		defer os.RemoveAll(dir) // gigabytes at 100,000 documents
	}
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", src, err)
	}
	// The same files, hard-linked (copied where links fail), for all three
	// tools; chronicle names each document by its path under src.
	sizes, err := benchtool.LinkFiles(pool, src, files)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		pfx, _, _ := strings.Cut(f, "-")
		r.perSource[pfx]++
	}
	r.sizes = summarise(sizes)
	mb := float64(r.sizes.total) / 1e6
	exec.Command("sync").Run() // the writes above must not land inside a timed run

	// chronicle ingest, one process for the whole directory.
	logf("%d documents, %.1f MB: chronicle ingest", len(files), mb)
	p, err := runRSS(dir, t.chron, "--db", "archive.db", "ingest", "src")
	if err != nil {
		return nil, err
	}
	r.ingest = measure{wall: p.wall, rssKiB: p.maxRSS, ok: p.code == 0}
	for _, l := range strings.Split(string(p.out), "\n") {
		switch {
		case strings.HasPrefix(l, "new"):
			r.ingestNew++
		case l != "" && !strings.HasPrefix(l, "reused"):
			r.rejected = append(r.rejected, l)
		}
	}
	if p.code != 0 || len(r.rejected) > 0 || r.ingestNew != len(files) {
		r.ingest.note = fmt.Sprintf("exit %d, %d of %d documents new", p.code, r.ingestNew, len(files))
		for _, l := range r.rejected[:min(3, len(r.rejected))] {
			logf("ingest: %s", l)
		}
		if r.ingestNew == 0 {
			return nil, fmt.Errorf("chronicle ingest stored nothing (exit %d): %s", p.code, p.firstLine())
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "archive.db")); err == nil {
		r.archive = st.Size()
		if r.buckets, err = bucketUses(filepath.Join(dir, "archive.db"), r.archive); err != nil {
			logf("%v", err)
		}
	}
	logf("%d documents: chronicle ingest took %.1f s (%.0f docs/s, %.2f MB/s), peak RSS %s, archive %.1f MB",
		len(files), p.wall.Seconds(), float64(len(files))/p.wall.Seconds(), mb/p.wall.Seconds(), mibs(p.maxRSS), float64(r.archive)/1e6)

	// FTS5: the same files in one transaction, through the sqlite3 shell's
	// readfile(); CAST makes the bytes text, as FTS5 indexes text.
	logf("%d documents: FTS5 load", len(files))
	var sql strings.Builder
	sql.WriteString("CREATE VIRTUAL TABLE docs USING fts5(name UNINDEXED, body, tokenize='trigram case_sensitive 1');\nBEGIN;\n")
	for _, f := range files {
		path := "'" + strings.ReplaceAll(filepath.ToSlash(filepath.Join("src", f)), "'", "''") + "'"
		fmt.Fprintf(&sql, "INSERT INTO docs(name, body) VALUES(%s, CAST(readfile(%s) AS TEXT));\n", path, path)
	}
	sql.WriteString("COMMIT;\n")
	if err := os.WriteFile(filepath.Join(dir, "load.sql"), []byte(sql.String()), 0o644); err != nil {
		return nil, fmt.Errorf("write FTS5 load script: %w", err)
	}
	p, err = runRSS(dir, t.sqlite, "-bail", "fts.db", ".read load.sql")
	if err != nil {
		return nil, err
	}
	if p.code != 0 {
		return nil, fmt.Errorf("sqlite3 load failed (exit %d): %s", p.code, p.firstLine())
	}
	r.ftsLoad = measure{wall: p.wall, rssKiB: p.maxRSS, ok: true}
	logf("%d documents: FTS5 load took %.1f s, peak RSS %s", len(files), p.wall.Seconds(), mibs(p.maxRSS))
	if st, err := os.Stat(filepath.Join(dir, "fts.db")); err == nil {
		r.ftsDB = st.Size()
	}
	if p, err := runProc(dir, t.sqlite, "-readonly", "fts.db", "SELECT count(*) FROM docs;"); err == nil && p.code == 0 {
		r.ftsCount, _ = strconv.Atoi(strings.TrimSpace(string(p.out)))
	}

	// The queries, picked from this size's own document frequencies.
	df := benchtool.NewDocFreq()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return nil, fmt.Errorf("read corpus document: %w", err)
		}
		df.Add(b)
	}
	qs := benchtool.PickTerms(df)
	for _, q := range qs {
		logf("%d documents: find %s %q", len(files), q.Class, shorten(q.Text(), 60))
		row, err := benchQuery(t, dir, q)
		if err != nil {
			return nil, err
		}
		r.rows = append(r.rows, row)
	}

	// entity: the name with the most events, if the corpus has any.
	logf("%d documents: entity, docs, stats", len(files))
	if p, err := runProc(dir, t.chron, "--db", "archive.db", "entities", "--json"); err == nil && p.code == 0 {
		if top := benchtool.TopEntities(p.out, 1); len(top) > 0 {
			r.entityName = top[0]
		}
	}
	name := r.entityName
	if name == "" {
		name = "Nobody Here" // no events: the absent case
	}
	var out []byte
	if r.entity, out, err = timed(dir, t.chron, "--db", "archive.db", "entity", "--json", "--", name); err != nil {
		return nil, err
	}
	r.entityN = countLines(out)
	docsArgs := []string{"--db", "archive.db", "docs", "--json"}
	if t.docsLimit {
		docsArgs = append(docsArgs, "--limit", "50")
	}
	if r.docsCmd, out, err = timed(dir, t.chron, docsArgs...); err != nil {
		return nil, err
	}
	r.docsN = countLines(out)
	if r.stats, _, err = timed(dir, t.chron, "--db", "archive.db", "stats", "--json"); err != nil {
		return nil, err
	}
	return r, nil
}

// timed runs a command once to warm the cache (measuring its peak RSS),
// then -runs times, and returns the median and the warm-up's output.
func timed(dir, name string, args ...string) (measure, []byte, error) {
	p, err := runRSS(dir, name, args...)
	if err != nil {
		return measure{}, nil, err
	}
	m := measure{rssKiB: p.maxRSS, ok: p.code == 0}
	if p.code != 0 {
		m.note = fmt.Sprintf("exit %d: %s", p.code, p.firstLine())
	}
	var walls []time.Duration
	for range *runsFlag {
		q, err := runProc(dir, name, args...)
		if err != nil {
			return m, nil, err
		}
		walls = append(walls, q.wall)
	}
	m.wall = median(walls)
	return m, p.out, nil
}

// benchQuery times one query with the three tools and compares their
// counts: chronicle's documents and lines, FTS5's documents, rg's files and
// lines, all byte-exact and case-sensitive, any term matching.
func benchQuery(t tools, dir string, q benchtool.Query) (findRow, error) {
	row := findRow{q: q}
	base := []string{"--db", "archive.db", "find", "--json", "--limit"}
	var out []byte
	var err error
	if row.chron20, _, err = timed(dir, t.chron, append(base, "20", "--", q.Text())...); err != nil {
		return row, err
	}
	statsFile := filepath.Join(dir, "find.memstats")
	if _, err := runProcEnv(dir, []string{"CHRONICLE_MEMSTATS=" + statsFile}, t.chron, append(base, "20", "--", q.Text())...); err == nil {
		row.chronHeap, _ = benchtool.ReadMemstats(statsFile)
	}
	// Listing every matching document is what gives the count (find prints
	// no total), and is the fair match for count(*) and rg -c.
	if row.chronAll, out, err = timed(dir, t.chron, append(base, "1000000000", "--", q.Text())...); err != nil {
		return row, err
	}
	row.chronDocs, row.chronLines = findCounts(out)
	sql, scan := ftsSQL(q.Terms)
	row.ftsScan = scan
	if row.fts, out, err = timed(dir, t.sqlite, "-readonly", "fts.db", sql); err != nil {
		return row, err
	}
	row.ftsDocs, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	rgArgs := []string{"--no-config", "-F", "-s", "-c", "--no-ignore", "--hidden"}
	for _, term := range q.Terms {
		rgArgs = append(rgArgs, "-e", term)
	}
	rgArgs = append(rgArgs, "src")
	if row.rg, out, err = timed(dir, t.rg, rgArgs...); err != nil {
		return row, err
	}
	// rg exits 1 when nothing matches: not a failure.
	if !row.rg.ok && countLines(out) == 0 && strings.HasPrefix(row.rg.note, "exit 1:") {
		row.rg.ok, row.rg.note = true, ""
	}
	row.rgFiles, row.rgLines = rgCounts(out)
	if row.chronDocs != row.rgFiles || row.chronDocs != row.ftsDocs || row.chronLines != row.rgLines ||
		!row.chronAll.ok || !row.fts.ok || !row.rg.ok {
		row.disagree = append(row.disagree, fmt.Sprintf("documents: chronicle %d, FTS5 %d, rg %d files; lines: chronicle %d, rg %d",
			row.chronDocs, row.ftsDocs, row.rgFiles, row.chronLines, row.rgLines))
		for _, mm := range []struct {
			tool string
			m    measure
		}{{"chronicle", row.chronAll}, {"FTS5", row.fts}, {"rg", row.rg}} {
			if !mm.m.ok {
				row.disagree = append(row.disagree, mm.tool+" failed: "+mm.m.note)
			}
		}
	}
	return row, nil
}

// findCounts reads find --json: one line per matching document, each with
// its total_matching_lines.
func findCounts(out []byte) (docs, lines int) {
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var hit struct {
			Result struct {
				Status string `json:"status"`
				Total  int    `json:"total_matching_lines"`
			} `json:"result"`
		}
		if err := dec.Decode(&hit); err != nil {
			if err != io.EOF {
				return -1, -1
			}
			return docs, lines
		}
		if hit.Result.Status == "MATCHES" {
			docs++
			lines += hit.Result.Total
		}
	}
}

// rgCounts reads rg -c over a directory: PATH:COUNT per matching file.
func rgCounts(out []byte) (files, lines int) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if i := strings.LastIndexByte(l, ':'); i >= 0 {
			if c, err := strconv.Atoi(l[i+1:]); err == nil {
				files++
				lines += c
			}
		}
	}
	return files, lines
}

func countLines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
