// Command chronicle-mcp is the MCP server of `chronicle mcp` (package
// repl/mcpserver), in a binary of its own: the MCP SDK brings net/http,
// TLS, OAuth and JSON Schema with it, whose package initialisation every
// other chronicle command would otherwise pay for at start-up (about
// 0.7 ms and 3 MiB of resident memory). `chronicle mcp` runs it from the
// directory of the chronicle executable, with the archive and lock wait it
// resolved (--db, CHRONICLE_DB, the default; --wait, CHRONICLE_WAIT).
//
// Usage: chronicle-mcp --db PATH [--wait DURATION]
package main
