package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/internal/testarchive"
	"github.com/casper-chronicle/chronicle/repl"
	"github.com/casper-chronicle/chronicle/repl/web"

	"github.com/stretchr/testify/require"
)

// TestToken: no token is 401, a wrong one 403 (in the URL, the header or
// the cookie); Bearer works; ?token= sets an HttpOnly SameSite=Strict
// cookie and redirects to the same URL without it, and the cookie then
// works alone. Every answer carries the security headers.
func TestToken(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	noAuth := map[string]string{"Authorization": ""}

	r := f.do(http.MethodGet, "/api/v1/stats", nil, noAuth)
	require.Equal(t, http.StatusUnauthorized, r.status, r.body)
	requireSecurityHeaders(t, r, "no token")
	var j map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &j))
	require.Equal(t, "unauthorized", j["error"])
	require.NotContains(t, r.body, testToken)

	r = f.do(http.MethodGet, "/", nil, noAuth)
	require.Equal(t, http.StatusUnauthorized, r.status, r.body)
	requireSecurityHeaders(t, r, "no token, a page")

	for _, h := range []map[string]string{
		{"Authorization": "Bearer " + strings.Repeat("0", 64)},
		{"Authorization": "Bearer " + testToken[:63]},
		{"Authorization": "Basic " + testToken},
		{"Authorization": "", "Cookie": "x=1"},
	} {
		r = f.do(http.MethodGet, "/api/v1/stats", nil, h)
		require.Contains(t, []int{http.StatusUnauthorized, http.StatusForbidden}, r.status, "%v: %s", h, r.body)
		requireSecurityHeaders(t, r, "wrong token")
	}
	r = f.do(http.MethodGet, "/api/v1/stats?token="+strings.Repeat("1", 64), nil, noAuth)
	require.Equal(t, http.StatusForbidden, r.status, r.body)
	require.Empty(t, r.header.Values("Set-Cookie"))

	r = f.get("/api/v1/stats")
	require.Equal(t, http.StatusOK, r.status, r.body)
	requireSecurityHeaders(t, r, "bearer")

	// The token in the URL: a cookie and a redirect without it.
	r = f.do(http.MethodGet, "/api/v1/docs?limit=1&token="+testToken, nil, noAuth)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	require.Equal(t, "/api/v1/docs?limit=1", r.header.Get("Location"))
	requireSecurityHeaders(t, r, "redirect")
	resp := http.Response{Header: r.header}
	cookies := resp.Cookies()
	require.Len(t, cookies, 1)
	c := cookies[0]
	require.True(t, c.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, c.SameSite)
	require.Equal(t, "/", c.Path)

	r = f.do(http.MethodGet, "/api/v1/docs?limit=1", nil, map[string]string{"Authorization": "", "Cookie": c.Name + "=" + c.Value})
	require.Equal(t, http.StatusOK, r.status, r.body)
	r = f.do(http.MethodGet, "/api/v1/docs?limit=1", nil, map[string]string{"Authorization": "", "Cookie": c.Name + "=" + strings.Repeat("f", 64)})
	require.Equal(t, http.StatusForbidden, r.status, r.body)

	// No open redirect: //host stays a path of this server.
	r = f.do(http.MethodGet, "//evil.example/x?token="+testToken, nil, noAuth)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	require.Equal(t, "/evil.example/x", r.header.Get("Location"))

	// Without pages, a plain page says so; a missing page is 404 with the
	// headers too.
	r = f.get("/")
	require.Equal(t, http.StatusOK, r.status)
	require.Contains(t, r.body, "pages are not built")
	r = f.get("/nosuch")
	require.Equal(t, http.StatusNotFound, r.status)
	requireSecurityHeaders(t, r, "404")
}

// TestHost: a Host that is not a loopback name (DNS rebinding) is
// refused with 421, also with a good token; loopback names are answered.
func TestHost(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	_, port, _ := strings.Cut(strings.TrimPrefix(f.http.URL, "http://"), ":")
	status := func(host string) int {
		req, err := http.NewRequest(http.MethodGet, f.http.URL+"/api/v1/stats", nil)
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), host)
		return resp.StatusCode
	}
	for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1.evil.example:" + port, "localhost.evil.example:" + port, "10.0.0.1:" + port, "0.0.0.0:" + port} {
		require.Equal(t, http.StatusMisdirectedRequest, status(host), host)
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port} {
		require.Equal(t, http.StatusOK, status(host), host)
	}
}

