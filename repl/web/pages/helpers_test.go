package pages_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/internal/testarchive"
	"github.com/casper-chronicle/chronicle/repl/web/pages"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// hostile is a document that tries to escape its page: markup, an
// attribute break-out, bidi overrides and isolates, controls, and a
// 100,000-character line.
var hostile = "<script>alert(1)</script>\n" +
	"\"><img src=x onerror=alert(1)>\n" +
	"evil \u202Egnp.exe\u202C and \u2066isolated\u2069 \u200F mark\n" +
	"bell \x07 and escape \x1b[31m red\n" +
	strings.Repeat("x", 100000) + "\n" +
	"@chronicle\tAlice\tPAID_TO\t<b>Bob</b>\t5\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"

// bigLines is the number of lines of the large document.
const bigLines = 1234

// bigDoc is a document of bigLines numbered lines.
func bigDoc() string {
	var b strings.Builder
	for i := 1; i <= bigLines; i++ {
		fmt.Fprintf(&b, "line %d of the large document\n", i)
	}
	return b.String()
}

// fixture is an archive of testdata/samples, testdata/stories, the
// hostile document and the large one, and a server of the pages on it.
type fixture struct {
	path string
	srv  *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chronicle.db")
	testarchive.Build(t, path, "testdata/samples", "testdata/stories")
	a, err := db.Open(path, db.Options{})
	require.NoError(t, err)
	_, err = a.Ingest([]byte(hostile), testarchive.GoldenTime, "hostile.txt")
	require.NoError(t, err)
	_, err = a.Ingest([]byte(bigDoc()), testarchive.GoldenTime, "big.txt")
	require.NoError(t, err)
	require.NoError(t, a.Close())
	return serve(t, path)
}

// serve serves the pages on the archive at path.
func serve(t *testing.T, path string) *fixture {
	t.Helper()
	f := &fixture{path: path}
	f.srv = httptest.NewServer(pages.New(pages.Options{Archive: f.archive}))
	t.Cleanup(f.srv.Close)
	return f
}

// newWritableFixture is newFixture on a server that writes (--write):
// the pages get Write, and the CSRF token "token" (the server, not the
// pages, checks it on a POST).
func newWritableFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.srv.Close()
	f.srv = httptest.NewServer(pages.New(pages.Options{Archive: f.archive, Write: f.write,
		CSRF: func(*http.Request) string { return "token" }}))
	t.Cleanup(f.srv.Close)
	return f
}

// write opens the archive for writing for one request, as the server
// does.
func (f *fixture) write(_ string, fn func(a *db.Archive) error) error {
	return db.GuardOpen(f.path, db.Options{MustExist: true}, fn)
}

// archive opens the archive read-only for one request, as the server
// does.
func (f *fixture) archive(_ string, fn func(a *db.Archive) error) error {
	return db.Guard(f.path, func() error {
		a, err := db.Open(f.path, db.Options{ReadOnly: true, MustExist: true})
		if err != nil {
			return err
		}
		defer a.Close()
		return fn(a)
	})
}

// source is a document's bytes, read from the archive.
func (f *fixture) source(t *testing.T, doc string) []byte {
	t.Helper()
	var src []byte
	require.NoError(t, f.archive("test", func(a *db.Archive) error {
		d, err := a.Resolve(doc)
		if err == nil {
			var s *engine.Store
			if s, err = a.Load(d); err == nil {
				src = s.Source
			}
		}
		return err
	}))
	return src
}

// sha is a document's SHA-256 hex.
func (f *fixture) sha(t *testing.T, doc string) string {
	t.Helper()
	var sha string
	require.NoError(t, f.archive("test", func(a *db.Archive) error {
		d, err := a.Resolve(doc)
		if err == nil {
			sha = d.SHA256.String()
		}
		return err
	}))
	return sha
}

// get fetches a page: its status and body.
func (f *fixture) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(f.srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// page fetches a page that must answer 200 and parses it.
func (f *fixture) page(t *testing.T, path string) (*html.Node, string) {
	t.Helper()
	status, body := f.get(t, path)
	require.Equal(t, http.StatusOK, status, "GET %s: %s", path, body)
	doc, err := html.Parse(strings.NewReader(body))
	require.NoError(t, err)
	return doc, body
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// all is every element of the tree for which match holds, in document
// order.
func all(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

func withID(id string) func(*html.Node) bool {
	return func(n *html.Node) bool { v, ok := attr(n, "id"); return ok && v == id }
}

// textOf is the text content of a node.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// docOf is the data-document-sha256 of n or its nearest ancestor.
func docOf(n *html.Node) string {
	for ; n != nil; n = n.Parent {
		if v, ok := attr(n, "data-document-sha256"); ok {
			return v
		}
	}
	return ""
}

// byteRange is an element's data-byte-start and data-byte-end.
func byteRange(t *testing.T, n *html.Node) (int, int) {
	t.Helper()
	s, ok1 := attr(n, "data-byte-start")
	e, ok2 := attr(n, "data-byte-end")
	require.True(t, ok1 && ok2, "<%s> without its byte range", n.Data)
	start, err := strconv.Atoi(s)
	require.NoError(t, err)
	end, err := strconv.Atoi(e)
	require.NoError(t, err)
	require.LessOrEqual(t, start, end)
	return start, end
}

// checkMarks requires at least min <mark> elements on the page and each
// one's text to be its document's bytes in its range; it returns the
// marks.
func (f *fixture) checkMarks(t *testing.T, root *html.Node, least int) []*html.Node {
	t.Helper()
	marks := all(root, tag("mark"))
	require.GreaterOrEqual(t, len(marks), least, "marks on the page")
	sources := map[string][]byte{}
	for _, m := range marks {
		sha := docOf(m)
		require.Len(t, sha, 64, "a mark without its document")
		src, ok := sources[sha]
		if !ok {
			src = f.source(t, sha)
			sources[sha] = src
		}
		start, end := byteRange(t, m)
		require.LessOrEqual(t, end, len(src))
		require.Equal(t, string(src[start:end]), textOf(m), "mark [%d,%d) of %s", start, end, sha[:12])
	}
	return marks
}

// findOrder is the names of the documents commands.Find lists for terms,
// in its order.
func (f *fixture) findOrder(t *testing.T, terms string) []string {
	t.Helper()
	var names []string
	require.NoError(t, f.archive("test", func(a *db.Archive) error {
		res, err := commands.Find(a, commands.FindIn{Terms: terms, Limit: db.MaxLimit}, false)
		if err != nil {
			return err
		}
		for _, h := range res.Hits {
			names = append(names, h.Doc.Label())
		}
		return nil
	}))
	return names
}
