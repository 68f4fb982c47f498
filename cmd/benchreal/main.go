package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
	"github.com/casper-chronicle/chronicle/platform"
)

var (
	workFlag    = flag.String("work", filepath.Join(os.TempDir(), "chronicle-bench-real"), "work directory (corpora cached here)")
	mbFlag      = flag.Int("mb", 40, "the small size of each corpus, MB (0 skips it)")
	fullFlag    = flag.Int("full-mb", 400, "cap of the full size of each corpus, MB (0 skips the full size)")
	arFlag      = flag.Int("ar-mb", 150, "size of the Arabic corpus, MB (dictionaries, then sentences from their words)")
	runsFlag    = flag.Int("runs", 5, "timed runs per query (median)")
	ingestRuns  = flag.Int("ingest-runs", 3, "ingest rounds per corpus, chronicle and casper-chronicle alternated (median)")
	corporaFlag = flag.String("corpora", "spec14,en,ar", "corpora to run (spec14: every command on the SPEC 14 corpus against the 16 MiB target; en, ar: real text)")
	binFlag     = flag.String("bin", "bin", "directory of chronicle and casper-chronicle")
	noInstall   = flag.Bool("no-install", false, "do not apt-get install missing tools")
)

func main() {
	if argv := os.Getenv(peakRSS.OfEnv); argv != "" {
		os.Exit(peakRSS.Helper(argv))
	}
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchreal:", err)
		os.Exit(1)
	}
}

func run() error {
	start := time.Now()
	corpora := strings.Split(*corporaFlag, ",")
	realText := slices.ContainsFunc(corpora, func(c string) bool { return c != "spec14" })
	if !*noInstall && realText {
		install()
	}
	rg, err := exec.LookPath("rg")
	if err != nil && realText {
		return fmt.Errorf("rg not found (install ripgrep)")
	}
	bin, _ := filepath.Abs(*binFlag)
	chron, casper := filepath.Join(bin, "chronicle"), filepath.Join(bin, "casper-chronicle")
	for _, p := range []string{chron, casper} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s missing (make build)", p)
		}
	}
	if err := os.MkdirAll(*workFlag, 0o755); err != nil {
		return err
	}
	fmt.Printf("machine: %d cores, %s; %s\n", benchtool.Cores(), benchtool.CPUModel(), benchtool.GoVersion())
	for _, name := range corpora {
		if name == "spec14" {
			if err := runSpec14(chron, casper); err != nil {
				return err
			}
			continue
		}
		capMB, arMB := *fullFlag, *arFlag
		if capMB == 0 {
			capMB, arMB = *mbFlag, *mbFlag
		}
		cp, err := buildCorpus(*workFlag, name, capMB, arMB)
		if err != nil {
			return err
		}
		all := cp.subset(0)
		sizes := []int{}
		if *mbFlag > 0 && *mbFlag < len(all) {
			sizes = append(sizes, *mbFlag)
		}
		if *fullFlag > 0 || len(sizes) == 0 {
			sizes = append(sizes, 0)
		}
		for _, mb := range sizes {
			files := cp.subset(mb)
			if err := benchSet(cp, files, chron, casper, rg); err != nil {
				return err
			}
		}
	}
	printIngestMemory()
	fmt.Printf("\ntotal run time %s\n", time.Since(start).Round(time.Second))
	return nil
}

// install apt-gets the packages whose files are missing.
func install() {
	need := map[string]string{
		"/usr/share/hunspell/ar.dic":                "hunspell-ar",
		"/usr/share/aspell/ar.cwl.gz":               "aspell-ar",
		"/usr/share/aspell/ar-large.cwl.gz":         "aspell-ar-large",
		"/usr/share/dictd/freedict-ara-eng.dict.dz": "dict-freedict-ara-eng",
	}
	var pkgs []string
	if _, err := exec.LookPath("rg"); err != nil {
		pkgs = append(pkgs, "ripgrep")
	}
	if _, err := exec.LookPath("aspell"); err != nil {
		pkgs = append(pkgs, "aspell")
	}
	if m, _ := filepath.Glob("/usr/share/mythes/th_ar*.dat"); len(m) == 0 {
		pkgs = append(pkgs, "mythes-ar")
	}
	for f, p := range need {
		if _, err := os.Stat(f); err != nil {
			pkgs = append(pkgs, p)
		}
	}
	benchtool.AptInstall(func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "benchreal: "+format+"\n", args...)
	}, pkgs)
}

