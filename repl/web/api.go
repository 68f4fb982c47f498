package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/commands"
)

// APIPrefix is the path of the API's commands: APIPrefix + NAME.
const APIPrefix = "/api/v1/"

// NotServed names the read commands of the table that the API does not
// serve, and why.
var NotServed = map[string]string{
	"verify": "it reads a receipt FILE by its path on the server's machine; the API names no files (a request could make the server read any file), so verify runs as `chronicle verify`",
	"log":    "`log --sign` writes with the user's private key and `log verify` reads a checkpoint FILE on the server's machine; checkpoints are saved and compared with `chronicle log`",
	"prove":  "it names a receipt or claims FILE on the server's machine, or writes the proof to one; proofs are written with `chronicle prove`",
}

// Served reports whether the API serves the command: every read command
// of the table (commands.Spec.Read) but those of NotServed.
func Served(spec *commands.Spec) bool {
	if spec == nil {
		return false
	}
	_, not := NotServed[spec.Name]
	return spec.Read && !not
}

// ArgNames are the query parameters of a command's positional arguments:
// the words of its synopsis in lower case, without brackets and dots
// ("DOC [FROM[-TO]]" → doc, from-to; "TERMS..." → terms).
func ArgNames(spec *commands.Spec) []string {
	var out []string
	for _, w := range strings.Fields(spec.Args) {
		w = strings.NewReplacer("[", "", "]", "", "...", "").Replace(w)
		out = append(out, strings.ToLower(w))
	}
	return out
}

// serverFlags are the global flags the server sets itself.
var serverFlags = map[string]string{
	"db":   "the server's archive is the one `chronicle serve` was given",
	"wait": "the server's --wait applies",
	"json": "the API always answers JSON",
	"text": "the API always answers JSON",
}

// maxQuery bounds a request's parameters.
const maxQuery = 256 << 10

// badParam is a parameter the API refuses (400), naming it.
type badParam struct {
	param, msg string
	status     int
	kind       string
}

// Argv builds the command line of an API request for spec from its
// parameters: flags as --name=value (repeated for a repeated flag), then
// "--" and the positional arguments in synopsis order. post tells whether
// the request is a POST (the only way to write).
func Argv(spec *commands.Spec, params url.Values) ([]string, *badParam) {
	names := ArgNames(spec)
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !utf8.ValidString(k) {
			return nil, &badParam{param: strings.ToValidUTF8(k, "\uFFFD"), msg: "a parameter name is not valid UTF-8"}
		}
		for _, v := range params[k] {
			if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
				return nil, &badParam{param: k, msg: fmt.Sprintf("the value of %s is not valid UTF-8 text (or holds a NUL byte)", k)}
			}
		}
	}
	var flags []string
	for _, k := range keys {
		if slices.Contains(names, k) {
			continue
		}
		if why, ok := serverFlags[k]; ok {
			return nil, &badParam{param: k, msg: fmt.Sprintf("parameter %s is not taken: %s", k, why)}
		}
		var f *commands.Flag
		for i := range spec.Flags {
			if spec.Flags[i].Name == k {
				f = &spec.Flags[i]
			}
		}
		if f == nil {
			return nil, &badParam{param: k, msg: fmt.Sprintf("unknown parameter %q; %s takes %s", k, spec.Name, paramList(spec))}
		}
		vals := params[k]
		if len(vals) > 1 && !f.Repeat {
			return nil, &badParam{param: k, msg: fmt.Sprintf("parameter %s given %d times", k, len(vals))}
		}
		for _, v := range vals {
			if f.Value == "" {
				switch v {
				case "", "1", "true", "on":
					flags = append(flags, "--"+k)
				case "0", "false", "off":
				default:
					return nil, &badParam{param: k, msg: fmt.Sprintf("parameter %s is a switch: give %s=true or leave it out, not %q", k, k, v)}
				}
				continue
			}
			if k == commands.FlagReceipt.Name && v != "-" {
				return nil, &badParam{param: k, msg: "the server writes no files: receipt=- puts the receipt in the answer"}
			}
			flags = append(flags, "--"+k+"="+v)
		}
	}
	var args []string
	missing := ""
	for i, n := range names {
		vals := params[n]
		if len(vals) == 0 {
			if missing == "" {
				missing = n
			}
			continue
		}
		if missing != "" {
			return nil, &badParam{param: missing, msg: fmt.Sprintf("parameter %s is missing (before %s)", missing, n)}
		}
		if len(vals) > 1 && !(spec.Max == commands.Many && i == len(names)-1) {
			return nil, &badParam{param: n, msg: fmt.Sprintf("parameter %s given %d times", n, len(vals))}
		}
		args = append(args, vals...)
	}
	return append(append(append([]string{spec.Name}, flags...), "--"), args...), nil
}

