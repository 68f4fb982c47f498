// Package climain is the main function of the chronicle command, shared
// by the two binaries that are it: chronicle, and chronicle-extract (the
// same command with the HTML and mail parsers linked in, which `chronicle
// ingest` hands itself to). Run adds the process-level switches of
// cmd/chronicle's documentation: CHRONICLE_MEMSTATS (memory figures at
// exit) and CHRONICLE_CPUPROFILE (a CPU profile of the command).
package climain
