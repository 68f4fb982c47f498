package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/casper-chronicle/chronicle/db"
)

// ExecFunc runs one command line as `chronicle ARGV --json` does, writing
// what the CLI prints on stdout and stderr, and returns its exit code
// (repl.ExecJSON). ctx is the request's: canceled when the client leaves.
type ExecFunc func(ctx context.Context, argv []string, stdout, stderr io.Writer) int

// Options configure a server.
type Options struct {
	DBPath string        // the archive (resolved by the caller: --db, CHRONICLE_DB, default)
	Wait   time.Duration // how long opening waits for another process's lock
	// Write serves the answers that write (--keep), as POSTs with the CSRF
	// token; without it they are refused with 403.
	Write bool
	// Exec runs the commands of the API: repl.ExecJSON, the CLI's own code.
	Exec ExecFunc
	// Pages answers every path outside /api/ (package repl/web/pages);
	// NewPages, when Pages is nil, makes it from the server (for pages
	// that call WithArchive and CSRF). With neither, a plain page says
	// that the pages are not built.
	Pages    http.Handler
	NewPages func(*Server) http.Handler
	// Token is the access token; "" draws 32 random bytes (tests may fix
	// it).
	Token string
}

// Server is one `chronicle serve`: the access token, the CSRF secret and
// the handlers. It holds no archive between requests.
type Server struct {
	opts   Options
	token  string
	csrf   string
	cookie string
	pages  http.Handler

	mu   sync.Mutex
	port string // the listening port once Serve runs ("" before: any port)
}

// New returns a server for opts.
func New(opts Options) (*Server, error) {
	if opts.Exec == nil {
		return nil, errors.New("web: Options.Exec is nil")
	}
	if opts.Wait <= 0 {
		opts.Wait = db.LockTimeout
	}
	s := &Server{opts: opts, token: opts.Token}
	if s.token == "" {
		s.token = randomHex(32)
	}
	mac := hmac.New(sha256.New, []byte(randomHex(32)))
	mac.Write([]byte(s.token))
	s.csrf = hex.EncodeToString(mac.Sum(nil))
	sum := sha256.Sum256([]byte("cookie-name\x00" + s.token))
	// A name of its own per server: cookies ignore the port, and two
	// servers on one host must not overwrite each other's.
	s.cookie = "chronicle_" + hex.EncodeToString(sum[:6])
	switch {
	case opts.Pages != nil:
		s.pages = opts.Pages
	case opts.NewPages != nil:
		s.pages = opts.NewPages(s)
	default:
		s.pages = http.HandlerFunc(notBuilt)
	}
	return s, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("web: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// URL is the address to open, with the access token: the one place the
// token is written (serve prints it once).
func (s *Server) URL(addr string) string {
	return "http://" + addr + "/?token=" + s.token
}

// Handler is the server's whole HTTP handler (tests serve it with
// httptest): security checks, then /api/v1/ or the pages, timed.
func (s *Server) Handler() http.Handler {
	return timed(http.HandlerFunc(s.serveHTTP))
}

// timed sets the Server-Timing header of every response to
// "app;dur=MS": the milliseconds, to 3 decimals, from the handler's
// start to its first write (the status line or the body's first bytes),
// or to its end when it writes nothing. The pages and the API compute
// their whole answer before writing it, so that is the time to answer;
// sending the body comes after and is not in it (a header cannot come
// later, and a trailer is not shown by browsers). cmd/benchserve reads it.
func timed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &timingWriter{ResponseWriter: w, start: time.Now()}
		h.ServeHTTP(tw, r)
		tw.stamp()
	})
}

// timingWriter stamps Server-Timing on the response's headers just
// before they are written.
type timingWriter struct {
	http.ResponseWriter
	start   time.Time
	stamped bool
}

func (w *timingWriter) stamp() {
	if w.stamped {
		return
	}
	w.stamped = true
	ms := float64(time.Since(w.start).Nanoseconds()) / 1e6
	w.Header().Set("Server-Timing", "app;dur="+strconv.FormatFloat(ms, 'f', 3, 64))
}

func (w *timingWriter) WriteHeader(code int) {
	if code >= 200 { // a 1xx answer is not the response's headers
		w.stamp()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *timingWriter) Write(b []byte) (int, error) {
	w.stamp()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *timingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Serve answers on ln until ctx is done, then shuts down (requests in
// flight get a few seconds) and returns ctx.Err().
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if _, port, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		s.mu.Lock()
		s.port = port
		s.mu.Unlock()
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		// Nothing is logged: a log line could carry a URL with the token.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shut)
	return ctx.Err()
}

// WithArchive runs fn with the archive open read-only for this call only,
// under db.Guard as the CLI runs a command: damage met in fn ends as the
// one db.DamageError naming the archive. No lock is held once it returns,
// so an ingest beside the server goes on between requests. name (the
// page's) prefixes an error as the CLI's "chronicle NAME: …".
func (s *Server) WithArchive(name string, fn func(a *db.Archive) error) error {
	return s.withArchive(name, db.Options{ReadOnly: true, Timeout: s.opts.Wait}, fn)
}

// ErrReadOnly is the error of a write asked of a server without --write.
var ErrReadOnly = errors.New("this server is read-only (start it with `chronicle serve --write`)")

// WithArchiveWrite is WithArchive with the archive open for writing (the
// lock held for this call only, waiting up to Options.Wait for another
// writer), on a server started with Options.Write; else ErrReadOnly.
func (s *Server) WithArchiveWrite(name string, fn func(a *db.Archive) error) error {
	if !s.opts.Write {
		return fmt.Errorf("chronicle %s: %w", name, ErrReadOnly)
	}
	return s.withArchive(name, db.Options{MustExist: true, Timeout: s.opts.Wait}, fn)
}

func (s *Server) withArchive(name string, opts db.Options, fn func(a *db.Archive) error) error {
	err := db.GuardOpen(s.opts.DBPath, opts, fn)
	switch {
	case errors.Is(err, db.ErrNoArchive):
		return fmt.Errorf("chronicle %s: %w; `chronicle ingest FILE` creates it", name, err)
	case err != nil:
		return fmt.Errorf("chronicle %s: %w", name, err)
	}
	return nil
}

// CSRF is the token a form that POSTs must carry (field "csrf", or the
// X-CSRF-Token header): derived from the access token with a secret of
// this server, so it is worth nothing without the cookie.
func (s *Server) CSRF(r *http.Request) string { return s.csrf }

// Writable reports whether the server serves the answers that write.
func (s *Server) Writable() bool { return s.opts.Write }

// notBuilt is the page of a server without pages.
func notBuilt(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		textError(w, http.StatusNotFound, "404 page not found")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "Chronicle: the web pages are not built into this server.\n"+
		"The JSON API answers at /api/v1/COMMAND (repl/web/README.md), e.g. /api/v1/stats.\n")
}

// equal compares two secrets in constant time (their digests: the
// lengths leak nothing either).
func equal(a, b string) bool {
	x, y := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(x[:], y[:]) == 1
}
