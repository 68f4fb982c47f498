package commands

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/casper-chronicle/chronicle/db"
)

// DocsIn selects a page of `docs`.
type DocsIn struct {
	Limit int    `json:"limit,omitempty" jsonschema:"list at most this many documents (default all)"`
	After string `json:"after,omitempty" jsonschema:"start after this document (a name or hash prefix, e.g. the last of the previous page)"`
	Sort  string `json:"sort,omitempty" jsonschema:"import (the default), newest (last imported first), name (by first name), size (largest first) or events (most first)"`
}

// Doc is one document of `docs`: its JSON is the `docs --json` line.
// The fields are in the order of their JSON names, as the CLI has always
// printed them.
type Doc struct {
	DerivedFrom  *Origin  `json:"derived_from,omitempty" jsonschema:"the original file (a mail, a web page, a pdf) the text was derived from; absent for a text ingested as it is"`
	SHA256       string   `json:"document_sha256" jsonschema:"SHA-256 hex of the document's exact bytes: its identity"`
	Events       int      `json:"events" jsonschema:"typed events extracted from it"`
	Imported     string   `json:"imported" jsonschema:"the first import, RFC 3339 (UTC)"`
	ImportedAt   uint64   `json:"imported_at" jsonschema:"Unix seconds of the first import"`
	Names        []string `json:"names" jsonschema:"every name the document was ingested under"`
	Size         int64    `json:"size" jsonschema:"bytes"`
	StoreVersion int      `json:"store_version" jsonschema:"CASPER-CHRON store version"`
}

// DocOf is the Doc of a document record.
func DocOf(d *db.Document) Doc {
	return Doc{DerivedFrom: OriginOf(d.From), SHA256: d.SHA256.String(), Events: d.EventCount, Imported: RFC3339(d.Imported()),
		ImportedAt: d.ImportedAt, Names: d.Names, Size: d.SourceSize, StoreVersion: d.Version}
}

// Origin is the original file a document was derived from, as find and
// entity hits name it ("derived_from"): the original's SHA-256, the part
// of it the text is, and the tool that derived it.
type Origin struct {
	OriginalSHA256 string     `json:"original_sha256" jsonschema:"SHA-256 hex of the original file"`
	Part           string     `json:"part" jsonschema:"the part of the original the text is; empty for its own text"`
	Tool           OriginTool `json:"tool"`
}

// OriginTool names the extractor of an Origin.
type OriginTool struct {
	Name    string `json:"name" jsonschema:"the extractor's name, as originals lists it"`
	Version string `json:"version" jsonschema:"its exact version"`
}

// OriginOf is the Origin of a derivation, nil for none.
func OriginOf(dv *db.Derivation) *Origin {
	if dv == nil {
		return nil
	}
	return &Origin{OriginalSHA256: dv.Input.String(), Part: dv.Part, Tool: OriginTool{Name: dv.Tool.Name, Version: dv.Tool.Version}}
}

// RFC3339 is how every view shows a time: RFC 3339 in UTC, to the second
// (the archive records seconds).
func RFC3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// DocsOut is a page of documents; More: documents remain after it.
type DocsOut struct {
	Documents []Doc
	More      bool
}

// DocsSorts are the orders of `docs --sort`, the default first.
var DocsSorts = []string{"import", "newest", "name", "size", "events"}

var docsSorts = map[string]db.DocOrder{"": db.OrderImport, "import": db.OrderImport, "newest": db.OrderNewest,
	"name": db.OrderName, "size": db.OrderSize, "events": db.OrderEvents}

// DocsSortError is the error of an order `docs --sort` does not know.
func DocsSortError(sort string) error {
	return db.InputErrorf("--sort %q: want %s or %s", sort, strings.Join(DocsSorts[:len(DocsSorts)-1], ", "), DocsSorts[len(DocsSorts)-1])
}

// Docs lists the page in.Limit (0: all), in.After, in.Sort selects, one
// document at a time as it is read (db.ListDocs): each is called with
// each document, so a page reads only its records and the CLI prints
// them as they come. It reports whether documents remain after the page.
func Docs(a *db.Archive, in DocsIn, each func(*db.Document) error) (more bool, err error) {
	var opts db.ListOptions
	if in.Limit < 0 {
		return false, db.InputErrorf("--limit wants a positive integer, got %d", in.Limit)
	}
	opts.Limit, opts.Origins = in.Limit, true
	order, ok := docsSorts[in.Sort]
	if !ok {
		return false, DocsSortError(in.Sort)
	}
	opts.Order = order
	if in.After != "" {
		d, err := a.Resolve(in.After)
		if err != nil {
			return false, &ArgError{Object: "document", Value: in.After, Err: fmt.Errorf("--after %w", err)}
		}
		opts.After = &d.SHA256
	}
	return a.ListDocs(opts, each)
}

