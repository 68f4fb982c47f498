package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/casper-chronicle/chronicle/internal/testarchive"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/repl"
	"github.com/casper-chronicle/chronicle/repl/web"
	"github.com/casper-chronicle/chronicle/repl/web/pages"

	"github.com/stretchr/testify/require"
)

const (
	alice = "testdata/samples/alice-bob-en.txt"
	ahmed = "testdata/samples/ahmed-khalid-ar.txt"
)

// apiCase is one call: the CLI's arguments and the API's parameters.
type apiCase struct {
	argv   []string
	params []string // name, value pairs
}

// apiCases are sample calls of every command the API serves; a command
// of the table that reads and has none here fails TestAPIMatchesCLI.
var apiCases = map[string][]apiCase{
	"docs": {
		{[]string{"docs"}, nil},
		{[]string{"docs", "--sort", "name", "--limit", "1"}, []string{"sort", "name", "limit", "1"}},
		{[]string{"docs", "--sort", "name", "--after", ahmed}, []string{"sort", "name", "after", ahmed}},
	},
	"show": {
		{[]string{"show", alice}, []string{"doc", alice}},
		{[]string{"show", ahmed, "2-4"}, []string{"doc", ahmed, "from-to", "2-4"}},
	},
	"stats": {{[]string{"stats"}, nil}},
	"query": {
		{[]string{"query", ahmed, "هل سدد أحمد دين خالد؟"}, []string{"doc", ahmed, "question", "هل سدد أحمد دين خالد؟"}},
		{[]string{"query", alice, "Did Alice repay Bob?", "--receipt", "-"}, []string{"doc", alice, "question", "Did Alice repay Bob?", "receipt", "-"}},
	},
	"settle": {
		{[]string{"settle", "Did Alice repay Bob?"}, []string{"question", "Did Alice repay Bob?"}},
		{[]string{"settle", "Did Alice repay Bob?", "--doc", alice, "--doc", ahmed}, []string{"question", "Did Alice repay Bob?", "doc", alice, "doc", ahmed}},
	},
	"claim": {{[]string{"claim", alice, "Alice", "owns", "Book"}, []string{"doc", alice, "subject", "Alice", "predicate", "owns", "object", "Book"}}},
	"find": {
		{[]string{"find", "--doc", alice, "Saud"}, []string{"terms", "Saud", "doc", alice}},
		{[]string{"find", "Alice", "Saud", "--limit", "1"}, []string{"terms", "Alice", "terms", "Saud", "limit", "1"}},
		{[]string{"find", "Saud", "--receipt", "-"}, []string{"terms", "Saud", "receipt", "-"}},
	},
	"entity":    {{[]string{"entity", "Saud"}, []string{"name", "Saud"}}},
	"entities":  {{[]string{"entities"}, nil}, {[]string{"entities", "Al"}, []string{"prefix", "Al"}}},
	"originals": {{[]string{"originals"}, nil}},
	"receipts": {
		{[]string{"receipts"}, nil},
		{[]string{"receipts", alice, "--verify"}, []string{"doc", alice, "verify", "true"}},
	},
	"check": {{[]string{"check"}, nil}},
}

// TestAPIMatchesCLI: for every read command of the table, the API's body
// is byte for byte what `chronicle COMMAND … --json` prints on the same
// archive; a read command without sample calls must be one the API does
// not serve, with its reason, and every other command is not served.
func TestAPIMatchesCLI(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	// A kept receipt, so that receipts lists one.
	code, _, stderr := f.cli("query", alice, "Did Alice repay Bob?", "--keep")
	require.Equal(t, 0, code, stderr)

	// originals lists nothing in the samples: an archive with a mail.
	derived := newFixtureAt(t, testarchive.Derived(t), false)
	for i := range commands.Table {
		spec := &commands.Table[i]
		cases, sampled := apiCases[spec.Name]
		f := f
		if spec.Name == "originals" {
			f = derived
		}
		switch {
		case !spec.Read:
			require.False(t, web.Served(spec), spec.Name)
			r := f.get(apiPath(spec.Name))
			require.Equal(t, http.StatusNotFound, r.status, "%s: %s", spec.Name, r.body)
			require.Contains(t, r.body, "not served", spec.Name)
			continue
		case !sampled:
			require.NotEmpty(t, web.NotServed[spec.Name], "read command %s has no sample call in apiCases and no reason in web.NotServed", spec.Name)
			require.False(t, web.Served(spec), spec.Name)
			r := f.get(apiPath(spec.Name))
			require.Equal(t, http.StatusNotFound, r.status, "%s: %s", spec.Name, r.body)
			continue
		}
		require.True(t, web.Served(spec), spec.Name)
		for _, c := range cases {
			code, want, stderr := f.cli(c.argv...)
			require.Equal(t, 0, code, "%v: %s", c.argv, stderr)
			require.NotEmpty(t, want, c.argv)
			r := f.get(apiPath(spec.Name, c.params...))
			require.Equal(t, http.StatusOK, r.status, "%v: %s", c.argv, r.body)
			require.Equal(t, want, r.body, "%v: the API's body is the CLI's --json output", c.argv)
			ct := "application/x-ndjson"
			if strings.Count(want, "\n") == 1 {
				ct = "application/json"
			}
			require.Equal(t, ct, r.header.Get("Content-Type"), c.argv)
			require.Equal(t, strconv.Itoa(len(want)), r.header.Get("Content-Length"), "%v: the length is sent, no chunks", c.argv)
			requireSecurityHeaders(t, r, spec.Name)
		}
	}
	for name := range apiCases {
		require.NotNil(t, commands.Lookup(name), name)
	}
}

