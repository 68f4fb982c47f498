// Command benchserve measures `chronicle serve` against issue 28's
// targets: every page at most 50 ms of server time (p95) on the `make
// bench-real` archive and on a 100,000-document archive, and each API
// answer within 2 ms of the same command's time in process.
//
//	go run ./cmd/benchserve [-docs 100000] [-real=true] [-runs 20] [-bin bin]
//	                        [-work DIR] [-real-work DIR] [-scale-work DIR] [-no-install]
//
// `make bench-serve` builds the commands and runs it (BENCH_SERVE_DOCS sets
// -docs, BENCH_SERVE_RUNS -runs). It
//
//  1. gets two archives, cached under -work (default
//     $TMPDIR/chronicle-bench-serve, so a second run starts measuring at
//     once): bench-real's English archive at its full size (the
//     run-en-N/archive.db with the largest N under -real-work, copied, its
//     documents linked; when there is none it runs bin/benchreal -corpora
//     en first), and an archive of -docs small documents of benchscale's
//     pool (bin/benchscale -link links the same documents a benchscale run
//     of that size takes; one `chronicle ingest` stores them);
//  2. picks, for each archive, in this process through repl.ExecJSON (the
//     CLI's code): the largest and the smallest document (docs --sort
//     size), the middle one by name (docs --sort name), the entity with the
//     most events (entities), a settlement question between the two
//     entities with the most events, and receipts of a query and a
//     settlement (--receipt -); and, from the documents' own document
//     frequencies (benchtool.PickTerms, as benchscale), an absent, a rare
//     and the most common word and three medium words;
//  3. starts `chronicle --db ARCHIVE serve --json`, the real binary as a
//     user runs it, reads the URL and its token from the first line, and
//     fetches every page kind (home, docs, docs by name after a document,
//     a document's first page, find, query, settle, entity, claims,
//     verify) and four API endpoints (stats, docs, find, entity) with Go's
//     net/http client on one kept-alive connection, each once to warm up
//     and then -runs times. The server time of a request is its
//     Server-Timing header (repl/web: the handler's start to its first
//     write, which is the whole answer, since the server builds it before
//     sending); the client time runs from sending the request to the
//     body's last byte;
//  4. runs each API endpoint's command line in this process, as the CLI
//     does (repl.ExecJSON: open the archive, run, close), as many times
//     after a warm-up, and checks that the API's body is byte for byte the
//     command's stdout;
//  5. prints the machine, the date and the binary, then per archive a
//     markdown table of the pages (p50 and p95 server time, p95 client
//     time, a mark where p95 passes 50 ms) and one of the API (the API's
//     median client time, the in-process median, their difference and a
//     mark where it passes 2 ms; beside them the body's size and the API's
//     median server time, which tell the HTTP transfer from the server's
//     work; and whether the bodies are equal), and the terms and names
//     used.
//
// A request that fails, or an API body that differs from the CLI's, is
// printed as a failure and makes the exit status 1. It is not part of
// `make test`; its unit test covers the percentile, the Server-Timing and
// serve-line parsing and the choice of requests.
package main