// result of one child process.
type proc struct {
	wall   time.Duration
	cpu    time.Duration // user + system, the child's and its waited-for children's
	maxRSS int64         // KiB
	out    []byte
	code   int
}

// timeBin is GNU time, used for peak RSS: the rusage of a child forked by
// this (large) process would count this process's pages.
var timeBin, _ = exec.LookPath("/usr/bin/time")

// runRSS runs like runProc, under GNU time for the child's own peak RSS
// when it is there, else through this program started again as a small
// helper (peakRSS.Helper) for the same reason.
func runRSS(dir string, name string, args ...string) (proc, error) {
	return runRSSEnv(dir, nil, name, args...)
}

// runRSSEnv is runRSS with extra environment variables.
func runRSSEnv(dir string, env []string, name string, args ...string) (proc, error) {
	f, err := os.CreateTemp("", "benchreal-rss")
	if err != nil {
		return proc{}, err
	}
	f.Close()
	defer os.Remove(f.Name())
	var p proc
	if timeBin != "" {
		p, err = runProcEnv(dir, env, timeBin, append([]string{"-f", "%M", "-o", f.Name(), name}, args...)...)
	} else {
		self, serr := os.Executable()
		if serr != nil {
			return runProcEnv(dir, env, name, args...)
		}
		argv, _ := json.Marshal(append([]string{name}, args...))
		p, err = runProcEnv(dir, append(env, peakRSS.OfEnv+"="+string(argv), peakRSS.FileEnv+"="+f.Name()), self)
	}
	if k, ok := peakRSS.ReadKiB(f.Name()); ok {
		p.maxRSS = k
	}
	return p, err
}

// peakRSS is the helper that measures a command's peak RSS (see
// benchtool.PeakRSS).
var peakRSS = benchtool.PeakRSS{Name: "benchreal", OfEnv: "BENCHREAL_PEAK_RSS_OF", FileEnv: "BENCHREAL_PEAK_RSS_FILE"}

func runProc(dir string, name string, args ...string) (proc, error) {
	return runProcEnv(dir, nil, name, args...)
}

// runProcEnv is runProc with extra environment variables.
func runProcEnv(dir string, env []string, name string, args ...string) (proc, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t := time.Now()
	err := cmd.Run()
	p := proc{wall: time.Since(t), out: out.Bytes()}
	if cmd.ProcessState != nil {
		p.code = cmd.ProcessState.ExitCode()
		p.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if kib, ok := platform.ChildMaxRSS(cmd.ProcessState); ok {
			p.maxRSS = kib
		}
	}
	if err != nil && cmd.ProcessState == nil {
		return p, err
	}
	if p.code != 0 && stderr.Len() > 0 {
		p.out = append(p.out, stderr.Bytes()...)
	}
	return p, nil
}

type row struct {
	q          query
	chron, rg  time.Duration
	lines      int // chronicle's total matching lines
	rgLines    int
	chronRSS   int64
	agree      bool
	chronError string
}

