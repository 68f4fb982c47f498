package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
)

// printReport prints the run as markdown: the machine, what each corpus is
// made of, one table with a chronicle / FTS5 / rg column triple per size,
// the terms each size used, and every count that disagrees.
func printReport(w io.Writer, t tools, m *manifest, rs []*result) {
	fmt.Fprintf(w, "\n### make bench-scale, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	sqliteV := strings.Fields(version(t.sqlite, "--version"))
	fmt.Fprintf(w, "Machine: %d cores (nproc), %s, %s/%s; load average %s at the start, %s at the end. %s (binary SHA-256 %.12s); SQLite %s; %s.\n\n",
		benchtool.Cores(), benchtool.CPUModel(), runtime.GOOS, runtime.GOARCH, startLoad, benchtool.LoadAvg(), version(t.chron, "version"), t.chronSum,
		strings.Join(sqliteV[:min(2, len(sqliteV))], " "), version(t.rg, "--version"))
	if t.chronChanged {
		fmt.Fprintf(w, "**%s was replaced during this run: its figures mix two binaries; run again.**\n\n", t.chron)
	}
	fmt.Fprintf(w, "Corpus: real text of this machine, no Go: %s. Cut at line boundaries into pieces of log-normal target size (median target %s, sigma %.1f, at most %s), identical pieces dropped (%d), blank ones (%d)",
		strings.Join(m.Sources, "; "), kb(int64(m.Median)), pieceSigma, kb(maxPiece), m.Dupes, m.Blank)
	if n := sumMap(m.Rejected); n > 0 {
		fmt.Fprintf(w, ", and %d that chronicle would reject (%s)", n, mapList(m.Rejected))
	}
	fmt.Fprintf(w, ". Files read: %s; the pool holds %s documents, and a size takes evenly spaced ones, so each source keeps its share.\n",
		unitList(m), thousands(len(m.Files)))
	if m.short {
		fmt.Fprintf(w, "\n**The machine's text was short of %d documents even at a median target of %s: the largest size has only %d.**\n",
			m.target, kb(minMedian), len(m.Files))
	}
	fmt.Fprintln(w)
	for _, r := range rs {
		fmt.Fprintf(w, "- %s documents: %.1f MB, median %s, p90 %s, largest %s; %s\n", thousands(r.docs), float64(r.sizes.total)/1e6,
			kb(r.sizes.median), kb(r.sizes.p90), kb(r.sizes.max), sourceList(r.perSource))
	}
	fmt.Fprintln(w)

	// The table: one row per measure.
	hdr := []string{"measure"}
	for _, r := range rs {
		n := thousands(r.docs)
		hdr = append(hdr, "chronicle "+n, "FTS5 "+n, "rg "+n)
	}
	rows := [][]string{hdr, slices.Repeat([]string{"---"}, len(hdr))}
	add := func(label string, cell func(r *result) [3]string) {
		row := []string{label}
		for _, r := range rs {
			c := cell(r)
			row = append(row, c[:]...)
		}
		rows = append(rows, row)
	}
	add("ingest / load, whole process", func(r *result) [3]string {
		c := secs(r.ingest.wall)
		if r.ingest.note != "" {
			c += " (" + r.ingest.note + ")"
		}
		return [3]string{c, secs(r.ftsLoad.wall), "– (no index)"}
	})
	add("ingest / load rate", func(r *result) [3]string {
		mb := float64(r.sizes.total) / 1e6
		rate := func(d time.Duration) string {
			return fmt.Sprintf("%.2f MB/s, %s docs/s", mb/d.Seconds(), thousands(int(float64(r.docs)/d.Seconds()+0.5)))
		}
		return [3]string{rate(r.ingest.wall), rate(r.ftsLoad.wall), "–"}
	})
	add("ingest / load peak RSS", func(r *result) [3]string {
		return [3]string{mibs(r.ingest.rssKiB), mibs(r.ftsLoad.rssKiB), "–"}
	})
	add("archive size (× sources)", func(r *result) [3]string {
		ratio := func(b int64) string {
			return fmt.Sprintf("%.1f MB (%.2f×)", float64(b)/1e6, float64(b)/float64(r.sizes.total))
		}
		return [3]string{ratio(r.archive), ratio(r.ftsDB), fmt.Sprintf("%.1f MB of files", float64(r.sizes.total)/1e6)}
	})
	classes := []string{}
	for _, r := range rs {
		for _, row := range r.rows {
			if !slices.Contains(classes, row.q.Class) {
				classes = append(classes, row.q.Class)
			}
		}
	}
	for _, class := range classes {
		add("find: "+class, func(r *result) [3]string {
			i := slices.IndexFunc(r.rows, func(f findRow) bool { return f.q.Class == class })
			if i < 0 {
				return [3]string{"–", "–", "–"}
			}
			f := r.rows[i]
			flag := ""
			if len(f.disagree) > 0 {
				flag = " **DISAGREE**"
			}
			fts := fmt.Sprintf("%s · %s docs", msec(f.fts.wall), thousands(f.ftsDocs))
			if f.ftsScan {
				fts += " (instr scan†)"
			}
			return [3]string{
				fmt.Sprintf("%s / %s · %s docs, %s lines%s", msec(f.chron20.wall), msec(f.chronAll.wall), thousands(f.chronDocs), thousands(f.chronLines), flag),
				fts,
				fmt.Sprintf("%s · %s files, %s lines", msec(f.rg.wall), thousands(f.rgFiles), thousands(f.rgLines)),
			}
		})
	}
	add("find peak RSS (largest query)", func(r *result) [3]string {
		peak := func(get func(f findRow) int64) string {
			var k int64
			class := ""
			for _, f := range r.rows {
				if v := get(f); v > k {
					k, class = v, f.q.Class
				}
			}
			if k == 0 {
				return "n/a"
			}
			return mibs(k) + " (" + class + ")"
		}
		return [3]string{
			peak(func(f findRow) int64 { return f.chron20.rssKiB }) + " / " + peak(func(f findRow) int64 { return f.chronAll.rssKiB }),
			peak(func(f findRow) int64 { return f.fts.rssKiB }),
			peak(func(f findRow) int64 { return f.rg.rssKiB }),
		}
	})
	add("find Go heap / Go runtime peak (largest query, --limit 20)", func(r *result) [3]string {
		var heap, held uint64
		class := ""
		for _, f := range r.rows {
			if f.chronHeap.Heap > heap {
				heap, class = f.chronHeap.Heap, f.q.Class
			}
			held = max(held, f.chronHeap.GoHeld)
		}
		if heap == 0 {
			return [3]string{"n/a", "–", "–"}
		}
		return [3]string{fmt.Sprintf("%.1f MiB (%s) / %.1f MiB; the rest of RSS is the mapped archive", float64(heap)/(1<<20), class, float64(held)/(1<<20)), "–", "–"}
	})
	add("entity NAME", func(r *result) [3]string {
		c := fmt.Sprintf("%s · %s events", msec(r.entity.wall), thousands(r.entityN))
		if r.entityName == "" {
			c = msec(r.entity.wall) + " (no entities in the corpus: absent name)"
		}
		return [3]string{c + note(r.entity), "–", "–"}
	})
	add("docs", func(r *result) [3]string {
		what := "every document"
		if t.docsLimit {
			what = "first page, --limit 50"
		}
		return [3]string{fmt.Sprintf("%s (%s, %s lines)%s", msec(r.docsCmd.wall), what, thousands(r.docsN), note(r.docsCmd)), "–", "–"}
	})
	add("stats", func(r *result) [3]string { return [3]string{msec(r.stats.wall) + note(r.stats), "–", "–"} })
	for _, row := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}

	fmt.Fprintf(w, "\nTimes are whole processes, warm cache, median of %d runs. chronicle find: `find TERMS --json --limit 20` / the same listing every matching document (`--limit 1000000000`, which gives the counts: find prints no total). FTS5: `sqlite3 -readonly fts.db` running `SELECT count(*) FROM docs WHERE docs MATCH '\"t1\" OR \"t2\"'` on a table built with `tokenize='trigram case_sensitive 1'`. rg: `rg --no-config -F -s -c -e t1 -e t2 src`. All three match bytes, case-sensitively, a line or document holding any term. Peak RSS is the warm-up run's (chronicle find: --limit 20 / every document).", *runsFlag)
	if slices.ContainsFunc(rs, func(r *result) bool { return slices.ContainsFunc(r.rows, func(f findRow) bool { return f.ftsScan }) }) {
		fmt.Fprint(w, " † The trigram index cannot answer terms under 3 characters (MATCH finds nothing), so FTS5 counts those with `instr(body, 't') > 0 OR …`, a scan of every document.")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	for _, r := range rs {
		printBytes(w, r)
	}
	for _, r := range rs {
		var ts []string
		for _, f := range r.rows {
			held := "in %s docs as a word"
			if len(f.q.Terms) > 1 {
				held = "first term in %s docs as a word"
				if f.q.Class == "16 letters" {
					held = "first letter in %s docs"
				}
			}
			ts = append(ts, fmt.Sprintf("%s `%s` ("+held+")", f.q.Class, shorten(f.q.Text(), 80), thousands(f.q.DF)))
		}
		name := "none"
		if r.entityName != "" {
			name = "`" + r.entityName + "`"
		}
		fmt.Fprintf(w, "Terms at %s documents: %s; entity %s.\n\n", thousands(r.docs), strings.Join(ts, "; "), name)
	}
	bad := 0
	for _, r := range rs {
		if r.ftsCount != r.docs {
			fmt.Fprintf(w, "**FTS5 holds %d documents of %d.**\n", r.ftsCount, r.docs)
			bad++
		}
		if r.ingestNew != r.docs {
			fmt.Fprintf(w, "**chronicle stored %d documents of %d; first rejections: %s**\n", r.ingestNew, r.docs, strings.Join(r.rejected[:min(3, len(r.rejected))], "; "))
			bad++
		}
		for _, f := range r.rows {
			for _, d := range f.disagree {
				fmt.Fprintf(w, "**COUNTS DISAGREE** at %s documents, %s `%s`: %s\n", thousands(r.docs), f.q.Class, shorten(f.q.Text(), 80), d)
				bad++
			}
		}
	}
	if bad == 0 {
		fmt.Fprintln(w, "Every count agrees: chronicle's matching documents = FTS5's documents = rg's files, and chronicle's matching lines = rg's lines, for every query at every size.")
	}
}

func note(m measure) string {
	if m.note != "" {
		return " (" + m.note + ")"
	}
	return ""
}

func sumMap(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func mapList(m map[string]int) string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s: %d", k, v))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// unitList is "man 21,067 files (103 MB), ..." in the order of sources().
func unitList(m *manifest) string {
	var out []string
	for _, s := range sources() {
		if n := m.Units[s.name]; n > 0 {
			u := s.name + " " + thousands(n) + " files"
			if mb, ok := m.UnitMB[s.name]; ok {
				u += fmt.Sprintf(" (%d MB)", mb)
			}
			out = append(out, u)
		}
	}
	return strings.Join(out, ", ")
}

// sourceList is "man 4,012, doc 3,100, ..." in the order of sources().
func sourceList(per map[string]int) string {
	var out []string
	for _, s := range sources() {
		if n := per[s.name]; n > 0 {
			out = append(out, s.name+" "+thousands(n))
		}
	}
	return strings.Join(out, ", ")
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func msec(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d)/1e6)
}

func mibs(k int64) string {
	if k <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(k)/1024)
}

func kb(b int64) string {
	if b >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(b)/1024)
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// version is the first line a tool prints for its version flag.
func version(bin, flag string) string {
	p, err := runProc("", bin, flag)
	if err != nil || p.code != 0 {
		return bin + " (version unknown)"
	}
	return p.firstLine()
}

// startLoad is the load average when the run started.
var startLoad = benchtool.LoadAvg()
