// Package web is `chronicle serve`: the archive on a local web server,
// for a person (the HTML pages of package repl/web/pages, given as
// Options.Pages) and for programs (a JSON API). repl/web/README.md is the
// guide: the URL and its token, the API's URL scheme, the status codes and
// the security model.
//
// # The API
//
// GET /api/v1/COMMAND?… serves every command of the table that reads the
// archive (commands.Spec.Read; NotServed names the exceptions and why).
// The parameters are the command's positional arguments, named by the
// words of its synopsis in lower case (ArgNames), and its own flags by
// their names; Argv turns them into the command line, which runs through
// Options.Exec, the CLI's own code (repl.ExecJSON), so the body is byte
// for byte what `chronicle COMMAND … --json` prints, and an error is the
// CLI's JSON error object with the HTTP status of its kind (Status). No
// endpoint re-implements a command. The writes (keep=true, and
// POST APIPrefix+ClaimsCheck with the claims file's text) need a server
// started with --write.
//
// # Security
//
// The server listens on loopback only (commands.CheckServeAddr), answers only requests
// whose Host is a loopback name with its port (DNS rebinding), and only
// with the access token: ?token= once (an HttpOnly, SameSite=Strict cookie
// follows, and a redirect drops the token from the URL), or
// Authorization: Bearer. Every response carries CSP, nosniff and
// no-referrer headers and no CORS header. A POST needs the CSRF token
// (CSRF) and a same-origin Origin or Sec-Fetch-Site when sent; the only
// POSTs that write (--keep) need a server started with --write.
//
// # The archive
//
// The archive is opened for each request and closed before it ends
// (WithArchive, and each command through Exec, under db.Guard): no lock is
// held between requests, so `chronicle ingest` beside the server works,
// and the next request sees what it committed.
package web
