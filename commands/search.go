package commands

import (
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"
	"slices"
)

// FindIn is a lexical search: `find TERMS [--doc DOC] [--limit N]`.
type FindIn struct {
	Terms    string `json:"terms" jsonschema:"search terms (split at spaces and punctuation)"`
	Document string `json:"document,omitempty" jsonschema:"search this document only; default: the whole archive"`
	Limit    int    `json:"limit,omitempty" jsonschema:"across the archive: at most this many documents (default 20)"`
}

// Check checks a search before the archive is opened, as every
// front-end does: the terms are text with at least one term; in one
// document, or when a receipt is issued, they fit in a receipt; the limit
// reads as db.FindLimit. It returns the query across the archive and its
// limit (nil and 0 in one document). inDocument: the search is in
// in.Document (the CLI's --doc, which may be given empty).
func (in FindIn) Check(inDocument, issue bool) (*find.Query, int, error) {
	if err := db.CheckText("TERMS is", in.Terms); err != nil {
		return nil, 0, err
	}
	if _, err := find.Terms(in.Terms); err != nil {
		return nil, 0, err
	}
	if inDocument {
		return nil, 0, db.CheckQuestionSize("the terms are", in.Terms)
	}
	limit, err := db.FindLimit(in.Limit)
	if err != nil {
		return nil, 0, err
	}
	q, err := find.NewQuery(in.Terms)
	if err != nil {
		return nil, 0, err
	}
	if issue {
		if err := db.CheckQuestionSize("the terms are", in.Terms); err != nil {
			return nil, 0, err
		}
	}
	return q, limit, nil
}

// FindOut is a search's result: in one document its answer (the
// canonical line, the receipt), across the archive the documents that
// match, best first (db.FindHitJSON is each one's `find --json` line),
// and the set receipt when one was issued.
type FindOut struct {
	Answer  *db.DocAnswer
	Hits    []db.FindHit
	Receipt *db.SetReceipt
}

// Find searches in.Document, or the archive; across the archive issue
// issues the set receipt (nothing is kept: the caller keeps it).
func Find(a *db.Archive, in FindIn, issue bool) (*FindOut, error) {
	q, limit, err := in.Check(in.Document != "", issue)
	if err != nil {
		return nil, err
	}
	if in.Document != "" {
		d, err := a.Resolve(in.Document)
		if err != nil {
			return nil, err
		}
		ans, err := a.Answer(d, db.KindFind, in.Terms)
		if err != nil {
			return nil, err
		}
		return &FindOut{Answer: ans}, nil
	}
	out := &FindOut{}
	if issue {
		out.Hits, out.Receipt, err = a.IssueFind(q, limit)
	} else {
		out.Hits, err = a.Find(q, limit)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EntityIn is an exact entity name: `entity NAME`.
type EntityIn struct {
	Name string `json:"name" jsonschema:"the exact subject or object name of events, e.g. Saud"`
}

// Check checks the name before the archive is opened
// (db.CheckEntityName; with a receipt, it fits in one).
func (in EntityIn) Check(issue bool) error {
	if err := db.CheckEntityName(in.Name); err != nil {
		return err
	}
	if issue {
		return db.CheckQuestionSize("the name is", in.Name)
	}
	return nil
}

// EntityOut is every event naming the entity, in import then source
// order (db.EntityHitJSON is each one's `entity --json` line), and the
// set receipt when one was issued.
type EntityOut struct {
	Hits    []db.EntityHit
	Receipt *db.SetReceipt
}

// EntityPageOut is a page of the events naming an entity: every event,
// from the entity index alone (their Doc is nil), and the page's, each
// with its document's record.
type EntityPageOut struct {
	Events []db.EntityHit
	Page   []db.EntityHit
}

// EntityPage looks the name up and reads the records of the documents of
// events from to from+n-1 (0-based) only: a page of a name with thousands
// of events reads a page of records.
func EntityPage(a *db.Archive, in EntityIn, from, n int) (*EntityPageOut, error) {
	if err := in.Check(false); err != nil {
		return nil, err
	}
	events, err := a.EntityEvents(in.Name)
	if err != nil {
		return nil, err
	}
	from = min(max(from, 0), len(events))
	page := slices.Clone(events[from:min(from+max(n, 0), len(events))])
	if err := a.AttachDocs(page); err != nil {
		return nil, err
	}
	return &EntityPageOut{Events: events, Page: page}, nil
}

// Entity looks the name up; issue issues the set receipt (nothing is
// kept: the caller keeps it).
func Entity(a *db.Archive, in EntityIn, issue bool) (*EntityOut, error) {
	if err := in.Check(issue); err != nil {
		return nil, err
	}
	out := &EntityOut{}
	var err error
	if issue {
		out.Hits, out.Receipt, err = a.IssueEntity(in.Name)
	} else {
		out.Hits, err = a.Entity(in.Name)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
