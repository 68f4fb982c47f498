package commands

import "github.com/casper-chronicle/chronicle/db"

// IngestOut is one path's outcome of `ingest`: its JSON is an `ingest
// --json` line (fields in the order of their names, as the CLI has always
// printed them). Which fields it has depends on the outcome:
// document_sha256, events, and moved when a name now points here, for new
// and reused; receipt and receipt_id as well with `--receipt -`; reason
// for skipped and empty; for rejected, error (the one line), file, rule,
// and byte, line and col where the fault is located. A count that can be
// 0 is a pointer, so that 0 is printed and an absent one is not.
type IngestOut struct {
	Byte           *int              `json:"byte,omitempty"`
	Col            int               `json:"col,omitempty"`
	DocumentSHA256 string            `json:"document_sha256,omitempty"`
	Error          string            `json:"error,omitempty"`
	Events         *int              `json:"events,omitempty"`
	File           string            `json:"file,omitempty"`
	Line           int               `json:"line,omitempty"`
	Moved          map[string]string `json:"moved,omitempty"`
	Outcome        string            `json:"outcome"`
	Path           string            `json:"path"`
	Reason         string            `json:"reason,omitempty"`
	Receipt        string            `json:"receipt,omitempty"`
	ReceiptID      string            `json:"receipt_id,omitempty"`
	Rule           string            `json:"rule,omitempty"`
}

// IngestedOf is the outcome of a path that landed (new or reused): res
// is db's result; withReceipt puts the receipt itself in the line.
func IngestedOf(kind db.OutcomeKind, path string, res *db.IngestResult, withReceipt bool) *IngestOut {
	out := &IngestOut{Outcome: string(kind), Path: path, DocumentSHA256: res.Doc.SHA256.String(), Events: ptr(res.Doc.EventCount)}
	if withReceipt {
		out.Receipt, out.ReceiptID = string(res.Receipt.Encode()), res.Receipt.ID().String()
	}
	if len(res.Moved) > 0 {
		// Each name that moved here, and the document it named.
		out.Moved = make(map[string]string, len(res.Moved))
		for name, prev := range res.Moved {
			out.Moved[name] = prev.String()
		}
	}
	return out
}
