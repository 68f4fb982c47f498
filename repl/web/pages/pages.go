package pages

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// Options are what the server gives the pages.
type Options struct {
	// Archive runs fn with the archive opened read-only for this request
	// only (the server's guard: db.Guard, no lock held between requests).
	// name names what the request does (the page), for messages.
	Archive func(name string, fn func(a *db.Archive) error) error
	// Write runs fn with the archive opened for writing, for this request
	// only; nil on a read-only server, whose pages offer no form that
	// writes.
	Write func(name string, fn func(a *db.Archive) error) error
	// CSRF is the token a form that writes must carry (the server checks
	// it before the pages see a POST).
	CSRF func(r *http.Request) string
}

// PageLines is the number of lines a page of a document shows.
const PageLines = 500

// DocsPage is the default and MaxDocsPage the largest page of /docs.
const (
	DocsPage    = 50
	MaxDocsPage = 1000
)

// FindPage is the number of documents a page of /find shows.
const FindPage = 20

// EntityPage is the number of events a page of /entity shows.
const EntityPage = 200

// maxParam is the longest parameter a page reads (a question, terms, a
// name or a receipt); longer ones are refused before any work.
const maxParam = 8192

// maxLine is the largest line number a request names.
const maxLine = math.MaxInt32

// maxHighlights is the most spans a document link's hl parameter holds.
const maxHighlights = 256

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

