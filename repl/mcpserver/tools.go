package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Inputs and outputs of the tools. No field is typed any: every schema is
// a concrete object (map[string]any is an object schema), so strict clients
// such as the TypeScript SDK accept the listing.

// DocsIn takes no arguments.
type DocsIn struct{}

// DocEntry is one document, as `docs --json` lists it.
type DocEntry struct {
	SHA256       string   `json:"document_sha256" jsonschema:"SHA-256 hex of the document's exact bytes: its identity"`
	Names        []string `json:"names" jsonschema:"every name the document was ingested under"`
	Size         int64    `json:"size" jsonschema:"bytes"`
	Events       int      `json:"events" jsonschema:"typed events extracted from it"`
	ImportedAt   uint64   `json:"imported_at" jsonschema:"Unix seconds of the first import"`
	Imported     string   `json:"imported" jsonschema:"the first import, RFC 3339 (UTC)"`
	StoreVersion int      `json:"store_version" jsonschema:"CASPER-CHRON store version"`
	URI          string   `json:"uri" jsonschema:"the resource holding its text with line numbers"`
}

// DocsOut lists the documents.
type DocsOut struct {
	ResultID  string     `json:"resultId" jsonschema:"the ID of this result (claim-result/<ns>/<runId>/<ordinal>)"`
	Documents []DocEntry `json:"documents"`
}

// ShowIn names a document and an optional line range.
type ShowIn struct {
	Document string `json:"document" jsonschema:"a document name or at least 8 hex digits of its SHA-256"`
	From     int    `json:"from,omitempty" jsonschema:"first line (1-based; default 1)"`
	To       int    `json:"to,omitempty" jsonschema:"last line (default: the last line of the document)"`
}

// ShowLine is one physical line.
type ShowLine struct {
	Line      int    `json:"line"`
	ByteStart int    `json:"byte_start"`
	ByteEnd   int    `json:"byte_end"`
	Text      string `json:"text"`
}

// ShowOut is a document's lines.
type ShowOut struct {
	ResultID string     `json:"resultId" jsonschema:"the ID of this result"`
	Document string     `json:"document_sha256"`
	Label    string     `json:"label" jsonschema:"the document's first name"`
	Lines    []ShowLine `json:"lines"`
}

// Answer is a canonical result on one document (query, find with a
// document) or across the archive (settle).
type Answer struct {
	ResultID  string         `json:"resultId" jsonschema:"the ID of this result; claims name it in declaredResult"`
	Document  string         `json:"document_sha256,omitempty" jsonschema:"the document answered (absent for settle)"`
	Canonical string         `json:"canonical" jsonschema:"the exact canonical JSON line the CLI prints with --json"`
	Result    map[string]any `json:"result" jsonschema:"the canonical result decoded"`
	ReceiptID string         `json:"receiptId" jsonschema:"SHA-256 hex of the receipt"`
	Receipt   string         `json:"receipt" jsonschema:"the archive receipt of the result; verify checks it again. It proves integrity and replay, not truth"`
}

// QueryIn is a question on one document.
type QueryIn struct {
	Document string `json:"document" jsonschema:"a document name or at least 8 hex digits of its SHA-256"`
	Question string `json:"question" jsonschema:"a debt-settlement question such as 'Did Alice repay Bob?', or a literal claim '@claim<TAB>Subject<TAB>Predicate<TAB>Object'"`
}

// FindIn is a lexical search.
type FindIn struct {
	Terms    string `json:"terms" jsonschema:"search terms (split at spaces and punctuation)"`
	Document string `json:"document,omitempty" jsonschema:"search this document only; default: the whole archive"`
	Limit    int    `json:"limit,omitempty" jsonschema:"across the archive: at most this many documents (default 20)"`
}

// FindHit is one document's find result across the archive.
type FindHit struct {
	ResultID  string         `json:"resultId" jsonschema:"the ID of this document's result; claims name it in declaredResult"`
	Document  string         `json:"document_sha256"`
	Names     []string       `json:"names"`
	Canonical string         `json:"canonical" jsonschema:"the canonical find result for this document (what find --doc prints)"`
	Result    map[string]any `json:"result"`
}

