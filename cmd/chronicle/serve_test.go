package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/testbin"

	"github.com/stretchr/testify/require"
)

// TestServe: the real binary, `chronicle serve --db … --addr
// 127.0.0.1:0`, prints the URL with its token as its first line and
// nothing else; /api/v1/stats with the token (Bearer) answers the same
// bytes as `chronicle stats --json`, / is the pages' HTML, without the
// token 401; SIGINT stops it with exit 0 (the server's normal end, like
// the end of a session).
// With --json the first line is {"url":…,"addr":…}.
func TestServe(t *testing.T) {
	t.Parallel()
	_, err := buildServe.Build(filepath.Dir(chronicleBin), "chronicle-serve") // `serve` runs the server beside chronicle
	require.NoError(t, err)
	w := makeRunArchive(t)
	want := w.ok("stats", "--json")

	for _, asJSON := range []bool{false, true} {
		args := []string{"serve", "--db", w.db, "--addr", "127.0.0.1:0"}
		if asJSON {
			args = append(args, "--json")
		}
		cmd, stdout, stderr := w.start(t, args...)

		lines := bufio.NewReader(stdout)
		first, err := lines.ReadString('\n')
		require.NoError(t, err, "stderr: %s", stderr.String())
		url := strings.TrimSpace(first)
		if asJSON {
			var j struct{ URL, Addr string }
			require.NoError(t, json.Unmarshal([]byte(first), &j), first)
			require.True(t, strings.HasPrefix(j.URL, "http://"+j.Addr+"/?token="), first)
			url = j.URL
		}
		m := regexp.MustCompile(`^http://(127\.0\.0\.1:\d+)/\?token=([0-9a-f]{64})$`).FindStringSubmatch(url)
		require.NotNil(t, m, "first line %q", first)
		base, token := "http://"+m[1], m[2]

		req, err := http.NewRequest(http.MethodGet, base+"/api/v1/stats", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		require.Equal(t, want, string(body))

		// The pages, behind the same token and headers.
		req, err = http.NewRequest(http.MethodGet, base+"/", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err = http.DefaultClient.Do(req)
		require.NoError(t, err)
		page, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(page))
		require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
		require.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
		require.Contains(t, string(page), "<!DOCTYPE html>")

		resp, err = http.Get(base + "/api/v1/stats")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

		require.NoError(t, cmd.Process.Signal(os.Interrupt))
		// The rest of stdout is read beside the wait: a server that does not
		// stop keeps the pipe open, and the test must fail, not hang.
		restc := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(lines); restc <- b }()
		require.NoError(t, testbin.WaitWithin(cmd, runLimit), "exit 0 on SIGINT; stderr: %s", stderr.String())
		require.Empty(t, string(<-restc), "only the first line on stdout")
		require.NotContains(t, stderr.String(), token, "the token is printed once, on stdout")
	}
}

var buildServe testbin.Once

// requireServeStops starts chronicle ARGS, a serve, reads the URL it
// prints first and stops it with SIGINT: exit 0.
func requireServeStops(t *testing.T, w *ws, args ...string) {
	t.Helper()
	_, err := buildServe.Build(filepath.Dir(chronicleBin), "chronicle-serve")
	require.NoError(t, err)
	cmd, stdout, stderr := w.start(t, args...)
	first, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "stderr: %s", stderr.String())
	require.True(t, strings.HasPrefix(first, "http://127.0.0.1:"), first)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, testbin.WaitWithin(cmd, runLimit), "exit 0 on SIGINT; stderr: %s", stderr.String())
}
