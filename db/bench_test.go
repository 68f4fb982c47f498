package db_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"

	bolt "go.etcd.io/bbolt"
)

// The archive benchmarks of issue 6 (targets: cmd/benchreal/PERFORMANCE.md): a generated archive
// of mixed Arabic and English prose with records, about 1 MB per document.
//
//	CHRONICLE_BENCH_MB   total source size in MB = number of documents
//	                     (default 64; 1000 gives the 1 GB archive of the targets)
//	CHRONICLE_BENCH_DIR  where the sources and archives are cached
//	                     (default $TMPDIR/chronicle-bench)
//
// The first run writes the source files and ingests them (that build is the
// ingest throughput figure); later runs reuse both. Delete the directory to
// rebuild, e.g. after a change of the storage format. When `rg` is on PATH,
// `rg -F -c` over the same source files is timed beside each query in the
// same run (warm cache) and reported as rg_ms.

const (
	benchDocBytes = 1_000_000 // source bytes per document
	benchVersion  = 1         // bump when the generator changes
	benchLimit    = 20        // --limit default of cross-archive find
)

// benchQuery is one query of the fixed set.
type benchQuery struct {
	class, label, terms string
}

// benchQueries is the fixed query set, by class. Planted words: see
// benchPlanted.
var benchQueries = []benchQuery{
	{"rare", "Quetzalcoatl", "Quetzalcoatl"},
	{"rare", "Zoroaster", "Zoroaster"},
	{"rare", "Zenobia_Quill", benchRareEntity},
	// A word of the vocabulary's long tail, in few documents: every trigram
	// of it is common, so the term index cannot narrow it down.
	{"rare", "tailword", ""},
	{"common", "the", "the"},
	{"common", "ledger", "ledger"},
	{"common", "Alice", "Alice"},
	{"absent", "Xylophonist", "Xylophonist"},
	{"absent", "Aramco2099", "Aramco2099"},
	{"absent", "qzx", "qzx"},
	{"short", "I", "I"},
	{"short", "7", "7"},
	{"short", "ain", "ع"},
	{"short", "Qz", "Qz"},
	{"multi", "Alice_paid_Bob", "Alice paid Bob"},
	{"multi", "rare+common", "Quetzalcoatl ledger receipt"},
	{"multi", "absent+rare", "Xylophonist Zoroaster"},
	{"arabic", "alhawala", "الحوالة"},
	{"arabic", "saud_mablagh", "سعود مبلغ"},
	{"arabic", "feroz", "ڤيروز"},
	{"arabic", "fi", "في"},
}

var benchClasses = []string{"rare", "common", "absent", "short", "multi", "arabic"}

// Planted markers: words the generator never makes otherwise.
const (
	benchQuetzal    = "Quetzalcoatl" // docs i%97 == 5, a few lines each
	benchZoroaster  = "Zoroaster"    // doc n/2 only, one line
	benchFeroz      = "ڤيروز"        // docs i%89 == 7 (ڤ is outside the generator's letters)
	benchRareEntity = "Zenobia Quill"
)

var (
	benchEnglish = strings.Fields(`the of and to a in is was that he for it with as his on be at by
		I had not are but from or have an they which one you were her all she there would their we him
		been has when who will more no if out so said what up its about into than them can only other new
		some could time these two may then do first any my now such like our over man me even most made after
		also did many before must through back years where much your way well down should because each just
		those people how too little state good very make world still own see men work long get here between
		both life being under never day same another know while last might us great old year off come since
		against go came right used take three ledger receipt transfer debt paid owed loan witness account
		market caravan merchant letter record silver coin house river city road council judge scribe`)
	benchArabic = strings.Fields(`في من على إلى عن مع هذا هذه التي الذي كان قد لم بعد قبل كل بين عند
		حتى ثم أو أن إن ما لا هو هي هم نحن الدفتر الحوالة الدين المبلغ الشاهد السوق القافلة التاجر الرسالة
		السجل الفضة الدرهم البيت النهر المدينة الطريق المجلس القاضي الكاتب اليوم الليل الصباح المساء
		الناس الأرض السماء الماء الخبز الملح التمر القمح الصوف الحرير الذهب الحساب الشهر السنة الأسبوع`)
	benchGiven      = strings.Fields("Alice Bob Carol David Erin Frank Grace Henry Iris Jack Karen Leo Mona Nabil Omar Paula Rami Sara Tariq Uma Victor Wafa Yusuf Zaid Hana Idris Layla Malik Noor Rania")
	benchSurname    = strings.Fields("Haddad Khoury Nasser Saleh Farah Mansour Aziz Karam Habib Qasim Rahal Darwish Shami Tamimi Zein Bakr Jaber Hamdan Yassin Sabbagh")
	benchArGiven    = strings.Fields("أحمد خالد سعود فاطمة محمد علي عمر ليلى مريم يوسف حسن زينب سلمان نورة هند طارق سامي رنا جميلة عادل")
	benchArFamily   = strings.Fields("الزهراني العتيبي القحطاني الشمري الحربي الغامدي المالكي الدوسري السبيعي العنزي البلوي الشهري")
	benchCurrencies = []string{"SAR", "USD", "EUR", "-"}
	benchDays       = strings.Fields("الأول الثاني الثالث الرابع الخامس السادس السابع الثامن التاسع العاشر")
)

