package pages_test

import (
	"fmt"
	"github.com/casper-chronicle/chronicle/internal/testarchive"
	"github.com/casper-chronicle/chronicle/repl/web/pages"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// evidence is each evidence item of an answer page: its class (counted
// or cited) and the line its link points to.
func evidence(t *testing.T, root *html.Node) (classes, lines []string) {
	t.Helper()
	for _, li := range all(root, func(n *html.Node) bool {
		return n.Data == "li" && n.Parent != nil && classOf(n.Parent) == "evidence"
	}) {
		classes = append(classes, classOf(li))
		a := all(li, func(n *html.Node) bool { h, _ := attr(n, "href"); return strings.HasPrefix(h, "/doc/") })
		require.Len(t, a, 1)
		href, _ := attr(a[0], "href")
		lines = append(lines, textOf(a[0])+" "+href[strings.Index(href, "#"):])
	}
	return classes, lines
}

// requireSettlement requires the page's status badge and its debt and
// settled amounts, exact rationals.
func requireSettlement(t *testing.T, root *html.Node, status, debt, settled string) {
	t.Helper()
	require.Equal(t, status, textOf(all(root, withID("status"))[0]))
	v, _ := attr(all(root, withID("debt"))[0], "value")
	require.Equal(t, debt, v, "debt")
	v, _ = attr(all(root, withID("settled"))[0], "value")
	require.Equal(t, settled, v, "settled")
}

func TestQueryPartial(t *testing.T) {
	f := newFixture(t)
	root, _ := f.page(t, "/query?doc="+url.QueryEscape(alice)+"&question="+url.QueryEscape("Did Alice repay Bob?"))
	requireSettlement(t, root, "PARTIAL", "100/1", "40/1")
	require.Equal(t, "badge badge-partial", classOf(all(root, withID("status"))[0]))
	classes, lines := evidence(t, root)
	require.Equal(t, []string{"cited", "cited", "counted", "cited"}, classes)
	require.Equal(t, []string{alice + ":2 #L2", alice + ":4 #L4", alice + ":5 #L5", alice + ":6 #L6"}, lines)
	require.Len(t, f.checkMarks(t, root, 4), 4)

	// A claim.
	root, _ = f.page(t, "/query?doc="+url.QueryEscape(alice)+"&question="+url.QueryEscape("@claim\tAlice\towns\tBook"))
	require.Equal(t, "UNRESOLVED", textOf(all(root, withID("status"))[0]))
	require.Empty(t, all(root, tag("mark")))
}

func TestSettle(t *testing.T) {
	f := newFixture(t)
	root, body := f.page(t, "/settle?question="+url.QueryEscape("Did Layla repay Omar?"))
	requireSettlement(t, root, "SUPPORTED", "500/1", "500/1")
	classes, lines := evidence(t, root)
	require.Equal(t, []string{"cited", "cited", "counted", "counted"}, classes)
	require.Equal(t, []string{loan + ":4 #L4", loan + ":6 #L6", bank + ":4 #L4", bank + ":6 #L6"}, lines)
	var amounts []string
	for _, n := range all(root, func(n *html.Node) bool { return classOf(n) == "amount" }) {
		amounts = append(amounts, textOf(n))
	}
	require.Equal(t, []string{"200/1 SAR", "300/1 SAR"}, amounts, "each counted payment's amount")
	marks := f.checkMarks(t, root, 4)
	require.NotEqual(t, docOf(marks[0]), docOf(marks[3]), "each evidence names its own document")
	require.Contains(t, body, "across documents #1..6")

	// The PARTIAL story across the archive, and over chosen documents.
	root, _ = f.page(t, "/settle?question="+url.QueryEscape("Did Alice repay Bob?"))
	require.Equal(t, "PARTIAL", textOf(all(root, withID("status"))[0]))
	f.checkMarks(t, root, 4)
	root, body = f.page(t, "/settle?question="+url.QueryEscape("Did Layla repay Omar?")+"&doc="+url.QueryEscape(loan))
	require.Equal(t, "UNKNOWN", textOf(all(root, withID("status"))[0]))
	require.Contains(t, body, "across 1 chosen document")
	f.checkMarks(t, root, 1)
}

func TestEntity(t *testing.T) {
	f := newFixture(t)
	root, _ := f.page(t, "/entity?name=Saud")
	_, lines := evidence(t, root)
	require.Equal(t, []string{alice + ":4 #L4", alice + ":5 #L5", alice + ":6 #L6"}, lines)
	require.Len(t, f.checkMarks(t, root, 3), 3)
	require.Contains(t, textOf(root), "3 events naming it")
	require.Empty(t, all(root, withID("debts")), "Saud takes part in no debt")
	root, _ = f.page(t, "/entity?name=Nobody")
	require.Contains(t, textOf(root), "0 events naming it")

	// Layla's debt to Omar, recorded across the two stories: its
	// settlement question is one click away, with both documents named.
	root, _ = f.page(t, "/entity?name=Layla")
	debts := all(root, withID("debts"))
	require.Len(t, debts, 1)
	var hrefs, texts []string
	for _, a := range all(debts[0], tag("a")) {
		href, _ := attr(a, "href")
		hrefs, texts = append(hrefs, href), append(texts, textOf(a))
	}
	require.Equal(t, []string{"Did Layla repay Omar?", "testdata/stories/1-loan-agreement-en.txt", "testdata/stories/2-bank-statement-en.txt"}, texts)
	require.Equal(t, "/settle?question=Did+Layla+repay+Omar%3F", hrefs[0])
	require.Equal(t, "/doc/"+f.sha(t, "testdata/stories/1-loan-agreement-en.txt"), hrefs[1])
	status, _ := f.get(t, hrefs[0])
	require.Equal(t, http.StatusOK, status)
}

// TestEntityPages: a name with more events than a page shows them
// EntityPage at a time, every one once, in the lookup's order.
func TestEntityPages(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for i := range pages.EntityPage*2 + 17 {
		fmt.Fprintf(&b, "Zaid owns Book%d.\n", i)
	}
	a, err := db.Open(f.path, db.Options{})
	require.NoError(t, err)
	_, err = a.Ingest([]byte(b.String()), testarchive.GoldenTime, "zaid.txt")
	require.NoError(t, err)
	require.NoError(t, a.Close())

	var lines []string
	path := "/entity?name=Zaid"
	for n := 0; path != ""; n++ {
		require.Less(t, n, 5)
		root, _ := f.page(t, path)
		require.Contains(t, textOf(all(root, withID("event-count"))[0]), fmt.Sprintf("%d events naming it; events %d–", pages.EntityPage*2+17, n*pages.EntityPage+1))
		_, page := evidence(t, root)
		require.LessOrEqual(t, len(page), pages.EntityPage)
		lines = append(lines, page...)
		path = ""
		if next := all(root, func(n *html.Node) bool { v, _ := attr(n, "rel"); return v == "next" }); len(next) == 1 {
			require.Len(t, page, pages.EntityPage, "a page before the last is full")
			path, _ = attr(next[0], "href")
		}
	}
	require.Len(t, lines, pages.EntityPage*2+17)
	for i, l := range lines {
		require.Equal(t, fmt.Sprintf("zaid.txt:%d #L%d", i+1, i+1), l)
	}
	status, _ := f.get(t, "/entity?name=Zaid&page=0")
	require.Equal(t, http.StatusBadRequest, status)
}

func TestVerify(t *testing.T) {
	f := newFixture(t)
	var rec string
	require.NoError(t, f.archive("test", func(a *db.Archive) error {
		ans, err := commands.Query(a, commands.QueryIn{Document: alice, Question: "Did Alice repay Bob?"})
		if err == nil {
			rec = string(ans.Receipt.Encode())
		}
		return err
	}))
	root, _ := f.page(t, "/verify?receipt="+url.QueryEscape(rec))
	require.Equal(t, "VALID", textOf(all(root, withID("verdict"))[0]))
	bad := strings.Replace(rec, "result_sha256:", "result_sha256:0", 1)
	root, _ = f.page(t, "/verify?receipt="+url.QueryEscape(bad))
	require.Equal(t, "INVALID", textOf(all(root, withID("verdict"))[0]))
	require.NotEmpty(t, all(root, func(n *html.Node) bool { return classOf(n) == "problem" }))
	status, _ := f.get(t, "/verify")
	require.Equal(t, http.StatusOK, status)
}

func TestStatic(t *testing.T) {
	f := newFixture(t)
	for path, ctype := range map[string]string{"/static/style.css": "text/css", "/static/print.css": "text/css",
		"/static/lines.js": "text/javascript"} {
		resp, err := http.Get(f.srv.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		require.Contains(t, resp.Header.Get("Content-Type"), ctype, path)
	}
}

func TestDocumentReceipts(t *testing.T) {
	f := newFixture(t)
	sha := f.sha(t, alice)
	root, _ := f.page(t, "/doc/"+sha)
	before := len(all(root, func(n *html.Node) bool { return classOf(n) == "button" }))

	// Keep a query's receipt (the server holds no lock between requests).
	a, err := db.Open(f.path, db.Options{})
	require.NoError(t, err)
	ans, err := commands.Query(a, commands.QueryIn{Document: alice, Question: "Did Alice repay Bob?"})
	require.NoError(t, err)
	require.NoError(t, a.KeepReceipt(ans.Receipt))
	require.NoError(t, a.Close())

	root, _ = f.page(t, "/doc/"+sha)
	buttons := all(root, func(n *html.Node) bool { return classOf(n) == "button" })
	require.Len(t, buttons, before+1)
	require.Contains(t, textOf(root), "Did Alice repay Bob?")
	require.Contains(t, textOf(root), ans.Receipt.ID().String()[:12])
	href, _ := attr(buttons[len(buttons)-1], "href")
	root, _ = f.page(t, href)
	require.Equal(t, "VALID", textOf(all(root, withID("verdict"))[0]))
}