// FindOut is a find result: with a document the fields of Answer, across
// the archive the hits best first.
type FindOut struct {
	ResultID  string         `json:"resultId" jsonschema:"the ID of this result"`
	Document  string         `json:"document_sha256,omitempty"`
	Canonical string         `json:"canonical,omitempty" jsonschema:"with a document: the exact canonical JSON line"`
	Result    map[string]any `json:"result,omitempty" jsonschema:"with a document: the canonical result decoded"`
	Hits      []FindHit      `json:"hits,omitempty" jsonschema:"across the archive: one result per matching document, best first"`
	ReceiptID string         `json:"receiptId"`
	Receipt   string         `json:"receipt" jsonschema:"the receipt of the result (across the archive: of the set of documents searched)"`
}

// SettleIn is a settlement question across documents.
type SettleIn struct {
	Question  string   `json:"question" jsonschema:"a debt-settlement question such as 'Did Layla repay Omar?'"`
	Documents []string `json:"documents,omitempty" jsonschema:"settle over these documents only (names or hash prefixes); default: every document"`
}

// EntityIn is an exact entity name.
type EntityIn struct {
	Name string `json:"name" jsonschema:"the exact subject or object name of events, e.g. Saud"`
}

// EntityHit is one event naming the entity.
type EntityHit struct {
	Document  string         `json:"document_sha256"`
	Canonical string         `json:"canonical" jsonschema:"the line entity --json prints for this event"`
	Event     map[string]any `json:"event"`
}

// EntityOut lists the events naming an entity.
type EntityOut struct {
	ResultID  string      `json:"resultId" jsonschema:"the ID of this result"`
	Hits      []EntityHit `json:"hits"`
	ReceiptID string      `json:"receiptId"`
	Receipt   string      `json:"receipt"`
}

// VerifyIn is a receipt's text.
type VerifyIn struct {
	Receipt string `json:"receipt"` // described by verifyIn
}

// VerifyOut is the verdict.
type VerifyOut struct {
	ResultID string `json:"resultId" jsonschema:"the ID of this result"`
	Verdict  string `json:"verdict"`           // described by verifyOut
	Problem  string `json:"problem,omitempty"` // described by verifyOut
}

// description texts: what each tool answers, and what it never claims.
const never = " It never claims truth: the archive proves which exact bytes say what (integrity and replay), not that a document is right."

func (s *Server) addTools() {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "docs", Annotations: readOnly,
		Description: "List the documents in the archive: SHA-256, names, size, event count, import time, resource URI." + never}, s.docs)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "show", Annotations: readOnly,
		Description: "A document's lines with their numbers and byte offsets (all, or from..to), read back from the archive and checked." + never}, s.show)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "find", Annotations: readOnly,
		Description: findDescription + never}, s.find)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "query", Annotations: readOnly,
		Description: queryDescription + never}, s.query)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "settle", Annotations: readOnly,
		Description: settleDescription + never}, s.settle)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "entity", Annotations: readOnly,
		Description: "Every event whose subject or object is exactly the name, across documents, with its evidence span. Exact names only: no aliases are inferred." + never}, s.entity)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "verify", Annotations: readOnly,
		Description: verifyDescription + never, InputSchema: verifyIn(), OutputSchema: verifyOut()}, s.verify)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "check_claims",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: new(false), IdempotentHint: false, OpenWorldHint: new(false)},
		Description: checkDescription + never, InputSchema: checkIn(), OutputSchema: checkOut()}, s.checkClaims)
}

// resolveDoc resolves a document argument as the CLI does.
func resolveDoc(a *db.Archive, arg string) (*db.Document, error) {
	if !engine.ValidTextString(arg) {
		return nil, usageError("DOC is not valid UTF-8 text")
	}
	return a.Resolve(arg)
}