// benchVocab is a deterministic synthetic vocabulary: a long tail of rare
// words in Latin and Arabic letters, drawn with a Zipf law.
type benchVocab struct {
	en, ar []string
}

func newBenchVocab() *benchVocab {
	r := rand.New(rand.NewPCG(benchVersion, 1))
	syll := strings.Fields("ka ro mel tan si bu ter va lo nim pe dra gu shi ol an ef ur ith mo")
	ar := []rune("بتثجحخدذرزسشصضطظعغفقكلمنهوي")
	v := &benchVocab{}
	seen := map[string]bool{}
	for len(v.en) < 20000 {
		var w strings.Builder
		for range 2 + r.IntN(3) {
			w.WriteString(syll[r.IntN(len(syll))])
		}
		if s := w.String(); !seen[s] {
			seen[s] = true
			v.en = append(v.en, s)
		}
	}
	for len(v.ar) < 20000 {
		w := make([]rune, 3+r.IntN(4))
		for i := range w {
			w[i] = ar[r.IntN(len(ar))]
		}
		if s := "ال" + string(w); !seen[s] {
			seen[s] = true
			v.ar = append(v.ar, s)
		}
	}
	return v
}

// benchNames is the pool of entity names: English and Arabic full names.
func benchNames() []string {
	var out []string
	for _, g := range benchGiven {
		for _, s := range benchSurname {
			out = append(out, g+" "+s)
		}
	}
	for _, g := range benchArGiven {
		for _, f := range benchArFamily {
			out = append(out, g+" "+f)
		}
	}
	r := rand.New(rand.NewPCG(benchVersion, 2))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// benchDocument generates document i of n: about benchDocBytes of prose
// lines (English and Arabic, a document-specific mix), typed records and
// Arabic sentences naming the document's cast, CRLF and empty lines.
func benchDocument(i, n int, vocab *benchVocab, names []string) []byte {
	r := rand.New(rand.NewPCG(benchVersion, uint64(1000+i)))
	enZipf := rand.NewZipf(r, 1.2, 4, uint64(len(vocab.en)-1))
	arZipf := rand.NewZipf(r, 1.2, 4, uint64(len(vocab.ar)-1))
	castZipf := rand.NewZipf(r, 1.1, 8, uint64(len(names)-1))
	cast := make([]string, 8)
	for k := range cast {
		cast[k] = names[castZipf.Uint64()]
	}
	name := func() string {
		if r.IntN(20) == 0 {
			return names[r.IntN(len(names))]
		}
		return cast[r.IntN(len(cast))]
	}
	arabicShare := 20 + r.IntN(50)
	var b bytes.Buffer
	b.Grow(benchDocBytes + 2048)
	line := 0
	var plant string // a marker waiting for the next prose line
	for b.Len() < benchDocBytes {
		line++
		switch {
		case i%97 == 5 && line%2500 == 17:
			plant = " " + benchQuetzal + " and the ledger"
		case i == n/2 && line == 1234:
			plant = " " + benchZoroaster
		case i%89 == 7 && line%3000 == 29:
			plant = " " + benchFeroz
		}
		switch k := r.IntN(100); {
		case k < 3:
			fmt.Fprintf(&b, "@chronicle\t%s\t%s\t%s\t%s\t%s\tT%d\t%s\tPOSITIVE\t%s",
				name(), []string{"BORROWED_FROM", "PAID_TO", "INTERMEDIARY_FOR", "TRANSFER_TO"}[r.IntN(4)], name(),
				strconv.Itoa(1+r.IntN(5000)), benchCurrencies[r.IntN(len(benchCurrencies))], 1+r.IntN(30),
				[]string{"ASSERTED", "UNCERTAIN"}[r.IntN(2)], []string{"ASSERTED", "CONFIRMED", "PENDING", "DENIED"}[r.IntN(4)])
		case k < 4:
			s, o, day := name(), name(), "اليوم "+benchDays[r.IntN(len(benchDays))]
			switch r.IntN(4) {
			case 0:
				fmt.Fprintf(&b, "أقر %s بأنه اقترض من %s مبلغ %d ريال سعودي في %s.", s, o, 1+r.IntN(900), day)
			case 1:
				fmt.Fprintf(&b, "أكد %s استلام مبلغ %d ريال سعودي من %s في %s.", o, 1+r.IntN(900), s, day)
			case 2:
				fmt.Fprintf(&b, "أكد %s أن %s وسيط عنه في %s.", o, s, day)
			default:
				fmt.Fprintf(&b, "حوّل %s إلى %s مبلغ %d ريال سعودي في %s ولم يثبت وصول الحوالة.", s, o, 1+r.IntN(900), day)
			}
		case k < 6:
			// An empty line.
		default:
			arabic := r.IntN(100) < arabicShare
			words := 6 + r.IntN(14)
			for w := range words {
				if w > 0 {
					b.WriteByte(' ')
				}
				switch {
				case r.IntN(40) == 0:
					b.WriteString(name())
				case arabic && r.IntN(2) == 0:
					b.WriteString(benchArabic[r.IntN(len(benchArabic))])
				case arabic:
					b.WriteString(vocab.ar[arZipf.Uint64()])
				case r.IntN(2) == 0:
					b.WriteString(benchEnglish[r.IntN(len(benchEnglish))])
				default:
					b.WriteString(vocab.en[enZipf.Uint64()])
				}
			}
			if r.IntN(30) == 0 {
				fmt.Fprintf(&b, " %d", r.IntN(10000))
			}
			b.WriteString(plant)
			plant = ""
			b.WriteString([]string{".", ".", ".", "،", "؟", "!", ""}[r.IntN(7)])
		}
		if r.IntN(100) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteByte('\n')
		}
	}
	if i == n/2 {
		fmt.Fprintf(&b, "@chronicle\t%s\tPAID_TO\t%s\t7\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n", benchRareEntity, names[0])
	}
	return b.Bytes()
}

