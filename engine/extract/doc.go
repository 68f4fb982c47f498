// Package extract turns an original file — an HTML page, an email, an
// mbox, a PDF — into UTF-8 text, and says exactly which tool, version and
// options derived it.
//
// Why it exists. Chronicle is an evidence database: what it answers must be
// traceable to the bytes a person handed it. For plain text that is the
// text itself; for an email or a PDF the searchable text is a derivation,
// and a derivation is only evidence if anyone can redo it and get the same
// bytes. So this package is deterministic (same input and same tool
// version give the same bytes, always), guesses nothing (no charset
// sniffing: a declared charset is used, an unknown one is an error; no
// silent replacement of undecodable bytes), and records the tool. Its
// version constants (htmlVersion, mailVersion) are bumped whenever the
// output bytes for some input would change, so an old derivation can be
// told from a new one. It stores nothing: the caller (the archive) keeps
// the original, each inner original and each derivation record.
//
// # Detect
//
// Detect looks at the bytes; the name only breaks the HTML tie. In order:
//
//  1. pdf: the data starts with "%PDF-".
//  2. mbox: the data starts with "From " and its second line is a header
//     line ("Name: value", the name printable ASCII without ':').
//  3. email: from the first byte to the first empty line (within the first
//     64 KiB) every line is a header line or a continuation (starting with
//     a space or tab, never first), and at least two distinct names among
//     From, To, Subject, Date, Message-ID, MIME-Version, Received and
//     Content-Type occur (case-insensitively).
//  4. html: past an optional BOM (UTF-8, or UTF-16 whose ASCII is read),
//     whitespace and leading <!-- comments --> (browsers' "saved from"
//     notes), the data starts case-insensitively with "<!doctype html",
//     "<html", "<head" or "<body"; or the name ends with .html or .htm
//     (any case) and the data starts there with "<".
//  5. text: valid UTF-8 without a NUL byte.
//  6. binary: anything else.
//
// # HTML
//
// The charset is the BOM's (UTF-8, UTF-16LE/BE), else that of the first
// <meta charset> or <meta http-equiv="content-type" content="...charset=">
// before <body>, else UTF-8; labels are read as WHATWG labels
// (golang.org/x/net/html/charset); a <meta> saying UTF-16 means UTF-8, as
// in browsers. Unknown label: ErrCharset. UTF-8 that is not valid, or a NUL
// byte: ErrMalformed with the byte offset.
//
// The text is the visible text only: nothing inside script, style,
// noscript, template, iframe, svg, math, object, noembed or noframes; the
// first <title> is the first line, then an empty line. Block elements (div,
// li, tr, dd, dt, header, footer, article, ...) end lines; paragraph-like
// ones (p, h1-h6, table, pre, blockquote, ul, ol, dl, hr, section) are set
// off by an empty line; <br> ends a line (two make an empty line); table
// cells are separated by a space. Inline whitespace collapses to one space,
// lines are trimmed, runs of empty lines become one, there is none at the
// start or end, and a non-empty text ends with "\n". <pre> keeps its spaces
// and line breaks (less the one line break right after <pre>, as HTML
// says). Entities are decoded by the tokenizer; a no-break space becomes a
// plain space that does not collapse (so that "Q1&nbsp;2026" is found by
// "Q1 2026"). Tool: "chronicle-html",
// version "1 (golang.org/x/net vX)", options ["charset=NAME"].
//
// # Email
//
// The MIME structure is read by github.com/jhillyerd/enmime/v2 with its
// decoding turned off; this package undoes the transfer encodings and
// decodes charsets itself, so that it can check MaxExpanded before
// decoding (a base64 part decodes to 3/4 of its size) and so that nothing
// is guessed. enmime's severe errors are ErrMalformed naming the part; its
// other warnings are ignored and never reach the text.
//
// The text is: From, To, Cc, Date, Subject, Message-ID — each only when
// present, on one line, RFC 2047 words decoded to UTF-8, whitespace
// collapsed, repeated fields joined by ", " — then an empty line, then the
// body, CRLF turned into LF, ending with "\n". The body is every leaf part
// of type text/plain (or without a type) that is not an attachment, joined
// by a "--" line; when there is none, every such text/html part through the
// HTML extractor above (an HTML part whose Content-Type declares no charset
// is decoded as an HTML page is: BOM, <meta>, else UTF-8). Body charsets: the declared one; none or US-ASCII
// takes valid UTF-8 as it is and reads other bytes as windows-1252 (as
// browsers read US-ASCII) when US-ASCII was declared, while bytes that are
// not UTF-8 with no charset declared at all are ErrCharset; an unknown
// label is ErrCharset. Every other leaf (attachments, inline images,
// message/rfc822 parts, text attachments) is an inner original: Original
// is its bytes after the transfer decoding only (no charset conversion),
// Path its file name sanitised (valid UTF-8; "/" and "\" become "_";
// control characters and the bidi controls U+202A-U+202E and
// U+2066-U+2069 dropped, so that a name cannot pass for another; at most 200 bytes; "." and ".." count as no
// name), "attachment-N" (N its 1-based rank among the inner originals) when
// it has none, and " (2)", " (3)" ... added to repeated names. A nested
// mail is not opened here: the caller extracts it in turn with Depth+1.
// Tool: "chronicle-mail", version "1 (enmime vX, golang.org/x/net vY)".
//
// # Mbox
//
// A message starts at a line beginning "From " that is the first line or
// follows an empty line (mboxo and mboxrd). The "From " line itself and
// the empty line before the next one are not part of the message.
// ">From " quoting is kept as it is: mboxo and mboxrd cannot be told apart
// from the bytes, and undoing a quote that was not one would alter the
// evidence. Each message is a Part "message-0001", "message-0002" ... with
// Original set and ContentType "message/rfc822"; the mbox has no text.
//
// # PDF
//
// pdftotext (poppler-utils) runs with exactly -enc UTF-8 -eol unix
// -nopgbrk on a 0600 temporary file in a temporary directory removed
// afterwards, never through a shell, within Timeout, its output read up to
// MaxText+1 bytes. Version: the word after "pdftotext version" of
// `pdftotext -v`. A file with no %%EOF is truncated: ErrMalformed. A
// password error is ErrEncrypted (a PDF encrypted with an empty user
// password reads fine, so /Encrypt alone does not refuse it); other open
// failures are ErrMalformed, other failures ErrToolFailed; messages on
// stderr with exit status 0 (poppler's recoverable syntax errors) are
// ignored. pdftotext (22.12) gives Arabic in logical order, but wraps each
// right-to-left line in U+202B ... U+202C and the numbers and punctuation
// inside it in U+202A ... U+202C; these controls are not in the PDF and
// split words and numbers for search, so they are dropped (the recorded
// option chronicle-postprocess=1 says so: form feeds become LF, U+202A to
// U+202E are dropped, the text ends with one LF). Output of only whitespace and form feeds: ErrNoTextLayer, or
// with OCR: pdftoppm -r 300 -gray -png renders the pages and tesseract
// reads each (-l ara+eng when both are installed, else eng; --psm 3;
// -c page_separator=; OMP_THREAD_LIMIT=1 for the same result every time),
// pages in order joined by "\n". Tool is then tesseract with its version,
// and Options records pdftoppm's version and options first.
//
// # Where the parsers run
//
// The HTML and mail parsers live in package parsers, which registers them
// (Register) when linked. Only the chronicle-extract binary (chronicle
// with the parsers, which a one-command `chronicle ingest` hands itself
// to) links it: the libraries they need cost about a millisecond of
// package initialisation to every process that links them. Elsewhere
// Extract sends HTML and mail to `chronicle-extract --extract-worker`
// processes beside the executable (Workers, in
// worker.go: length-prefixed frames on the worker's stdin and stdout; a
// worker per concurrent extraction, kept between originals). The answer
// is the same bytes and the same *Error (part, sentinel, message) as in
// process; a worker that dies or passes Timeout is ErrToolFailed, and a
// missing binary ErrToolMissing saying to install it beside chronicle.
// Installed reports the versions the workers report. PDF and mbox stay in
// process (pdftotext and tesseract are processes anyway).
//
// # Limits
//
// Options bound each original: Timeout per tool run, MaxText bytes of text,
// MaxParts inner originals, MaxExpanded decoded bytes of all its parts,
// MaxDepth for both the MIME nesting inside one mail and Options.Depth, the
// depth the caller gives for nested originals (Depth is an addition to the
// agreed API: Extract's signature has no other place for it). Passing one
// is ErrLimit, saying which. A mail's nesting and part count are measured
// by a line scan before enmime parses it (enmime's cost grows with depth
// times size: 22 s for 330 KB nested 5,000 deep), and its parts' decoded
// size is bounded from their raw sizes before anything is decoded. Every failure is an *Error: one line, the part it is about,
// and one sentinel for errors.Is.
package extract