// paramList is the parameters a command takes, for an error.
func paramList(spec *commands.Spec) string {
	all := ArgNames(spec)
	for _, f := range spec.Flags {
		all = append(all, f.Name)
	}
	if len(all) == 0 {
		return "no parameters"
	}
	return strings.Join(all, ", ")
}

// statusOf maps a kind of the CLI's JSON errors (repl/machine.go) to the
// HTTP status of the API (README.md, "Status codes").
var statusOf = map[string]int{
	"usage":              http.StatusBadRequest,
	"ambiguous_document": http.StatusBadRequest,
	"no_such_document":   http.StatusNotFound,
	"no_such_file":       http.StatusNotFound,
	"too_large":          http.StatusRequestEntityTooLarge,
	"exists":             http.StatusConflict,
	"busy":               http.StatusServiceUnavailable,
	"interrupted":        http.StatusServiceUnavailable,
	"no_archive":         http.StatusServiceUnavailable,
	"damaged":            http.StatusInternalServerError,
	"not_archive":        http.StatusInternalServerError,
	"newer_schema":       http.StatusInternalServerError,
	"needs_upgrade":      http.StatusInternalServerError,
	"not_regular_file":   http.StatusInternalServerError,
	"permission":         http.StatusInternalServerError,
	// A failure of another kind is the command's on what it was given
	// (a claims file it cannot read, …): the archive's own are above.
	"failure": http.StatusUnprocessableEntity,
	// Verdicts: the command printed its answer, which is the body.
	"invalid":        http.StatusOK,
	"unsupported":    http.StatusOK,
	"problems_found": http.StatusOK,
}

// Status is the HTTP status of a CLI error kind (500 for a kind it does
// not know).
func Status(kind string) int {
	if s, ok := statusOf[kind]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// api answers /api/v1/NAME.
func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, APIPrefix)
	if name == ClaimsCheck {
		s.claimsCheck(w, r)
		return
	}
	spec := commands.Lookup(name)
	if !ok || spec == nil || !Served(spec) {
		msg := fmt.Sprintf("no API command at %q; the API serves %s at %sCOMMAND", r.URL.Path, strings.Join(ServedNames(), ", "), APIPrefix)
		if why, not := NotServed[name]; not && ok {
			msg = fmt.Sprintf("%s is not served: %s", name, why)
		}
		if spec != nil && !spec.Read && ok {
			msg = fmt.Sprintf("%s is not served: the API serves the commands that read the archive (%s)", name, strings.Join(ServedNames(), ", "))
		}
		s.fail(w, r, http.StatusNotFound, kindNotFound, msg)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, HEAD, POST")
		s.fail(w, r, http.StatusMethodNotAllowed, kindMethod, r.Method+" is not served: GET reads, POST (with the CSRF token) writes")
		return
	}
	if len(r.URL.RawQuery) > maxQuery {
		s.fail(w, r, http.StatusRequestURITooLong, kindBadRequest, "the query is too long")
		return
	}
	params, err := query(r)
	if err != nil {
		s.failParam(w, spec, "", "the query cannot be read: "+err.Error(), http.StatusBadRequest, kindBadRequest)
		return
	}
	if r.Method == http.MethodPost {
		if r.PostForm == nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
			if err := r.ParseForm(); err != nil {
				s.failParam(w, spec, "", "the form cannot be read: "+err.Error(), http.StatusBadRequest, kindBadRequest)
				return
			}
		}
		for k, vs := range r.PostForm {
			params[k] = append(params[k], vs...)
		}
		params.Del(csrfField)
	}
	argv, bad := Argv(spec, params)
	if bad != nil {
		s.failParam(w, spec, bad.param, bad.msg, http.StatusBadRequest, kindBadRequest)
		return
	}
	if slices.Contains(argv, "--"+commands.FlagKeep.Name) {
		switch {
		case !s.opts.Write:
			s.failParam(w, spec, commands.FlagKeep.Name, "this server is read-only: keeping a receipt writes the archive (start it with `chronicle serve --write`)", http.StatusForbidden, kindReadOnly)
			return
		case r.Method != http.MethodPost:
			w.Header().Set("Allow", "POST")
			s.failParam(w, spec, commands.FlagKeep.Name, "keep writes the archive: send it as a POST with the CSRF token", http.StatusMethodNotAllowed, kindMethod)
			return
		}
	}
	s.run(w, r, spec, argv, "")
}

