package repl

import (
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/repl/shellwords"
)

// runEntity lists every event whose subject or object is exactly NAME. It
// is read-only unless --receipt asks for a receipt, which binds the
// documents the lookup ran over (db.SetReceipt) and is kept in the archive.
func runEntity(x *invocation) error {
	name := x.p.args[0]
	// NAME is one field of a record: checked as claim fields are.
	in := commands.EntityIn{Name: name}
	if err := in.Check(false); err != nil {
		return inputError(err)
	}
	hits, rec, err := answerSet(x, "the name is", name,
		func(a *db.Archive) ([]db.EntityHit, *db.SetReceipt, error) {
			out, err := commands.Entity(a, in, true)
			if err != nil {
				return nil, nil, err
			}
			return out.Hits, out.Receipt, nil
		},
		func(a *db.Archive) ([]db.EntityHit, error) {
			out, err := commands.Entity(a, in, false)
			if err != nil {
				return nil, err
			}
			return out.Hits, nil
		})
	if err != nil {
		return err
	}
	printSetAnswer(x, hits, rec, db.EntityHitJSON,
		func() {
			fmt.Fprintf(x.out(), "no event names %s exactly%s (`entities PREFIX` lists known names)\n", sanitize(name), x.nearEntityNames(name))
		},
		x.renderEntityHit)
	if !x.resultJSON() {
		noteOrigins(x, hits)
		return x.noteCrossDocumentDebts(name, hits)
	}
	return nil
}

// noteOrigins names, after the readable view of an entity, the original
// of each derived document among the hits, once each.
func noteOrigins(x *invocation, hits []db.EntityHit) {
	seen := map[db.Digest]bool{}
	for _, h := range hits {
		if h.From == nil || seen[h.Document] {
			continue
		}
		seen[h.Document] = true
		fmt.Fprintf(x.out(), "%s: %s\n", sanitize(h.Doc.Label()), originNote(h.From))
	}
}

// nearEntityNames is "; did you mean X?" for the known entity names
// nearest to name (Alice for alice), or "" (also when the names cannot be
// read: the answer itself was complete).
func (x *invocation) nearEntityNames(name string) string {
	a, err := x.open(false)
	if err != nil {
		return ""
	}
	known, err := a.EntityNames("")
	if err != nil {
		return ""
	}
	names := make([]string, len(known))
	for i, k := range known {
		names[i] = k.Name
	}
	return didYouMean(name, names, func(n string) string { return sanitize(n) })
}

// noteCrossDocumentDebts says, after the readable view of an entity, which
// of the debts it takes part in (as borrower or lender) are settled from
// the events of several documents, and how to ask about them.
func (x *invocation) noteCrossDocumentDebts(name string, hits []db.EntityHit) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	debts, err := commands.DebtsOf(a, hits)
	if err != nil {
		return err
	}
	for _, d := range debts {
		if len(d.Documents) < 2 {
			continue
		}
		labels := make([]string, len(d.Documents))
		for k, doc := range d.Documents {
			labels[k] = sanitize(doc.Label())
		}
		fmt.Fprintf(x.out(), "note: %s takes part in the debt of %s to %s, recorded across %d documents (%s): `settle %s` settles it across them\n",
			sanitize(name), sanitize(d.Borrower), sanitize(d.Lender), len(labels), strings.Join(labels, ", "), shellwords.Quote(d.Question))
	}
	return nil
}

// renderEntityHit prints one event naming the entity: `name:line  role
// predicate other  amount  modality/polarity/status`, then the evidence.
func (x *invocation) renderEntityHit(h *db.EntityHit) {
	e := &h.Event
	other := e.Object
	if h.Role.String() == "object" {
		other = e.Subject
	}
	amount := "-"
	if e.AmountPresent {
		amount = e.Amount.String() + " " + e.Currency
	}
	fmt.Fprintf(x.out(), "%s:%d  %-7s %s %s  %s  %s/%s/%s\n    %s\n", sanitize(h.Doc.Label()), e.LineStart, h.Role,
		e.Predicate, sanitize(other), sanitize(amount), sanitize(e.Modality), sanitize(e.Polarity), sanitize(e.Status), sanitize(string(h.Text)))
}

// runEntities lists known names with their event counts.
func runEntities(x *invocation) error {
	prefix := ""
	if len(x.p.args) == 1 {
		prefix = x.p.args[0]
	}
	a, err := x.open(false)
	if err != nil {
		return err
	}
	names, err := commands.Entities(a, commands.EntitiesIn{Prefix: prefix})
	if err != nil {
		return err
	}
	if len(names) == 0 && !x.resultJSON() {
		// Said on the readable view only, as `entity` says it: the JSON
		// view of no names is no lines.
		if prefix == "" {
			fmt.Fprintln(x.out(), "no entity names: no document has events yet")
		} else {
			fmt.Fprintf(x.out(), "no entity name starts with %s (`entities` lists every name)\n", sanitize(prefix))
		}
		return nil
	}
	for _, n := range names {
		if x.p.has("json") || x.env.JSON {
			printJSONLine(x.out(), n)
			continue
		}
		fmt.Fprintf(x.out(), "%6d  %s\n", n.Events, sanitize(n.Name))
	}
	return nil
}
