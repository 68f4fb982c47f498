package pages_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/internal/testarchive"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

func TestClaims(t *testing.T) {
	f := newFixture(t)
	root, _ := f.page(t, "/claims")
	require.Contains(t, textOf(root), "No claims check is kept.")

	f.keepClaimsCheck(t)
	root, _ = f.page(t, "/claims")
	require.Contains(t, textOf(root), "support-agent/2026-12-01-alice")
	var outcomes []string
	for _, tr := range all(root, tag("tr")) {
		if c := classOf(tr); strings.HasPrefix(c, "outcome-") {
			outcomes = append(outcomes, c)
		}
	}
	require.Equal(t, []string{"outcome-supported", "outcome-contradicted", "outcome-supported", "outcome-supported", "outcome-supported",
		"outcome-unverified", "outcome-unverified", "outcome-unverified"}, outcomes)
	// The contradicted row: claimed 100/1, the archive 40/1.
	cells := all(all(root, func(n *html.Node) bool { return classOf(n) == "outcome-contradicted" })[0], tag("code"))
	require.Equal(t, `"100/1"`, textOf(cells[0]))
	require.Equal(t, `"40/1"`, textOf(cells[1]))
}

// keepClaimsCheck keeps the README's claims check in the fixture's
// archive (the server holds no lock between requests, so a page shows it
// at once).
func (f *fixture) keepClaimsCheck(t *testing.T) {
	t.Helper()
	file, err := os.ReadFile(filepath.Join(testarchive.Root(t), "testdata", "claims", "agent-answer.jsonl"))
	require.NoError(t, err)
	a, err := db.Open(f.path, db.Options{})
	require.NoError(t, err)
	_, err = commands.ClaimsCheck(a, commands.ClaimsCheckIn{Claims: file}, db.ClaimOptions{})
	require.NoError(t, err)
	require.NoError(t, a.Close())
}

// TestClaimsEvidence: each compared row shows the lines of the answer its
// claim rests on, each span exactly the document's bytes of its range,
// and links to that answer.
func TestClaimsEvidence(t *testing.T) {
	f := newFixture(t)
	f.keepClaimsCheck(t)
	root, _ := f.page(t, "/claims")
	rows := all(root, func(n *html.Node) bool { return strings.HasPrefix(classOf(n), "outcome-") })
	require.Len(t, rows, 8)
	withEvidence := 0
	cells := all(root, func(n *html.Node) bool { return classOf(n) == "row-evidence" })
	require.NotEmpty(t, cells)
	for _, cell := range cells {
		for _, li := range all(cell, tag("li")) {
			sha, ok := attr(li, "data-document-sha256")
			require.True(t, ok)
			span := all(li, func(n *html.Node) bool { return classOf(n) == "line" })
			require.Len(t, span, 1)
			start, end := byteRange(t, span[0])
			src := f.source(t, sha)
			require.Equal(t, string(src[start:end]), textOf(span[0]), "evidence [%d,%d) of %s", start, end, sha)
			withEvidence++
		}
	}
	require.Positive(t, withEvidence)

	// The contradicted row (settled: claimed 100/1, the archive 40/1)
	// cites the loan and the payments, the counted one marked, and links
	// to the settlement page of its question.
	bad := all(root, func(n *html.Node) bool { return classOf(n) == "outcome-contradicted" })[0]
	evidence := bad.NextSibling
	for evidence != nil && evidence.Type != html.ElementNode {
		evidence = evidence.NextSibling
	}
	require.NotNil(t, evidence)
	require.Equal(t, "evidence-of-contradicted", classOf(evidence), "its evidence on the row below")
	require.Contains(t, textOf(evidence), "counted")
	var answer string
	for _, a := range all(bad, tag("a")) {
		if href, _ := attr(a, "href"); strings.HasPrefix(href, "/query?") {
			answer = href
		}
	}
	require.NotEmpty(t, answer)
	page, _ := f.page(t, answer)
	require.Equal(t, "PARTIAL", textOf(all(page, withID("status"))[0]))

	// The check's own page; an unknown or malformed file is refused.
	checks := all(root, func(n *html.Node) bool { return n.Data == "table" && classOf(n) == "checks" })
	require.Len(t, checks, 1)
	links := all(checks[0], tag("a"))
	require.Len(t, links, 1)
	href, _ := attr(links[0], "href")
	require.Regexp(t, `^/claims\?file=[0-9a-f]{64}$`, href)
	page, _ = f.page(t, href)
	require.Len(t, all(page, func(n *html.Node) bool { return strings.HasPrefix(classOf(n), "outcome-") }), 8)
	status, _ := f.get(t, "/claims?file="+strings.Repeat("0", 64))
	require.Equal(t, http.StatusNotFound, status)
	status, _ = f.get(t, "/claims?file=../../etc/passwd")
	require.Equal(t, http.StatusBadRequest, status)
}

