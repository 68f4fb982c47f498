package pages_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/internal/pagedamage"
	"github.com/casper-chronicle/chronicle/internal/testarchive"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

const (
	alice = "testdata/samples/alice-bob-en.txt"
	loan  = "testdata/stories/1-loan-agreement-en.txt"
	bank  = "testdata/stories/2-bank-statement-en.txt"
	ahmed = "testdata/samples/ahmed-khalid-ar.txt"
)

func TestHome(t *testing.T) {
	f := newFixture(t)
	root, body := f.page(t, "/")
	require.Equal(t, "6", textOf(all(root, withID("total-documents"))[0]))
	for _, name := range []string{alice, loan, bank, ahmed, "hostile.txt", "big.txt"} {
		require.Contains(t, body, name)
	}
	require.Contains(t, body, `action="/find"`)
	require.Contains(t, body, `action="/settle"`)
	require.Contains(t, body, `href="/doc/`+f.sha(t, alice)+`"`)
}

func TestDocs(t *testing.T) {
	f := newFixture(t)
	root, _ := f.page(t, "/docs?sort=size&limit=2")
	links := all(root, func(n *html.Node) bool {
		href, _ := attr(n, "href")
		return n.Data == "a" && strings.HasPrefix(href, "/doc/")
	})
	require.Len(t, links, 2)
	require.Equal(t, "hostile.txt", textOf(links[0]), "largest first")
	require.Equal(t, "big.txt", textOf(links[1]))
	next := all(root, func(n *html.Node) bool { v, _ := attr(n, "rel"); return v == "next" })
	require.Len(t, next, 1)
	href, _ := attr(next[0], "href")
	root, _ = f.page(t, href)
	require.Contains(t, textOf(root), ahmed, "the next page goes on after the last one shown")
	require.NotContains(t, textOf(root), "hostile.txt")

	root, _ = f.page(t, "/docs?sort=name")
	var names []string
	for _, a := range all(root, func(n *html.Node) bool { h, _ := attr(n, "href"); return strings.HasPrefix(h, "/doc/") }) {
		names = append(names, textOf(a))
	}
	require.Equal(t, []string{"big.txt", "hostile.txt", ahmed, alice, loan, bank}, names)

	// newest: import order reversed; events: most first, ties in import
	// order (the fixture's counts differ: 0 for most, more for the stories).
	imported, importEvents := docRows(t, f, "/docs")
	require.Len(t, imported, 6)
	newest, _ := docRows(t, f, "/docs?sort=newest")
	want := slices.Clone(imported)
	slices.Reverse(want)
	require.Equal(t, want, newest)
	byEvents, events := docRows(t, f, "/docs?sort=events")
	order := make([]int, len(imported))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return importEvents[y] - importEvents[x] })
	want = want[:0]
	for _, i := range order {
		want = append(want, imported[i])
	}
	require.Equal(t, want, byEvents)
	require.NotEqual(t, imported, byEvents, "the fixture's event counts are not in import order")
	require.True(t, slices.IsSortedFunc(events, func(x, y int) int { return y - x }), "%v", events)
}

// docRows reads the names and event counts of a /docs page's rows.
func docRows(t *testing.T, f *fixture, path string) (names []string, events []int) {
	t.Helper()
	root, _ := f.page(t, path)
	for _, row := range all(root, func(n *html.Node) bool { return n.Data == "tr" }) {
		cells := all(row, func(n *html.Node) bool { return n.Data == "td" })
		if len(cells) != 5 {
			continue
		}
		names = append(names, textOf(cells[0]))
		n, err := strconv.Atoi(textOf(cells[3]))
		require.NoError(t, err)
		events = append(events, n)
	}
	return names, events
}

