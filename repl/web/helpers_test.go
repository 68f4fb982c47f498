package web_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/testarchive"
	"github.com/casper-chronicle/chronicle/repl"
	"github.com/casper-chronicle/chronicle/repl/web"

	"github.com/stretchr/testify/require"
)

// testToken is the access token of the test servers.
const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fixture is a server on a real archive of the sample stories, served by
// httptest, with the archive's path for the CLI beside it.
type fixture struct {
	t      *testing.T
	path   string
	server *web.Server
	http   *httptest.Server
}

func newFixture(t *testing.T, write bool) *fixture {
	t.Helper()
	return newFixtureAt(t, testarchive.Samples(t), write)
}

func newFixtureAt(t *testing.T, path string, write bool) *fixture {
	t.Helper()
	s, err := web.New(web.Options{DBPath: path, Write: write, Exec: repl.ExecJSON, Token: testToken})
	require.NoError(t, err)
	h := httptest.NewServer(s.Handler())
	t.Cleanup(h.Close)
	return &fixture{t: t, path: path, server: s, http: h}
}

// response is one answer of the server.
type response struct {
	status int
	header http.Header
	body   string
}

// do sends a request with the headers given (Authorization: Bearer
// unless the headers set Authorization, "" leaving it out), without
// following redirects.
func (f *fixture) do(method, path string, body io.Reader, headers map[string]string) response {
	f.t.Helper()
	req, err := http.NewRequest(method, f.http.URL+path, body)
	require.NoError(f.t, err)
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(f.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(f.t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func (f *fixture) get(path string) response { return f.do(http.MethodGet, path, nil, nil) }

// cli runs `chronicle ARGV --json --db PATH` in process, as the binary
// does, and returns its exit code, stdout and stderr.
func (f *fixture) cli(argv ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	env := &repl.Env{Stdout: &out, Stderr: &errOut}
	code := repl.Exec(env, append(append([]string{}, argv...), "--json", "--db", f.path))
	return code, out.String(), errOut.String()
}

// apiPath is /api/v1/NAME with the parameters in the order given
// (name, value pairs).
func apiPath(name string, pairs ...string) string {
	var q []string
	for i := 0; i+1 < len(pairs); i += 2 {
		q = append(q, url.QueryEscape(pairs[i])+"="+url.QueryEscape(pairs[i+1]))
	}
	p := web.APIPrefix + name
	if len(q) > 0 {
		p += "?" + strings.Join(q, "&")
	}
	return p
}

// requireSecurityHeaders: the headers every response carries, and no
// CORS header.
func requireSecurityHeaders(t *testing.T, r response, what string) {
	t.Helper()
	require.Equal(t, web.CSP, r.header.Get("Content-Security-Policy"), what)
	require.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"), what)
	require.Equal(t, "no-referrer", r.header.Get("Referrer-Policy"), what)
	for k := range r.header {
		require.False(t, strings.HasPrefix(strings.ToLower(k), "access-control-"), "%s: CORS header %s", what, k)
	}
}