// claimsPost posts the check form: the pasted text and, when file is
// not nil, an uploaded file.
func claimsPost(t *testing.T, f *fixture, pasted string, file []byte) (int, http.Header, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("csrf", "token"))
	require.NoError(t, mw.WriteField("claims", pasted))
	if file != nil {
		w, err := mw.CreateFormFile("file", "claims.jsonl")
		require.NoError(t, err)
		_, err = w.Write(file)
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Post(f.srv.URL+"/claims/check", mw.FormDataContentType(), &body)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}

func TestClaimsCheckForm(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(testarchive.Root(t), "testdata", "claims", "agent-answer.jsonl"))
	require.NoError(t, err)
	refused, err := os.ReadFile(filepath.Join(testarchive.Root(t), "testdata", "claims", "refused", "bad-json.jsonl"))
	require.NoError(t, err)
	refusedErr, err := os.ReadFile(filepath.Join(testarchive.Root(t), "testdata", "claims", "refused", "bad-json.err"))
	require.NoError(t, err)

	// A read-only server offers no form and refuses the POST.
	ro := newFixture(t)
	root, _ := ro.page(t, "/claims/check")
	require.Len(t, all(root, withID("read-only")), 1)
	require.Empty(t, all(root, tag("form"))[2:], "only the find and settle boxes")
	status, _, _ := claimsPost(t, ro, string(good), nil)
	require.Equal(t, http.StatusForbidden, status)

	f := newWritableFixture(t)
	kept := func() int {
		n := 0
		require.NoError(t, f.archive("test", func(a *db.Archive) error {
			checks, err := commands.ClaimsList(a)
			n = len(checks)
			return err
		}))
		return n
	}
	root, _ = f.page(t, "/claims/check")
	csrf := all(root, func(n *html.Node) bool { v, _ := attr(n, "name"); return v == "csrf" })
	require.Len(t, csrf, 1)
	v, _ := attr(csrf[0], "value")
	require.Equal(t, "token", v, "the form carries the server's CSRF token")

	// Refused input: the form again, the problem named, the pasted text
	// kept, nothing kept in the archive.
	for _, tc := range []struct {
		name   string
		pasted string
		file   []byte
		status int
		msg    string
	}{
		{"nothing", "", nil, http.StatusBadRequest, "no claims"},
		{"both", string(good), good, http.StatusBadRequest, "not both"},
		{"refused file pasted", string(refused), nil, http.StatusUnprocessableEntity, strings.TrimSpace(string(refusedErr))},
		{"refused file uploaded", "", refused, http.StatusUnprocessableEntity, strings.TrimSpace(string(refusedErr))},
		{"hostile text pasted", "</textarea><script>alert(1)</script>\n", nil, http.StatusUnprocessableEntity, "line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := claimsPost(t, f, tc.pasted, tc.file)
			require.Equal(t, tc.status, status, body)
			root, err := html.Parse(strings.NewReader(body))
			require.NoError(t, err)
			problem := all(root, withID("problem"))
			require.Len(t, problem, 1)
			require.Contains(t, textOf(problem[0]), tc.msg)
			require.Equal(t, tc.pasted, textOf(all(root, withID("claims-text"))[0]), "the pasted text is given back")
			require.Empty(t, all(root, func(n *html.Node) bool { return n.Data == "script" && len(n.Attr) == 0 }), "as text, never markup")
			require.Zero(t, kept())
		})
	}

	// Pasted: checked, kept, and the browser sent to its rows.
	status, header, body := claimsPost(t, f, string(good), nil)
	require.Equal(t, http.StatusSeeOther, status, body)
	loc := header.Get("Location")
	require.Equal(t, "/claims?file="+fmt.Sprintf("%x", sha256.Sum256(good)), loc)
	require.Equal(t, 1, kept())
	root, _ = f.page(t, loc)
	require.Len(t, all(root, func(n *html.Node) bool { return strings.HasPrefix(classOf(n), "outcome-") }), 8)
	require.Contains(t, textOf(root), "support-agent/2026-12-01-alice")

	// Uploaded, the same bytes: the kept check again, nothing new.
	status, header, _ = claimsPost(t, f, "", good)
	require.Equal(t, http.StatusSeeOther, status)
	require.Equal(t, loc, header.Get("Location"))
	require.Equal(t, 1, kept())

	// Another file under the same identity: a conflict, nothing kept.
	other := strings.Replace(string(good), "100/1", "90/1", 1)
	require.NotEqual(t, string(good), other)
	status, _, body = claimsPost(t, f, other, nil)
	require.Equal(t, http.StatusConflict, status, body)
	require.Equal(t, 1, kept())
}
