package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
	"github.com/casper-chronicle/chronicle/engine"
)

// rssTarget is issue 13's memory target for every command on the CONTRACT 14
// corpus (engine.WriteSpec14Corpus).
const rssTarget = 16 << 10 // KiB

// spec14Claims is a claims file with one settlement and one find result.
const spec14Claims = `{"chronicle-claims":1,"namespace":"benchreal","runId":"spec14"}
{"result":1,"document":"doc.txt","query":"Ahmed Khalid"}
{"claim":2,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.settled","declaredValue":"40/1"}
{"result":3,"document":"doc.txt","find":"Ahmed Saud"}
{"claim":4,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":3,"declaredRule":"chronicle.find.lines","declaredValue":3}
`

// runSpec14 runs every command of both binaries on the CONTRACT 14 corpus, in
// an order where each finds what the earlier ones made, and prints its
// peak RSS against the 16 MiB target (and, for chronicle, the Go heap
// peak of CHRONICLE_MEMSTATS).
func runSpec14(chron, casper string) error {
	dir, err := filepath.Abs(filepath.Join(*workFlag, "run-spec14"))
	if err != nil {
		return err
	}
	os.RemoveAll(dir)
	for _, d := range []string{"bench", "export", "import"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(dir, "doc.txt"))
	if err != nil {
		return err
	}
	h := sha256.New()
	err = engine.WriteSpec14Corpus(io.MultiWriter(f, h))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != engine.Spec14SHA256 {
		return fmt.Errorf("SPEC 14 corpus hashes to %s, want %s", got, engine.Spec14SHA256)
	}
	if err := os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(spec14Claims), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "benchreal: spec14: every command on the 5,000,096-byte corpus\n")

	store := "doc.txt.chronicle"
	query := store + ".query-0808a7686e92b03b.receipt" // "Ahmed Khalid"
	a := "--db=" + filepath.Join(dir, "a.db")
	b := "--db=" + filepath.Join(dir, "import", "b.db")
	type step struct {
		bin   string
		where string // "" the run directory, or a subdirectory
		args  []string
	}
	steps := []step{
		{casper, "bench", []string{"--benchmark"}},
		{casper, "", []string{"ingest", "doc.txt"}},
		{casper, "", []string{"ingest", "doc.txt"}},
		{casper, "", []string{"query", store, "Ahmed Khalid"}},
		{casper, "", []string{"find", store, "Ahmed Saud"}},
		{casper, "", []string{"claim", store, "Ahmed", "PAID_TO", "Saud"}},
		{casper, "", []string{"verify", store + ".receipt"}},
		{casper, "", []string{"verify", query}},
		{chron, "", []string{a, "ingest", "doc.txt"}},
		{chron, "", []string{a, "ingest", "doc.txt"}},
		{chron, "", []string{a, "docs"}},
		{chron, "", []string{a, "stats"}},
		{chron, "", []string{a, "show", "doc.txt", "1-3"}},
		{chron, "", []string{a, "show", "doc.txt"}},
		{chron, "", []string{a, "show", "doc.txt", "--json"}},
		{chron, "", []string{a, "query", "doc.txt", "Ahmed Khalid", "--receipt", "q.receipt"}},
		{chron, "", []string{a, "query", "doc.txt", "Ahmed Khalid", "--keep"}},
		{chron, "", []string{a, "claim", "doc.txt", "Ahmed", "PAID_TO", "Saud", "--receipt", "c.receipt"}},
		{chron, "", []string{a, "find", "Ahmed Saud", "--receipt", "af.receipt"}},
		{chron, "", []string{a, "find", "--doc", "doc.txt", "Ahmed Saud", "--receipt", "f.receipt", "--keep"}},
		{chron, "", []string{a, "entity", "Ahmed", "--receipt", "e.receipt"}},
		{chron, "", []string{a, "entities"}},
		{chron, "", []string{a, "settle", "Ahmed Khalid", "--receipt", "s.receipt"}},
		{chron, "", []string{a, "verify", "q.receipt"}},
		{chron, "", []string{a, "verify", "c.receipt"}},
		{chron, "", []string{a, "verify", "f.receipt"}},
		{chron, "", []string{a, "verify", "af.receipt"}},
		{chron, "", []string{a, "verify", "e.receipt"}},
		{chron, "", []string{a, "verify", "s.receipt"}},
		{chron, "", []string{a, "verify", store + ".receipt"}},
		{chron, "", []string{a, "receipts"}},
		{chron, "", []string{a, "receipts", "--verify"}},
		{chron, "", []string{a, "claims", "check", "claims.jsonl", "--out", "rows.jsonl"}},
		{chron, "", []string{a, "claims", "verify", "rows.jsonl"}},
		{chron, "", []string{a, "claims", "list"}},
		{chron, "", []string{a, "claims", "read", "rows.jsonl"}},
		{chron, "", []string{a, "check"}},
		{chron, "", []string{a, "export", "doc.txt", "export"}},
		{chron, "", []string{a, "reindex"}},
		{chron, "", []string{a, "migrate"}},
		{chron, "", []string{b, "import", store}},
	}
	fmt.Printf("\n## SPEC 14 corpus: peak RSS of every command (target %d MiB)\n\n", rssTarget>>10)
	fmt.Println("| command | peak RSS MiB | Go heap peak MiB | target | |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	over, worst, worstCmd := 0, int64(0), ""
	start := time.Now()
	for _, st := range steps {
		label := filepath.Base(st.bin) + " " + strings.Join(withoutDB(st.args), " ")
		before := dir + ".before"
		if st.bin == chron {
			if err := snapshot(dir, before); err != nil {
				return err
			}
		}
		p, err := runRSS(filepath.Join(dir, st.where), st.bin, st.args...)
		if err != nil {
			return err
		}
		if p.code != 0 {
			return fmt.Errorf("spec14: %s: exit %d: %s", label, p.code, firstLine(p.out))
		}
		// The heap in a second run, on a copy of the directory as it was
		// before: the sampler itself adds about half a MiB of RSS, which
		// the measured run must not count, and a command run again on what
		// it left (an ingest then reuses) would do other work.
		heap := "–"
		if m, ok := heapOf(dir, before, st.where, st.bin == chron, st.bin, st.args); ok {
			heap = fmt.Sprintf("%.1f", mib(m.Heap))
		}
		mark := "ok"
		if p.maxRSS > rssTarget {
			mark, over = "**over**", over+1
		}
		if p.maxRSS > worst {
			worst, worstCmd = p.maxRSS, label
		}
		fmt.Printf("| `%s` | %.1f | %s | %d | %s |\n", shorten(label, 80), kib(p.maxRSS), heap, rssTarget>>10, mark)
	}
	fmt.Printf("\n%d of %d commands over %d MiB; the highest: %.1f MiB (`%s`); %s\n",
		over, len(steps), rssTarget>>10, kib(worst), worstCmd, time.Since(start).Round(time.Millisecond))
	os.RemoveAll(dir)
	os.RemoveAll(dir + ".before")
	return nil
}

