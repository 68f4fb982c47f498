// Package mcpserver is `chronicle mcp`: the archive served as Model Context
// Protocol tools over stdio, a third front-end beside the CLI and the REPL
// (its guide: README.md in this directory), built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// # Basics
//
// Every tool runs the db and engine calls the CLI command of the same name
// runs, on an archive opened read-only for the one call: docs, show, find,
// query, settle, entity, verify. Their canonical results are returned byte
// for byte (the `canonical` field is the line `chronicle CMD --json`
// prints) together with a decoded copy and the answer's receipt. Errors are
// tool errors carrying the CLI's one-line message (`chronicle query: …`);
// each call runs under db.Guard as a CLI command does, so a damaged page
// is the CLI's line too, and the chronicle-mcp binary starts db's stack
// watch as the chronicle command does.
// Every status, verdict, rule, outcome and reason a description names is
// taken from the engine package that produces it (vocab.go), so an agent
// that declares what it read declares a value the checker knows.
//
// A line on stdin that is not JSON gets a JSON-RPC Parse error (-32700),
// and one that is JSON but no JSON-RPC message (a batch included: MCP
// 2025-06-18 removed them) an Invalid Request (-32600), with id null
// unless the line carries a usable id; the session goes on, and requests
// in flight are answered (transport.go). The SDK's stdio transport alone
// would end the session at such a line.
//
// Every result carries its result ID `claim-result/<ns>/<runId>/<ordinal>`
// (engine/claimcheck/README.md §4.3): ns is the client's name from the MCP
// handshake, runId is `<UTC time>-<8 random hex>-<run>` chosen when the
// session starts, and ordinals count the run's results from 1. The server
// keeps the question and document of each result, so check_claims takes
// only claim lines (engine/claimcheck/README.md §2): it writes the claims
// file of the run (its results, then the given claim lines) and checks it
// with db.Archive.CheckClaims, which keeps the check and the receipts of
// compared results; that is the only write. A check ends its run: later
// results start run <run>+1, since a check's identity (namespace, runId)
// names exactly one claims file (engine/claimcheck/README.md §5).
//
// # Caveats
//
// Only results of query and of find on one document (also each hit of find
// across the archive) are claimable, as the claims file defines result
// lines for those alone; a claim on any other result, on a result ID of another
// session or run, or on an ordinal the session never returned is checked
// as `missing-result`. Documents ingested while the server runs are
// answered but appear in resources/list only after a restart.
package mcpserver
