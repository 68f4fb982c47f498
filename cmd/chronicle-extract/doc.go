// Command chronicle-extract is chronicle with the HTML and mail parsers
// linked in (package engine/extract/parsers), installed beside chronicle.
//
// chronicle leaves the parsers out: their libraries
// (golang.org/x/net/html, github.com/jhillyerd/enmime/v2 and what they
// bring) cost about a millisecond of package initialisation to every
// process that links them, which every command would pay. So:
//
//   - `chronicle ingest ...` run as one command hands itself to
//     chronicle-extract (exec on Unix, a child on Windows), which runs the
//     same command with the parsers in process (repl/ingest_handoff.go);
//   - everything else that meets a mail or a page (an ingest in a session
//     or a script, the verification of a DERIVE receipt, chronicle-mcp,
//     chronicle-serve) runs `chronicle-extract --extract-worker`, which
//     parses for it over its stdin and stdout (engine/extract.Workers);
//     a parser crashing on a hostile mail takes down only that worker.
//
// Run any other way it is chronicle: same commands, flags and output.
package main
