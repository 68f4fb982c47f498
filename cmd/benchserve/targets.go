package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/casper-chronicle/chronicle/cmd/internal/benchtool"
	"github.com/casper-chronicle/chronicle/repl"
)

// target is one request the benchmark times: a page, or an API endpoint
// with argv, the command line that `chronicle ARGV` runs for the same
// answer (timed in process, and compared byte for byte).
type target struct {
	name string
	path string
	argv []string // API only
}

// choice is what the targets are made of, read from the archive and its
// documents.
type choice struct {
	db                     string
	largest, smallest, mid string // document digests: by size, and the middle one by name
	queries                []benchtool.Query
	entities               []string // by events, most first
	queryReceipt           string   // a receipt of query (for /verify)
	settleReceipt          string   // a receipt of settle
}

// question is the settlement question the pages ask: between the two
// entities with the most events whose names are plain words (a name
// with quotes or marks, which the grammars also take, is no question a
// user types), else a question about names the archive may not know.
func (c *choice) question() string {
	var names []string
	for _, e := range c.entities {
		if plainName(e) {
			names = append(names, e)
		}
	}
	if len(names) < 2 {
		return "Did Alice repay Bob?"
	}
	return "Did " + names[0] + " repay " + names[1] + "?"
}

func plainName(s string) bool {
	return s != "" && strings.IndexFunc(s, unicode.IsLetter) >= 0 && strings.IndexFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' && r != '-' && r != '.'
	}) < 0
}

// term is the text of the query of a class ("" when there is none).
func (c *choice) term(class string) (string, bool) {
	for _, q := range c.queries {
		if q.Class == class {
			return q.Text(), true
		}
	}
	return "", false
}

