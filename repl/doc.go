// Package repl runs the chronicle command table (package commands, which
// declares every command's arguments and flags): argument and flag
// parsing, rendering (human view on a terminal, the canonical JSON
// otherwise), exit codes, and the interactive loop; it keeps one run
// function per command (commands.go). The CLI subcommands and the REPL
// commands are the same table, so they share arguments, output and
// errors.
//
// # Basics
//
// Exec runs one command line (already split into arguments) against an
// archive and returns its exit code: 0 success or VALID, 1 failure or
// INVALID, 2 usage, 3 UNSUPPORTED (repl/GUIDE.md, "Exit codes"). Errors are printed as
// one line on stderr naming the object and the reason.
//
// # Sessions
//
// Main is the chronicle program. With no command it starts a session: the
// REPL on a terminal (readline, history, Tab completion, Ctrl-C that
// interrupts the running command), else a script read line by line from
// stdin (--bail stops at the first failure); -c runs one line. Lines are
// split by shellwords.Split (shell-style quoting) and run through Exec, so a REPL
// command is exactly the CLI command; the session adds exit, quit and
// .mode.
//
// Ctrl-C cancels the running command's context (Env.Context; the CLI
// makes one for ingest, import, check and reindex): db ends the work at
// its next document boundary with db.ErrInterrupted, which exits 130. The
// work itself (walking and ingesting a batch, checking, rebuilding) is
// db's; the commands render what it reports.
//
// # Layout
//
// Package repl is the front-end that needs the command table, an Env or
// a terminal; what is a pure function of text lives in small packages of
// its own, each with a doc.go saying why:
//
//   - repl/shellwords: a line into words with shell-like quoting (Split),
//     a word written back so (Quote), and the partly typed line that Tab
//     completion continues (Scan, Escape). Fuzzed (FuzzSplit).
//   - repl/termtext: the display width of terminal text (Width, CutAt,
//     FirstCells, LastCells, ScreenRows) and wrapping a readable view to a
//     width with a hanging indent (FitLine, FitLineIndent, Writer).
//     Fuzzed (FuzzFitLine).
//   - internal/jsontext: a text streamed in pieces as json.Marshal's JSON
//     string, for `show --json` (Write, Append). Fuzzed against
//     json.Marshal (FuzzAppend).
//   - repl/mcpserver: `chronicle mcp`, the same commands as MCP tools.
//   - repl/web: `chronicle serve`, a local web server whose JSON API runs
//     the read commands through ExecJSON (serve.go runs it through the
//     chronicle-serve binary, which sets ServeRunner).
//
// In repl itself: the command table's run functions (commands.go, and a
// file per command or group: docs.go, answer.go, settle.go, entity.go,
// claims.go, receipts.go, ingest.go with ingest_view.go and rejection.go,
// migrate.go, reindex.go, version.go, serve.go); parsing a command line against the
// table (flags.go, exec.go, suggest.go for "did you mean"); what is
// printed (output.go: JSON lines, sanitize, the progress bar; machine.go:
// exit codes and JSON errors; help.go; tablemode.go for .mode table;
// width.go: the width to wrap to and fitted, which runs a command through
// a termtext.Writer; pager.go: $PAGER); and the session (session.go, the
// entry point Main; loop.go, the terminal REPL; script.go and
// dotcommands.go; history.go; complete.go and completion.go for Tab and
// shell completion).
//
// # Caveats
//
// The archive is opened per command, read-only when the command only reads,
// so a long interactive session never holds the write lock while idle.
//
// Every command runs under db.Guard (runGuarded): a damaged archive is
// the one line of the db.DamageError it ends in, whatever met the damage,
// and its kind gives the exit code and the JSON error kind (classify); no
// error text is read. Main starts db's stack watch, so a page tree that
// loops ends the process with that line and exit 1, not a stack dump.
package repl