// snapshot makes dst a copy of the tree src: archives (*.db, which bbolt
// changes in place) copied, every other file hard-linked (the commands
// only ever create files).
func snapshot(src, dst string) error {
	os.RemoveAll(dst)
	return filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		switch {
		case e.IsDir():
			return os.MkdirAll(to, 0o755)
		case strings.HasSuffix(path, ".db"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, 0o600)
		default:
			return os.Link(path, to)
		}
	})
}

// heapOf runs a chronicle command again under CHRONICLE_MEMSTATS in the
// snapshot taken before its measured run (its --db paths moved there) and
// returns the figures.
func heapOf(dir, before, where string, isChronicle bool, bin string, args []string) (benchtool.Memstats, bool) {
	if !isChronicle {
		return benchtool.Memstats{}, false
	}
	moved := make([]string, len(args))
	for i, a := range args {
		moved[i] = strings.Replace(a, "--db="+dir, "--db="+before, 1)
	}
	stats := filepath.Join(before, "memstats")
	if _, err := runProcEnv(filepath.Join(before, where), []string{"CHRONICLE_MEMSTATS=" + stats}, bin, moved...); err != nil {
		return benchtool.Memstats{}, false
	}
	m, err := benchtool.ReadMemstats(stats)
	return m, err == nil && m.OK
}

// withoutDB drops the --db= argument from a label.
func withoutDB(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--db=") {
			out = append(out, a)
		}
	}
	return out
}

// ingestMem is one batch ingest's memory, for the summary.
type ingestMem struct {
	corpus           string
	docs             int
	mb               float64
	largest, archive int64
	stats            benchtool.Memstats
	rssKiB           int64
	wall             time.Duration
}

var ingestMemory []ingestMem

// printIngestMemory prints the heap and RSS of every batch ingest side by
// side: the heap follows the largest document, RSS also grows with the
// archive file that bbolt maps.
func printIngestMemory() {
	if len(ingestMemory) == 0 {
		return
	}
	fmt.Println("\n## batch ingest memory (chronicle ingest DIR into a fresh archive)")
	fmt.Println()
	fmt.Println("| corpus | documents | MB | largest document MiB | Go heap peak MiB | Go runtime peak MiB | peak RSS MiB | archive MiB | time s |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, m := range ingestMemory {
		fmt.Printf("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f |\n", m.corpus, m.docs, m.mb, mib(uint64(m.largest)),
			mib(m.stats.Heap), mib(m.stats.GoHeld), kib(m.rssKiB), mib(uint64(m.archive)), m.wall.Seconds())
	}
}
