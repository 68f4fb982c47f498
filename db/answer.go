package db

import (
	"crypto/sha256"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// DocAnswer is the canonical answer to one question on one document, with
// the archive receipt that binds it (issued, not kept).
type DocAnswer struct {
	Doc        *Document
	Settlement *settle.Settlement // one of these three
	Claim      *settle.Claim
	Find       *find.Result
	JSON       []byte // the canonical result, as the original tool prints it
	Receipt    *Receipt
}

// Answer answers question on d as query (KindQuery: a settlement or
// @claim question, over the checked evidence spans) or find --doc
// (KindFind: terms, over the whole checked source) do, and issues the
// receipt. Every front-end (CLI, REPL, claims checks, MCP) answers through
// it, so they give the same bytes.
func (a *Archive) Answer(d *Document, kind ReceiptKind, question string) (*DocAnswer, error) {
	load := a.LoadEvidence
	if kind == KindFind {
		load = a.Load
	}
	return answerOn(d, kind, question, load)
}

// answerOn is Answer with the store loader given (a check caches stores).
func answerOn(d *Document, kind ReceiptKind, question string, load func(*Document) (*engine.Store, error)) (*DocAnswer, error) {
	s, err := load(d)
	if err != nil {
		return nil, err
	}
	ans := &DocAnswer{Doc: d}
	if kind == KindFind {
		if ans.Find, err = find.Search(s, question); err != nil {
			return nil, err
		}
		ans.JSON = ans.Find.JSON()
	} else {
		r, err := settle.Evaluate(s, question)
		if err != nil {
			return nil, err
		}
		switch r := r.(type) {
		case *settle.Settlement:
			ans.Settlement = r
		case *settle.Claim:
			ans.Claim = r
		}
		ans.JSON = r.JSON()
	}
	ans.Receipt = &Receipt{Kind: kind, Document: d.SHA256, Store: d.StoreSHA256, Question: question, Result: sha256.Sum256(ans.JSON)}
	return ans, nil
}
