// Package parsers holds the HTML and mail parsers of package extract
// (their rules are in extract's documentation): golang.org/x/net/html
// reads pages, github.com/jhillyerd/enmime/v2 the structure of mails.
//
// It registers itself with extract.Register when it is linked. Only the
// chronicle-extract binary (and tests) link it: these libraries and what
// they bring cost about a millisecond of package initialisation to every
// process that links them, so the chronicle, chronicle-mcp and
// chronicle-serve binaries leave them out and run the parsers in
// chronicle-extract workers (extract.Workers).
package parsers

import "github.com/casper-chronicle/chronicle/engine/extract"

func init() { extract.Register(parse) }

// parse is the extract.Parse of this package.
func parse(k extract.Kind, data []byte, opts extract.Options) ([]extract.Part, error) {
	switch k {
	case extract.KindHTML:
		return extractHTML(data, opts)
	case extract.KindEmail:
		return extractMail(data, opts)
	}
	return nil, extract.Fail("", extract.ErrMalformed, "the parsers read HTML and mail, not %q", extract.OneLine(string(k)))
}