// TestAPIErrorsAreTheCLIs: a command's error is the CLI's JSON error
// object, byte for byte, with the status of its kind.
func TestAPIErrorsAreTheCLIs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	for _, c := range []struct {
		argv   []string
		params []string
		status int
	}{
		{[]string{"show", "0000000000"}, []string{"doc", "0000000000"}, http.StatusNotFound},
		{[]string{"show", "../../../etc/passwd"}, []string{"doc", "../../../etc/passwd"}, http.StatusNotFound},
		{[]string{"docs", "--limit", "99999999999999999999999"}, []string{"limit", "99999999999999999999999"}, http.StatusBadRequest},
		{[]string{"docs", "--limit", "-1"}, []string{"limit", "-1"}, http.StatusBadRequest},
		{[]string{"show", alice, "9-2"}, []string{"doc", alice, "from-to", "9-2"}, http.StatusBadRequest},
		{[]string{"show", alice, "99999999999999999999-1"}, []string{"doc", alice, "from-to", "99999999999999999999-1"}, http.StatusBadRequest},
		{[]string{"docs", "--sort", "nosuch"}, []string{"sort", "nosuch"}, http.StatusBadRequest},
		{[]string{"find", "--doc", "zz", "x"}, []string{"doc", "zz", "terms", "x"}, http.StatusNotFound},
	} {
		code, _, want := f.cli(c.argv...)
		require.NotEqual(t, 0, code, c.argv)
		r := f.get(apiPath(c.argv[0], c.params...))
		require.Equal(t, c.status, r.status, "%v: %s", c.argv, r.body)
		require.Equal(t, want, r.body, c.argv)
		require.Equal(t, "application/json", r.header.Get("Content-Type"))
		requireSecurityHeaders(t, r, c.argv[0])
	}
}

// TestHostileParameters: what the API refuses itself is a 4xx JSON error
// naming the command (and the parameter), never a 500 or a stack trace.
func TestHostileParameters(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	// status, the parameter the error names (- none), the request.
	const table = `
400 nosuch    /api/v1/docs?nosuch=1
400 db        /api/v1/docs?db=/etc/passwd
400 json      /api/v1/docs?json=1
400 terms     /api/v1/find?terms=%ff%fe
400 �         /api/v1/find?%ff=1
400 terms     /api/v1/find?terms=a%00b
400 receipt   /api/v1/find?terms=x&receipt=/tmp/evil
400 receipt   /api/v1/find?terms=x&receipt=../evil
400 limit     /api/v1/docs?limit=1&limit=2
400 doc       /api/v1/show?from-to=1-2
400 verify    /api/v1/receipts?verify=maybe
400 -         /api/v1/find?terms=%zz
200 -         /api/v1/find?doc=testdata/samples/alice-bob-en.txt&terms=--db=/etc/passwd
404 -         /api/v1/../../etc/passwd
404 -         /api/v1/ingest?path=/etc
404 -         /api/v1/verify?receipt=/etc/passwd
404 -         /api/v1/
404 -         /api/v2/stats
414 -         /api/v1/find?terms=`
	type hostile struct {
		path   string
		status int
		param  string
	}
	var cases []hostile
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		fields := strings.Fields(line)
		var c hostile
		_, err := fmt.Sscan(fields[0], &c.status)
		require.NoError(t, err, line)
		c.param, c.path = strings.TrimPrefix(fields[1], "-"), fields[2]
		cases = append(cases, c)
	}
	// The 200: a term that looks like a flag is a term, never a flag; the
	// 414: a query over 256 KiB.
	cases[len(cases)-1].path += strings.Repeat("a", 300<<10)
	for _, c := range cases {
		r := f.get(c.path)
		require.Equal(t, c.status, r.status, "%.80s: %.300s", c.path, r.body)
		requireSecurityHeaders(t, r, c.path)
		require.NotContains(t, r.body, "goroutine", c.path)
		var j map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.body), &j), "%.80s: %.300s", c.path, r.body)
		if c.status == 200 {
			continue
		}
		require.Contains(t, j["message"], "chronicle ", c.path)
		if c.param != "" {
			require.Equal(t, c.param, j["param"], c.path)
		}
	}
	r := f.do(http.MethodDelete, "/api/v1/stats", nil, nil)
	require.Equal(t, http.StatusMethodNotAllowed, r.status, r.body)
	requireSecurityHeaders(t, r, "DELETE")
}

