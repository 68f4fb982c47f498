package commands

import (
	"github.com/casper-chronicle/chronicle/original"
)

// The outcomes of one store of `import`.
const (
	OutcomeImported = "imported" // a new document, with its receipts
	OutcomePresent  = "present"  // the same store was there: new receipts only
	OutcomeConflict = "conflict" // the document was there with another store, kept
	OutcomeRejected = "rejected" // the file is not a store the archive takes
)

// ImportOut is one store's outcome: its JSON is an `import --json` line
// (fields in the order of their names). Which counts it has depends on
// the outcome, and a count is there even when it is 0, so they are
// pointers: events and receipts when imported; receipts and
// receipts_kept_before when present; receipts_not_imported on a
// conflict; error (the kind) and message when rejected.
type ImportOut struct {
	DocumentSHA256      string `json:"document_sha256,omitempty"`
	Error               string `json:"error,omitempty"`
	Events              *int   `json:"events,omitempty"`
	Imported            string `json:"imported,omitempty"`
	Message             string `json:"message,omitempty"`
	Outcome             string `json:"outcome"`
	Path                string `json:"path"`
	Receipts            *int   `json:"receipts,omitempty"`
	ReceiptsKeptBefore  *int   `json:"receipts_kept_before,omitempty"`
	ReceiptsNotImported *int   `json:"receipts_not_imported,omitempty"`
	StoreVersion        int    `json:"store_version,omitempty"`
	// Report is the import itself, for a readable view (nil when
	// rejected).
	Report *original.Report `json:"-"`
}

// ImportedOf is the outcome of a store imported from path.
func ImportedOf(path string, rep *original.Report) *ImportOut {
	r := rep.Result
	out := &ImportOut{Path: path, DocumentSHA256: r.Doc.SHA256.String(), StoreVersion: r.Doc.Version,
		Imported: RFC3339(r.Doc.Imported()), Report: rep}
	switch {
	case r.Conflict:
		out.Outcome, out.ReceiptsNotImported = OutcomeConflict, ptr(len(rep.Receipts))
	case r.Present:
		out.Outcome, out.Receipts, out.ReceiptsKeptBefore = OutcomePresent, ptr(r.Receipts), ptr(r.Unchanged)
	default:
		out.Outcome, out.Events, out.Receipts = OutcomeImported, ptr(len(rep.Store.Events)), ptr(r.Receipts)
	}
	return out
}

// ImportRejected is the outcome of a store refused with err, whose error
// kind (the CLI's JSON error kinds) is kind.
func ImportRejected(path, kind string, err error) *ImportOut {
	return &ImportOut{Path: path, Outcome: OutcomeRejected, Error: kind, Message: err.Error()}
}

func ptr(n int) *int { return &n }