// benchFixture is the cached corpus and its archives.
type benchFixture struct {
	n         int      // documents
	srcDir    string   // the source files, doc-NNNN.txt
	files     []string // their paths, in import order
	srcBytes  int64
	archive   string // all n documents
	tenth     string // the first n/10 documents (at least 1)
	stats     benchBuild
	tailWord  string // a word of the vocabulary's long tail
	rgPath    string // "" when rg is not on PATH
	rgTimes   map[string]time.Duration
	rgTimesMu sync.Mutex
}

// benchBuild is what the first build measured, kept beside the archive.
type benchBuild struct {
	Docs        int     `json:"docs"`
	SourceBytes int64   `json:"source_bytes"`
	Seconds     float64 `json:"seconds"`
	Schema      int     `json:"schema"`
}

var (
	benchOnce sync.Once
	benchFix  *benchFixture
	benchErr  error
)

func benchSetup(b *testing.B) *benchFixture {
	b.Helper()
	benchOnce.Do(func() { benchFix, benchErr = newBenchFixture(b) })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchFix
}

func newBenchFixture(b *testing.B) (*benchFixture, error) {
	mb := 64
	if s := os.Getenv("CHRONICLE_BENCH_MB"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > 100000 {
			return nil, fmt.Errorf("CHRONICLE_BENCH_MB=%q: want a number of MB (documents of about 1 MB)", s)
		}
		mb = v
	}
	dir := os.Getenv("CHRONICLE_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "chronicle-bench")
	}
	f := &benchFixture{n: mb, rgTimes: map[string]time.Duration{}}
	f.srcDir = filepath.Join(dir, fmt.Sprintf("src-v%d-%d", benchVersion, mb))
	tag := fmt.Sprintf("v%d-%d-schema%d-chunk%d", benchVersion, mb, db.SchemaVersion, db.ChunkSize)
	f.archive = filepath.Join(dir, "archive-"+tag+".db")
	f.tenth = filepath.Join(dir, "archive-"+tag+"-tenth.db")
	vocab := newBenchVocab()
	f.tailWord = vocab.en[19999]
	if err := f.writeSources(vocab); err != nil {
		return nil, err
	}
	var err error
	if f.stats, err = f.build(b, f.archive, f.n); err != nil {
		return nil, err
	}
	if _, err = f.build(b, f.tenth, max(1, f.n/10)); err != nil {
		return nil, err
	}
	if p, err := exec.LookPath("rg"); err == nil {
		f.rgPath = p
	}
	return f, nil
}

