package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/repl"

	"github.com/stretchr/testify/require"
)

// TestIngestBesideServer: `chronicle ingest` runs (in process, through
// repl.Exec as the CLI does) while 100 concurrent API requests (docs and
// find) are answered: the server holds no lock between requests, so the
// ingest commits, every request answers 200 with valid JSON lines showing
// a whole number of committed documents, and the API shows every new
// document once the ingest is done.
func TestIngestBesideServer(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	dir := t.TempDir()
	const files = 120
	for i := range files {
		text := fmt.Sprintf("story %d\nMarker%d meets Zebedee on day %d.\n", i, i, i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%03d.txt", i)), []byte(text), 0o644))
	}

	ingestDone := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		env := &repl.Env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Context: context.Background()}
		ingestDone <- repl.Exec(env, []string{"ingest", dir, "--commit-every", "10", "--db", f.path, "--json"})
	}()

	const requests = 100
	var wg sync.WaitGroup
	errs := make(chan error, requests)
	for i := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/api/v1/docs"
			if i%2 == 1 {
				path = "/api/v1/find?terms=Zebedee&limit=500"
			}
			req, _ := http.NewRequest(http.MethodGet, f.http.URL+path, nil)
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
	require.Equal(t, 0, <-ingestDone, stderr.String())

	r := f.get("/api/v1/docs")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, 2+files, strings.Count(r.body, "\n"), "every new document is listed")
	r = f.get(apiPath("find", "terms", "Marker7"))
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Contains(t, r.body, "s007.txt")

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
