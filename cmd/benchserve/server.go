package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// server is a running `chronicle serve --json` and a keep-alive client
// holding its token.
type server struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT
	token  string
	client *http.Client
}

// startServer starts the real binary, as a user does, and reads the URL
// from its first line.
func startServer(chron, db string) (*server, error) {
	cmd := exec.Command(chron, "--db", db, "serve", "--json")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("chronicle serve: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("chronicle serve: %w", err)
	}
	s := &server{cmd: cmd}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
		io.Copy(io.Discard, out) // nothing more is printed; never block it
	}()
	select {
	case l := <-line:
		if s.base, s.token, err = parseServeLine(l); err != nil {
			s.stop()
			return nil, err
		}
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, errors.New("chronicle serve printed no URL within 30 s")
	}
	// One connection, kept alive: the figures are the server's, not a TCP
	// handshake's. No compression: the pages are sent as the server makes
	// them.
	s.client = &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true},
		Timeout:   5 * time.Minute,
	}
	return s, nil
}

// parseServeLine reads `chronicle serve --json`'s first line:
// {"addr":…,"url":"http://ADDR/?token=…"}.
func parseServeLine(line string) (base, token string, err error) {
	var j struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal([]byte(line), &j); err != nil {
		return "", "", fmt.Errorf("chronicle serve --json's first line %q: %w", strings.TrimSpace(line), err)
	}
	u, err := url.Parse(j.URL)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("chronicle serve printed the URL %q: not an http URL", j.URL)
	}
	token = u.Query().Get("token")
	if token == "" {
		return "", "", fmt.Errorf("chronicle serve printed the URL %q without ?token=", j.URL)
	}
	return u.Scheme + "://" + u.Host, token, nil
}

// stop interrupts the server as Ctrl-C does, and kills it if it lingers.
func (s *server) stop() {
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
		s.cmd.Process.Kill()
	}
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// timing is one request's times: the server's (Server-Timing) and the
// client's, from sending the request to the body's last byte.
type timing struct {
	server, client time.Duration
}

// get fetches path with the token; anything but 200 is an error.
func (s *server) get(path string) (timing, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
	if err != nil {
		return timing{}, nil, fmt.Errorf("GET %s: %w", path, err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return timing{}, nil, fmt.Errorf("GET %s: %w", path, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	t := timing{client: time.Since(start)}
	if err != nil {
		return t, nil, fmt.Errorf("GET %s: reading the body: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return t, body, fmt.Errorf("GET %s: %s: %.200s", path, resp.Status, strings.TrimSpace(string(body)))
	}
	if t.server, err = parseServerTiming(resp.Header.Get("Server-Timing")); err != nil {
		return t, body, fmt.Errorf("GET %s: %w", path, err)
	}
	return t, body, nil
}

// parseServerTiming reads the duration of the metric "app" from a
// Server-Timing header (W3C Server Timing: metrics separated by commas,
// each NAME;dur=MILLISECONDS;desc=…).
func parseServerTiming(h string) (time.Duration, error) {
	for _, metric := range strings.Split(h, ",") {
		parts := strings.Split(metric, ";")
		if strings.TrimSpace(parts[0]) != "app" {
			continue
		}
		for _, p := range parts[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.TrimSpace(k) != "dur" {
				continue
			}
			ms, err := strconv.ParseFloat(strings.Trim(strings.TrimSpace(v), `"`), 64)
			if err != nil || ms < 0 {
				return 0, fmt.Errorf("Server-Timing %q: bad dur", h)
			}
			return time.Duration(ms * float64(time.Millisecond)), nil
		}
	}
	return 0, fmt.Errorf("Server-Timing %q: no app;dur= (a server without it is older than this benchmark: make build)", h)
}