// TestPost: a POST needs the CSRF token (header or form field) and a
// same-origin Origin and Sec-Fetch-Site when sent; keeping a receipt
// needs --write and a POST; with them it keeps it.
func TestPost(t *testing.T) {
	t.Parallel()
	ro := newFixture(t, false)
	csrf := ro.get("/api/v1/stats").header.Get("X-CSRF-Token")
	require.Len(t, csrf, 64)
	origin := ro.http.URL
	form := url.Values{"doc": {alice}, "question": {"Did Alice repay Bob?"}}

	post := func(f *fixture, form url.Values, headers map[string]string) response {
		return f.do(http.MethodPost, "/api/v1/query", strings.NewReader(form.Encode()), headers)
	}
	r := post(ro, form, nil)
	require.Equal(t, http.StatusForbidden, r.status, "no CSRF token: %s", r.body)
	requireSecurityHeaders(t, r, "no csrf")
	r = post(ro, form, map[string]string{"X-CSRF-Token": strings.Repeat("0", 64)})
	require.Equal(t, http.StatusForbidden, r.status, "wrong CSRF token: %s", r.body)
	r = post(ro, form, map[string]string{"X-CSRF-Token": csrf, "Origin": "http://evil.example"})
	require.Equal(t, http.StatusForbidden, r.status, "cross-site Origin: %s", r.body)
	r = post(ro, form, map[string]string{"X-CSRF-Token": csrf, "Sec-Fetch-Site": "cross-site"})
	require.Equal(t, http.StatusForbidden, r.status, "cross-site fetch: %s", r.body)

	_, want, _ := ro.cli("query", alice, "Did Alice repay Bob?")
	r = post(ro, form, map[string]string{"X-CSRF-Token": csrf, "Origin": origin, "Sec-Fetch-Site": "same-origin"})
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, want, r.body)
	withField := url.Values{"csrf": {csrf}}
	for k, v := range form {
		withField[k] = v
	}
	r = post(ro, withField, nil)
	require.Equal(t, http.StatusOK, r.status, "the form field: %s", r.body)
	require.Equal(t, want, r.body)

	// keep: refused by a read-only server, whatever the method.
	keep := url.Values{"keep": {"true"}}
	for k, v := range withField {
		keep[k] = v
	}
	r = post(ro, keep, nil)
	require.Equal(t, http.StatusForbidden, r.status, r.body)
	require.Contains(t, r.body, `"error":"read_only"`)
	r = ro.get(apiPath("query", "doc", alice, "question", "Did Alice repay Bob?", "keep", "true"))
	require.Equal(t, http.StatusForbidden, r.status, r.body)
	code, receipts, _ := ro.cli("receipts")
	require.Equal(t, 0, code)
	require.Equal(t, 2, strings.Count(receipts, "\n"), "the two ingest receipts, nothing kept: %s", receipts)

	// With --write: a GET is still refused, a POST keeps the receipt.
	rw := newFixture(t, true)
	r = rw.get(apiPath("query", "doc", alice, "question", "Did Alice repay Bob?", "keep", "true"))
	require.Equal(t, http.StatusMethodNotAllowed, r.status, r.body)
	r = post(rw, keep, nil)
	require.Equal(t, http.StatusForbidden, r.status, "this server's CSRF token differs: %s", r.body)
	keep.Set("csrf", rw.get("/api/v1/stats").header.Get("X-CSRF-Token"))
	r = post(rw, keep, nil)
	require.Equal(t, http.StatusOK, r.status, r.body)
	code, receipts, _ = rw.cli("receipts")
	require.Equal(t, 0, code)
	require.Equal(t, 3, strings.Count(receipts, "\n"), "the query's receipt kept beside the ingest receipts: %s", receipts)
	require.Contains(t, receipts, `"kind":"QUERY"`)
}

