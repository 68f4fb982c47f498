package pages

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
)

// ClaimsCheckPath is the page that checks a claims file: a GET shows the
// form, a POST (with the server's CSRF token) checks and keeps it.
const ClaimsCheckPath = "/claims/check"

// The form's fields: the claims file's text pasted, or the file itself.
const (
	claimsField = "claims"
	fileField   = "file"
)

type claimsFormData struct {
	Claims   string // the pasted text, given back after an error
	CSRF     string
	CanCheck bool
	Problem  string
}

func (h *handler) claimsForm(w http.ResponseWriter, r *http.Request) {
	h.renderClaimsForm(w, r, http.StatusOK, "", "")
}

// renderClaimsForm shows the form, with the problem of a refused file and
// the text that was pasted, so that nothing typed is lost.
func (h *handler) renderClaimsForm(w http.ResponseWriter, r *http.Request, status int, problem, pasted string) {
	d := claimsFormData{Claims: pasted, CanCheck: h.opts.Write != nil, Problem: problem}
	if d.CanCheck && h.opts.CSRF != nil {
		d.CSRF = h.opts.CSRF(r)
	}
	h.render(w, "claims_check", page{Title: "Check a claims file", Status: status, Data: d})
}

// claimsCheck checks the posted claims file as `chronicle claims check
// FILE` does (commands.ClaimsCheck), keeps it, and sends the browser to
// its rows (303, so that reloading the result posts nothing again).
func (h *handler) claimsCheck(w http.ResponseWriter, r *http.Request) {
	if h.opts.Write == nil {
		h.renderClaimsForm(w, r, http.StatusForbidden, "This server is read-only: a claims check keeps its rows in the archive. Start it with `chronicle serve --write`, or run `chronicle claims check FILE`.", "")
		return
	}
	data, pasted, err := postedClaims(r)
	if err != nil {
		h.renderClaimsForm(w, r, http.StatusBadRequest, err.Error(), pasted)
		return
	}
	in := commands.ClaimsCheckIn{Claims: data}
	if err := in.Check(); err != nil {
		h.renderClaimsForm(w, r, http.StatusUnprocessableEntity, "The claims file is refused: "+err.Error(), pasted)
		return
	}
	var out *commands.ClaimsCheckOut
	err = h.opts.Write("claims check", func(a *db.Archive) error {
		var err error
		out, err = commands.ClaimsCheck(a, in, db.ClaimOptions{})
		return err
	})
	switch {
	case errors.Is(err, db.ErrCheckExists):
		h.renderClaimsForm(w, r, http.StatusConflict, err.Error(), pasted)
		return
	case errors.Is(err, claimcheck.ErrFile):
		h.renderClaimsForm(w, r, http.StatusUnprocessableEntity, "The claims file is refused: "+err.Error(), pasted)
		return
	case errors.Is(err, db.ErrLocked):
		h.renderClaimsForm(w, r, http.StatusServiceUnavailable, err.Error()+"; try again when it is done", pasted)
		return
	case err != nil:
		h.fail(w, statusOf(err), err)
		return
	}
	w.Header().Set("Location", "/claims?file="+out.Report.Check.FileSHA256.String())
	w.WriteHeader(http.StatusSeeOther)
}

// postedClaims reads the claims file of a POST: the uploaded file or the
// pasted text, exactly one of them, at most claimcheck.MaxFileBytes. It
// also returns the pasted text, to give back with an error.
func postedClaims(r *http.Request) (data []byte, pasted string, err error) {
	if r.PostForm == nil { // the server parses the form when it checks the CSRF token
		if err := r.ParseMultipartForm(1 << 20); err != nil && !errors.Is(err, http.ErrNotMultipart) {
			return nil, "", fmt.Errorf("the form cannot be read: %w", err)
		}
	}
	pasted = r.PostFormValue(claimsField)
	var uploaded []byte
	if r.MultipartForm != nil && len(r.MultipartForm.File[fileField]) > 0 {
		if len(r.MultipartForm.File[fileField]) > 1 {
			return nil, pasted, errors.New("give one claims file")
		}
		fh := r.MultipartForm.File[fileField][0]
		if fh.Size > claimcheck.MaxFileBytes {
			return nil, pasted, fmt.Errorf("the file %q is %d bytes; a claims file is at most %d", fh.Filename, fh.Size, claimcheck.MaxFileBytes)
		}
		f, err := fh.Open()
		if err != nil {
			return nil, pasted, fmt.Errorf("the file %q cannot be read: %w", fh.Filename, err)
		}
		defer f.Close()
		if uploaded, err = io.ReadAll(io.LimitReader(f, claimcheck.MaxFileBytes+1)); err != nil {
			return nil, pasted, fmt.Errorf("the file %q cannot be read: %w", fh.Filename, err)
		}
	}
	switch {
	case len(uploaded) > 0 && pasted != "":
		return nil, pasted, errors.New("give the claims either as a file or pasted, not both")
	case len(uploaded) > 0:
		return uploaded, pasted, nil
	case pasted != "":
		if len(pasted) > claimcheck.MaxFileBytes {
			return nil, "", fmt.Errorf("the pasted claims are %d bytes; a claims file is at most %d", len(pasted), claimcheck.MaxFileBytes)
		}
		return []byte(pasted), pasted, nil
	}
	return nil, "", errors.New("no claims: choose a claims file or paste its lines")
}
