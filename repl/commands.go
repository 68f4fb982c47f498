package repl

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
)

// command is one command as the CLI and the REPL run it: its entry of
// the command table (package commands), which declares its arguments,
// flags and help, and the function that runs and renders it.
type command struct {
	spec *commands.Spec
	run  func(*invocation) error

	// Copied from spec, as every file of this package reads them.
	name, args, summary, example string
	flags                        []commands.Flag
	min, max                     int // positional arguments; max -1: unlimited
	// verbs lists the subcommands of a command that has them (`claims`),
	// as "VERB ARGS  summary" lines for help.
	verbs func() []string
}

// runs is what repl does for each command of the table.
var runs = map[string]func(*invocation) error{
	"ingest":     runIngest,
	"docs":       runDocs,
	"show":       runShow,
	"stats":      runStats,
	"query":      runQuery,
	"settle":     runSettle,
	"claim":      runClaim,
	"find":       runFind,
	"entity":     runEntity,
	"entities":   runEntities,
	"originals":  runOriginals,
	"receipts":   runReceipts,
	"verify":     runVerify,
	"export":     runExport,
	"import":     runImport,
	"migrate":    runMigrate,
	"reindex":    runReindex,
	"check":      runCheck,
	"claims":     runClaims,
	"key":        runKey,
	"log":        runLog,
	"prove":      runProve,
	"mcp":        runMCP,
	"serve":      runServe,
	"help":       fitted(runHelp, helpWidth),
	"version":    runVersion,
	"completion": runCompletion,
}

// table is the command table in help's order, filled in init to let
// commands (help) refer to it.
var table []*command

func init() {
	for i := range commands.Table {
		spec := &commands.Table[i]
		run, ok := runs[spec.Name]
		if !ok {
			panic("repl: command " + spec.Name + " of the command table (package commands) has no run function")
		}
		c := &command{spec: spec, run: run, name: spec.Name, args: spec.Args, summary: spec.Summary, example: spec.Example,
			flags: spec.Flags, min: spec.Min, max: spec.Max}
		if len(spec.Verbs) > 0 {
			c.verbs = func() []string { return verbLines(spec) }
		}
		table = append(table, c)
	}
	if len(table) != len(runs) {
		panic("repl: a run function has no command in the command table (package commands)")
	}
	// The readable views that are tables fit the terminal (width.go).
	for _, name := range []string{"docs", "stats", "entities", "receipts", "claims"} {
		c := lookup(name)
		c.run = fitted(c.run, 0)
	}
}

// verbLines is the help of each subcommand of spec.
func verbLines(spec *commands.Spec) []string {
	var out []string
	for _, v := range spec.Verbs {
		out = append(out, fmt.Sprintf("%s %-24s %s", spec.Name, strings.TrimSpace(v.Name+" "+v.Args), v.Summary))
	}
	return out
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
func runMCP(x *invocation) error {
	wait, err := x.wait()
	if err != nil {
		return err
	}
	return runBeside(x, "chronicle-mcp", "mcp", "--db", x.env.archivePath(x.p.value("db")), "--wait", wait.String())
}

// runBeside runs the binary name from the directory of the chronicle
// executable with args and the process's streams, for the command cmd;
// an interrupt (Ctrl-C, or the end of the command's context) is passed
// on to it, and its exit code is the command's.
func runBeside(x *invocation, name, cmd string, args ...string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("%s: cannot find the chronicle executable: %w", cmd, err)
	}
	server := filepath.Join(filepath.Dir(self), name)
	if fi, err := os.Stat(server); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %s is missing: the server is a binary of its own, installed beside chronicle (`make build` builds them all into bin/)", cmd, server)
	}
	c := exec.Command(server, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, x.out(), x.env.Stderr
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	if err := c.Start(); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	canceled := x.context().Done()
	for {
		select {
		case err := <-done:
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return exitStatus(exit.ExitCode())
			}
			if err != nil {
				return fmt.Errorf("%s: %w", cmd, err)
			}
			return nil
		case <-interrupts:
			c.Process.Signal(os.Interrupt)
		case <-canceled:
			c.Process.Signal(os.Interrupt)
			canceled = nil // once
		}
	}
}
