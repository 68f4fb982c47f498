package repl

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/casper-chronicle/chronicle/commands"
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
		{name: "ingest", args: "PATH...", min: 1, max: -1, run: runIngest, flags: []flagSpec{flagName, flagReceipt, flagCommit}},
		{name: "docs", args: "", max: 0, run: runDocs, flags: []flagSpec{
			{name: "limit", value: "N", help: "list at most N documents (default all); with more left, the readable view ends with the command of the next page"},
			{name: "after", value: "DOC", help: "start after DOC (a name or hash prefix, e.g. the last row of the previous page)"},
			{name: "sort", value: "ORDER", help: "import (the default), name (by first name, from the names index; documents without one last) or size (largest first; reads every record before the first row)"}}},
		{name: "show", args: "DOC [FROM[-TO]]", min: 1, max: 2, run: runShow},
		{name: "stats", args: "", max: 0, run: runStats},
		{name: "query", args: "DOC QUESTION", min: 2, max: 2, run: runQuery, flags: []flagSpec{flagReceipt, flagKeep}},
		{name: "settle", args: "QUESTION", min: 1, max: -1, run: runSettle, flags: []flagSpec{flagSettleDoc, flagReceipt, flagKeep}},
		{name: "claim", args: "DOC SUBJECT PREDICATE OBJECT", min: 4, max: 4, run: runClaim, flags: []flagSpec{flagReceipt, flagKeep}},
		{name: "find", args: "TERMS...", min: 1, max: -1, run: runFind, flags: []flagSpec{flagDoc, flagLimit, flagReceipt, flagKeep}},
		{name: "entity", args: "NAME", min: 1, max: 1, run: runEntity, flags: []flagSpec{flagReceipt, flagKeep}},
		{name: "entities", args: "[PREFIX]", max: 1, run: runEntities},
		{name: "receipts", args: "[DOC]", max: 1, run: runReceipts, flags: []flagSpec{{name: "verify", help: "re-verify each receipt"}}},
		{name: "verify", args: "RECEIPT", min: 1, max: 1, run: runVerify},
		{name: "export", args: "DOC DIR", min: 2, max: 2, run: runExport},
		{name: "import", args: "FILE.chronicle...", min: 1, max: -1, run: runImport},
		{name: "migrate", args: "", max: 0, run: runMigrate},
		{name: "reindex", args: "", max: 0, run: runReindex},
		{name: "check", args: "", max: 0, run: runCheck},
		{name: "claims", args: "check FILE | read ROWS | verify ROWS | list", min: 1, max: 2, run: runClaims,
			flags: []flagSpec{{name: "out", value: "ROWS", help: "claims check: also write the rows to ROWS (never overwrites a different file)"}}, verbs: claimsUsage},
		{name: "mcp", args: "", max: 0, run: runMCP},
		{name: "help", args: "[COMMAND]", max: 1, run: fitted(runHelp, helpWidth)},
		{name: "version", args: "", max: 0, run: runVersion},
		{name: "completion", args: completionUsage, min: 1, max: 1, run: runCompletion},
	}
	// What each command does, as every front-end says it: the table of
	// package commands.
	for _, c := range table {
		spec := commands.Lookup(c.name)
		if spec == nil {
			panic("repl: command " + c.name + " is not in the command table (package commands)")
		}
		c.summary, c.example = spec.Summary, spec.Example
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