// TestPages: every path outside /api/ goes to Options.Pages (or the
// handler NewPages makes from the server), behind the same token and
// headers; the pages may read the archive through WithArchive.
func TestPages(t *testing.T) {
	t.Parallel()
	path := testarchive.Samples(t)
	s, err := web.New(web.Options{DBPath: path, Exec: repl.ExecJSON, Token: testToken,
		NewPages: func(s *web.Server) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				err := s.WithArchive("page", func(a *db.Archive) error {
					docs, err := a.Docs()
					fmt.Fprintf(w, "page %s: %d documents, csrf %s", r.URL.Path, len(docs), s.CSRF(r))
					return err
				})
				require.NoError(t, err)
			})
		}})
	require.NoError(t, err)
	h := httptest.NewServer(s.Handler())
	t.Cleanup(h.Close)
	f := &fixture{t: t, path: path, server: s, http: h}
	csrf := f.get("/api/v1/stats").header.Get("X-CSRF-Token")
	for _, p := range []string{"/", "/doc/x", "/static/app.css"} {
		r := f.get(p)
		require.Equal(t, http.StatusOK, r.status, p)
		require.Equal(t, "page "+p+": 2 documents, csrf "+csrf, r.body)
		requireSecurityHeaders(t, r, p)
		r = f.do(http.MethodGet, p, nil, map[string]string{"Authorization": ""})
		require.Equal(t, http.StatusUnauthorized, r.status, p)
	}
	err = s.WithArchive("page", func(*db.Archive) error { return db.ErrUnknownDoc })
	require.ErrorIs(t, err, db.ErrUnknownDoc)
	require.True(t, strings.HasPrefix(err.Error(), "chronicle page: "), err.Error())
}

// TestServeAddr: serve listens on a loopback host only; any other --addr
// is a usage error (exit 2) naming the flag, before anything listens.
func TestServeAddr(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.2:8080", "localhost:0", "[::1]:0"} {
		require.NoError(t, commands.CheckServeAddr(addr), addr)
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "10.0.0.1:80", "[::]:0", "example.com:80", "127.0.0.1", "nonsense"} {
		require.Error(t, commands.CheckServeAddr(addr), addr)
		var out, errOut strings.Builder
		code := repl.Exec(&repl.Env{Stdout: &out, Stderr: &errOut}, []string{"serve", "--addr", addr, "--json", "--db", filepath.Join(t.TempDir(), "x.db")})
		require.Equal(t, 2, code, addr)
		require.Empty(t, out.String(), addr)
		var j map[string]any
		require.NoError(t, json.Unmarshal([]byte(errOut.String()), &j), errOut.String())
		require.Equal(t, "addr", j["flag"], addr)
	}
}

// TestClaimsCheck: POST /api/v1/claims/check with the claims file's text
// answers what `claims check FILE --json` prints on a twin archive, and
// keeps the check; only on a server started with --write, only as a POST
// with the CSRF token.
func TestClaimsCheck(t *testing.T) {
	t.Parallel()
	file := filepath.Join(testarchive.Root(t), "testdata", "claims", "agent-answer.jsonl")
	text, err := os.ReadFile(file)
	require.NoError(t, err)
	twin := newFixture(t, false)
	code, want, stderr := twin.cli("claims", "check", file)
	require.Equal(t, 0, code, stderr)
	form := url.Values{"claims": {string(text)}}
	post := func(f *fixture, form url.Values, headers map[string]string) response {
		return f.do(http.MethodPost, web.APIPrefix+web.ClaimsCheck, strings.NewReader(form.Encode()), headers)
	}

	ro := newFixture(t, false)
	r := post(ro, form, map[string]string{"X-CSRF-Token": ro.get("/api/v1/stats").header.Get("X-CSRF-Token")})
	require.Equal(t, http.StatusForbidden, r.status, r.body)
	require.Contains(t, r.body, `"error":"read_only"`)

	rw := newFixture(t, true)
	csrf := map[string]string{"X-CSRF-Token": rw.get("/api/v1/stats").header.Get("X-CSRF-Token")}
	r = rw.get(web.APIPrefix + web.ClaimsCheck + "?claims=x")
	require.Equal(t, http.StatusMethodNotAllowed, r.status, r.body)
	r = post(rw, form, nil)
	require.Equal(t, http.StatusForbidden, r.status, "no CSRF token: %s", r.body)
	r = post(rw, url.Values{"claims": {string(text)}, "out": {"rows.jsonl"}}, csrf)
	require.Equal(t, http.StatusBadRequest, r.status, r.body)
	require.Contains(t, r.body, `"param":"out"`)
	r = post(rw, url.Values{"claims": {"not json\n"}}, csrf)
	require.Equal(t, http.StatusUnprocessableEntity, r.status, r.body)
	require.Contains(t, r.body, `"message":"chronicle claims: claims: line 1: `)
	require.NotContains(t, r.body, os.TempDir(), "the temporary file is not named")

	code, before, _ := rw.cli("claims", "list")
	require.Equal(t, 0, code)
	require.Empty(t, before)
	r = post(rw, form, csrf)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, want, r.body)
	require.Equal(t, "application/x-ndjson", r.header.Get("Content-Type"))
	code, after, _ := rw.cli("claims", "list")
	require.Equal(t, 0, code)
	require.Equal(t, 1, strings.Count(after, "\n"), "the check is kept: %s", after)
}

