// Command chronicle-extract runs Chronicle's HTML and mail parsers for
// chronicle, chronicle-mcp and chronicle-serve, which start it beside
// themselves (engine/extract.Workers) when an ingest or a verification
// meets a web page or a mail. `chronicle-extract serve` answers their
// requests on stdin and stdout until stdin closes; `chronicle-extract
// version` prints the parsers' versions.
//
// It is a binary of its own because the parsers' libraries
// (golang.org/x/net/html, github.com/jhillyerd/enmime/v2 and what they
// bring) cost about a millisecond of package initialisation to every
// process that links them, which every other command would pay; and a
// parser that crashes on a hostile mail takes down only its worker.
package main
