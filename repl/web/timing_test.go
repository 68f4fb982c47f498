package web_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/internal/testarchive"
	"github.com/casper-chronicle/chronicle/repl"
	"github.com/casper-chronicle/chronicle/repl/web"

	"github.com/stretchr/testify/require"
)

var serverTiming = regexp.MustCompile(`^app;dur=([0-9]+\.[0-9]{3})$`)

// timing reads a response's Server-Timing duration, in milliseconds.
func timing(t *testing.T, r response, what string) float64 {
	t.Helper()
	m := serverTiming.FindStringSubmatch(r.header.Get("Server-Timing"))
	require.NotNil(t, m, "%s: Server-Timing %q", what, r.header.Get("Server-Timing"))
	ms, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err, what)
	return ms
}

// Every response carries Server-Timing, answers and refusals alike.
func TestServerTimingOnEveryResponse(t *testing.T) {
	f := newFixture(t, false)
	for _, tc := range []struct {
		what    string
		path    string
		headers map[string]string
		status  int
	}{
		{"API", apiPath("stats"), nil, http.StatusOK},
		{"API error", apiPath("show", "doc", "no-such-document"), nil, http.StatusNotFound},
		{"page", "/", nil, http.StatusOK},
		{"no token", "/", map[string]string{"Authorization": ""}, http.StatusUnauthorized},
		{"token redirect", "/?token=" + testToken, map[string]string{"Authorization": ""}, http.StatusSeeOther},
	} {
		r := f.do(http.MethodGet, tc.path, nil, tc.headers)
		require.Equal(t, tc.status, r.status, tc.what)
		require.GreaterOrEqual(t, timing(t, r, tc.what), 0.0, tc.what)
	}
}

// The duration is the handler's time: a page that takes 30 ms to answer
// shows at least 30 ms, measured up to its first write (the body it
// streams afterwards is not counted).
func TestServerTimingMeasuresTheHandler(t *testing.T) {
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(30 * time.Millisecond)
		w.Write([]byte("first part\n"))
		if err := http.NewResponseController(w).Flush(); err != nil { // through Unwrap
			panic(err)
		}
		time.Sleep(200 * time.Millisecond)
		w.Write([]byte("after the headers were sent\n"))
	})
	s, err := web.New(web.Options{DBPath: testarchive.Samples(t), Exec: repl.ExecJSON, Token: testToken, Pages: slow})
	require.NoError(t, err)
	h := httptest.NewServer(s.Handler())
	t.Cleanup(h.Close)
	f := &fixture{t: t, server: s, http: h}
	r := f.get("/")
	require.Equal(t, http.StatusOK, r.status)
	require.Equal(t, "first part\nafter the headers were sent\n", r.body)
	ms := timing(t, r, "slow page")
	require.GreaterOrEqual(t, ms, 30.0)
	require.Less(t, ms, 200.0, "the time after the first write is not counted")
}