// TestMultipartPost: a form with a file (the claims page's) carries its
// CSRF token as a multipart field; the server reads it with the parts and
// hands the parsed form to the pages. WithArchiveWrite writes only on a
// server started with --write.
func TestMultipartPost(t *testing.T) {
	t.Parallel()
	for _, write := range []bool{false, true} {
		path := testarchive.Samples(t)
		s, err := web.New(web.Options{DBPath: path, Write: write, Exec: repl.ExecJSON, Token: testToken,
			NewPages: func(s *web.Server) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					file, fh, err := r.FormFile("file")
					require.NoError(t, err)
					defer file.Close()
					b, err := io.ReadAll(file)
					require.NoError(t, err)
					werr := s.WithArchiveWrite("page", func(a *db.Archive) error { return nil })
					fmt.Fprintf(w, "%s %s %q %v", r.PostFormValue("note"), fh.Filename, b, werr)
				})
			}})
		require.NoError(t, err)
		h := httptest.NewServer(s.Handler())
		t.Cleanup(h.Close)
		f := &fixture{t: t, path: path, server: s, http: h}
		csrf := f.get("/api/v1/stats").header.Get("X-CSRF-Token")
		post := func(token string) response {
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			if token != "" {
				require.NoError(t, mw.WriteField("csrf", token))
			}
			require.NoError(t, mw.WriteField("note", "hello"))
			fw, err := mw.CreateFormFile("file", "claims.jsonl")
			require.NoError(t, err)
			_, err = fw.Write([]byte("{\"line\":1}\n"))
			require.NoError(t, err)
			require.NoError(t, mw.Close())
			return f.do(http.MethodPost, "/claims/check", &body, map[string]string{"Content-Type": mw.FormDataContentType()})
		}
		r := post("")
		require.Equal(t, http.StatusForbidden, r.status, r.body)
		r = post(strings.Repeat("0", 64))
		require.Equal(t, http.StatusForbidden, r.status, r.body)
		r = post(csrf)
		require.Equal(t, http.StatusOK, r.status, r.body)
		want := `hello claims.jsonl "{\"line\":1}\n" <nil>`
		if !write {
			want = `hello claims.jsonl "{\"line\":1}\n" chronicle page: ` + web.ErrReadOnly.Error()
		}
		require.Equal(t, want, r.body)
	}
}

// TestLargePastedForm: a claims file pasted whole into the form (a value,
// not a file part) is read up to the claims limit, not refused past the
// multipart reader's allowance for values.
func TestLargePastedForm(t *testing.T) {
	t.Parallel()
	path := testarchive.Samples(t)
	s, err := web.New(web.Options{DBPath: path, Write: true, Exec: repl.ExecJSON, Token: testToken,
		NewPages: func(*web.Server) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, "%d", len(r.PostFormValue("claims")))
			})
		}})
	require.NoError(t, err)
	h := httptest.NewServer(s.Handler())
	t.Cleanup(h.Close)
	f := &fixture{t: t, path: path, server: s, http: h}
	csrf := f.get("/api/v1/stats").header.Get("X-CSRF-Token")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("csrf", csrf))
	pasted := strings.Repeat("x", 12<<20)
	require.NoError(t, mw.WriteField("claims", pasted))
	require.NoError(t, mw.Close())
	r := f.do(http.MethodPost, "/claims/check", &body, map[string]string{"Content-Type": mw.FormDataContentType()})
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, fmt.Sprint(len(pasted)), r.body)
}
