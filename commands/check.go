package commands

import (
	"context"

	"github.com/casper-chronicle/chronicle/db"
)

// Problem is one problem `check` found: its JSON is a `check --json`
// line (fields in the order of their names).
type Problem struct {
	Document string `json:"document,omitempty"` // "" for the archive as a whole
	Problem  string `json:"problem"`
}

// ProblemOf is the Problem of one db.Problem.
func ProblemOf(p db.Problem) Problem { return Problem{Document: p.Doc, Problem: p.Detail} }

// CheckOut is a check that found nothing wrong: its JSON is the last
// `check --json` line.
type CheckOut struct {
	Archive   string `json:"archive"`
	Documents int    `json:"documents"`
	OK        bool   `json:"ok"`
}

// Check re-reads every document (db.Archive.CheckWith: opts says when to
// stop and what progress to show) and calls each with each problem found.
// It returns the problems' number, and the summary when there are none;
// an error ends the check (the problems found before it were given to
// each).
func Check(ctx context.Context, a *db.Archive, opts db.CheckOptions, each func(db.Problem) error) (out *CheckOut, problems int, err error) {
	found, err := a.CheckWith(ctx, opts)
	for _, p := range found {
		if eerr := each(p); eerr != nil {
			return nil, 0, eerr
		}
	}
	if err != nil || len(found) > 0 {
		return nil, len(found), err
	}
	docs, _ := a.Docs()
	return &CheckOut{Archive: a.Path(), Documents: len(docs), OK: true}, 0, nil
}
