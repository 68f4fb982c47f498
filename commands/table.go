package commands

import (
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/engine/claimcheck"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// Spec is one command of the table.
type Spec struct {
	Name    string
	Summary string // help's one line
	Example string // help's example (arguments after `chronicle`)
	// Read: the command only reads the archive (with --keep or --receipt
	// FILE an answer may keep its receipt, which changes no document).
	Read bool
	// Tool is the command's MCP tool ("" when it has none), Description
	// what the tool's listing says of it (the MCP server adds that the
	// archive never claims truth).
	Tool, Description string
	// NoTool says why a read command has no MCP tool.
	NoTool string

	// Args is the synopsis of the positional arguments ("DOC QUESTION"),
	// Min and Max how many there are (Max: Many for any number), Kinds
	// what each names (ArgKind: the last repeats when Max is Many).
	Args     string
	Min, Max int
	Kinds    []ArgKind
	// Flags are the command's own flags, in help's order (GlobalFlags
	// follow them everywhere).
	Flags []Flag
	// Verbs are the subcommands of a command that has them (`claims`).
	Verbs []Verb
}

// Many is Spec.Max of a command that takes any number of arguments.
const Many = -1

// Table lists every command in help's order.
var Table = []Spec{
	{Name: "ingest", Args: "PATH...", Min: 1, Max: Many, Kinds: []ArgKind{ArgPath}, Flags: []Flag{flagName, FlagReceipt, FlagKey, flagCommit, flagOCR},
		Summary: "add files (directories are walked in lexical order): text as it is; mail, mbox, HTML and PDF kept as originals, their texts derived; one outcome line per file",
		Example: "ingest testdata/samples"},
	{Name: "docs", Flags: docsFlags,
		Read: true, Summary: "list documents: name, hash prefix, size, events, import time",
		Example: "docs --sort name --limit 50",
		Tool:    "docs", Description: "List the documents in the archive: SHA-256, names, size, event count, import time, resource URI (all, or a page: limit, after, sort)."},
	{Name: "show", Args: "DOC [FROM[-TO]]", Min: 1, Max: 2, Kinds: []ArgKind{ArgDoc, ArgNone},
		Read: true, Summary: "print a document's lines with their numbers",
		Example: "show testdata/samples/ahmed-khalid-ar.txt 2-4",
		Tool:    "show", Description: "A document's lines with their numbers and byte offsets (all, or from..to), read back from the archive and checked."},
	{Name: "stats", Read: true, Summary: "archive totals: documents, bytes, compression, events, receipts",
		Example: "stats",
		Tool:    "stats", Description: "The archive's totals: documents, events, receipts, source, stored and file bytes, schema version."},
	{Name: "query", Args: "DOC QUESTION", Min: 2, Max: 2, Kinds: []ArgKind{ArgDoc, ArgNone}, Flags: []Flag{FlagReceipt, FlagKeep, FlagKey},
		Read: true, Summary: "debt settlement (or @claim) question; status, amounts and cited evidence",
		Example: `query testdata/samples/ahmed-khalid-ar.txt "هل سدد أحمد دين خالد؟"`,
		Tool:    "query", Description: queryDescription},
	{Name: "settle", Args: "QUESTION", Min: 1, Max: Many, Kinds: []ArgKind{ArgEntity}, Flags: []Flag{flagSettleDoc, FlagReceipt, FlagKeep, FlagKey},
		Read: true, Summary: "debt settlement across documents (every document, or the --doc ones), evidence from each",
		Example: `settle "Did Layla repay Omar?" --doc 9773a7bc --doc 0b6ec23b`,
		Tool:    "settle", Description: settleDescription},
	{Name: "claim", Args: "DOC SUBJECT PREDICATE OBJECT", Min: 4, Max: 4, Kinds: []ArgKind{ArgDoc, ArgEntity, ArgNone, ArgEntity}, Flags: []Flag{FlagReceipt, FlagKeep, FlagKey},
		Read: true, Summary: "find literal `Subject Predicate Object.` statements",
		Example: "claim testdata/samples/alice-bob-en.txt Alice owns Book",
		NoTool:  "the query tool asks the same claim as '@claim<TAB>S<TAB>P<TAB>O'"},
	{Name: "find", Args: "TERMS...", Min: 1, Max: Many, Kinds: []ArgKind{ArgNone}, Flags: []Flag{flagFindDoc, FlagLimit, FlagReceipt, FlagKeep, FlagKey},
		Read: true, Summary: "lexical search of one document (--doc) or of the whole archive",
		Example: "find --doc testdata/samples/alice-bob-en.txt Saud",
		Tool:    "find", Description: findDescription},
	{Name: "entity", Args: "NAME", Min: 1, Max: 1, Kinds: []ArgKind{ArgEntity}, Flags: []Flag{FlagReceipt, FlagKeep, FlagKey},
		Read: true, Summary: "every event whose subject or object is exactly NAME, across documents",
		Example: "entity سعود",
		Tool:    "entity", Description: "Every event whose subject or object is exactly the name, across documents, with its evidence span. Exact names only: no aliases are inferred."},
	{Name: "entities", Args: "[PREFIX]", Max: 1, Kinds: []ArgKind{ArgEntity},
		Read: true, Summary: "known entity names with their event counts",
		Example: "entities Al",
		NoTool:  "a listing for completion and for people; an agent asks entity with an exact name, and docs and find list what there is"},
	{Name: "originals", Read: true, Summary: "list the original files (mail, web pages, PDFs and what was inside them) with the documents derived from each and the tool that derived them",
		Example: "originals",
		NoTool:  "a listing for people; every document an agent reads is already the derived text"},
	{Name: "receipts", Args: "[DOC]", Max: 1, Kinds: []ArgKind{ArgDoc}, Flags: []Flag{flagVerify},
		Read: true, Summary: "list the receipts the archive issued (of one document; without DOC also those of cross-archive find and entity)",
		Example: "receipts testdata/samples/ahmed-khalid-ar.txt --verify",
		NoTool:  "an agent is given the receipt of each result and verifies it with the verify tool"},
	{Name: "verify", Args: "RECEIPT", Min: 1, Max: 1, Kinds: []ArgKind{ArgPath}, Flags: []Flag{flagTrust},
		Read: true, Summary: "verify an archive receipt against the archive, or an original receipt against its .chronicle file",
		Example: "verify testdata/old/story.txt.chronicle.receipt",
		Tool:    "verify", Description: verifyDescription},
	{Name: "export", Args: "DOC DIR", Min: 2, Max: 2, Kinds: []ArgKind{ArgDoc, ArgPath}, Flags: []Flag{FlagKey, flagOriginal},
		Summary: "write DIR/<name>.chronicle and its V2 INGEST receipt, as the original tool would (and the receipt's .sig); --original writes the mail, page or PDF it was derived from",
		Example: "export testdata/samples/ahmed-khalid-ar.txt out"},
	{Name: "import", Args: "FILE.chronicle...", Min: 1, Max: Many, Kinds: []ArgKind{ArgPath},
		Summary: "bring existing V1/V2 stores of the original tool, with the receipts beside them, into the archive",
		Example: "import testdata/old/story.txt.chronicle"},
	{Name: "migrate", Summary: "upgrade the archive to the current schema (opening it for writing does the same)",
		Example: "migrate"},
	{Name: "reindex", Summary: "rebuild the term, line and entity indexes from the stored documents",
		Example: "reindex"},
	{Name: "check", Read: true, Summary: "re-read every document: store rebuild, digests, events, cross references",
		Example: "check",
		NoTool:  "it re-reads the whole archive, an operator's task; every tool's answer is already checked as it is read"},
	{Name: "claims", Args: "check FILE | read ROWS | verify ROWS | list", Min: 1, Max: 2, Kinds: []ArgKind{ArgVerb, ArgPath}, Flags: []Flag{flagOut, FlagKey}, Verbs: ClaimsVerbs,
		Summary: "check an agent's declared claims against the archive and keep claim-verification rows",
		Example: "claims check testdata/claims/agent-answer.jsonl --out rows.jsonl",
		Tool:    "check_claims", Description: checkDescription},
	{Name: "log", Args: "[verify CHECKPOINT]", Max: 2, Kinds: []ArgKind{ArgVerb, ArgPath}, Flags: []Flag{flagLogOut, flagLogSign, flagLogKey, flagTrust}, Verbs: LogVerbs,
		Read: true, Summary: "print the archive log's signed checkpoint (--out saves it); `log verify FILE` proves the archive extends a saved one",
		Example: "log --out today.checkpoint",
		NoTool:  "checkpoints are kept and compared by people; an agent proves a document with the receipts it is given"},
	{Name: "prove", Args: "DOC|FILE", Min: 1, Max: 1, Kinds: []ArgKind{ArgDoc}, Flags: []Flag{flagProveOut},
		Read: true, Summary: "write the proof that a document (or a kept receipt or claims file) is in the archive's signed log; `verify` checks it offline",
		Example: "prove testdata/samples/alice-bob-en.txt --out alice.proof",
		NoTool:  "a proof is a file for someone without the archive; an agent has the archive"},
	{Name: "key", Flags: []Flag{flagKeyShown},
		Summary: "print the signing key's public half: the allowed-signers line for ssh-keygen -Y verify, the note verifier key (creates the key the first time)",
		Example: "key"},
	{Name: "mcp", Summary: "serve the archive to AI agents as MCP tools over stdio (read-only but for claim checks)",
		Example: "mcp --db chronicle.db"},
	{Name: "serve", Flags: serveFlags,
		Summary: "local web pages and JSON API (read-only unless --write); prints the URL with its token",
		Example: "serve --db chronicle.db"},
	{Name: "help", Args: "[COMMAND]", Max: 1, Kinds: []ArgKind{ArgCommand},
		Summary: "list commands, or show one command's usage and example (--json: the table as JSON Lines)",
		Example: "help query"},
	{Name: "version", Summary: "Chronicle's version, commit, Go version and archive schema (also --version)",
		Example: "version"},
	{Name: "completion", Args: strings.Join(Shells, "|"), Min: 1, Max: 1, Kinds: []ArgKind{ArgShell},
		Summary: "print the shell completion script (commands, flags, document names) for bash, zsh or fish",
		Example: "completion bash"},
}

// Lookup finds a command by name (nil when there is none).
func Lookup(name string) *Spec {
	for i := range Table {
		if Table[i].Name == name {
			return &Table[i]
		}
	}
	return nil
}

// ByTool finds the command of an MCP tool (nil when there is none).
func ByTool(tool string) *Spec {
	for i := range Table {
		if Table[i].Tool == tool {
			return &Table[i]
		}
	}
	return nil
}

// Descriptions that name values: built from the packages that produce
// them, so that an agent never reads a status that does not exist
// (repl/mcpserver's TestMCPDescriptionsNameRealValues).
var (
	settlementStatuses = statuses(settle.SettlementStatuses)
	claimStatuses      = statuses(settle.ClaimStatuses)
	findStatuses       = []string{find.StatusMatches, find.StatusNoMatch}
	verdicts           = []string{receipt.Valid.String(), receipt.Invalid.String(), receipt.Unsupported.String()}

	queryDescription = fmt.Sprintf("Answer a debt-settlement question on one document (status %s; debt and settled amounts as exact fractions; every cited evidence span), "+
		"or a literal claim question '@claim<TAB>S<TAB>P<TAB>O' (status %s). The status evaluates what the document records about the debt, not whether the question is true.",
		OneOf(settlementStatuses), OneOf(claimStatuses))
	settleDescription = fmt.Sprintf("Answer a debt-settlement question across documents (every document, or the chosen ones): the same reasoner as query over the events of all of them (status %s), each evidence span naming its document.",
		OneOf(settlementStatuses))
	findDescription = fmt.Sprintf("Lexical search: the lines containing the terms, in one document or across the archive (best documents first); status %s. "+
		"Lexical only: a match is not a fact and no match is not an absence of the fact.", OneOf(findStatuses))
	verifyDescription = fmt.Sprintf("Verify a receipt's text against the archive: rebuild the store, replay it, run the question again and compare digests (verdict %s). "+
		"%s means the result is exactly what the archived bytes give, not that they are true.", OneOf(verdicts), receipt.Valid)
	checkDescription = fmt.Sprintf("Check the claims of your answer against the results this session returned. Give claim lines (JSON objects): "+
		`{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":"<a resultId or its ordinal>","declaredRule":%q,"declaredValue":%q}. `+
		"Rules: %s on query settlement results (status: %s); %s on @claim results (%s); %s on find results on one document. "+
		"Returns one claim-verification row per claim, its outcome %s: %s with reason %s, %s with reason %s, %s with reason %s (%s: a result this session never returned). "+
		"The check and the receipts of compared results are kept in the archive; the check ends the run, later results get a new runId.",
		claimcheck.RuleStatus, settle.Partial,
		OneOf([]string{claimcheck.RuleStatus, claimcheck.RuleSettled, claimcheck.RuleDebt, claimcheck.RuleCurrency}), OneOf(settlementStatuses),
		claimcheck.RuleClaim, OneOf(claimStatuses), claimcheck.RuleFindLines,
		OneOf([]string{claimrow.Supported, claimrow.Contradicted, claimrow.Unverified}), claimrow.Supported, OneOf([]string{claimrow.NoConflict, claimrow.NumericLeniency}),
		claimrow.Contradicted, claimrow.Conflict,
		claimrow.Unverified, OneOf(claimrow.UnverifiedReasons), claimrow.MissingResult)
)

func statuses(list []settle.Status) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = string(s)
	}
	return out
}

// OneOf words a list for a description: "A", "A or B", "A, B or C".
func OneOf(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}