func (s *Server) docs(_ context.Context, req *mcp.CallToolRequest, _ DocsIn) (*mcp.CallToolResult, DocsOut, error) {
	out := DocsOut{Documents: []DocEntry{}}
	err := s.guard("docs", false, func(a *db.Archive) error {
		docs, err := a.Docs()
		if err != nil {
			return err
		}
		for _, d := range docs {
			out.Documents = append(out.Documents, DocEntry{SHA256: d.SHA256.String(), Names: d.Names, Size: d.SourceSize,
				Events: d.EventCount, ImportedAt: d.ImportedAt, Imported: d.Imported().Format(time.RFC3339), StoreVersion: d.Version, URI: docURI(d)})
		}
		return nil
	})
	if err != nil {
		return nil, DocsOut{}, err
	}
	out.ResultID = s.issue(req.Session, kept{})
	return result(fmt.Sprintf("%s (result %s)", plural(len(out.Documents), "document"), out.ResultID), out), out, nil
}

func (s *Server) show(_ context.Context, req *mcp.CallToolRequest, in ShowIn) (*mcp.CallToolResult, ShowOut, error) {
	out := ShowOut{Lines: []ShowLine{}}
	from, to := in.From, in.To
	switch {
	case from < 0 || to < 0:
		return nil, ShowOut{}, toolError("show", usageError("line range: want from >= 1 and to >= from"))
	case from == 0:
		from = 1
	}
	if to != 0 && to < from {
		return nil, ShowOut{}, toolError("show", usageError("line range %d-%d: want FROM, FROM-TO or FROM- with FROM <= TO", from, to))
	}
	err := s.guard("show", false, func(a *db.Archive) error {
		d, err := resolveDoc(a, in.Document)
		if err != nil {
			return err
		}
		st, err := a.Load(d)
		if err != nil {
			return err
		}
		out.Document, out.Label = d.SHA256.String(), d.Label()
		last := 0
		err = engine.ForEachLine(st.Source, func(l engine.Line) error {
			last = l.Number
			if l.Number >= from && (to == 0 || l.Number <= to) {
				out.Lines = append(out.Lines, ShowLine{Line: l.Number, ByteStart: l.Start, ByteEnd: l.End, Text: string(l.Text)})
			}
			return nil
		})
		if err == nil && len(out.Lines) == 0 && (in.From != 0 || in.To != 0) {
			return fmt.Errorf("%s has %s, no line %d", d.Label(), plural(last, "line"), from)
		}
		return err
	})
	if err != nil {
		return nil, ShowOut{}, err
	}
	out.ResultID = s.issue(req.Session, kept{})
	return result(fmt.Sprintf("%s of %s (result %s)", plural(len(out.Lines), "line"), out.Label, out.ResultID), out), out, nil
}

func (s *Server) query(_ context.Context, req *mcp.CallToolRequest, in QueryIn) (*mcp.CallToolResult, Answer, error) {
	if err := db.CheckQuestion("the question is", in.Question); err != nil {
		return nil, Answer{}, toolError("query", err)
	}
	var out Answer
	var status string
	err := s.guard("query", false, func(a *db.Archive) error {
		ans, err := answerDocument(a, in.Document, db.KindQuery, in.Question)
		if err != nil {
			return err
		}
		if ans.Settlement != nil {
			status = string(ans.Settlement.Status)
		} else {
			status = string(ans.Claim.Status)
		}
		out = answerOf(ans)
		return nil
	})
	if err != nil {
		return nil, Answer{}, err
	}
	out.ResultID = s.issue(req.Session, kept{Document: out.Document, Query: in.Question})
	return result(fmt.Sprintf("%s (result %s; receipt %s)", status, out.ResultID, out.ReceiptID[:12]), out), out, nil
}

// answerDocument resolves DOC and answers the question there as the CLI
// does (db.Answer); nothing is written.
func answerDocument(a *db.Archive, doc string, kind db.ReceiptKind, question string) (*db.DocAnswer, error) {
	d, err := resolveDoc(a, doc)
	if err != nil {
		return nil, err
	}
	return a.Answer(d, kind, question)
}

