package repl

import (
	"fmt"

	"chronicle/db"
	"chronicle/engine/canonjson"
	"chronicle/engine/settle"
)

// runEntity lists every event whose subject or object is exactly NAME.
func runEntity(x *ctx) error {
	name := x.p.args[0]
	a, err := x.open(false)
	if err != nil {
		return err
	}
	hits, err := a.Entity(name)
	if err != nil {
		return err
	}
	if x.json() {
		for _, h := range hits {
			fmt.Fprintf(x.out(), "%s\n", entityJSON(&h))
		}
		return nil
	}
	if len(hits) == 0 {
		fmt.Fprintf(x.out(), "no event names %s exactly (`entities PREFIX` lists known names)\n", sanitize(name))
		return nil
	}
	for _, h := range hits {
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
	return nil
}

// entityJSON renders one hit as a JSON line; `evidence` is the SPEC 5.1
// evidence object.
func entityJSON(h *db.EntityHit) []byte {
	e := &h.Event
	var j canonjson.Buf
	j.Raw("{")
	j.Key("document_sha256", true)
	j.Digest(h.Doc.SHA256)
	j.Key("names", false)
	j.Raw(jsonNames(h.Doc.Names))
	j.Key("role", false)
	j.Str(h.Role.String())
	j.Key("predicate", false)
	j.Str(e.Predicate)
	other := e.Object
	if h.Role.String() == "object" {
		other = e.Subject
	}
	j.Key("other", false)
	j.Str(other)
	j.Key("amount", false)
	if e.AmountPresent {
		j.Fraction(e.Amount.Num, e.Amount.Den)
	} else {
		j.Raw("null")
	}
	for _, f := range []struct{ k, v string }{{"currency", e.Currency}, {"time", e.Time}, {"modality", e.Modality}, {"polarity", e.Polarity}, {"status", e.Status}} {
		j.Key(f.k, false)
		j.Str(f.v)
	}
	j.Key("evidence", false)
	settle.AppendEvidence(&j, h.Doc.SHA256, e, string(h.Text))
	j.Raw("}")
	return j.Bytes()
}

// runEntities lists known names with their event counts.
func runEntities(x *ctx) error {
	prefix := ""
	if len(x.p.args) == 1 {
		prefix = x.p.args[0]
	}
	a, err := x.open(false)
	if err != nil {
		return err
	}
	names, err := a.EntityNames(prefix)
	if err != nil {
		return err
	}
	for _, n := range names {
		if x.p.has("json") || x.env.JSON {
			printJSONLine(x.out(), map[string]any{"name": n.Name, "events": n.Events})
			continue
		}
		fmt.Fprintf(x.out(), "%6d  %s\n", n.Events, sanitize(n.Name))
	}
	return nil
}

// runReindex rebuilds the term and entity indexes.
func runReindex(x *ctx) error {
	a, err := x.open(true)
	if err != nil {
		return err
	}
	n, err := a.Reindex()
	if err != nil {
		return err
	}
	fmt.Fprintf(x.out(), "reindexed %d documents in %s\n", n, a.Path())
	return nil
}