func TestDocument(t *testing.T) {
	f := newFixture(t)
	sha := f.sha(t, alice)
	src := f.source(t, alice)
	root, body := f.page(t, "/doc/"+sha)
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	offset := 0
	for i, text := range lines {
		el := all(root, withID(fmt.Sprintf("L%d", i+1)))
		require.Len(t, el, 1, "line %d", i+1)
		spans := all(el[0], func(n *html.Node) bool { _, ok := attr(n, "data-byte-start"); return ok })
		require.Len(t, spans, 1)
		start, end := byteRange(t, spans[0])
		require.Equal(t, [2]int{offset, offset + len(text)}, [2]int{start, end}, "line %d", i+1)
		require.Equal(t, text, textOf(spans[0]))
		dir, _ := attr(spans[0], "dir")
		require.Equal(t, "auto", dir)
		require.Equal(t, sha, docOf(spans[0]))
		offset += len(text) + 1
	}
	require.Empty(t, all(root, withID(fmt.Sprintf("L%d", len(lines)+1))))
	// The events, each linked to its line; the names, size and import.
	for _, l := range []int{2, 4, 5, 6} {
		require.Contains(t, body, fmt.Sprintf(`href="/doc/%s?hl=`, sha))
		require.Contains(t, body, fmt.Sprintf(`#L%d">%d</a>`, l, l))
	}
	require.Contains(t, body, "PAID_TO")
	require.Contains(t, body, "383 bytes")
	require.Contains(t, body, "2025-06-15T15:06:40Z")
	require.Contains(t, body, "/static/lines.js")
}

// TestDocumentOrigin: a text derived from an attachment names, nearest
// first, the attachment and the mail it came in, each by its tool; a text
// file names none.
func TestDocumentOrigin(t *testing.T) {
	f := serve(t, testarchive.Derived(t))
	root, _ := f.page(t, "/doc/"+f.sha(t, "mail.eml/receipt.pdf"))
	lists := all(root, func(n *html.Node) bool { c, _ := attr(n, "class"); return n.Data == "ol" && c == "origins" })
	require.Len(t, lists, 1)
	var steps []string
	for _, li := range all(lists[0], tag("li")) {
		steps = append(steps, textOf(li))
	}
	require.Len(t, steps, 2)
	require.Regexp(t, `^pdf [0-9a-f]{64}, by pdftotext 24.02.0$`, steps[0])
	require.Regexp(t, `^email [0-9a-f]{64}, part receipt.pdf, by chronicle-mail 1$`, steps[1])

	plain := newFixture(t)
	_, body := plain.page(t, "/doc/"+plain.sha(t, alice))
	require.NotContains(t, body, "Derived from")
}

func TestDocumentPaging(t *testing.T) {
	f := newFixture(t)
	sha := f.sha(t, "big.txt")
	src := f.source(t, "big.txt")
	root, _ := f.page(t, "/doc/"+sha)
	items := all(root, func(n *html.Node) bool { return n.Data == "li" && strings.Contains(classOf(n), "srcline") })
	require.Len(t, items, 500, "one page is 500 lines")
	require.Len(t, all(root, withID("L500")), 1)
	require.Empty(t, all(root, withID("L501")))

	next := all(root, func(n *html.Node) bool { v, _ := attr(n, "rel"); return v == "next" })
	require.NotEmpty(t, next)
	href, _ := attr(next[0], "href")
	require.Equal(t, "/doc/"+sha+"?from=501", href)
	root, _ = f.page(t, href)
	require.Len(t, all(root, withID("L501")), 1)
	require.Len(t, all(root, withID("L1000")), 1)
	require.Empty(t, all(root, withID("L500")))

	// The last page: 1001..1234, no next page.
	root, _ = f.page(t, "/doc/"+sha+"?from=1001")
	last := all(root, withID(fmt.Sprintf("L%d", bigLines)))
	require.Len(t, last, 1)
	require.Equal(t, fmt.Sprintf("line %d of the large document", bigLines), textOf(last[0].LastChild))
	require.Empty(t, all(root, func(n *html.Node) bool { v, _ := attr(n, "rel"); return v == "next" }))

	// A range asking for more than a page gets one page.
	root, _ = f.page(t, "/doc/"+sha+"?from=10&to=100000")
	require.Len(t, all(root, withID("L509")), 1)
	require.Empty(t, all(root, withID("L510")))

	// Highlights given by a link are marked with their bytes.
	start := strings.Index(string(src), "line 700 of")
	root, _ = f.page(t, fmt.Sprintf("/doc/%s?from=501&hl=%d-%d", sha, start, start+8))
	marks := f.checkMarks(t, root, 1)
	require.Equal(t, "line 700", textOf(marks[0]))
}

