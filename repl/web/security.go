package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
)

// CSP is the Content-Security-Policy of every response: nothing but the
// server's own scripts, styles and images, forms posting to itself, no
// frames.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Error kinds of the server itself (the "error" field of its JSON errors;
// a command's errors keep the CLI's kinds).
const (
	kindUnauthorized = "unauthorized" // 401: no token
	kindForbidden    = "forbidden"    // 403: a wrong token, a missing CSRF token, a cross-site request
	kindMisdirected  = "misdirected"  // 421: a Host that is not this server's
	kindNotFound     = "not_found"    // 404: no such API command
	kindMethod       = "method"       // 405
	kindReadOnly     = "read_only"    // 403: a write on a server started without --write
	kindBadRequest   = "usage"        // 400: a parameter the API refuses (the CLI's kind for a bad command line)
	kindInternal     = "internal"     // 500: a bug of the server
	csrfField        = "csrf"         // the form field of the CSRF token
	csrfHeader       = "X-CSRF-Token" // its header
	tokenParam       = "token"        // the query parameter of the access token
	exitHeader       = "X-Chronicle-Exit"
)

// serveHTTP is every request: headers, Host, token, CSRF, then the API
// or the pages.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	defer func() {
		if v := recover(); v != nil {
			s.fail(w, r, http.StatusInternalServerError, kindInternal, "the server failed on this request")
		}
	}()
	if !s.hostOK(r.Host) {
		s.fail(w, r, http.StatusMisdirectedRequest, kindMisdirected,
			fmt.Sprintf("the Host %q is not this server's (127.0.0.1, localhost or [::1] with its port)", r.Host))
		return
	}
	if !s.authorize(w, r) {
		return
	}
	h.Set(csrfHeader, s.csrf)
	if r.Method == http.MethodPost && !s.sameOrigin(w, r) {
		return
	}
	if r.URL.Path == "/api" || strings.HasPrefix(r.URL.Path, "/api/") {
		s.api(w, r)
		return
	}
	s.pages.ServeHTTP(w, r)
}

// hostOK is the DNS rebinding check: the Host header must name the
// loopback (127.0.0.1, localhost, [::1], any 127.x address) with the
// listening port (any port before Serve, as under httptest).
func (s *Server) hostOK(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || !commands.LoopbackHost(host) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.port == "" || port == s.port
}

// authorize checks the access token: ?token= (which sets the cookie and
// redirects to the same URL without it), Authorization: Bearer, or the
// cookie. It answers the request itself when it returns false.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	if vals, ok := q[tokenParam]; ok {
		if len(vals) != 1 || !equal(vals[0], s.token) {
			s.fail(w, r, http.StatusForbidden, kindForbidden, "wrong access token; open the URL that `chronicle serve` printed")
			return false
		}
		http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q.Del(tokenParam)
		path := "/" + strings.TrimLeft(r.URL.EscapedPath(), "/") // never //host: no open redirect
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
		w.Header().Set("Location", path)
		w.WriteHeader(http.StatusSeeOther)
		return false
	}
	if auth := r.Header.Get("Authorization"); auth != "" {
		bearer, ok := strings.CutPrefix(auth, "Bearer ")
		if !ok || !equal(strings.TrimSpace(bearer), s.token) {
			s.fail(w, r, http.StatusForbidden, kindForbidden, "wrong access token in Authorization (Bearer TOKEN)")
			return false
		}
		return true
	}
	c, err := r.Cookie(s.cookie)
	if err != nil {
		s.fail(w, r, http.StatusUnauthorized, kindUnauthorized, "no access token; open the URL that `chronicle serve` printed, or send Authorization: Bearer TOKEN")
		return false
	}
	if !equal(c.Value, s.token) {
		s.fail(w, r, http.StatusForbidden, kindForbidden, "wrong access token in the cookie; open the URL that `chronicle serve` printed")
		return false
	}
	return true
}

// sameOrigin checks a POST: an Origin or Sec-Fetch-Site, when sent, must
// be this server's, and the CSRF token must come with it (the form field
// or the header).
func (s *Server) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		s.fail(w, r, http.StatusForbidden, kindForbidden, fmt.Sprintf("a cross-site POST (Origin %q) is refused", o))
		return false
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		s.fail(w, r, http.StatusForbidden, kindForbidden, fmt.Sprintf("a cross-site POST (Sec-Fetch-Site %q) is refused", site))
		return false
	}
	token := r.Header.Get(csrfHeader)
	if token == "" {
		r.Body = http.MaxBytesReader(w, r.Body, bodyLimit(r))
		// A form with a file (the claims page's) is multipart: its
		// fields are read with the parts, files over the memory bound
		// spilling to temporary files the server removes after the
		// request.
		// A form's pasted text counts against the memory bound (plus the
		// 10 MB the multipart reader adds for values), so a claims file
		// pasted whole, up to its limit, reads as one would upload it.
		err := r.ParseMultipartForm(claimcheck.MaxFileBytes)
		if errors.Is(err, http.ErrNotMultipart) {
			err = r.ParseForm()
		}
		if err != nil {
			s.fail(w, r, http.StatusBadRequest, kindBadRequest, "the form cannot be read: "+err.Error())
			return false
		}
		token = r.PostForm.Get(csrfField)
	}
	if token == "" || !equal(token, s.csrf) {
		s.fail(w, r, http.StatusForbidden, kindForbidden, "a POST needs the CSRF token (the form field csrf or the X-CSRF-Token header)")
		return false
	}
	return true
}

// maxBody bounds a POST's form, but a claims check's (bodyLimit).
const maxBody = 1 << 20

// bodyLimit bounds the form of r: a claims file may hold up to
// claimcheck.MaxFileBytes, percent-encoded in the API's form.
func bodyLimit(r *http.Request) int64 {
	switch {
	case r.URL.Path == APIPrefix+ClaimsCheck:
		return 3*claimcheck.MaxFileBytes + maxBody
	case !strings.HasPrefix(r.URL.Path, "/api/"):
		// The one form of the pages that posts checks a claims file,
		// uploaded or pasted (each at most MaxFileBytes); the pages
		// answer any other POST 405.
		return 2*claimcheck.MaxFileBytes + maxBody
	}
	return maxBody
}

// fail answers with an error of the server: a JSON error object under
// /api/ (the shape of the CLI's: code, error, message), a line of text
// elsewhere.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, kind, msg string) {
	if !strings.HasPrefix(r.URL.Path, "/api/") {
		textError(w, status, fmt.Sprintf("%d %s: %s", status, http.StatusText(status), msg))
		return
	}
	writeJSONError(w, status, map[string]any{"code": 2, "error": kind, "status": status, "message": "chronicle serve: " + msg})
}

func writeJSONError(w http.ResponseWriter, status int, j map[string]any) {
	b, _ := json.Marshal(j)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func textError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, msg+"\n")
}

// query parses the raw query strictly: a malformed escape is an error
// (url.Query drops it quietly).
func query(r *http.Request) (url.Values, error) {
	return url.ParseQuery(r.URL.RawQuery)
}
