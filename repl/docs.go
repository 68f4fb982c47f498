package repl

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/db"
)

// docsSorts are the orders of `docs --sort`.
var docsSorts = map[string]db.DocOrder{"import": db.OrderImport, "name": db.OrderName, "size": db.OrderSize}

// docsOptions reads the paging flags of `docs`: --limit N, --after DOC and
// --sort import|name|size.
func docsOptions(x *ctx, a *db.Archive) (db.ListOptions, error) {
	var opts db.ListOptions
	limit, err := x.p.intValue("limit", 0)
	if err != nil {
		return opts, err
	}
	opts.Limit = limit
	if x.p.has("sort") {
		order, ok := docsSorts[x.p.value("sort")]
		if !ok {
			return opts, usageErrorf("--sort %q: want import, name or size", x.p.value("sort"))
		}
		opts.Order = order
	}
	if x.p.has("after") {
		arg := x.p.value("after")
		d, err := a.Resolve(arg)
		if err != nil {
			return opts, withObject(fmt.Errorf("--after %w", err), "document", arg)
		}
		opts.After = &d.SHA256
	}
	return opts, nil
}

// runDocs lists the documents as it reads them (db.ListDocs): a page of
// --limit rows reads only those records, whatever the archive's size.
func runDocs(x *ctx) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	opts, err := docsOptions(x, a)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(x.out(), 64<<10)
	defer w.Flush()
	asJSON := x.machine()
	var last *db.Document
	more, err := a.ListDocs(opts, func(d *db.Document) error {
		if asJSON {
			printJSONLine(w, map[string]any{
				"document_sha256": d.SHA256.String(), "names": d.Names, "size": d.SourceSize,
				"events": d.EventCount, "imported_at": d.ImportedAt, "imported": rfc3339(d.Imported()), "store_version": d.Version,
			})
		} else {
			if last == nil {
				fmt.Fprintf(w, "%-12s  %10s  %6s  %-20s  %s\n", "SHA256", "BYTES", "EVENTS", "IMPORTED", "NAMES")
			}
			fmt.Fprintf(w, "%-12s  %10d  %6d  %-20s  %s\n", d.SHA256.Short(), d.SourceSize, d.EventCount,
				rfc3339(d.Imported()), sanitize(strings.Join(d.Names, ", ")))
		}
		last = d
		return nil
	})
	if err != nil || asJSON {
		return err
	}
	switch {
	case last == nil && opts.After != nil:
		fmt.Fprintf(w, "(no documents after %s)\n", sanitize(x.p.value("after")))
	case last == nil:
		fmt.Fprintln(w, "(no documents; `ingest PATH` adds some)")
	case more:
		// The next page: the same flags, after the last row.
		next := fmt.Sprintf("docs --after %s --limit %d", last.SHA256.Short(), opts.Limit)
		if x.p.has("sort") {
			next += " --sort " + x.p.value("sort")
		}
		fmt.Fprintf(w, "(more: %s)\n", next)
	}
	return nil
}

// runShow prints lines FROM..TO of a document with their numbers.
func runShow(x *ctx) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	d, err := a.Resolve(x.p.args[0])
	if err != nil {
		return err
	}
	from, to := 1, -1
	if len(x.p.args) == 2 {
		if from, to, err = parseLineRange(x.p.args[1]); err != nil {
			return err
		}
	}
	// Buffered: a document can have millions of lines, each one write.
	w := bufio.NewWriterSize(x.out(), 64<<10)
	asJSON := x.machine()
	shown := 0
	err = a.Lines(d, from, to, func(l db.Line) error {
		shown++
		if asJSON {
			// What printJSONLine prints for the map of these four keys
			// (json.Marshal sorts them), without joining the text.
			fmt.Fprintf(w, `{"byte_end":%d,"byte_start":%d,"line":%d,"text":`, l.End, l.Start, l.Number)
			writeJSONString(w, l.Text)
			_, err := w.WriteString("}\n")
			return err
		}
		fmt.Fprintf(w, "%6d  ", l.Number)
		for _, p := range l.Text {
			writeSanitized(w, p)
		}
		return w.WriteByte('\n')
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err == nil && shown == 0 && len(x.p.args) == 2 {
		// Only a range past the last line shows nothing: say where that
		// is (counted by a second read, on this error path alone).
		last := 0
		if err := a.Lines(d, 1, -1, func(l db.Line) error { last = l.Number; return nil }); err != nil {
			return err
		}
		return withObject(fmt.Errorf("%s has %s, no line %d", d.Label(), plural(last, "line"), from), "document", x.p.args[0])
	}
	return err
}

// parseLineRange reads "N", "N-M" or "N-" (to the end).
func parseLineRange(s string) (int, int, error) {
	a, b, isRange := strings.Cut(s, "-")
	from, err := strconv.Atoi(a)
	if err != nil || from < 1 {
		return 0, 0, usageErrorf("line range %q: want FROM, FROM-TO or FROM- with FROM >= 1", s)
	}
	if !isRange {
		return from, from, nil
	}
	if b == "" {
		return from, -1, nil
	}
	to, err := strconv.Atoi(b)
	if err != nil || to < from {
		return 0, 0, usageErrorf("line range %q: want FROM, FROM-TO or FROM- with FROM <= TO", s)
	}
	return from, to, nil
}

func runStats(x *ctx) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	// The running totals (schema 14): no document record is read. receipts
	// counts what `receipts` lists: the archive's own, cross-archive ones
	// and the original ones that came with imported stores.
	t, err := a.Totals()
	if err != nil {
		return err
	}
	source, stored := t.SourceBytes, t.StoredBytes
	var fileSize int64
	if st, err := os.Stat(a.Path()); err == nil {
		fileSize = st.Size()
	}
	stats := []struct {
		key string
		val any
	}{
		{"archive", a.Path()}, {"schema_version", db.SchemaVersion}, {"documents", int(t.Documents)}, {"events", int(t.Events)},
		{"receipts", int(t.Receipts + t.SetReceipts + t.Originals)}, {"original_receipts", int(t.Originals)},
		{"source_bytes", source}, {"stored_bytes", stored}, {"file_bytes", fileSize},
	}
	if x.machine() {
		m := map[string]any{}
		for _, s := range stats {
			m[s.key] = s.val
		}
		printJSONLine(x.out(), m)
		return nil
	}
	var b bytes.Buffer
	for _, s := range stats {
		fmt.Fprintf(&b, "%-15s %v\n", s.key, s.val)
	}
	if source > 0 {
		fmt.Fprintf(&b, "%-15s %.3f (compressed source and events / source)\n", "stored_ratio", float64(stored)/float64(source))
		fmt.Fprintf(&b, "%-15s %.3f (archive file / source)\n", "file_ratio", float64(fileSize)/float64(source))
	}
	_, err = x.out().Write(b.Bytes())
	return err
}
