// Package commands is the one command table of every front-end: the CLI
// and the REPL (package repl), the MCP server (repl/mcpserver) and the Go
// API (package chronicle). Each entry names a command, says what it does
// (help's summary and example, the MCP tool's description) and whether it
// only reads the archive; a read command has an MCP tool or a stated
// reason it has none.
//
// The read commands docs, show, stats, find, entity and verify have a
// typed input (XxxIn) and a typed result, and a run function that
// returns the result without rendering it; query, claim and settle have
// their typed input, with its checks, and their run function. The inputs'
// Check methods run before the archive is opened, as the CLI always
// checked its arguments first. The result's JSON tags are
// the `--json` line of the CLI and the structured output of the MCP tool;
// the front-ends parse their arguments into the input and render the
// result. Input checks and limits are db's (db/input.go).
package commands