// benchSet ingests files and runs the queries on them.
func benchSet(cp *corpus, files []string, chron, casper, rg string) error {
	var srcBytes int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return err
		}
		srcBytes += st.Size()
	}
	mb := float64(srcBytes) / 1e6
	tag := fmt.Sprintf("%s-%d", cp.name, len(files))
	dir := filepath.Join(*workFlag, "run-"+tag)
	os.RemoveAll(dir)
	src := filepath.Join(dir, "src")
	plain := filepath.Join(dir, "plain")
	for _, d := range []string{src, plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		base := filepath.Base(f)
		if err := os.Link(f, filepath.Join(src, base)); err != nil {
			if err := os.WriteFile(filepath.Join(src, base), b, 0o644); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(plain, base), b, 0o644); err != nil {
			return err
		}
	}
	exec.Command("sync").Run()
	fmt.Fprintf(os.Stderr, "benchreal: %s: %d documents, %.1f MB: ingest\n", cp.name, len(files), mb)

	// The two ingests alternate round by round (chronicle into a fresh
	// archive, then casper-chronicle into fresh plain stores), so a change
	// in the VM's speed during the run weighs on both; the figures are the
	// medians of the rounds. The first chronicle round also measures peak
	// RSS and the Go heap; the last one's archive is queried below.
	db := filepath.Join(dir, "archive.db")
	memstats := filepath.Join(dir, "ingest.memstats")
	var ing proc
	var ingWalls, ingCPUs, casperWalls, casperCPUs []time.Duration
	casperFail := 0
	for round := range max(1, *ingestRuns) {
		os.Remove(db)
		var p proc
		var err error
		if round == 0 {
			p, err = runRSSEnv(dir, []string{"CHRONICLE_MEMSTATS=" + memstats}, chron, "--db", db, "ingest", "src")
			ing = p
		} else {
			p, err = runProc(dir, chron, "--db", db, "ingest", "src")
		}
		if err != nil {
			return err
		}
		ingWalls, ingCPUs = append(ingWalls, p.wall), append(ingCPUs, p.cpu)
		ing.out, ing.code = p.out, p.code

		var wall, cpu time.Duration
		casperFail = 0
		for _, f := range files {
			base := filepath.Base(f)
			os.Remove(filepath.Join(plain, base+".chronicle"))
			os.Remove(filepath.Join(plain, base+".chronicle.receipt"))
			p, err := runProc(plain, casper, "ingest", base)
			if err != nil {
				return err
			}
			if p.code != 0 {
				casperFail++
			}
			wall, cpu = wall+p.wall, cpu+p.cpu
		}
		casperWalls, casperCPUs = append(casperWalls, wall), append(casperCPUs, cpu)
	}
	ing.wall = median(ingWalls)
	ingMem, _ := benchtool.ReadMemstats(memstats)
	rejected := 0
	for _, l := range strings.Split(string(ing.out), "\n") {
		if l != "" && !strings.HasPrefix(l, "new") && !strings.HasPrefix(l, "reused") {
			rejected++
			if rejected <= 3 {
				fmt.Fprintf(os.Stderr, "benchreal: ingest: %s\n", l)
			}
		}
	}
	st, err := os.Stat(db)
	if err != nil {
		return fmt.Errorf("ingest made no archive (exit %d): %s", ing.code, firstLine(ing.out))
	}
	archBytes := st.Size()
	casperWall := median(casperWalls)
	var casperRSS int64
	// Peak RSS of casper-chronicle on the largest files, in a second pass
	// (the timed pass runs it directly).
	bySize := slices.Clone(files)
	slices.SortFunc(bySize, func(a, b string) int { return int(fileSize(b) - fileSize(a)) })
	for _, f := range bySize[:min(3, len(bySize))] {
		os.Remove(filepath.Join(plain, filepath.Base(f)+".chronicle"))
		if p, err := runRSS(plain, casper, "ingest", filepath.Base(f)); err == nil {
			casperRSS = max(casperRSS, p.maxRSS)
		}
	}

	fmt.Fprintf(os.Stderr, "benchreal: %s: queries\n", cp.name)
	freq, tokens := corpusFreq(files)
	qs := pickQueries(freq, tokens)
	var rows []row
	var findRSS int64
	for _, q := range qs {
		r := row{q: q}
		fargs := []string{"--db", db, "find", "--json", "--limit", "20", "--", q.text()}
		rargs := []string{"-F", "-c", "--no-ignore", "--hidden"}
		for _, t := range q.terms {
			rargs = append(rargs, "-e", t)
		}
		rargs = append(rargs, "src")
		var ct, rt []time.Duration
		for i := 0; i <= *runsFlag; i++ { // run 0 warms the cache
			run := runProc
			if i == 0 {
				run = runRSS // the warm-up run measures peak RSS
			}
			p, err := run(dir, chron, fargs...)
			if err != nil {
				return err
			}
			if p.code != 0 {
				r.chronError = firstLine(p.out)
			}
			if i == 0 {
				findRSS = max(findRSS, p.maxRSS)
				r.chronRSS = p.maxRSS
			}
			g, err := runProc(dir, rg, rargs...)
			if err != nil {
				return err
			}
			if i == 0 {
				r.rgLines = rgSum(g.out)
				continue
			}
			ct, rt = append(ct, p.wall), append(rt, g.wall)
		}
		r.chron, r.rg = median(ct), median(rt)
		// The count check: an untimed run listing every document.
		all := slices.Clone(fargs)
		all[5] = "1000000000"
		if p, err := runProc(dir, chron, all...); err == nil && p.code == 0 {
			r.lines = findSum(p.out)
		} else {
			r.lines = -1
		}
		r.agree = r.lines == r.rgLines && r.chronError == ""
		rows = append(rows, r)
	}

	// Report.
	fmt.Printf("\n## corpus %s, %d documents, %.1f MB of sources\n", cp.name, len(files), mb)
	for _, s := range cp.sources {
		n := 0
		pfx := strings.SplitN(s, ":", 2)[0] + "-"
		var b int64
		for _, f := range files {
			if strings.HasPrefix(filepath.Base(f), pfx) {
				n++
				if st, err := os.Stat(f); err == nil {
					b += st.Size()
				}
			}
		}
		fmt.Printf("  %s  [%d documents, %.1f MB]\n", s, n, float64(b)/1e6)
	}
	fmt.Println()
	fmt.Println("| query | class | lines (chronicle / rg) | chronicle ms | rg ms | ratio |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	var ratios []float64
	worst, worstQ := 0.0, ""
	disagree := 0
	for _, r := range rows {
		ratio := float64(r.chron) / float64(r.rg)
		ratios = append(ratios, ratio)
		if ratio > worst {
			worst, worstQ = ratio, r.q.text()
		}
		mark := ""
		if !r.agree {
			disagree++
			mark = " **DISAGREE**"
			if r.chronError != "" {
				mark += " (" + r.chronError + ")"
			}
		}
		fmt.Printf("| `%s` | %s | %d / %d%s | %.1f | %.1f | %.2f |\n", shorten(r.q.text(), 70), r.q.class,
			r.lines, r.rgLines, mark, ms(r.chron), ms(r.rg), ratio)
	}
	slices.Sort(ratios)
	fmt.Println()
	fmt.Printf("median ratio %.2f, worst %.2f (`%s`); %d of %d counts disagree with rg\n",
		ratios[len(ratios)/2], worst, shorten(worstQ, 70), disagree, len(rows))
	fmt.Printf("ingest (median of %d alternated rounds): chronicle %.1f MB/s (%.2f s, %.2f s CPU, %d rejected), casper-chronicle ingest %.1f MB/s (%.2f s, %.2f s CPU, %d failed); chronicle / casper time %.2f, CPU %.2f\n",
		len(ingWalls), mb/ing.wall.Seconds(), ing.wall.Seconds(), median(ingCPUs).Seconds(), rejected,
		mb/casperWall.Seconds(), casperWall.Seconds(), median(casperCPUs).Seconds(), casperFail,
		ing.wall.Seconds()/casperWall.Seconds(), median(ingCPUs).Seconds()/median(casperCPUs).Seconds())
	fmt.Printf("ingest rounds (wall, s): chronicle %s; casper-chronicle %s\n", seconds(ingWalls), seconds(casperWalls))
	fmt.Printf("archive / sources: %.3f (%.1f MB archive)\n", float64(archBytes)/float64(srcBytes), float64(archBytes)/1e6)
	fmt.Printf("peak RSS: chronicle ingest %.1f MiB, casper-chronicle ingest %.1f MiB (largest file), chronicle find %.1f MiB (largest query)\n",
		kib(ing.maxRSS), kib(casperRSS), kib(findRSS))
	largest := fileSize(bySize[0])
	fmt.Printf("batch ingest memory: Go heap peak %.1f MiB, Go runtime peak %.1f MiB, peak RSS %.1f MiB (the archive file, %.1f MiB, is mapped and counts in RSS); largest document %.1f MiB\n",
		mib(ingMem.Heap), mib(ingMem.GoHeld), mib(ingMem.RSS), mib(uint64(archBytes)), mib(uint64(largest)))
	ingestMemory = append(ingestMemory, ingestMem{corpus: tag, docs: len(files), mb: mb, largest: largest,
		archive: archBytes, stats: ingMem, rssKiB: ing.maxRSS, wall: ing.wall})
	os.RemoveAll(plain)
	return nil
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

func rgSum(out []byte) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if i := strings.LastIndexByte(l, ':'); i >= 0 {
			if c, err := strconv.Atoi(l[i+1:]); err == nil {
				n += c
			}
		}
	}
	return n
}

func findSum(out []byte) int {
	n := 0
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var hit struct {
			Result struct {
				Total int `json:"total_matching_lines"`
			} `json:"result"`
		}
		if err := dec.Decode(&hit); err != nil {
			if err != io.EOF {
				return -1
			}
			return n
		}
		n += hit.Result.Total
	}
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// seconds lists durations as seconds, in the order taken.
func seconds(d []time.Duration) string {
	s := make([]string, len(d))
	for i, x := range d {
		s[i] = fmt.Sprintf("%.2f", x.Seconds())
	}
	return strings.Join(s, " ")
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
func kib(k int64) float64        { return float64(k) / 1024 }
func mib(b uint64) float64       { return float64(b) / (1 << 20) }

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return shorten(s, 120)
}
