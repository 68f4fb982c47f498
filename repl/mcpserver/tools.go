package mcpserver

import (
	"context"
	"fmt"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Inputs and outputs of the tools. No field is typed any: every schema is
// a concrete object (map[string]any is an object schema), so strict clients
// such as the TypeScript SDK accept the listing.

// DocsIn selects a page of documents: `docs --limit --after --sort`.
type DocsIn = commands.DocsIn

// DocEntry is one document: the `docs --json` line (commands.Doc) and
// the resource holding its text.
type DocEntry struct {
	commands.Doc
	URI string `json:"uri" jsonschema:"the resource holding its text with line numbers"`
}

// DocsOut lists the documents.
type DocsOut struct {
	ResultID  string     `json:"resultId" jsonschema:"the ID of this result (claim-result/<ns>/<runId>/<ordinal>)"`
	Documents []DocEntry `json:"documents"`
	More      bool       `json:"more,omitempty" jsonschema:"documents remain after this page (ask again with after: the last one's SHA-256)"`
}

// ShowIn names a document and an optional line range (`show DOC FROM-TO`).
type ShowIn = commands.ShowIn

// ShowLine is one physical line: the `show --json` line.
type ShowLine = commands.Line

// ShowOut is a document's lines.
type ShowOut struct {
	ResultID string     `json:"resultId" jsonschema:"the ID of this result"`
	Document string     `json:"document_sha256"`
	Label    string     `json:"label" jsonschema:"the document's first name"`
	Lines    []ShowLine `json:"lines"`
}

// StatsIn takes no arguments.
type StatsIn = commands.StatsIn

// StatsOut is the archive's totals: the `stats --json` line and the
// result's ID.
type StatsOut struct {
	ResultID string `json:"resultId" jsonschema:"the ID of this result"`
	commands.Stats
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

// QueryIn is a question on one document: `query DOC QUESTION`.
type QueryIn = commands.QueryIn

// FindIn is a lexical search: `find TERMS [--doc DOC] [--limit N]`.
type FindIn = commands.FindIn

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

// SettleIn is a settlement question across documents: `settle QUESTION
// [--doc DOC]...`.
type SettleIn = commands.SettleIn

// EntityIn is an exact entity name: `entity NAME`.
type EntityIn = commands.EntityIn

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

// VerifyIn is a receipt's text (commands.VerifyIn; a tool call names
// no file).
type VerifyIn = commands.VerifyIn

// VerifyOut is the verdict.
type VerifyOut struct {
	ResultID string `json:"resultId" jsonschema:"the ID of this result"`
	Verdict  string `json:"verdict"`           // described by verifyOut
	Problem  string `json:"problem,omitempty"` // described by verifyOut
	Warning  string `json:"warning,omitempty" jsonschema:"beside VALID: the archive is damaged all the same (run chronicle check)"`
}

// description texts: what each tool answers, and what it never claims.
const never = " It never claims truth: the archive proves which exact bytes say what (integrity and replay), not that a document is right."

// tool is the listing entry of an MCP tool: its description comes from
// the command table (package commands).
func tool(name string, annotations *mcp.ToolAnnotations) *mcp.Tool {
	spec := commands.ByTool(name)
	if spec == nil {
		panic("mcpserver: no command has the tool " + name)
	}
	return &mcp.Tool{Name: name, Annotations: annotations, Description: spec.Description + never}
}

func (s *Server) addTools() {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	mcp.AddTool(s.mcp, tool("docs", readOnly), s.docs)
	mcp.AddTool(s.mcp, tool("show", readOnly), s.show)
	mcp.AddTool(s.mcp, tool("stats", readOnly), s.stats)
	mcp.AddTool(s.mcp, tool("find", readOnly), s.find)
	mcp.AddTool(s.mcp, tool("query", readOnly), s.query)
	mcp.AddTool(s.mcp, tool("settle", readOnly), s.settle)
	mcp.AddTool(s.mcp, tool("entity", readOnly), s.entity)
	verify := tool("verify", readOnly)
	verify.InputSchema, verify.OutputSchema = verifyIn(), verifyOut()
	mcp.AddTool(s.mcp, verify, s.verify)
	check := tool("check_claims", &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: new(false), IdempotentHint: false, OpenWorldHint: new(false)})
	check.InputSchema, check.OutputSchema = checkIn(), checkOut()
	mcp.AddTool(s.mcp, check, s.checkClaims)
}

// checkDoc refuses a document argument that is not text (a tool call's
// JSON can carry a NUL byte), before it is looked up.
func checkDoc(args ...string) error {
	for _, arg := range args {
		if !engine.ValidTextString(arg) {
			return usageError("DOC is not valid UTF-8 text")
		}
	}
	return nil
}

func (s *Server) docs(_ context.Context, req *mcp.CallToolRequest, in DocsIn) (*mcp.CallToolResult, DocsOut, error) {
	out := DocsOut{Documents: []DocEntry{}}
	err := s.guard("docs", false, func(a *db.Archive) error {
		page, err := commands.DocsList(a, in)
		if err != nil {
			return err
		}
		for _, d := range page.Documents {
			out.Documents = append(out.Documents, DocEntry{Doc: d, URI: "chronicle://doc/" + d.SHA256})
		}
		out.More = page.More
		return nil
	})
	if err != nil {
		return nil, DocsOut{}, err
	}
	out.ResultID = s.issue(req.Session, issuedResult{})
	return result(fmt.Sprintf("%s (result %s)", plural(len(out.Documents), "document"), out.ResultID), out), out, nil
}

func (s *Server) show(_ context.Context, req *mcp.CallToolRequest, in ShowIn) (*mcp.CallToolResult, ShowOut, error) {
	out := ShowOut{Lines: []ShowLine{}}
	err := s.guard("show", false, func(a *db.Archive) error {
		if err := checkDoc(in.Document); err != nil {
			return err
		}
		d, err := commands.Show(a, in, func(l db.Line) error {
			out.Lines = append(out.Lines, commands.LineOf(l))
			return nil
		})
		if err != nil {
			return err
		}
		out.Document, out.Label = d.SHA256.String(), d.Label()
		return nil
	})
	if err != nil {
		return nil, ShowOut{}, err
	}
	out.ResultID = s.issue(req.Session, issuedResult{})
	return result(fmt.Sprintf("%s of %s (result %s)", plural(len(out.Lines), "line"), out.Label, out.ResultID), out), out, nil
}

func (s *Server) stats(_ context.Context, req *mcp.CallToolRequest, in StatsIn) (*mcp.CallToolResult, StatsOut, error) {
	var out StatsOut
	err := s.guard("stats", false, func(a *db.Archive) error {
		st, err := commands.StatsOf(a, in)
		if err != nil {
			return err
		}
		out.Stats = *st
		return nil
	})
	if err != nil {
		return nil, StatsOut{}, err
	}
	out.ResultID = s.issue(req.Session, issuedResult{})
	return result(fmt.Sprintf("%s, %s (result %s)", plural(out.Documents, "document"), plural(out.Events, "event"), out.ResultID), out), out, nil
}

func (s *Server) query(_ context.Context, req *mcp.CallToolRequest, in QueryIn) (*mcp.CallToolResult, Answer, error) {
	if err := in.Check(); err != nil {
		return nil, Answer{}, toolError("query", err)
	}
	var out Answer
	var status string
	err := s.guard("query", false, func(a *db.Archive) error {
		if err := checkDoc(in.Document); err != nil {
			return err
		}
		ans, err := commands.Query(a, in)
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
	out.ResultID = s.issue(req.Session, issuedResult{Document: out.Document, Query: in.Question})
	return result(fmt.Sprintf("%s (result %s; receipt %s)", status, out.ResultID, out.ReceiptID[:12]), out), out, nil
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
	// Checked before the archive is opened, as the CLI checks them; the
	// tool always issues a receipt.
	if _, _, err := in.Check(in.Document != "", true); err != nil {
		return fail(err)
	}
	var res *commands.FindOut
	if err := s.guard("find", false, func(a *db.Archive) (err error) {
		if err := checkDoc(in.Document); err != nil {
			return err
		}
		res, err = commands.Find(a, in, true)
		return err
	}); err != nil {
		return nil, FindOut{}, err
	}
	if res.Answer != nil {
		da := res.Answer
		ans := answerOf(da)
		out := FindOut{Document: ans.Document, Canonical: ans.Canonical, Result: ans.Result, ReceiptID: ans.ReceiptID, Receipt: ans.Receipt}
		out.ResultID = s.issue(req.Session, issuedResult{Document: ans.Document, Find: in.Terms, IsFind: true})
		status := da.Find.Status + " " + plural(da.Find.TotalMatchingLines, "matching line")
		return result(fmt.Sprintf("%s (result %s)", status, out.ResultID), out), out, nil
	}
	out := FindOut{Hits: []FindHit{}, ReceiptID: res.Receipt.ID().String(), Receipt: string(res.Receipt.Encode())}
	out.ResultID = s.issue(req.Session, issuedResult{})
	for _, h := range res.Hits {
		canonical := h.Result.JSON()
		doc := h.Doc.SHA256.String()
		out.Hits = append(out.Hits, FindHit{ResultID: s.issue(req.Session, issuedResult{Document: doc, Find: in.Terms, IsFind: true}),
			Document: doc, Names: h.Doc.Names, Canonical: string(canonical), Result: decode(canonical)})
	}
	summary := find.StatusNoMatch
	if len(res.Hits) > 0 {
		summary = fmt.Sprintf("%s in %s", find.StatusMatches, plural(len(res.Hits), "document"))
	}
	return result(fmt.Sprintf("%s (result %s)", summary, out.ResultID), out), out, nil
}

func (s *Server) settle(_ context.Context, req *mcp.CallToolRequest, in SettleIn) (*mcp.CallToolResult, Answer, error) {
	if err := in.Check(); err != nil {
		return nil, Answer{}, toolError("settle", err)
	}
	var out Answer
	var status string
	err := s.guard("settle", false, func(a *db.Archive) error {
		if err := checkDoc(in.Documents...); err != nil {
			return err
		}
		res, err := commands.Settle(a, in, true)
		if err != nil {
			return err
		}
		c, rec := res.Settlement, res.Receipt
		canonical := db.SettleResult(c)
		status = string(c.Result.Status)
		out = Answer{Canonical: string(canonical), Result: decode(canonical), ReceiptID: rec.ID().String(), Receipt: string(rec.Encode())}
		return nil
	})
	if err != nil {
		return nil, Answer{}, err
	}
	out.ResultID = s.issue(req.Session, issuedResult{})
	return result(fmt.Sprintf("%s (result %s)", status, out.ResultID), out), out, nil
}

func (s *Server) entity(_ context.Context, req *mcp.CallToolRequest, in EntityIn) (*mcp.CallToolResult, EntityOut, error) {
	if err := in.Check(true); err != nil {
		return nil, EntityOut{}, toolError("entity", err)
	}
	out := EntityOut{Hits: []EntityHit{}}
	err := s.guard("entity", false, func(a *db.Archive) error {
		res, err := commands.Entity(a, in, true)
		if err != nil {
			return err
		}
		for i := range res.Hits {
			canonical := db.EntityHitJSON(&res.Hits[i], true)
			out.Hits = append(out.Hits, EntityHit{Document: res.Hits[i].Doc.SHA256.String(), Canonical: string(canonical), Event: decode(canonical)})
		}
		out.ReceiptID, out.Receipt = res.Receipt.ID().String(), string(res.Receipt.Encode())
		return nil
	})
	if err != nil {
		return nil, EntityOut{}, err
	}
	out.ResultID = s.issue(req.Session, issuedResult{})
	verb := "name"
	if len(out.Hits) == 1 {
		verb = "names"
	}
	return result(fmt.Sprintf("%s %s %s (result %s)", plural(len(out.Hits), "event"), verb, in.Name, out.ResultID), out), out, nil
}

func (s *Server) verify(_ context.Context, req *mcp.CallToolRequest, in VerifyIn) (*mcp.CallToolResult, VerifyOut, error) {
	var v commands.Verified
	err := s.guard("verify", false, func(a *db.Archive) error {
		v = commands.Verify(func() (*db.Archive, error) { return a, nil }, VerifyIn{Receipt: in.Receipt})
		return nil
	})
	if err != nil {
		return nil, VerifyOut{}, err
	}
	out := VerifyOut{Verdict: v.Outcome.String(), Warning: v.Warning}
	if v.Why != nil {
		out.Problem = v.Why.Error()
	}
	out.ResultID = s.issue(req.Session, issuedResult{})
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