// DocsList is Docs collected into its result.
func DocsList(a *db.Archive, in DocsIn) (*DocsOut, error) {
	out := &DocsOut{Documents: []Doc{}}
	more, err := Docs(a, in, func(d *db.Document) error {
		out.Documents = append(out.Documents, DocOf(d))
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.More = more
	return out, nil
}

// ShowIn names a document and a line range.
type ShowIn struct {
	Document string `json:"document" jsonschema:"a document name or at least 8 hex digits of its SHA-256"`
	From     int    `json:"from,omitempty" jsonschema:"first line (1-based; default 1)"`
	To       int    `json:"to,omitempty" jsonschema:"last line (default: the last line of the document)"`
}

// Line is one physical line of `show`: its JSON is the `show --json`
// line (fields in the order of their names, as the CLI prints them).
type Line struct {
	ByteEnd   int    `json:"byte_end"`
	ByteStart int    `json:"byte_start"`
	Line      int    `json:"line"`
	Text      string `json:"text"`
}

// LineOf is the Line of a line read back.
func LineOf(l db.Line) Line {
	n := 0
	for _, p := range l.Text {
		n += len(p)
	}
	text := make([]byte, 0, n)
	for _, p := range l.Text {
		text = append(text, p...)
	}
	return Line{ByteEnd: l.End, ByteStart: l.Start, Line: l.Number, Text: string(text)}
}

// Show resolves in.Document and calls each with its lines in.From (0:
// 1) to in.To (0: the last), read back and checked (db.Archive.Lines);
// it returns the document. A range past the last line is an error that
// says where the last line is.
func Show(a *db.Archive, in ShowIn, each func(db.Line) error) (*db.Document, error) {
	switch {
	case in.From < 0 || in.To < 0:
		return nil, db.InputErrorf("line range: want from >= 1 and to >= from")
	case in.To != 0 && in.To < max(in.From, 1):
		return nil, db.InputErrorf("line range %d-%d: want FROM, FROM-TO or FROM- with FROM <= TO", in.From, in.To)
	}
	d, err := a.Resolve(in.Document)
	if err != nil {
		return nil, err
	}
	from, to := max(in.From, 1), in.To
	if to == 0 {
		to = -1
	}
	shown := 0
	err = a.Lines(d, from, to, func(l db.Line) error {
		shown++
		return each(l)
	})
	if err == nil && shown == 0 && (in.From != 0 || in.To != 0) {
		// Only a range past the last line shows nothing: say where that
		// is (counted by a second read, on this error path alone).
		last := 0
		if err := a.Lines(d, 1, -1, func(l db.Line) error { last = l.Number; return nil }); err != nil {
			return nil, err
		}
		return nil, &ArgError{Object: "document", Value: in.Document, Err: fmt.Errorf("%s has %s, no line %d", d.Label(), Plural(last, "line"), from)}
	}
	return d, err
}

// StatsIn takes no arguments.
type StatsIn struct{}

// Stats are the archive's totals: its JSON is the `stats --json` line
// (fields in the order of their names).
type Stats struct {
	Archive          string `json:"archive" jsonschema:"the archive file"`
	Documents        int    `json:"documents"`
	Events           int    `json:"events"`
	FileBytes        int64  `json:"file_bytes" jsonschema:"the archive file's size"`
	OriginalReceipts int    `json:"original_receipts" jsonschema:"original receipts imported with their stores"`
	Receipts         int    `json:"receipts" jsonschema:"every receipt the archive keeps, the original ones included"`
	SchemaVersion    int    `json:"schema_version"`
	SourceBytes      int64  `json:"source_bytes" jsonschema:"the documents' bytes"`
	StoredBytes      int64  `json:"stored_bytes" jsonschema:"compressed sources and event tables"`
}

// StatsOf reads the running totals (no document record is read).
// Receipts counts what `receipts` lists: the archive's own, cross-archive
// ones and the original ones that came with imported stores.
func StatsOf(a *db.Archive, _ StatsIn) (*Stats, error) {
	t, err := a.Totals()
	if err != nil {
		return nil, err
	}
	var fileSize int64
	if st, err := os.Stat(a.Path()); err == nil {
		fileSize = st.Size()
	}
	return &Stats{Archive: a.Path(), SchemaVersion: db.SchemaVersion, Documents: int(t.Documents), Events: int(t.Events),
		Receipts: int(t.Receipts + t.SetReceipts + t.Originals), OriginalReceipts: int(t.Originals),
		SourceBytes: t.SourceBytes, StoredBytes: t.StoredBytes, FileBytes: fileSize}, nil
}

// Plural is "1 WORD" or "N WORDs".
func Plural[N int | int64](n N, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// EntitiesIn is `entities [PREFIX]`.
type EntitiesIn struct {
	Prefix string `json:"prefix,omitempty"`
}

// EntityName is one known name: its JSON is the `entities --json` line.
type EntityName struct {
	Events int    `json:"events"`
	Name   string `json:"name"`
}

// Entities lists the known entity names starting with in.Prefix, with
// their event counts, from the entity index.
func Entities(a *db.Archive, in EntitiesIn) ([]EntityName, error) {
	names, err := a.EntityNames(in.Prefix)
	if err != nil {
		return nil, err
	}
	out := make([]EntityName, len(names))
	for i, n := range names {
		out[i] = EntityName{Events: n.Events, Name: n.Name}
	}
	return out, nil
}