// requireIsolated requires every control or bidi character of the
// page's text (but in the title and form fields) to be inside an element
// of class ctl.
func requireIsolated(t *testing.T, root *html.Node, path string) {
	t.Helper()
	var walk func(n *html.Node, isolated bool)
	walk = func(n *html.Node, isolated bool) {
		if n.Type == html.ElementNode && (n.Data == "title" || n.Data == "textarea") {
			return
		}
		if n.Type == html.TextNode && !isolated {
			for _, r := range n.Data {
				require.False(t, (r < 0x20 && r != '\t' && r != '\n') || r == 0x202E || r == 0x2066 || r == 0x200F,
					"%s: %U outside an isolating element in %q", path, r, n.Data)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, isolated || classOf(n) == "ctl")
		}
	}
	walk(root, false)
}

func classOf(n *html.Node) string { v, _ := attr(n, "class"); return v }

func TestHostileDocument(t *testing.T) {
	f := newFixture(t)
	sha := f.sha(t, "hostile.txt")
	src := f.source(t, "hostile.txt")
	for _, path := range []string{"/doc/" + sha, "/find?terms=" + url.QueryEscape("alert script img \u202Egnp isolated bell"),
		"/entity?name=Alice", "/query?doc=hostile.txt&question=" + url.QueryEscape("Did Alice repay <b>Bob</b>\u202E?")} {
		root, body := f.page(t, path)
		require.NotContains(t, body, "<script>alert", path)
		require.NotContains(t, body, "<img", path)
		require.NotContains(t, body, "<b>Bob", path)
		requireIsolated(t, root, path)
		scripts := all(root, tag("script"))
		require.Len(t, scripts, 1, path)
		srcAttr, _ := attr(scripts[0], "src")
		require.Equal(t, "/static/lines.js", srcAttr)
		require.Empty(t, all(root, tag("img")), path)
		require.Empty(t, all(root, tag("b")), path)
		for _, n := range all(root, func(*html.Node) bool { return true }) {
			for _, a := range n.Attr {
				require.False(t, strings.HasPrefix(a.Key, "on"), "%s: event handler attribute %s", path, a.Key)
				require.NotEqual(t, "style", a.Key, "%s: inline style", path)
			}
		}
	}
	// The find marks hold the override itself, as the document's bytes.
	root, _ := f.page(t, "/find?terms="+url.QueryEscape("alert \u202Egnp \x07"))
	var texts []string
	for _, m := range f.checkMarks(t, root, 3) {
		texts = append(texts, textOf(m))
	}
	require.Equal(t, []string{"alert", "alert", "\u202Egnp", "\x07"}, texts)

	root, _ = f.page(t, "/doc/"+sha)
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	for i, want := range lines {
		el := all(root, withID(fmt.Sprintf("L%d", i+1)))
		require.Len(t, el, 1)
		require.Equal(t, want, textOf(el[0].LastChild), "line %d is its text, escaped", i+1)
	}
	// Every bidi control and control character is in an isolated
	// element that shows its code point.
	ctl := all(root, func(n *html.Node) bool { return classOf(n) == "ctl" })
	var cps []string
	for _, n := range ctl {
		cp, _ := attr(n, "data-cp")
		cps = append(cps, cp)
	}
	require.Equal(t, []string{"U+202E", "U+202C", "U+2066", "U+2069", "U+200F", "U+0007", "U+001B"}, cps)
}