// writeSources writes the source files unless a complete set is present
// (its manifest is written last).
func (f *benchFixture) writeSources(vocab *benchVocab) error {
	for i := range f.n {
		f.files = append(f.files, filepath.Join(f.srcDir, fmt.Sprintf("doc-%04d.txt", i)))
	}
	manifest := filepath.Join(f.srcDir, "MANIFEST")
	if m, err := os.ReadFile(manifest); err == nil {
		f.srcBytes, err = strconv.ParseInt(strings.TrimSpace(string(m)), 10, 64)
		return err
	}
	if err := os.MkdirAll(f.srcDir, 0o755); err != nil {
		return err
	}
	names := benchNames()
	f.srcBytes = 0
	for i, path := range f.files {
		src := benchDocument(i, f.n, vocab, names)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			return err
		}
		f.srcBytes += int64(len(src))
	}
	return os.WriteFile(manifest, []byte(strconv.FormatInt(f.srcBytes, 10)+"\n"), 0o644)
}

// build ingests the first n source files into path unless that archive and
// its stats already exist; it returns the stats of the build.
func (f *benchFixture) build(b *testing.B, path string, n int) (benchBuild, error) {
	var st benchBuild
	statsPath := path + ".json"
	if raw, err := os.ReadFile(statsPath); err == nil {
		if _, err := os.Stat(path); err == nil {
			return st, json.Unmarshal(raw, &st)
		}
	}
	tmp := path + ".tmp"
	os.Remove(tmp)
	b.Logf("building %s from %d documents (cached for later runs)", filepath.Base(path), n)
	a, err := db.Open(tmp, db.Options{})
	if err != nil {
		return st, err
	}
	var elapsed time.Duration
	for i, p := range f.files[:n] {
		src, err := os.ReadFile(p)
		if err != nil {
			a.Close()
			return st, err
		}
		start := time.Now()
		if _, err := a.Ingest(src, 1750000000+uint64(i), filepath.Base(p)); err != nil {
			a.Close()
			return st, fmt.Errorf("%s: %w", p, err)
		}
		elapsed += time.Since(start)
		st.SourceBytes += int64(len(src))
	}
	if err := a.Close(); err != nil {
		return st, err
	}
	st.Docs, st.Seconds, st.Schema = n, elapsed.Seconds(), db.SchemaVersion
	if err := os.Rename(tmp, path); err != nil {
		return st, err
	}
	raw, _ := json.Marshal(st)
	return st, os.WriteFile(statsPath, raw, 0o644)
}

