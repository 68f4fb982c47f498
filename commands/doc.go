// Package commands is the one command table of every front-end: the CLI
// and the REPL (package repl), the MCP server (repl/mcpserver) and the Go
// API (package chronicle). Each entry names a command, says what it does
// (help's summary and example, the MCP tool's description) and whether it
// only reads the archive; a read command has an MCP tool or a stated
// reason it has none.
//
// The entry is also the one declaration of the command's arguments (their
// synopsis, how many, what each names), its flags (name, value
// placeholder, help, whether it repeats, what its value names) and its
// subcommands (args.go). Help and `help --json`, the CLI's and the REPL's
// parser, Tab completion and the shell completion scripts read them from
// here, so a new command or flag reaches all of them by its one entry;
// package repl keeps only the function that runs and renders each
// command.
//
// The read commands docs, show, stats, find, entity and verify have a
// typed input (XxxIn) and a typed result, and a run function that
// returns the result without rendering it; query, claim and settle have
// their typed input, with its checks, and their run function. So do
// receipts, check, export, import, reindex, migrate and claims (check,
// read, verify, list): a command that prints as it goes (receipts, check,
// claims read) calls a function with each item, as Docs does, and
// returns a summary. The JSON of a result whose members the CLI printed
// from a map keeps them in the order of their names, the bytes the CLI
// always printed. The inputs' Check methods run before the archive is
// opened, as the CLI always checked its arguments first. The result's
// JSON tags are the `--json` line of the CLI and the structured output of
// the MCP tool; the front-ends parse their arguments into the input and
// render the result. Input checks and limits are db's (db/input.go) or
// the engine's (a claims file: engine/claimcheck).
package commands
