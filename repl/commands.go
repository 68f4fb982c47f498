package repl

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// command is one entry of the table shared by the CLI and the REPL.
type command struct {
	name    string
	args    string // argument synopsis
	summary string
	example string
	flags   []flagSpec
	min     int // positional arguments
	max     int // -1: unlimited
	run     func(*ctx) error
	// verbs lists the subcommands of a command that has them (`claims`),
	// as "VERB ARGS  summary" lines for help.
	verbs func() []string
}

var (
	flagReceipt = flagSpec{name: "receipt", value: "FILE", help: "also write the receipt to FILE (never overwrites a different file); - prints it"}
	flagDoc     = flagSpec{name: "doc", value: "DOC", help: "search one document"}
	flagLimit   = flagSpec{name: "limit", value: "N", help: "show at most N documents (default 20)"}
	flagName    = flagSpec{name: "name", value: "NAME", help: "also name the document NAME"}
	flagKeep    = flagSpec{name: "keep", help: "keep the receipt in the archive (`receipts` lists it); without it the answer writes nothing"}
	flagCommit  = flagSpec{name: "commit-every", value: "N", help: fmt.Sprintf("commit at most N files at a time (default %d); each commit lands whole", groupFiles)}
)

// table is filled in init to let commands (help) refer to it.
var table []*command