// answerOf is the Answer of a canonical result on one document with its
// archive receipt (which binds the document, its store, the question and
// the result).
func answerOf(ans *db.DocAnswer) Answer {
	return Answer{Document: ans.Doc.SHA256.String(), Canonical: string(ans.JSON), Result: decode(ans.JSON),
		ReceiptID: ans.Receipt.ID().String(), Receipt: string(ans.Receipt.Encode())}
}

func (s *Server) find(_ context.Context, req *mcp.CallToolRequest, in FindIn) (*mcp.CallToolResult, FindOut, error) {
	fail := func(err error) (*mcp.CallToolResult, FindOut, error) { return nil, FindOut{}, toolError("find", err) }
	if err := db.CheckText("TERMS is", in.Terms); err != nil {
		return fail(err)
	}
	if _, err := find.Terms(in.Terms); err != nil {
		return fail(err)
	}
	if in.Document != "" {
		return s.findInDocument(req, in)
	}
	limit, err := db.FindLimit(in.Limit)
	if err != nil {
		return fail(err)
	}
	if err := db.CheckQuestionSize("the terms are", in.Terms); err != nil {
		return fail(err)
	}
	q, err := find.NewQuery(in.Terms)
	if err != nil {
		return fail(err)
	}
	var hits []db.FindHit
	var rec *db.SetReceipt
	if err := s.guard("find", false, func(a *db.Archive) (err error) {
		hits, rec, err = a.IssueFind(q, limit)
		return err
	}); err != nil {
		return nil, FindOut{}, err
	}
	out := FindOut{Hits: []FindHit{}, ReceiptID: rec.ID().String(), Receipt: string(rec.Encode())}
	out.ResultID = s.issue(req.Session, kept{})
	for _, h := range hits {
		canonical := h.Result.JSON()
		doc := h.Doc.SHA256.String()
		out.Hits = append(out.Hits, FindHit{ResultID: s.issue(req.Session, kept{Document: doc, Find: in.Terms, IsFind: true}),
			Document: doc, Names: h.Doc.Names, Canonical: string(canonical), Result: decode(canonical)})
	}
	summary := find.StatusNoMatch
	if len(hits) > 0 {
		summary = fmt.Sprintf("%s in %s", find.StatusMatches, plural(len(hits), "document"))
	}
	return result(fmt.Sprintf("%s (result %s)", summary, out.ResultID), out), out, nil
}

func (s *Server) findInDocument(req *mcp.CallToolRequest, in FindIn) (*mcp.CallToolResult, FindOut, error) {
	if err := db.CheckQuestionSize("the terms are", in.Terms); err != nil {
		return nil, FindOut{}, toolError("find", err)
	}
	var ans Answer
	var status string
	err := s.guard("find", false, func(a *db.Archive) error {
		da, err := answerDocument(a, in.Document, db.KindFind, in.Terms)
		if err != nil {
			return err
		}
		status = da.Find.Status + " " + plural(da.Find.TotalMatchingLines, "matching line")
		ans = answerOf(da)
		return nil
	})
	if err != nil {
		return nil, FindOut{}, err
	}
	out := FindOut{Document: ans.Document, Canonical: ans.Canonical, Result: ans.Result, ReceiptID: ans.ReceiptID, Receipt: ans.Receipt}
	out.ResultID = s.issue(req.Session, kept{Document: ans.Document, Find: in.Terms, IsFind: true})
	return result(fmt.Sprintf("%s (result %s)", status, out.ResultID), out), out, nil
}

