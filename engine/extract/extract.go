package extract

import (
	"context"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Tool is the extractor that derived a text: its name, its exact version
// and options, in canonical order.
type Tool struct {
	Name    string   `json:"name"`    // "chronicle-html", "chronicle-mail", "pdftotext", "tesseract"
	Version string   `json:"version"` // see doc.go
	Options []string `json:"options"` // the exact options used, never nil
}

// Part is one piece an original yields: a text derived from it, or an
// original inside it (an attachment, an mbox message) that the caller
// stores as its own original and extracts in turn.
type Part struct {
	Path        string // "" for the original's own text; else the part's one-level label
	Text        []byte // UTF-8 text (for a text part)
	Tool        Tool   // the tool that derived Text, or that took the inner Original out of its original
	Original    []byte // for an inner original: its bytes, as decoded from the transfer encoding
	ContentType string // for an inner original: its declared content type, if any
}

// Extract derives the parts of one original of kind k. It never runs
// anything through a shell. It returns an *Error for bad input (and the
// context's error when ctx ends).
func Extract(ctx context.Context, k Kind, data []byte, opts Options) ([]Part, error) {
	opts = opts.withDefaults()
	if opts.Depth > opts.MaxDepth {
		return nil, Fail("", ErrLimit, "originals nested more than %d deep (MaxDepth)", opts.MaxDepth)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch k {
	case KindHTML, KindEmail:
		if parse := registered.Load(); parse != nil {
			return (*parse)(k, data, opts)
		}
		return DefaultWorkers().Extract(ctx, k, data, opts)
	case KindMbox:
		return extractMbox(data, opts)
	case KindPDF:
		return extractPDF(ctx, data, opts)
	case KindText:
		return nil, Fail("", ErrMalformed, "plain text is not an original: ingest it as it is")
	case KindBinary:
		return nil, Fail("", ErrMalformed, "binary data: not HTML, an email, an mbox, a PDF or UTF-8 text")
	}
	return nil, Fail("", ErrMalformed, "unknown kind %q", OneLine(string(k)))
}

// Parse derives the parts of an HTML page or a mail in this process,
// its Options already defaulted (see Register).
type Parse func(k Kind, data []byte, opts Options) ([]Part, error)

var registered atomic.Pointer[Parse]

// Register makes Extract parse HTML and mail in this process with fn.
// Package parsers registers itself when it is linked: into the
// chronicle-extract binary, and into tests. Without it (the chronicle,
// chronicle-mcp and chronicle-serve binaries) Extract runs those parsers
// in chronicle-extract processes beside the executable (Workers): their
// libraries (enmime, golang.org/x/net/html and what they bring) then cost
// nothing to the start of every other command, and a parser that crashes
// on hostile input takes down only its worker.
func Register(fn Parse) { registered.Store(&fn) }

// ParsersLinked reports whether the HTML and mail parsers are in this
// process (Register was called).
func ParsersLinked() bool { return registered.Load() != nil }

// The versions of the parsers, bumped whenever the bytes they write for
// some input would change (see doc.go).
const (
	htmlVersion = "1"
	mailVersion = "1"
)

// Library versions as in go.mod, for binaries built without module
// information. Keep them equal to go.mod (TestLibraryVersions checks).
const (
	enmimeModule  = "github.com/jhillyerd/enmime/v2"
	enmimeVersion = "v2.3.0"
	xnetModule    = "golang.org/x/net"
	xnetVersion   = "v0.62.0"
)

var buildDeps = sync.OnceValue(func() map[string]string {
	deps := map[string]string{enmimeModule: enmimeVersion, xnetModule: xnetVersion}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if _, want := deps[d.Path]; !want {
				continue
			}
			if d.Replace != nil {
				d = d.Replace
			}
			if d.Version != "" && d.Version != "(devel)" {
				deps[d.Path] = d.Version
			}
		}
	}
	return deps
})

// HTMLToolVersion is the version of chronicle-html, e.g. "1
// (golang.org/x/net v0.62.0)".
func HTMLToolVersion() string {
	return htmlVersion + " (" + xnetModule + " " + buildDeps()[xnetModule] + ")"
}

// mboxToolVersion is the version of the mbox splitter (mbox.go): bump it
// whenever the messages it cuts would differ by a byte.
const mboxToolVersion = "1"

// MailToolVersion is the version of chronicle-mail, e.g. "1 (enmime
// v2.3.0, golang.org/x/net v0.62.0)".
func MailToolVersion() string {
	d := buildDeps()
	return mailVersion + " (enmime " + d[enmimeModule] + ", " + xnetModule + " " + d[xnetModule] + ")"
}

// ParserVersions are the versions of the parsers linked into this binary
// (what a worker reports when it starts).
func ParserVersions() map[string]string {
	return map[string]string{"chronicle-html": HTMLToolVersion(), "chronicle-mail": MailToolVersion()}
}

// Installed returns the version of tool name that this build would run
// (as Tool.Version records it): this package's own extractors'
// versions, or what an external tool on PATH prints; ErrToolMissing
// (wrapped) when it is not installed. verify compares it with a
// derivation's: only the same version is expected to give the same bytes.
func Installed(ctx context.Context, name string) (string, error) {
	opts := Options{}.withDefaults()
	switch name {
	case "chronicle-html", "chronicle-mail":
		if registered.Load() != nil {
			return ParserVersions()[name], nil
		}
		// What the worker beside this executable reports: it, not this
		// binary, would run the parser.
		return DefaultWorkers().Version(ctx, name)
	case "chronicle-mbox":
		return mboxToolVersion, nil
	case "pdftotext":
		path, err := lookTool("pdftotext")
		if err != nil {
			return "", err
		}
		return toolVersion(ctx, opts, path, "pdftotext", "-v")
	case "tesseract":
		path, err := lookTool("tesseract")
		if err != nil {
			return "", err
		}
		return toolVersion(ctx, opts, path, "tesseract", "--version")
	}
	return "", Fail("", ErrToolMissing, "no extractor is called %q", name)
}