// run runs argv (the command's name first) on the server's archive and
// answers what it printed; a temporary file the server wrote for the
// request (tmp, "" for none) is named "claims" in an error.
func (s *Server) run(w http.ResponseWriter, r *http.Request, spec *commands.Spec, argv []string, tmp string) {
	argv = append(argv[:1], append([]string{"--json", "--db=" + s.opts.DBPath, "--wait=" + s.opts.Wait.String()}, argv[1:]...)...)
	var out, errOut bytes.Buffer
	code := s.opts.Exec(r.Context(), argv, &out, &errOut)
	w.Header().Set(exitHeader, fmt.Sprint(code))
	if code == 0 {
		writeBody(w, http.StatusOK, out.Bytes())
		return
	}
	var e struct {
		Error string `json:"error"`
	}
	line := bytes.TrimSpace(lastLine(errOut.Bytes()))
	if tmp != "" {
		line = bytes.ReplaceAll(line, []byte(tmp), []byte(claimsParam))
	}
	if json.Unmarshal(line, &e) != nil || e.Error == "" {
		s.fail(w, r, http.StatusInternalServerError, kindInternal, fmt.Sprintf("%s ended with exit code %d and no JSON error", spec.Name, code))
		return
	}
	status := Status(e.Error)
	if status == http.StatusOK && out.Len() > 0 {
		writeBody(w, status, out.Bytes())
		return
	}
	if status == http.StatusOK {
		status = http.StatusUnprocessableEntity
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeBody(w, status, append(line, '\n'))
}

// failParam is a 4xx error about a request's parameters, in the shape of
// the CLI's JSON errors naming the command (and the parameter).
func (s *Server) failParam(w http.ResponseWriter, spec *commands.Spec, param, msg string, status int, kind string) {
	j := map[string]any{"code": 2, "error": kind, "command": spec.Name, "status": status,
		"message": fmt.Sprintf("chronicle %s: %s", spec.Name, msg)}
	if param != "" {
		j["param"] = param
	}
	writeJSONError(w, status, j)
}

// writeBody writes what the command printed: application/json for one
// JSON line, application/x-ndjson (JSON Lines) for any other number.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	ct := "application/x-ndjson"
	if bytes.Count(body, []byte("\n")) == 1 && bytes.HasSuffix(body, []byte("\n")) {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	// The whole body is known: its length spares the chunked encoding of
	// a large answer (an entity's 3.8 MB).
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func lastLine(b []byte) []byte {
	b = bytes.TrimRight(b, "\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// ServedNames lists the commands the API serves, in the table's order.
func ServedNames() []string {
	var out []string
	for i := range commands.Table {
		if Served(&commands.Table[i]) {
			out = append(out, commands.Table[i].Name)
		}
	}
	return out
}

// ClaimsCheck is the API's `claims check FILE` (APIPrefix + ClaimsCheck):
// a POST with the CSRF token, on a server started with --write (it keeps
// the check and its rows), whose parameter claims is the claims file's
// text. The answer is what `claims check FILE --json` prints.
const ClaimsCheck = "claims/check"

// claimsParam is the parameter of ClaimsCheck.
const claimsParam = "claims"

// claimsCheck answers ClaimsCheck: the text is written to a private
// temporary file for the command, removed after it.
func (s *Server) claimsCheck(w http.ResponseWriter, r *http.Request) {
	spec := commands.Lookup("claims")
	switch {
	case !s.opts.Write:
		s.failParam(w, spec, "", "this server is read-only: a claims check keeps its rows in the archive (start it with `chronicle serve --write`)", http.StatusForbidden, kindReadOnly)
		return
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", "POST")
		s.failParam(w, spec, "", "a claims check writes the archive: send it as a POST with the CSRF token", http.StatusMethodNotAllowed, kindMethod)
		return
	}
	if r.PostForm == nil {
		r.Body = http.MaxBytesReader(w, r.Body, bodyLimit(r))
	}
	if err := r.ParseForm(); err != nil {
		s.failParam(w, spec, "", "the form cannot be read: "+err.Error(), http.StatusBadRequest, kindBadRequest)
		return
	}
	for k := range r.Form {
		if k != claimsParam && k != csrfField {
			s.failParam(w, spec, k, fmt.Sprintf("unknown parameter %q; a claims check takes %s (the claims file's text)", k, claimsParam), http.StatusBadRequest, kindBadRequest)
			return
		}
	}
	if len(r.Form[claimsParam]) != 1 {
		s.failParam(w, spec, claimsParam, "a claims check takes the claims file's text once as "+claimsParam, http.StatusBadRequest, kindBadRequest)
		return
	}
	dir, err := os.MkdirTemp("", "chronicle-serve-")
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, kindInternal, "cannot make a temporary file for the claims")
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "claims.jsonl")
	if err := os.WriteFile(path, []byte(r.Form[claimsParam][0]), 0o600); err != nil {
		s.fail(w, r, http.StatusInternalServerError, kindInternal, "cannot write a temporary file for the claims")
		return
	}
	s.run(w, r, spec, []string{spec.Name, "--", "check", path}, path)
}