func (s *Server) settle(_ context.Context, req *mcp.CallToolRequest, in SettleIn) (*mcp.CallToolResult, Answer, error) {
	fail := func(err error) (*mcp.CallToolResult, Answer, error) { return nil, Answer{}, toolError("settle", err) }
	if err := db.CheckText("the question is", in.Question); err != nil {
		return fail(err)
	}
	if settle.IsClaim(in.Question) {
		return fail(usageError("settle answers settlement questions; ask a claim with `claim DOC S P O` or `query DOC QUESTION`"))
	}
	if err := db.CheckQuestionSize("the question is", in.Question); err != nil {
		return fail(err)
	}
	var out Answer
	var status string
	err := s.guard("settle", false, func(a *db.Archive) error {
		var docs []*db.Document
		for _, arg := range in.Documents {
			d, err := resolveDoc(a, arg)
			if err != nil {
				return err
			}
			docs = append(docs, d)
		}
		c, rec, err := a.IssueSettle(in.Question, docs)
		if err != nil {
			return err
		}
		canonical := db.SettleResult(c)
		status = string(c.Result.Status)
		out = Answer{Canonical: string(canonical), Result: decode(canonical), ReceiptID: rec.ID().String(), Receipt: string(rec.Encode())}
		return nil
	})
	if err != nil {
		return nil, Answer{}, err
	}
	out.ResultID = s.issue(req.Session, kept{})
	return result(fmt.Sprintf("%s (result %s)", status, out.ResultID), out), out, nil
}

func (s *Server) entity(_ context.Context, req *mcp.CallToolRequest, in EntityIn) (*mcp.CallToolResult, EntityOut, error) {
	fail := func(err error) (*mcp.CallToolResult, EntityOut, error) {
		return nil, EntityOut{}, toolError("entity", err)
	}
	if err := db.CheckEntityName(in.Name); err != nil {
		return fail(err)
	}
	out := EntityOut{Hits: []EntityHit{}}
	err := s.guard("entity", false, func(a *db.Archive) error {
		hits, rec, err := a.IssueEntity(in.Name)
		if err != nil {
			return err
		}
		for i := range hits {
			canonical := db.EntityHitJSON(&hits[i], true)
			out.Hits = append(out.Hits, EntityHit{Document: hits[i].Doc.SHA256.String(), Canonical: string(canonical), Event: decode(canonical)})
		}
		out.ReceiptID, out.Receipt = rec.ID().String(), string(rec.Encode())
		return nil
	})
	if err != nil {
		return nil, EntityOut{}, err
	}
	out.ResultID = s.issue(req.Session, kept{})
	verb := "name"
	if len(out.Hits) == 1 {
		verb = "names"
	}
	return result(fmt.Sprintf("%s %s %s (result %s)", plural(len(out.Hits), "event"), verb, in.Name, out.ResultID), out), out, nil
}

func (s *Server) verify(_ context.Context, req *mcp.CallToolRequest, in VerifyIn) (*mcp.CallToolResult, VerifyOut, error) {
	data := []byte(in.Receipt)
	if len(data) > db.MaxReceiptSize {
		return nil, VerifyOut{}, toolError("verify", fmt.Errorf("the receipt is %d bytes; an archive receipt is at most %d", len(data), db.MaxReceiptSize))
	}
	outcome, why := receipt.Invalid, error(nil)
	err := s.guard("verify", false, func(a *db.Archive) error {
		switch {
		case db.IsArchiveReceipt(data):
			r, err := db.ParseReceipt(data)
			if err != nil {
				why = err
				return nil
			}
			outcome, why = a.Verify(r, receipt.Canonical{})
		case db.IsSetReceipt(data):
			r, err := db.ParseSetReceipt(data)
			if err != nil {
				why = err
				return nil
			}
			outcome, why = a.VerifySet(r)
		default:
			why = fmt.Errorf("not an archive receipt (CHRONICLE-ARCHIVE-RECEIPT-V1 or a set receipt); original V1/V2 receipts are verified with `chronicle verify FILE`")
		}
		return nil
	})
	if err != nil {
		return nil, VerifyOut{}, err
	}
	out := VerifyOut{Verdict: outcome.String()}
	if why != nil {
		out.Problem = why.Error()
	}
	out.ResultID = s.issue(req.Session, kept{})
	summary := out.Verdict
	if out.Problem != "" {
		summary += ": " + out.Problem
	}
	return result(fmt.Sprintf("%s (result %s)", summary, out.ResultID), out), out, nil
}

func docURI(d *db.Document) string { return "chronicle://doc/" + d.SHA256.String() }

// plural is "1 WORD" or "N WORDs" (the REPL's summaries read the same).
func plural[N int | int64](n N, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