type handler struct {
	opts  Options
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// New returns the pages as one handler, to be mounted at "/".
func New(opts Options) http.Handler {
	h := &handler{opts: opts, pages: map[string]*template.Template{}, mux: http.NewServeMux()}
	funcs := template.FuncMap{
		"short": func(s string) string { return s[:min(12, len(s))] },
		"docURL": func(sha string, line int) string {
			return docURL(sha, line, nil)
		},
		"rational": func(r engine.Rational) string { return r.String() },
		"lower":    strings.ToLower,
		"plural":   commands.Plural[int],
		"add":      func(a, b int) int { return a + b },
		"vis":      visible,
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	for _, name := range names {
		if name == "templates/layout.html" {
			continue
		}
		t := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", name))
		h.pages[strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")] = t
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err)
	}
	h.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	h.mux.HandleFunc("GET /{$}", h.home)
	h.mux.HandleFunc("GET /docs", h.docs)
	h.mux.HandleFunc("GET /doc/{sha}", h.doc)
	h.mux.HandleFunc("GET /find", h.find)
	h.mux.HandleFunc("GET /query", h.query)
	h.mux.HandleFunc("GET /settle", h.settle)
	h.mux.HandleFunc("GET /entity", h.entity)
	h.mux.HandleFunc("GET /verify", h.verify)
	h.mux.HandleFunc("GET /claims", h.claims)
	h.mux.HandleFunc("GET /claims/check", h.claimsForm)
	h.mux.HandleFunc("POST /claims/check", h.claimsCheck)
	h.mux.HandleFunc("GET /receipts", h.receipts)
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			h.fail(w, http.StatusInternalServerError, fmt.Errorf("internal error: %v", v))
		}
	}()
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !(r.Method == http.MethodPost && r.URL.Path == ClaimsCheckPath) {
		h.fail(w, http.StatusMethodNotAllowed, errors.New("the pages answer GET only (and a POST of a claims file to "+ClaimsCheckPath+")"))
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/static/") {
		if _, pattern := h.mux.Handler(r); pattern == "" {
			h.fail(w, http.StatusNotFound, fmt.Errorf("no page %q", r.URL.Path))
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// page is what every template gets: its title, the find terms and the
// question to fill the boxes with, and the page's own data.
type page struct {
	Title    string
	Terms    string
	Question string
	Status   int
	Error    string
	Data     any
}

// render writes the page; a template that fails writes the error page.
func (h *handler) render(w http.ResponseWriter, name string, p page) {
	var buf bytes.Buffer
	if err := h.pages[name].Execute(&buf, p); err != nil {
		h.fail(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if p.Status != 0 {
		w.WriteHeader(p.Status)
	}
	_, _ = w.Write(buf.Bytes())
}

// fail writes the error page with its status.
func (h *handler) fail(w http.ResponseWriter, status int, err error) {
	var buf bytes.Buffer
	p := page{Title: http.StatusText(status), Status: status, Error: err.Error()}
	if terr := h.pages["error"].Execute(&buf, p); terr != nil {
		http.Error(w, err.Error(), status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// badRequest is an error in a request's parameters (400).
type badRequest struct{ error }

func badf(format string, args ...any) error { return badRequest{fmt.Errorf(format, args...)} }

// statusOf is the status of an error: 404 for an unknown document, 400
// for an error of the request's parameters, else 500 (a damaged archive).
func statusOf(err error) int {
	var bad badRequest
	var arg *commands.ArgError
	switch {
	case errors.Is(err, db.ErrUnknownDoc), errors.Is(err, errNoCheck):
		return http.StatusNotFound
	case errors.As(err, &bad), errors.As(err, &arg), db.IsInputError(err), errors.Is(err, db.ErrAmbiguousDoc),
		errors.Is(err, find.ErrTerms), errors.Is(err, settle.ErrClaimSyntax):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// archive runs fn on the archive and writes the error page when it fails;
// it reports whether fn succeeded.
func (h *handler) archive(w http.ResponseWriter, name string, fn func(a *db.Archive) error) bool {
	if err := h.opts.Archive(name, fn); err != nil {
		h.fail(w, statusOf(err), err)
		return false
	}
	return true
}

// params reads a request's parameters; the first one that is wrong is
// kept in err (a badRequest) and the later reads give zero values.
type params struct {
	q   url.Values
	err error
}

func paramsOf(r *http.Request) *params { return &params{q: r.URL.Query()} }

// text reads the parameter key: UTF-8 text of at most maxParam bytes.
func (p *params) text(key string) string {
	v := p.q.Get(key)
	switch {
	case p.err != nil:
		return ""
	case len(v) > maxParam:
		p.err = badf("parameter %s is %d bytes; at most %d", key, len(v), maxParam)
	case !engine.ValidTextString(v):
		p.err = badf("parameter %s is not valid UTF-8 text", key)
	default:
		return v
	}
	return ""
}

// number reads the parameter key as a count from 1 to limit; def when it
// is absent.
func (p *params) number(key string, def, limit int) int {
	v := p.q.Get(key)
	if p.err != nil || v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > limit {
		p.err = badf("parameter %s: want a whole number from 1 to %d, got %.40q", key, limit, v)
		return def
	}
	return n
}

// flag reads the parameter key as a switch: absent, "", 0, false or off
// is false; 1, true or on is true.
func (p *params) flag(key string) bool {
	switch v := p.q.Get(key); v {
	case "", "0", "false", "off":
		return false
	case "1", "true", "on":
		return true
	default:
		if p.err == nil {
			p.err = badf("parameter %s is a switch: want 1 or 0, got %.40q", key, v)
		}
		return false
	}
}

// refuse keeps err, unless a parameter was wrong before.
func (p *params) refuse(err error) {
	if p.err == nil && err != nil {
		p.err = badRequest{err}
	}
}

// failed writes the error page of a wrong parameter; it reports whether
// there was one.
func (h *handler) failed(w http.ResponseWriter, p *params) bool {
	if p.err != nil {
		h.fail(w, http.StatusBadRequest, p.err)
		return true
	}
	return false
}

// isDigest reports whether s is a document's SHA-256 in lower-case hex.
func isDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// docURL links to line (0: the top) of a document, on the page holding
// it, with the spans highlighted.
func docURL(sha string, line int, spans []span) string {
	q := url.Values{}
	if line > PageLines {
		q.Set("from", strconv.Itoa((line-1)/PageLines*PageLines+1))
	}
	if len(spans) > 0 {
		q.Set("hl", hlParam(spans))
	}
	u := "/doc/" + sha
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	if line > 0 {
		u += "#L" + strconv.Itoa(line)
	}
	return u
}
