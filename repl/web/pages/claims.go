package pages

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/find"
)

// errNoCheck: no claims check of the file a page names is kept (404).
var errNoCheck = errors.New("no claims check is kept")

// maxRowEvidence is the most evidence lines a claim's row shows; the
// answer's own page (Answer) shows them all.
const maxRowEvidence = 8

// claimsData is the kept claims checks (oldest first) and the rows of
// the one shown (the newest, or ?file=).
type claimsData struct {
	Checks []checkView
	Shown  *checkView
	// ReplayProblem: the shown check did not replay (its rows are shown,
	// without evidence).
	ReplayProblem string
	CanCheck      bool // the server writes: /claims/check takes a file
}

type checkView struct {
	commands.ClaimCheckLine
	Href string // the page of this check
	Rows []rowView
}

// rowView is one claim-verification row: its outcome (the row's class),
// what the claim declared beside what the archive answered, and the
// evidence of that answer.
type rowView struct {
	ClaimID, Outcome, Reason, Rule string
	Claimed, Archive, Question     string
	Doc                            string // the document's SHA-256, "" when none was resolved
	Problem                        string // a row that does not read
	Evidence                       []eventView
	MoreEvidence                   int
	Answer                         string // the page of the answer the claim was compared with
}

// rowOf reads a kept row; a row that does not read is shown as such.
func rowOf(row []byte) rowView {
	v, err := claimrow.ReadRow(row)
	if err != nil {
		return rowView{Outcome: "unreadable", Problem: err.Error()}
	}
	r := rowView{ClaimID: v.Get("claimId").Str, Outcome: v.Get("outcome").Str, Reason: v.Get("reason").Str,
		Rule: v.Get("declaredRule").Str, Claimed: string(claimrow.Canonical(v.Get("declaredValue"))), Archive: "-"}
	res := v.Get("resolved")
	if value := res.Get("evidence").Get("value"); value.Kind != claimrow.Absent {
		r.Archive = string(claimrow.Canonical(value))
	}
	scope := res.Get("scope")
	r.Question = scope.Get("question").Str
	if doc := scope.Get("document").Str; isDigest(doc) {
		r.Doc = doc
	}
	return r
}

// withEvidence adds to each row the evidence of the answer its claim was
// compared with, from the check replayed (db.Archive.ReplayCheck, which
// also requires the kept rows again byte for byte).
func withEvidence(rows []rowView, rep *db.ClaimReport) {
	for i := range rows {
		if i >= len(rep.File.Claims) {
			return
		}
		res := rep.Results[rep.File.Claims[i].DeclaredResult]
		if res == nil || res.Doc == nil {
			continue
		}
		sha, label := res.Doc.SHA256.String(), res.Doc.Label()
		var ev []eventView
		switch {
		case res.Find != nil:
			q, err := find.NewQuery(res.Line.Question)
			if err != nil {
				continue
			}
			for _, l := range groupOf(q, res.Doc, res.Find).Lines {
				ev = append(ev, eventView{SHA256: sha, Label: label, Line: l.Number, Start: l.Start, End: l.End, Span: l.HTML, Href: l.Href})
			}
			rows[i].Answer = "/find?" + url.Values{"doc": {sha}, "terms": {res.Line.Question}}.Encode()
		default:
			ev = answerOf(&db.DocAnswer{Doc: res.Doc, Settlement: res.Settlement, Claim: res.Claim}).Evidence
			rows[i].Answer = "/query?" + url.Values{"doc": {sha}, "question": {res.Line.Question}}.Encode()
		}
		if len(ev) > maxRowEvidence {
			rows[i].MoreEvidence = len(ev) - maxRowEvidence
			ev = ev[:maxRowEvidence]
		}
		rows[i].Evidence = ev
	}
}

func (h *handler) claims(w http.ResponseWriter, r *http.Request) {
	p := paramsOf(r)
	file := p.text("file")
	if file != "" && !isDigest(file) {
		p.refuse(badf("parameter file %.80q is not a claims file's SHA-256 (64 lower-case hex digits)", file))
	}
	if h.failed(w, p) {
		return
	}
	d := claimsData{CanCheck: h.opts.Write != nil}
	if !h.archive(w, "claims", func(a *db.Archive) error {
		checks, err := commands.ClaimsList(a)
		if err != nil {
			return err
		}
		shown := -1
		for i, c := range checks {
			d.Checks = append(d.Checks, checkView{ClaimCheckLine: c, Href: "/claims?file=" + c.FileSHA256})
			if c.FileSHA256 == file || (file == "" && i == len(checks)-1) {
				shown = i
			}
		}
		if shown < 0 {
			if file != "" {
				return fmt.Errorf("%w of the file %s", errNoCheck, file)
			}
			return nil
		}
		c := &d.Checks[shown]
		for _, row := range c.Check.Rows {
			c.Rows = append(c.Rows, rowOf(row))
		}
		d.Shown = c
		rep, err := a.ReplayCheck(c.Check)
		if err != nil {
			d.ReplayProblem = err.Error()
			return nil
		}
		withEvidence(c.Rows, rep)
		return nil
	}) {
		return
	}
	title := "Claims checks"
	if d.Shown != nil {
		title = "Claims check " + d.Shown.Namespace + "/" + d.Shown.RunID
	}
	h.render(w, "claims", page{Title: title, Data: d})
}
