package commands

import (
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// Debt is one debt an entity takes part in, as borrower or lender: the
// question that settles it (`settle QUESTION`), and the documents whose
// events the settlement cites, in the order it cites them.
type Debt struct {
	Borrower, Lender string
	Question         string
	Documents        []*db.Document
}

// DebtsOf finds the debts in hits (an entity's events): each distinct
// borrower and lender of a BORROWED_FROM event, settled across the
// archive to learn which documents record it. The question is in plain
// words when both names are plain ("Did A repay B?"), else the selector
// form the reasoner reads exactly.
func DebtsOf(a *db.Archive, hits []db.EntityHit) ([]Debt, error) {
	var out []Debt
	seen := map[[2]string]bool{}
	for _, h := range hits {
		e := &h.Event
		pair := [2]string{e.Subject, e.Object}
		if e.Predicate != engine.PredBorrowedFrom || seen[pair] {
			continue
		}
		seen[pair] = true
		question := settle.SelectorQuestion(pair[0], pair[1])
		c, err := a.Settle(question, nil)
		if err != nil {
			return nil, err
		}
		if settle.PlainName(pair[0]) && settle.PlainName(pair[1]) {
			question = "Did " + pair[0] + " repay " + pair[1] + "?"
		}
		d := Debt{Borrower: pair[0], Lender: pair[1], Question: question}
		took := map[[32]byte]bool{}
		for _, ev := range c.Result.Evidence {
			if doc := c.Doc(ev.Document); doc != nil && !took[ev.Document] {
				took[ev.Document] = true
				d.Documents = append(d.Documents, doc)
			}
		}
		out = append(out, d)
	}
	return out, nil
}