func TestHostileParameters(t *testing.T) {
	f := newFixture(t)
	sha := f.sha(t, alice)
	long := strings.Repeat("a", 10000)
	for path, want := range map[string]int{
		"/doc/zzz":                                                   http.StatusBadRequest,
		"/doc/" + strings.ToUpper(sha):                               http.StatusBadRequest,
		"/doc/" + strings.Repeat("0", 64):                            http.StatusNotFound,
		"/doc/" + sha + "?from=99999999999999999999999":              http.StatusBadRequest,
		"/doc/" + sha + "?from=-1":                                   http.StatusBadRequest,
		"/doc/" + sha + "?from=0":                                    http.StatusBadRequest,
		"/doc/" + sha + "?from=5&to=2":                               http.StatusBadRequest,
		"/doc/" + sha + "?from=100":                                  http.StatusBadRequest,
		"/doc/" + sha + "?hl=5-2":                                    http.StatusBadRequest,
		"/doc/" + sha + "?hl=abc":                                    http.StatusBadRequest,
		"/doc/" + sha + "?hl=" + strings.Repeat("1-2,", 300) + "1-2": http.StatusBadRequest,
		"/docs?limit=1000000000000":                                  http.StatusBadRequest,
		"/docs?sort=%3Cscript%3E":                                    http.StatusBadRequest,
		"/docs?after=nosuchdocument":                                 http.StatusNotFound,
		"/find?terms=%ff%fe":                                         http.StatusBadRequest,
		"/find?terms=" + long:                                        http.StatusBadRequest,
		"/find?terms=...":                                            http.StatusBadRequest,
		"/find?terms=Saud&doc=nosuch":                                http.StatusNotFound,
		"/find?terms=Saud&page=99999999999999":                       http.StatusBadRequest,
		"/query?doc=" + alice:                                        http.StatusBadRequest,
		"/query?doc=nosuch&question=Did+Alice+repay+Bob%3F":          http.StatusNotFound,
		"/query?doc=" + alice + "&question=%00":                      http.StatusBadRequest,
		"/query?doc=" + alice + "&question=%40claim%09x":             http.StatusBadRequest,
		"/settle?question=%ff":                                       http.StatusBadRequest,
		"/settle?question=%40claim%09a%09b%09c":                      http.StatusBadRequest,
		"/settle?question=Did+Alice+repay+Bob%3F&doc=nosuch":         http.StatusNotFound,
		"/entity?name=":                                              http.StatusBadRequest,
		"/entity?name=%c0%80":                                        http.StatusBadRequest,
		"/verify?receipt=%ff":                                        http.StatusBadRequest,
		"/nosuchpage":                                                http.StatusNotFound,
		"/static/nosuch.css":                                         http.StatusNotFound,
	} {
		status, body := f.get(t, path)
		require.Equal(t, want, status, "GET %.120s: %.300s", path, body)
		require.NotContains(t, body, "goroutine", path)
		require.NotContains(t, body, ".go:", path)
	}
	resp, err := http.Post(f.srv.URL+"/", "text/plain", strings.NewReader("x"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	// The error page is a page, with the message escaped.
	status, body := f.get(t, "/docs?sort=%3Cscript%3Ealert(1)%3C/script%3E")
	require.Equal(t, http.StatusBadRequest, status)
	require.NotContains(t, body, "<script>alert")
	require.Contains(t, body, "/static/style.css")
}

func TestFind(t *testing.T) {
	f := newFixture(t)
	root, _ := f.page(t, "/find?terms=Saud")
	groups := all(root, func(n *html.Node) bool { return classOf(n) == "group" })
	require.Len(t, groups, 1)
	require.Equal(t, f.sha(t, alice), docOf(groups[0]))
	marks := f.checkMarks(t, root, 3)
	for _, m := range marks {
		require.Equal(t, "Saud", textOf(m))
	}
	// Every hit line carries its byte range, which is the line's bytes.
	src := f.source(t, alice)
	for _, l := range all(root, func(n *html.Node) bool { return classOf(n) == "line" }) {
		s, e := byteRange(t, l)
		require.Equal(t, string(src[s:e]), textOf(l))
	}

	// Ranked as find ranks: the documents with more matched terms first.
	root, _ = f.page(t, "/find?terms="+url.QueryEscape("Layla Omar SAR"))
	groups = all(root, func(n *html.Node) bool { return classOf(n) == "group" })
	var order []string
	for _, g := range groups {
		order = append(order, textOf(g.FirstChild.NextSibling.FirstChild))
	}
	require.Equal(t, f.findOrder(t, "Layla Omar SAR"), order)
	require.Len(t, order, 4)
	f.checkMarks(t, root, 6)

	// A hit opens its document at its line with the same highlights.
	links := all(root, func(n *html.Node) bool { return classOf(n) == "ln" })
	href, _ := attr(links[0], "href")
	require.Contains(t, href, "#L")
	hitMarks := all(links[0].Parent, tag("mark"))
	docRoot, _ := f.page(t, href)
	docMarks := f.checkMarks(t, docRoot, len(hitMarks))
	require.Len(t, docMarks, len(hitMarks))
	for i := range hitMarks {
		require.Equal(t, hitMarks[i].Attr, docMarks[i].Attr)
	}

	// In one document; Arabic terms.
	root, _ = f.page(t, "/find?terms="+url.QueryEscape("أحمد")+"&doc="+url.QueryEscape(ahmed))
	require.Len(t, all(root, func(n *html.Node) bool { return classOf(n) == "group" }), 1)
	f.checkMarks(t, root, 1)

	status, body := f.get(t, "/find?terms=zzzqqq")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, "NO_MATCH")
}

func TestFindPaging(t *testing.T) {
	f := newFixture(t)
	// 25 more documents that match, each once: two pages of 20 and 5.
	a, err := db.Open(f.path, db.Options{})
	require.NoError(t, err)
	for i := range 25 {
		_, err := a.Ingest(fmt.Appendf(nil, "needle number %d\n", i), testarchive.GoldenTime, fmt.Sprintf("needle-%02d.txt", i))
		require.NoError(t, err)
	}
	require.NoError(t, a.Close())
	groups := func(root *html.Node) []string {
		var out []string
		for _, g := range all(root, func(n *html.Node) bool { return classOf(n) == "group" }) {
			out = append(out, textOf(g.FirstChild.NextSibling.FirstChild))
		}
		return out
	}
	rel := func(root *html.Node, rel string) string {
		links := all(root, func(n *html.Node) bool { v, _ := attr(n, "rel"); return v == rel })
		if len(links) == 0 {
			return ""
		}
		href, _ := attr(links[0], "href")
		return href
	}
	order := f.findOrder(t, "needle")
	require.Len(t, order, 25)
	root, _ := f.page(t, "/find?terms=needle")
	require.Equal(t, order[:20], groups(root))
	require.Empty(t, rel(root, "prev"))
	next := rel(root, "next")
	require.Equal(t, "/find?page=2&terms=needle", next)
	root, _ = f.page(t, next)
	require.Equal(t, order[20:], groups(root))
	require.Empty(t, rel(root, "next"))
	require.Equal(t, "/find?page=1&terms=needle", rel(root, "prev"))
	f.checkMarks(t, root, 5)
	root, _ = f.page(t, "/find?terms=needle&page=3")
	require.Empty(t, groups(root))
}

// TestDamagedArchive: a page the archive cannot read is a 500 page that
// names the damage, not a stack trace, and the server goes on serving.
func TestDamagedArchive(t *testing.T) {
	f := newFixture(t)
	sha := f.sha(t, alice)
	damaged := serve(t, pagedamage.ZeroRoot(t, f.path, "chunks"))
	for range 2 {
		status, body := damaged.get(t, "/doc/"+sha)
		require.Equal(t, http.StatusInternalServerError, status)
		require.Contains(t, body, "is damaged")
		require.Contains(t, body, "chronicle check")
		require.NotContains(t, body, "goroutine")
		require.NotContains(t, body, ".go:")
	}
	damaged.page(t, "/")
}
