// Package pages is the HTML front-end of `chronicle serve`: one
// http.Handler, mounted at "/" by the server (package repl/web), that
// renders the archive's answers as pages a person reads in a browser.
//
// Every page calls the commands package, as the CLI, the REPL and the MCP
// server do, on the archive the server opens read-only for the request
// (Options.Archive), and renders the typed result with html/template:
//
//   - / : a find box, a settlement question box, the archive's totals
//     (commands.StatsOf) and its first documents;
//   - /docs?sort=&after=&limit= : the documents, paged and sorted by any
//     order of `docs --sort` (commands.DocsList);
//   - /doc/SHA256?from=&to=&hl= : a document's lines, PageLines at a time,
//     each an element with id L12 (so /doc/SHA256#L12 opens at the line,
//     and the small script highlights #L12-L14), with its events on those
//     lines, its names, size, import time and receipts (each with a
//     Verify link); hl marks byte spans a link carries (START-END,...);
//   - /find?terms=&doc=&page= : the matching documents ranked as find
//     ranks them (commands.Find), each hit line with its terms marked,
//     linked to the line with the same marks;
//   - /query?doc=&question= and /settle?question=&doc= : the status as a
//     badge, debt and settled as exact rationals, every evidence linked to
//     its line, counted payments apart from cited ones;
//   - /entity?name= : every event naming the entity;
//   - /verify?receipt= : a receipt replayed (VALID, INVALID or
//     UNSUPPORTED, with the reason);
//   - /receipts?doc=&offset=&verify= : every kept receipt (one
//     document's with doc), ReceiptsPage at a time, each with its Verify
//     link; verify=1 verifies the page's receipts (`receipts --verify`);
//   - /claims?file= : the kept claims checks, and the rows of one (the
//     newest, or the check of that file): each coloured by its outcome,
//     the claimed value beside the archive's, and below it the lines of
//     the answer the claim was compared with (the check replayed,
//     db.Archive.ReplayCheck, so the rows are also re-checked);
//   - /claims/check : the form that checks a claims file, uploaded or
//     pasted, as `chronicle claims check FILE` (commands.ClaimsCheck),
//     then sends the browser to its rows.
//
// Every page is a GET but /claims/check's POST, the one page that writes:
// only when the server gives Options.Write (`chronicle serve --write`),
// with the CSRF token in the form (the server checks it before the pages
// see the request). A refused file shows the form again with the problem
// and the text pasted, and keeps nothing.
//
// Highlights come from the engine's byte spans, never matched again by
// the page: each is a <mark> with data-byte-start and data-byte-end
// (half-open byte offsets into the document, as in the JSON) under an
// element carrying data-document-sha256, and every line element carries
// its own range. A find hit's marks are the occurrences of the query's
// terms in the line find listed, the byte substrings that made it match.
//
// Document text is always escaped. Control characters and bidi
// formatting characters stay in the text (a mark's text is the
// document's bytes) but each sits in an isolated element the style sheet
// labels with its code point, so an override reorders nothing around it;
// every line is dir="auto", so Arabic lines read right to left. The pages
// work without JavaScript (links and GET forms), under the server's
// Content-Security-Policy (no inline script or style: the style sheets
// and the script are embedded files under /static/), and print without
// their navigation. A parameter that is not text, too long, or out of
// range is a 400 page; an unknown document or page is a 404 page; a
// damaged archive is a 500 page naming the damage, never a stack trace.
//
// The tests serve the handler on archives of testdata/samples and
// testdata/stories with a hostile document and a large one; TestBrowser
// drives headless Chromium (chromedp) under the CSP, and with
// CHRONICLE_SCREENSHOTS=1 writes testdata/screenshots/find.png,
// settle.png, entity.png and claims.png.
package pages
