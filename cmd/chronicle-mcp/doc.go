// Command chronicle-mcp is the MCP server of `chronicle mcp` (package
// repl/mcpserver), in a binary of its own: the MCP SDK brings net/http,
// TLS, OAuth and JSON Schema with it, whose package initialisation every
// other chronicle command would otherwise pay for at start-up (measured:
// package initialisation 1.7 -> 0.9 ms, `chronicle docs` 9.3 -> 5.8 MiB
// peak RSS). `chronicle mcp` runs it from the
// directory of the chronicle executable, with the archive and lock wait it
// resolved (--db, CHRONICLE_DB, the default; --wait, CHRONICLE_WAIT).
//
// Usage: chronicle-mcp --db PATH [--wait DURATION]
package main
