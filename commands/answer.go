package commands

import (
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// QueryIn is a question on one document: `query DOC QUESTION`.
type QueryIn struct {
	Document string `json:"document" jsonschema:"a document name or at least 8 hex digits of its SHA-256"`
	Question string `json:"question" jsonschema:"a debt-settlement question such as 'Did Alice repay Bob?', or a literal claim '@claim<TAB>Subject<TAB>Predicate<TAB>Object'"`
}

// Check checks the question before the archive is opened: text that a
// receipt carries.
func (in QueryIn) Check() error { return db.CheckQuestion("the question is", in.Question) }

// Query answers the question on the document (db.Archive.Answer):
// nothing is written; the caller keeps the receipt if it must.
func Query(a *db.Archive, in QueryIn) (*db.DocAnswer, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	d, err := a.Resolve(in.Document)
	if err != nil {
		return nil, err
	}
	return a.Answer(d, db.KindQuery, in.Question)
}

// ClaimIn is a literal claim on one document: `claim DOC S P O`.
type ClaimIn struct {
	Document                   string
	Subject, Predicate, Object string
}

// Query is the claim as the query it is ('@claim<TAB>S<TAB>P<TAB>O'),
// its fields checked (db.CheckClaimFields); the query's own check
// follows.
func (in ClaimIn) Query() (QueryIn, error) {
	if err := db.CheckClaimFields(in.Subject, in.Predicate, in.Object); err != nil {
		return QueryIn{}, err
	}
	return QueryIn{Document: in.Document, Question: settle.ClaimQuestion(in.Subject, in.Predicate, in.Object)}, nil
}

// SettleIn is a settlement question across documents: `settle QUESTION
// [--doc DOC]...`.
type SettleIn struct {
	Question  string   `json:"question" jsonschema:"a debt-settlement question such as 'Did Layla repay Omar?'"`
	Documents []string `json:"documents,omitempty" jsonschema:"settle over these documents only (names or hash prefixes); default: every document"`
}

// Check checks the question before the archive is opened: text, not a
// claim (a claim is asked of one document), and one a receipt carries.
func (in SettleIn) Check() error {
	if err := db.CheckText("the question is", in.Question); err != nil {
		return err
	}
	if settle.IsClaim(in.Question) {
		return db.InputErrorf("settle answers settlement questions; ask a claim with `claim DOC S P O` or `query DOC QUESTION`")
	}
	return db.CheckQuestionSize("the question is", in.Question)
}

// SettleOut is a settlement across documents and, when issued, its set
// receipt (db.SettleResult is its canonical line).
type SettleOut struct {
	Settlement *db.CrossSettlement
	Receipt    *db.SetReceipt
}

// Settle answers the question over in.Documents (every document when
// none); issue issues the set receipt (nothing is kept: the caller keeps
// it).
func Settle(a *db.Archive, in SettleIn, issue bool) (*SettleOut, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	var docs []*db.Document
	for _, arg := range in.Documents {
		d, err := a.Resolve(arg)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	out := &SettleOut{}
	var err error
	if issue {
		out.Settlement, out.Receipt, err = a.IssueSettle(in.Question, docs)
	} else {
		out.Settlement, err = a.Settle(in.Question, docs)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
