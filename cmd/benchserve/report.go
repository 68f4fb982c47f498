package main

import (
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
)

// startLoad is the load average when the run started: the machine may be
// shared, and the figures are wall times.
var startLoad = benchtool.LoadAvg()

func loadNow() string { return benchtool.LoadAvg() }

// printHeader prints the machine, the date and the binary measured.
func printHeader(w io.Writer, chron string) {
	v, _ := exec.Command(chron, "version").Output()
	version := strings.Join(strings.Fields(strings.ReplaceAll(string(v), "\n", "; ")), " ")
	fmt.Fprintf(w, "# chronicle serve: pages and API (make bench-serve)\n\n")
	fmt.Fprintf(w, "- machine: %d cores, %s, %s/%s; %s; load average %s at the start\n",
		benchtool.Cores(), benchtool.CPUModel(), runtime.GOOS, runtime.GOARCH, benchtool.GoVersion(), startLoad)
	fmt.Fprintf(w, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "- binary: %s\n", strings.TrimSuffix(version, ";"))
	fmt.Fprintf(w, "- method: `chronicle --db ARCHIVE serve --json` (the real binary); Go's net/http client on one kept-alive connection, "+
		"Authorization: Bearer; each request once to warm up, then %d times in a row. Server time is the response's "+
		"Server-Timing (the handler's start to its first write: the whole answer, which the server builds before sending); "+
		"client time runs from sending the request to the body's last byte. Percentiles are nearest-rank. "+
		"The API's figure is its client time; the CLI's is `repl.ExecJSON` with the same command line in the benchmark's "+
		"own process (opening the archive, running, closing), median of as many runs after a warm-up.\n", *runsFlag)
}

// printArchive prints one archive's two tables.
func printArchive(w io.Writer, r *result) {
	fmt.Fprintf(w, "\n## %s\n\n", r.a.label)
	fmt.Fprintf(w, "%d documents (%.1f MB of text), %d events; archive %.1f MB (%s); load average %s before it\n\n",
		r.st.Documents, float64(r.st.SourceBytes)/1e6, r.st.Events, float64(r.size)/1e6, r.a.db(), r.loadAvg)
	fmt.Fprintf(w, "| page | request | p50 server | p95 server | p95 client | p95 ≤ %s |\n", ms(pageTarget))
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | --- |")
	for _, p := range r.pages {
		if p.err != nil {
			fmt.Fprintf(w, "| %s | `%s` | | | | **FAILED: %s** |\n", p.t.name, shortPath(p.t.path), cell(p.err.Error()))
			continue
		}
		p95 := percentile(servers(p.times), 95)
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s |\n", p.t.name, shortPath(p.t.path),
			ms(percentile(servers(p.times), 50)), ms(p95), ms(percentile(clients(p.times), 95)), mark(p95 <= pageTarget))
	}
	fmt.Fprintf(w, "\n| API | request | body | API median (client) | CLI in process, median | difference | ≤ %s | API median (server) | same bytes |\n", ms(apiTarget))
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- |")
	for _, a := range r.apis {
		if a.err != nil {
			fmt.Fprintf(w, "| %s | `%s` | | | | | **FAILED: %s** | | |\n", a.t.name, shortPath(a.t.path), cell(a.err.Error()))
			continue
		}
		api, in := percentile(clients(a.api), 50), percentile(a.inproc, 50)
		same := "yes"
		if a.differ != "" {
			same = "**NO: " + cell(a.differ) + "**"
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s |\n", a.t.name, shortPath(a.t.path), size(a.body), ms(api), ms(in),
			signed(api-in), mark(api-in <= apiTarget), ms(percentile(servers(a.api), 50)), same)
	}
	fmt.Fprintf(w, "\n%s\n", picks(r.c))
}

// picks says which terms, names and question the pages used.
func picks(c *choice) string {
	var terms []string
	for _, q := range c.queries {
		if q.Class == "16 letters" || q.Class == "medium" {
			continue
		}
		held := fmt.Sprintf("in %d documents", q.DF)
		if q.Class == "absent" {
			held = "in none"
		}
		terms = append(terms, fmt.Sprintf("%s `%s` (%s)", q.Class, q.Text(), held))
	}
	entity := "none"
	if len(c.entities) > 0 {
		entity = "`" + c.entities[0] + "`"
	}
	return fmt.Sprintf("Terms: %s. Entity: %s; question: `%s`.", strings.Join(terms, "; "), entity, c.question())
}

// digest matches a document's SHA-256, shortened in the tables.
var digest = regexp.MustCompile(`[0-9a-f]{64}`)

// shortPath is a request as the table shows it: digests cut to 12 digits,
// long parameters (a receipt) cut.
func shortPath(p string) string {
	p = digest.ReplaceAllStringFunc(p, func(d string) string { return d[:12] + "…" })
	if len(p) > 70 {
		p = p[:67] + "…"
	}
	return strings.ReplaceAll(p, "|", "%7C")
}

// cell makes text safe in a markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	if v < 10 {
		return fmt.Sprintf("%.2f ms", v)
	}
	return fmt.Sprintf("%.1f ms", v)
}

// size is a body's size, in bytes, KB or MB.
func size(n int) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

func signed(d time.Duration) string {
	if d >= 0 {
		return "+" + ms(d)
	}
	return "−" + ms(-d)
}

func mark(ok bool) string {
	if ok {
		return "yes"
	}
	return "**NO**"
}
