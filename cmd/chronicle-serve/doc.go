// Command chronicle-serve is the web server of `chronicle serve`
// (packages repl/web and repl/web/pages), in a binary of its own as
// chronicle-mcp is: net/http, the templates and the embedded assets would
// otherwise be linked into chronicle and paid for by every command at
// start-up (measured on `chronicle docs`: 7.5 -> 11.3 MiB peak RSS, the
// binary 9.2 -> 17.4 MB). `chronicle serve` checks its flags and runs it
// from the directory of the chronicle executable with the archive, lock
// wait and address it resolved, passing Ctrl-C on.
//
// It is the chronicle command with the server linked in (repl.ServeRunner):
// `chronicle-serve ARGS` is `chronicle serve ARGS`.
//
// Usage: chronicle-serve --db PATH [--wait DURATION] [--addr HOST:PORT] [--write] [--json]
package main