func page(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// pages are the page requests: every page kind of chronicle serve, with
// the documents, terms and names picked from the archive.
func (c *choice) pages() []target {
	q := c.question()
	ts := []target{
		{name: "home", path: "/"},
		{name: "docs, first page", path: "/docs"},
		{name: "docs by name, after the middle document", path: page("/docs", url.Values{"sort": {"name"}, "after": {c.mid}})},
		{name: "docs by size, first page", path: "/docs?sort=size"},
		{name: "docs by events, after the middle document", path: page("/docs", url.Values{"sort": {"events"}, "after": {c.mid}})},
		{name: "docs, newest first", path: "/docs?sort=newest"},
		{name: "receipts, first page", path: "/receipts"},
		{name: "receipts of the largest document, verified", path: page("/receipts", url.Values{"doc": {c.largest}, "verify": {"1"}})},
		{name: "document, the largest, first page", path: "/doc/" + c.largest},
		{name: "document, the smallest", path: "/doc/" + c.smallest},
	}
	for _, class := range []string{"absent", "rare", "common", "3 terms"} {
		if t, ok := c.term(class); ok {
			ts = append(ts, target{name: "find, " + class, path: page("/find", url.Values{"terms": {t}})})
		}
	}
	ts = append(ts,
		target{name: "query, the smallest document", path: page("/query", url.Values{"doc": {c.smallest}, "question": {q}})},
		target{name: "settle, across the archive", path: page("/settle", url.Values{"question": {q}})},
	)
	if len(c.entities) > 0 {
		ts = append(ts, target{name: "entity, the most events", path: page("/entity", url.Values{"name": {c.entities[0]}})})
	}
	ts = append(ts,
		target{name: "claims", path: "/claims"},
		target{name: "verify, the form", path: "/verify"},
	)
	if c.queryReceipt != "" {
		ts = append(ts, target{name: "verify, a query receipt", path: page("/verify", url.Values{"receipt": {c.queryReceipt}})})
	}
	if c.settleReceipt != "" {
		ts = append(ts, target{name: "verify, a settle receipt", path: page("/verify", url.Values{"receipt": {c.settleReceipt}})})
	}
	return ts
}

// apis are the API requests, each with the CLI's command line for the
// same answer.
func (c *choice) apis() []target {
	ts := []target{
		{name: "stats", path: "/api/v1/stats", argv: []string{"stats", "--json", "--db", c.db}},
		{name: "docs, 50", path: "/api/v1/docs?limit=50", argv: []string{"docs", "--json", "--db", c.db, "--limit", "50"}},
	}
	for _, class := range []string{"rare", "common"} {
		if t, ok := c.term(class); ok {
			ts = append(ts, target{name: "find, " + class, path: page("/api/v1/find", url.Values{"terms": {t}}),
				argv: []string{"find", "--json", "--db", c.db, "--", t}})
		}
	}
	if len(c.entities) > 0 {
		e := c.entities[0]
		ts = append(ts, target{name: "entity, the most events", path: page("/api/v1/entity", url.Values{"name": {e}}),
			argv: []string{"entity", "--json", "--db", c.db, "--", e}})
	}
	return ts
}

// cli runs one command line in this process as the CLI runs it, and
// returns its stdout; a failure is an error with its stderr.
func cli(argv ...string) ([]byte, error) {
	var out, errOut bytes.Buffer
	if code := repl.ExecJSON(context.Background(), argv, &out, &errOut); code != 0 {
		return nil, fmt.Errorf("chronicle %s: exit %d: %.300s", strings.Join(argv, " "), code, strings.TrimSpace(errOut.String()))
	}
	return out.Bytes(), nil
}

// stats is the part of `stats --json` the report shows.
type stats struct {
	Documents   int   `json:"documents"`
	Events      int   `json:"events"`
	FileBytes   int64 `json:"file_bytes"`
	SourceBytes int64 `json:"source_bytes"`
}

// choose reads the archive (in process) and its documents for the
// targets.
func choose(a *archive) (*choice, stats, error) {
	var st stats
	c := &choice{db: a.db()}
	out, err := cli("stats", "--json", "--db", c.db)
	if err != nil {
		return nil, st, err
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return nil, st, fmt.Errorf("stats --json: %w", err)
	}
	if st.Documents == 0 {
		return nil, st, fmt.Errorf("%s holds no document", c.db)
	}
	bySize, err := cli("docs", "--json", "--db", c.db, "--sort", "size")
	if err != nil {
		return nil, st, err
	}
	byName, err := cli("docs", "--json", "--db", c.db, "--sort", "name")
	if err != nil {
		return nil, st, err
	}
	sizes, names := digests(bySize), digests(byName)
	if len(sizes) == 0 || len(names) == 0 {
		return nil, st, fmt.Errorf("docs --json listed no document")
	}
	c.largest, c.smallest, c.mid = sizes[0], sizes[len(sizes)-1], names[len(names)/2]
	if out, err = cli("entities", "--json", "--db", c.db); err != nil {
		return nil, st, err
	}
	c.entities = benchtool.TopEntities(out, 50)
	if c.queries, err = pickQueries(a.src()); err != nil {
		return nil, st, err
	}
	c.queryReceipt = receipt(cli("query", "--json", "--db", c.db, "--receipt", "-", "--", c.smallest, c.question()))
	c.settleReceipt = receipt(cli("settle", "--json", "--db", c.db, "--receipt", "-", "--", c.question()))
	return c, st, nil
}

// digests are the document digests of docs --json, in its order.
func digests(out []byte) []string {
	var ds []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var d struct {
			SHA256 string `json:"document_sha256"`
		}
		if dec.Decode(&d) != nil {
			return ds
		}
		ds = append(ds, d.SHA256)
	}
}

// receipt is the receipt of an answer printed with --receipt -; "" when
// the command failed (the verify page of it is then left out).
func receipt(out []byte, err error) string {
	var j struct {
		Receipt string `json:"receipt"`
	}
	if err != nil || json.Unmarshal(out, &j) != nil {
		return ""
	}
	return j.Receipt
}

// pickQueries picks the find terms from the documents' own document
// frequencies, as benchscale does.
func pickQueries(src string) ([]benchtool.Query, error) {
	files, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("the archive's documents: %w", err)
	}
	df := benchtool.NewDocFreq()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			return nil, fmt.Errorf("read a document: %w", err)
		}
		df.Add(b)
	}
	return benchtool.PickTerms(df), nil
}