func init() {
	table = []*command{
		{name: "ingest", args: "PATH...", min: 1, max: -1, run: runIngest, flags: []flagSpec{flagName, flagReceipt, flagCommit},
			summary: "add files (directories are walked in lexical order); one outcome line per file",
			example: "ingest testdata/samples"},
		{name: "docs", args: "", max: 0, run: runDocs, flags: []flagSpec{
			{name: "limit", value: "N", help: "list at most N documents (default all); with more left, the readable view ends with the command of the next page"},
			{name: "after", value: "DOC", help: "start after DOC (a name or hash prefix, e.g. the last row of the previous page)"},
			{name: "sort", value: "ORDER", help: "import (the default), name (by first name, from the names index; documents without one last) or size (largest first; reads every record before the first row)"}},
			summary: "list documents: name, hash prefix, size, events, import time",
			example: "docs --sort name --limit 50"},
		{name: "show", args: "DOC [FROM[-TO]]", min: 1, max: 2, run: runShow,
			summary: "print a document's lines with their numbers",
			example: "show testdata/samples/ahmed-khalid-ar.txt 2-4"},
		{name: "stats", args: "", max: 0, run: runStats,
			summary: "archive totals: documents, bytes, compression, events, receipts",
			example: "stats"},
		{name: "query", args: "DOC QUESTION", min: 2, max: 2, run: runQuery, flags: []flagSpec{flagReceipt, flagKeep},
			summary: "debt settlement (or @claim) question; status, amounts and cited evidence",
			example: `query testdata/samples/ahmed-khalid-ar.txt "هل سدد أحمد دين خالد؟"`},
		{name: "settle", args: "QUESTION", min: 1, max: -1, run: runSettle, flags: []flagSpec{flagSettleDoc, flagReceipt, flagKeep},
			summary: "debt settlement across documents (every document, or the --doc ones), evidence from each",
			example: `settle "Did Layla repay Omar?" --doc 9773a7bc --doc 0b6ec23b`},
		{name: "claim", args: "DOC SUBJECT PREDICATE OBJECT", min: 4, max: 4, run: runClaim, flags: []flagSpec{flagReceipt, flagKeep},
			summary: "find literal `Subject Predicate Object.` statements",
			example: "claim testdata/samples/alice-bob-en.txt Alice owns Book"},
		{name: "find", args: "TERMS...", min: 1, max: -1, run: runFind, flags: []flagSpec{flagDoc, flagLimit, flagReceipt, flagKeep},
			summary: "lexical search of one document (--doc) or of the whole archive",
			example: "find --doc testdata/samples/alice-bob-en.txt Saud"},
		{name: "entity", args: "NAME", min: 1, max: 1, run: runEntity, flags: []flagSpec{flagReceipt, flagKeep},
			summary: "every event whose subject or object is exactly NAME, across documents",
			example: "entity سعود"},
		{name: "entities", args: "[PREFIX]", max: 1, run: runEntities,
			summary: "known entity names with their event counts",
			example: "entities Al"},
		{name: "receipts", args: "[DOC]", max: 1, run: runReceipts, flags: []flagSpec{{name: "verify", help: "re-verify each receipt"}},
			summary: "list the receipts the archive issued (of one document; without DOC also those of cross-archive find and entity)",
			example: "receipts testdata/samples/ahmed-khalid-ar.txt --verify"},
		{name: "verify", args: "RECEIPT", min: 1, max: 1, run: runVerify,
			summary: "verify an archive receipt against the archive, or an original receipt against its .chronicle file",
			example: "verify testdata/old/story.txt.chronicle.receipt"},
		{name: "export", args: "DOC DIR", min: 2, max: 2, run: runExport,
			summary: "write DIR/<name>.chronicle and its V2 INGEST receipt, as the original tool would",
			example: "export testdata/samples/ahmed-khalid-ar.txt out"},
		{name: "import", args: "FILE.chronicle...", min: 1, max: -1, run: runImport,
			summary: "bring existing V1/V2 stores of the original tool, with the receipts beside them, into the archive",
			example: "import testdata/old/story.txt.chronicle"},
		{name: "migrate", args: "", max: 0, run: runMigrate,
			summary: "upgrade the archive to the current schema (opening it for writing does the same)",
			example: "migrate"},
		{name: "reindex", args: "", max: 0, run: runReindex,
			summary: "rebuild the term, line and entity indexes from the stored documents",
			example: "reindex"},
		{name: "check", args: "", max: 0, run: runCheck,
			summary: "re-read every document: store rebuild, digests, events, cross references",
			example: "check"},
		{name: "claims", args: "check FILE | read ROWS | verify ROWS | list", min: 1, max: 2, run: runClaims,
			flags:   []flagSpec{{name: "out", value: "ROWS", help: "claims check: also write the rows to ROWS (never overwrites a different file)"}},
			summary: "check an agent's declared claims against the archive and keep claim-verification rows",
			example: "claims check testdata/claims/agent-answer.jsonl --out rows.jsonl", verbs: claimsUsage},
		{name: "mcp", args: "", max: 0, run: runMCP,
			summary: "serve the archive to AI agents as MCP tools over stdio (read-only but for claim checks)",
			example: "mcp --db chronicle.db"},
		{name: "help", args: "[COMMAND]", max: 1, run: fitted(runHelp, helpWidth),
			summary: "list commands, or show one command's usage and example (--json: the table as JSON Lines)",
			example: "help query"},
		{name: "version", args: "", max: 0, run: runVersion,
			summary: "Chronicle's version, commit, Go version and archive schema (also --version)",
			example: "version"},
		{name: "completion", args: completionUsage, min: 1, max: 1, run: runCompletion,
			summary: "print the shell completion script (commands, flags, document names) for bash, zsh or fish",
			example: "completion bash"},
	}
	// The readable views that are tables fit the terminal (width.go).
	for _, name := range []string{"docs", "stats", "entities", "receipts", "claims"} {
		c := lookup(name)
		c.run = fitted(c.run, 0)
	}
}

// versionFlag is `chronicle --version`, the spelling most tools accept:
// it runs the version command.
const versionFlag = "--version"

// lookup finds a command by name.
func lookup(name string) *command {
	if name == versionFlag {
		name = "version"
	}
	for _, c := range table {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Names lists the command names (for completion).
func Names() []string {
	out := make([]string, len(table))
	for i, c := range table {
		out[i] = c.name
	}
	return out
}

// runMCP serves the archive over stdio until the client leaves (package
// mcpserver; README "MCP server"). The server is the chronicle-mcp binary
// beside this one (see cmd/chronicle-mcp for why), given the archive and
// lock wait resolved here; its exit code is this command's.
func runMCP(x *ctx) error {
	wait, err := x.wait()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("mcp: cannot find the chronicle executable: %w", err)
	}
	server := filepath.Join(filepath.Dir(self), "chronicle-mcp")
	if fi, err := os.Stat(server); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("mcp: %s is missing: the MCP server is a binary of its own, installed beside chronicle (`make build` builds both into bin/)", server)
	}
	cmd := exec.Command(server, "--db", x.env.archivePath(x.p.value("db")), "--wait", wait.String())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exitStatus(exit.ExitCode())
		}
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}