func (f *benchFixture) open(b *testing.B, path string) *db.Archive {
	b.Helper()
	a, err := db.Open(path, db.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	return a
}

func (f *benchFixture) terms(q benchQuery) string {
	if q.terms == "" {
		return f.tailWord
	}
	return q.terms
}

// crossFind is `chronicle find TERMS --json` without --doc: the term index's
// candidates, searched best bound first until no other can enter the
// first benchLimit, ranked by best matched_terms, total matching lines and
// import order, one JSON line each. It returns the number of candidates
// and of documents searched.
func crossFind(a *db.Archive, terms string, w io.Writer) (cands, docs int, err error) {
	q, err := find.NewQuery(terms)
	if err != nil {
		return 0, 0, err
	}
	hits, st, err := a.FindWithStats(q, benchLimit)
	if err != nil {
		return 0, 0, err
	}
	for _, h := range hits {
		names, _ := json.Marshal(h.Doc.Names)
		fmt.Fprintf(w, "{\"document_sha256\":\"%s\",\"names\":%s,\"result\":%s}\n", h.Doc.SHA256, names, h.Result.JSON())
	}
	return st.Candidates, st.Searched, nil
}

// rgTime times `rg -F -c` with the query's terms over the source files:
// the median of three runs after a warm-up run. Zero when rg is absent.
func (f *benchFixture) rgTime(b *testing.B, terms string) time.Duration {
	if f.rgPath == "" {
		return 0
	}
	f.rgTimesMu.Lock()
	defer f.rgTimesMu.Unlock()
	if d, ok := f.rgTimes[terms]; ok {
		return d
	}
	split, err := find.Terms(terms)
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"-F", "-c", "--no-ignore"}
	for _, t := range split {
		args = append(args, "-e", t)
	}
	args = append(args, f.srcDir)
	var runs []time.Duration
	for i := range 4 {
		cmd := exec.Command(f.rgPath, args...)
		start := time.Now()
		err := cmd.Run()
		elapsed := time.Since(start)
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) { // 1: no match
			b.Fatalf("rg %q: %v", args, err)
		}
		if i > 0 {
			runs = append(runs, elapsed)
		}
	}
	slices.Sort(runs)
	f.rgTimes[terms] = runs[len(runs)/2]
	return runs[len(runs)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// quantile returns the q-quantile (nearest rank) of sorted durations.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// BenchmarkArchiveIngest ingests a few of the generated documents into a
// fresh archive per iteration (extraction, compression, both indexes and a
// durable commit per document); MB/s is the ingest throughput.
func BenchmarkArchiveIngest(b *testing.B) {
	f := benchSetup(b)
	var srcs [][]byte
	var total int64
	for _, p := range f.files[:min(len(f.files), 8)] {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
		total += int64(len(src))
	}
	b.SetBytes(total)
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		b.StopTimer()
		path := filepath.Join(dir, fmt.Sprintf("ingest-%d.db", i))
		a, err := db.Open(path, db.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for k, src := range srcs {
			if _, err := a.Ingest(src, 1750000000, fmt.Sprintf("doc-%d.txt", k)); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		a.Close()
		os.Remove(path)
		b.StartTimer()
	}
}

// BenchmarkArchiveSize reports the archive file size against the sources
// and the throughput of the build that made it (all documents, one
// transaction each, into a growing archive).
func BenchmarkArchiveSize(b *testing.B) {
	f := benchSetup(b)
	var size int64
	for b.Loop() {
		st, err := os.Stat(f.archive)
		if err != nil {
			b.Fatal(err)
		}
		size = st.Size()
	}
	// bbolt grows the file ahead of its pages; the pages in use are the
	// archive's real size (the rest is reused by later ingests).
	bdb, err := bolt.Open(f.archive, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	var used int64
	err = bdb.View(func(tx *bolt.Tx) error {
		used = tx.Size()
		for _, name := range []string{"chunks", "events", "grams", "lines", "entities", "spans"} {
			s := tx.Bucket([]byte(name)).Stats()
			b.ReportMetric(float64(s.LeafInuse+s.BranchInuse)/float64(f.srcBytes), name+"_ratio")
		}
		return nil
	})
	bdb.Close()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(size)/float64(f.srcBytes), "size_ratio")
	b.ReportMetric(float64(used)/float64(f.srcBytes), "used_ratio")
	b.ReportMetric(float64(size)/1e6, "archive_MB")
	b.ReportMetric(float64(f.srcBytes)/1e6, "source_MB")
	b.ReportMetric(float64(f.stats.SourceBytes)/1e6/f.stats.Seconds, "build_MB/s")
}

// BenchmarkArchiveFind runs the fixed query set through the cross-archive
// find, one sub-benchmark per class. Each iteration runs every query of
// the class once; p50_ms and p99_ms are over all those query runs, rg_ms
// the median rg time of the class's queries, max_x_rg the worst ratio of a
// query's median find time to its rg time. Per-query figures are logged.
func BenchmarkArchiveFind(b *testing.B) {
	f := benchSetup(b)
	a := f.open(b, f.archive)
	for _, class := range benchClasses {
		var qs []benchQuery
		for _, q := range benchQueries {
			if q.class == class {
				qs = append(qs, q)
			}
		}
		b.Run(class, func(b *testing.B) {
			samples := make([][]time.Duration, len(qs))
			cands := make([]int, len(qs))
			docs := make([]int, len(qs))
			rg := make([]time.Duration, len(qs))
			for k, q := range qs {
				rg[k] = f.rgTime(b, f.terms(q))
			}
			for b.Loop() {
				for k, q := range qs {
					start := time.Now()
					var err error
					cands[k], docs[k], err = crossFind(a, f.terms(q), io.Discard)
					if err != nil {
						b.Fatal(err)
					}
					samples[k] = append(samples[k], time.Since(start))
				}
			}
			var all []time.Duration
			worst := 0.0
			for k, q := range qs {
				s := slices.Clone(samples[k])
				slices.Sort(s)
				all = append(all, s...)
				med := quantile(s, 0.5)
				line := fmt.Sprintf("%-7s %-16s find %8.2f ms  candidates %4d  searched %4d", class, q.label, ms(med), cands[k], docs[k])
				if rg[k] > 0 {
					line += fmt.Sprintf("  rg %8.2f ms  find/rg %.2f", ms(rg[k]), float64(med)/float64(rg[k]))
					worst = max(worst, float64(med)/float64(rg[k]))
				}
				b.Log(line)
			}
			slices.Sort(all)
			b.ReportMetric(ms(quantile(all, 0.5)), "p50_ms")
			b.ReportMetric(ms(quantile(all, 0.99)), "p99_ms")
			if f.rgPath != "" {
				slices.Sort(rg)
				b.ReportMetric(ms(quantile(rg, 0.5)), "rg_ms")
				b.ReportMetric(worst, "max_x_rg")
			}
		})
	}
}

// BenchmarkArchiveScale runs the same queries on the archive of the first
// tenth of the documents and on the whole archive: a selective query's
// cost follows what it touches, not the archive size.
func BenchmarkArchiveScale(b *testing.B) {
	f := benchSetup(b)
	archives := []struct {
		a    *db.Archive
		docs int
	}{{f.open(b, f.tenth), max(1, f.n/10)}, {f.open(b, f.archive), f.n}}
	for _, q := range []benchQuery{
		{"selective", "Quetzalcoatl", benchQuetzal},
		{"absent", "Xylophonist", "Xylophonist"},
		{"common", "ledger", "ledger"},
	} {
		for _, arch := range archives {
			a := arch.a
			b.Run(fmt.Sprintf("%s/docs=%d", q.class, arch.docs), func(b *testing.B) {
				var cands, docs int
				for b.Loop() {
					var err error
					if cands, docs, err = crossFind(a, q.terms, io.Discard); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cands), "candidates")
				b.ReportMetric(float64(docs), "searched")
			})
		}
	}
}

// BenchmarkArchiveEntity looks up entity names across the archive: the
// planted name of one event, the most and the median most frequent names,
// and an absent name (hits = events returned, with their spans re-read and
// re-hashed).
func BenchmarkArchiveEntity(b *testing.B) {
	f := benchSetup(b)
	a := f.open(b, f.archive)
	names, err := a.EntityNames("")
	if err != nil {
		b.Fatal(err)
	}
	byCount := slices.Clone(names)
	sort.SliceStable(byCount, func(i, j int) bool { return byCount[i].Events > byCount[j].Events })
	for _, c := range []struct{ label, name string }{
		{"rare", benchRareEntity},
		{"median", byCount[len(byCount)/2].Name},
		{"p90", byCount[len(byCount)/10].Name},
		{"top", byCount[0].Name},
		{"absent", "Nobody Atall"},
	} {
		b.Run(c.label, func(b *testing.B) {
			var hits int
			for b.Loop() {
				h, err := a.Entity(c.name)
				if err != nil {
					b.Fatal(err)
				}
				hits = len(h)
			}
			b.ReportMetric(float64(hits), "hits")
		})
	}
	b.Run("names", func(b *testing.B) {
		for b.Loop() {
			if _, err := a.EntityNames("Ali"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
