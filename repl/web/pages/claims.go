package pages

import (
	"net/http"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
)

// claimsData is the kept claims checks, newest last, each with its rows.
type claimsData struct {
	Checks []checkView
}

type checkView struct {
	commands.ClaimCheckLine
	Rows []rowView
}

// rowView is one claim-verification row: its outcome (the row's class)
// and what the claim declared beside what the archive answered.
type rowView struct {
	ClaimID, Outcome, Reason, Rule string
	Claimed, Archive, Question     string
	Doc                            string // the document's SHA-256, "" when none was resolved
	Problem                        string // a row that does not read
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

func (h *handler) claims(w http.ResponseWriter, r *http.Request) {
	var d claimsData
	if !h.archive(w, "claims", func(a *db.Archive) error {
		checks, err := commands.ClaimsList(a)
		for _, c := range checks {
			cv := checkView{ClaimCheckLine: c}
			for _, row := range c.Check.Rows {
				cv.Rows = append(cv.Rows, rowOf(row))
			}
			d.Checks = append(d.Checks, cv)
		}
		return err
	}) {
		return
	}
	h.render(w, "claims", page{Title: "Claims checks", Data: d})
}