// TestIngestBesideServer: `chronicle ingest` of 1,000 files in commits of
// 5 runs (in process, through repl.Exec as the CLI does); once its first
// commit shows, 100 concurrent requests are sent, API calls (docs and
// find) and page loads (/docs and /find): the server holds no lock
// between requests, so the ingest goes on; every page is whole, every API
// request answers 200 with valid JSON lines (a request meeting a commit
// waits for it: with no wait it would be 503 busy), some while documents
// are still to come, and the API shows every new document once the
// ingest is done.
func TestIngestBesideServer(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	// The same server with the pages, as chronicle-serve mounts them: a
	// quarter of the requests below are page loads.
	withPages, err := web.New(web.Options{DBPath: f.path, Exec: repl.ExecJSON, Token: testToken,
		NewPages: func(s *web.Server) http.Handler {
			return pages.New(pages.Options{Archive: s.WithArchive, CSRF: func(*http.Request) string { return "" }})
		}})
	require.NoError(t, err)
	pageServer := httptest.NewServer(withPages.Handler())
	t.Cleanup(pageServer.Close)
	dir := t.TempDir()
	const files = 1000
	for i := range files {
		text := fmt.Sprintf("story %d\nMarker%d meets Zebedee on day %d.\n", i, i, i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%04d.txt", i)), []byte(text), 0o644))
	}

	ingestDone := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		env := &repl.Env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Context: context.Background()}
		ingestDone <- repl.Exec(env, []string{"ingest", dir, "--commit-every", "5", "--db", f.path, "--json"})
	}()
	// The requests start once the ingest's first commit shows.
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		var n int
		require.NoError(t, f.server.WithArchive("docs", func(a *db.Archive) error {
			list, err := a.Docs()
			n = len(list)
			return err
		}))
		if n > 2 {
			break
		}
		require.Less(t, time.Since(start), time.Minute, "the ingest commits")
	}

	const requests = 100
	var wg sync.WaitGroup
	errs := make(chan error, requests)
	var partial sync.Once // a docs answer with some documents still to come
	sawPartial := false
	for i := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/api/v1/docs"
			if i%2 == 1 {
				path = "/api/v1/find?terms=Zebedee&limit=500"
			}
			base := f.http.URL
			if i%4 >= 2 { // a page: the documents list, or find's results
				base, path = pageServer.URL, map[int]string{2: "/docs", 3: "/find?terms=Zebedee"}[i%4]
			}
			req, _ := http.NewRequest(http.MethodGet, base+path, nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			var body bytes.Buffer
			body.ReadFrom(resp.Body)
			if resp.StatusCode != http.StatusOK {
				errs <- fmt.Errorf("%s: %d %s", path, resp.StatusCode, body.String())
				return
			}
			if base == pageServer.URL {
				// a whole page, listing what was committed when it was read
				listed := map[int]string{2: `href="/doc/`, 3: "data-document-sha256"}[i%4]
				if !strings.HasSuffix(strings.TrimSpace(body.String()), "</html>") || !strings.Contains(body.String(), listed) {
					errs <- fmt.Errorf("%s: not a whole page: %.200q", path, body.String())
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(body.String(), "\n"), "\n")
			if body.Len() == 0 {
				lines = nil
			}
			for _, l := range lines {
				var j map[string]any
				if err := json.Unmarshal([]byte(l), &j); err != nil {
					errs <- fmt.Errorf("%s: not JSON: %q", path, l)
					return
				}
			}
			// docs: the two samples and the stories committed so far;
			// find: at most the stories.
			if i%2 == 0 && (len(lines) < 2 || len(lines) > 2+files) {
				errs <- fmt.Errorf("docs: %d documents", len(lines))
			}
			if i%2 == 0 && len(lines) < 2+files {
				partial.Do(func() { sawPartial = true })
			}
			if i%2 == 1 && len(lines) > files {
				errs <- fmt.Errorf("find: %d documents", len(lines))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.True(t, sawPartial, "some request was answered while the ingest ran")
	require.Equal(t, 0, <-ingestDone, stderr.String())

	r := f.get("/api/v1/docs")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, 2+files, strings.Count(r.body, "\n"), "every new document is listed")
	r = f.get(apiPath("find", "terms", "Marker7"))
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Contains(t, r.body, "s0007.txt")

	// WithArchive opens it read-only for the call only: a writer opens it
	// right after.
	var docs int
	require.NoError(t, f.server.WithArchive("docs", func(a *db.Archive) error {
		list, err := a.Docs()
		docs = len(list)
		return err
	}))
	require.Equal(t, 2+files, docs)
	w, err := db.Open(f.path, db.Options{Timeout: time.Second})
	require.NoError(t, err, "no lock is held between requests")
	require.NoError(t, w.Close())
}
