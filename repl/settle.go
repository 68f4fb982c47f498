package repl

import (
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
)

// runSettle answers a settlement question across documents: the reasoner
// of `query` over the events of every document (or of the --doc
// documents), in import then source order (db.Archive.Settle). Words of
// QUESTION given as several arguments join with single spaces, so
// `settle Alice Bob` asks "Alice Bob". Like `query` it writes nothing
// unless --keep keeps its receipt (an ARCHIVE-SETTLE db.SetReceipt);
// --receipt FILE writes it, --receipt - prints it.
func runSettle(x *invocation) error {
	in := commands.SettleIn{Question: strings.Join(x.p.args, " "), Documents: x.p.values("doc")}
	if err := in.Check(); err != nil {
		return inputError(err)
	}
	answers, rec, err := answerSet(x, "the question is", in.Question,
		func(a *db.Archive) ([]db.CrossSettlement, *db.SetReceipt, error) {
			out, err := commands.Settle(a, in, true)
			if err != nil {
				return nil, nil, err
			}
			return []db.CrossSettlement{*out.Settlement}, out.Receipt, nil
		},
		func(a *db.Archive) ([]db.CrossSettlement, error) {
			out, err := commands.Settle(a, in, false)
			if err != nil {
				return nil, err
			}
			return []db.CrossSettlement{*out.Settlement}, nil
		})
	if err != nil {
		return err
	}
	c := &answers[0]
	asJSON := x.resultJSON()
	if asJSON {
		x.printSetAnswerJSON(db.SettleResult(c), rec)
	} else if err := x.renderCrossSettlement(c); err != nil {
		return err
	}
	if rec != nil {
		x.showSetReceipt(rec, asJSON)
	}
	return nil
}

// renderCrossSettlement is the readable view of a settlement across
// documents: the status line and notes as for `query`, the documents that
// took part, each counted payment with its document, then every span as
// `name:line  text` ("+" marks the counted payments).
func (x *invocation) renderCrossSettlement(c *db.CrossSettlement) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	w := x.out()
	r := c.Result
	x.renderSettlementHead(r)
	label := func(digest [32]byte) string {
		if d := c.Doc(digest); d != nil {
			return sanitize(d.Label())
		}
		return db.Digest(digest).Short()
	}
	over := fmt.Sprintf("documents #1..#%d", c.UpTo)
	if c.Chosen != nil {
		over = fmt.Sprintf("%d chosen documents", len(c.Chosen))
	}
	parts := c.Participants()
	if len(parts) == 0 {
		fmt.Fprintf(w, "documents: none of %s names the pair\n", over)
		fmt.Fprintln(w, "(no evidence)")
		return nil
	}
	names := make([]string, len(parts))
	for i, d := range parts {
		names[i] = fmt.Sprintf("%s (#%d)", sanitize(d.Label()), d.Seq)
		if from, err := a.Origin(d.SHA256); err != nil {
			return err
		} else if from != nil {
			names[i] = fmt.Sprintf("%s (#%d, %s)", sanitize(d.Label()), d.Seq, originNote(from))
		}
	}
	fmt.Fprintf(w, "documents: %s  (of %s)\n", strings.Join(names, ", "), over)
	for _, e := range r.Evidence {
		if e.Counted {
			fmt.Fprintf(w, "counted: %s %s in %s:%d\n", e.Event.Amount, sanitize(e.Event.Currency), label(e.Document), e.Event.LineStart)
		}
	}
	for _, e := range r.Evidence {
		mark := " "
		if e.Counted {
			mark = "+"
		}
		fmt.Fprintf(w, "%s %s:%d  %s\n", mark, label(e.Document), e.Event.LineStart, sanitize(e.Text))
	}
	return nil
}
