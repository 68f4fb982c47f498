package pages_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/repl/web/pages"
)

// receiptRows reads the rows of a receipts table: each one's ID (the
// code element's title), the document it links to ("" for an
// archive-wide receipt) and its verdict badge.
type receiptRow struct{ id, doc, verdict, verify string }

func receiptRows(t *testing.T, root *html.Node) []receiptRow {
	t.Helper()
	var rows []receiptRow
	for _, table := range all(root, func(n *html.Node) bool { return n.Data == "table" && classOf(n) == "receipts" }) {
		for _, tr := range all(table, func(n *html.Node) bool { return n.Data == "tr" }) {
			code := all(tr, func(n *html.Node) bool { return n.Data == "code" })
			if len(code) != 1 {
				continue
			}
			var r receiptRow
			r.id, _ = attr(code[0], "title")
			for _, a := range all(tr, func(n *html.Node) bool { return n.Data == "a" }) {
				href, _ := attr(a, "href")
				switch {
				case strings.HasPrefix(href, "/doc/"):
					r.doc = strings.TrimPrefix(href, "/doc/")
				case strings.HasPrefix(href, "/verify?"):
					r.verify = href
				}
			}
			if b := all(tr, func(n *html.Node) bool { return strings.HasPrefix(classOf(n), "badge") }); len(b) == 1 {
				r.verdict = textOf(b[0])
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func TestReceiptsPage(t *testing.T) {
	f := newFixture(t)
	aliceSHA := f.sha(t, alice)

	// Keep more receipts than a page lists: queries of one document and
	// one archive-wide find.
	a, err := db.Open(f.path, db.Options{})
	require.NoError(t, err)
	for i := range pages.ReceiptsPage + 5 {
		ans, err := commands.Find(a, commands.FindIn{Document: alice, Terms: fmt.Sprintf("Alice w%d", i)}, true)
		require.NoError(t, err)
		require.NoError(t, a.KeepReceipt(ans.Answer.Receipt))
	}
	out, err := commands.Find(a, commands.FindIn{Terms: "Omar"}, true)
	require.NoError(t, err)
	require.NoError(t, a.KeepSetReceipt(out.Receipt))
	var want []string
	_, err = commands.Receipts(a, commands.ReceiptsIn{}, func(it commands.ReceiptItem) error {
		switch {
		case it.Archive != nil:
			want = append(want, it.Archive.ID().String())
		case it.Set != nil:
			want = append(want, it.Set.ID().String())
		case it.Original != nil:
			want = append(want, it.Original.ID().String())
		}
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	require.Greater(t, len(want), pages.ReceiptsPage+5)

	// Page by page, every receipt once, in issue order (which is here the
	// order `receipts` lists them in: the set receipt was kept last).
	var got []string
	path := "/receipts"
	for pagesSeen := 0; path != ""; pagesSeen++ {
		require.Less(t, pagesSeen, 5)
		root, _ := f.page(t, path)
		rows := receiptRows(t, root)
		require.LessOrEqual(t, len(rows), pages.ReceiptsPage)
		for _, r := range rows {
			got = append(got, r.id)
			require.NotEmpty(t, r.verify, "every receipt has its Verify button")
			require.Empty(t, r.verdict, "nothing verified without verify=1")
		}
		path = ""
		if next := all(root, func(n *html.Node) bool { v, _ := attr(n, "rel"); return v == "next" }); len(next) == 1 {
			path, _ = attr(next[0], "href")
			require.Len(t, rows, pages.ReceiptsPage, "a page before the last is full")
		}
	}
	require.Equal(t, want, got)

	// Verify every receipt on the first page: each VALID; the button of
	// the archive-wide one verifies it alone.
	root, _ := f.page(t, "/receipts")
	verifyAll := all(root, withID("verify-all"))
	require.Len(t, verifyAll, 1)
	href, _ := attr(verifyAll[0], "href")
	root, _ = f.page(t, href)
	rows := receiptRows(t, root)
	require.Len(t, rows, pages.ReceiptsPage)
	for _, r := range rows {
		require.Equal(t, "VALID", r.verdict, r.id)
	}
	require.Contains(t, textOf(all(root, withID("verified"))[0]), "all VALID")
	root, _ = f.page(t, "/receipts?offset=101")
	var set *receiptRow
	for _, r := range receiptRows(t, root) {
		if r.doc == "" {
			set = &r
		}
	}
	require.NotNil(t, set, "the archive-wide find is listed, on no one document")
	root, _ = f.page(t, set.verify)
	require.Equal(t, "VALID", textOf(all(root, withID("verdict"))[0]))

	// One document's receipts: all of them on it.
	root, _ = f.page(t, "/receipts?doc="+aliceSHA[:12])
	rows = receiptRows(t, root)
	require.NotEmpty(t, rows)
	for _, r := range rows {
		require.Equal(t, aliceSHA, r.doc)
	}

	for path, status := range map[string]int{
		"/receipts?offset=0":        http.StatusBadRequest,
		"/receipts?offset=x":        http.StatusBadRequest,
		"/receipts?verify=maybe":    http.StatusBadRequest,
		"/receipts?doc=nosuch.txt":  http.StatusNotFound,
		"/receipts?doc=%ff":         http.StatusBadRequest,
		"/receipts?offset=99999999": http.StatusOK,
	} {
		got, body := f.get(t, path)
		require.Equal(t, status, got, "%s: %s", path, body)
	}
}
