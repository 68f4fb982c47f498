package repl

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/internal/jsontext"
)

// docsIn reads the paging flags of `docs` into its input: --limit N,
// --after DOC and --sort ORDER (commands.DocsSorts).
func docsIn(x *invocation, a *db.Archive) (commands.DocsIn, error) {
	limit, err := x.p.intValue("limit", 0)
	if err != nil {
		return commands.DocsIn{}, err
	}
	in := commands.DocsIn{Limit: limit, After: x.p.value("after"), Sort: x.p.value("sort")}
	if x.p.has("sort") && in.Sort == "" {
		return in, usageErrorf("%s", commands.DocsSortError(in.Sort).Error())
	}
	if x.p.has("after") && in.After == "" {
		// an empty DOC names no document: Resolve says how
		_, err := a.Resolve("")
		return in, withObject(fmt.Errorf("--after %w", err), "document", "")
	}
	return in, nil
}

// runDocs lists the documents as it reads them (commands.Docs): a page of
// --limit rows reads only those records, whatever the archive's size.
func runDocs(x *invocation) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	in, err := docsIn(x, a)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(x.out(), 64<<10)
	defer w.Flush()
	asJSON := x.askedJSON()
	var last *db.Document
	more, err := commands.Docs(a, in, func(d *db.Document) error {
		if asJSON {
			printJSONLine(w, commands.DocOf(d))
		} else {
			if last == nil {
				fmt.Fprintf(w, "%-12s  %10s  %6s  %-20s  %s\n", "SHA256", "BYTES", "EVENTS", "IMPORTED", "NAMES")
			}
			from := ""
			if d.From != nil {
				from = "  (" + originNote(d.From) + ")"
			}
			fmt.Fprintf(w, "%-12s  %10d  %6d  %-20s  %s%s\n", d.SHA256.Short(), d.SourceSize, d.EventCount,
				rfc3339(d.Imported()), sanitize(strings.Join(d.Names, ", ")), from)
		}
		last = d
		return nil
	})
	if err != nil || asJSON {
		return commandError(err)
	}
	switch {
	case last == nil && in.After != "":
		fmt.Fprintf(w, "(no documents after %s)\n", sanitize(x.p.value("after")))
	case last == nil:
		fmt.Fprintln(w, "(no documents; `ingest PATH` adds some)")
	case more:
		// The next page: the same flags, after the last row.
		next := fmt.Sprintf("docs --after %s --limit %d", last.SHA256.Short(), in.Limit)
		if x.p.has("sort") {
			next += " --sort " + x.p.value("sort")
		}
		fmt.Fprintf(w, "(more: %s)\n", next)
		return nil
	}
	// The originals behind the derived texts, and those that gave none
	// (an image attachment), are in their own listing: say so.
	if has, err := a.HasOriginals(); err != nil {
		return commandError(err)
	} else if has {
		fmt.Fprintln(w, "(original files are kept too: `originals` shows each with the texts and attachments derived from it)")
	}
	return nil
}

// runShow prints lines FROM..TO of a document with their numbers.
func runShow(x *invocation) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	in := commands.ShowIn{Document: x.p.args[0]}
	if len(x.p.args) == 2 {
		from, to, err := parseLineRange(x.p.args[1])
		if err != nil {
			return err
		}
		in.From, in.To = from, max(to, 0)
	}
	// Buffered: a document can have millions of lines, each one write.
	w := bufio.NewWriterSize(x.out(), 64<<10)
	asJSON := x.askedJSON()
	if !asJSON {
		// A derived text says first where it came from (resolved twice:
		// the note must come before the lines).
		if d, err := a.Resolve(in.Document); err == nil {
			if err := x.originLine(a, d); err != nil {
				return commandError(err)
			}
		}
	}
	_, err = commands.Show(a, in, func(l db.Line) error {
		if asJSON {
			// What printJSONLine prints for commands.Line, without
			// joining the text.
			fmt.Fprintf(w, `{"byte_end":%d,"byte_start":%d,"line":%d,"text":`, l.End, l.Start, l.Number)
			jsontext.Write(w, l.Text)
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
	return commandError(err)
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

func runStats(x *invocation) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	st, err := commands.StatsOf(a, commands.StatsIn{})
	if err != nil {
		return err
	}
	if x.askedJSON() {
		printJSONLine(x.out(), st)
		return nil
	}
	var b bytes.Buffer
	for _, s := range []struct {
		key string
		val any
	}{
		{"archive", st.Archive}, {"schema_version", st.SchemaVersion}, {"documents", st.Documents}, {"events", st.Events},
		{"receipts", st.Receipts}, {"original_receipts", st.OriginalReceipts},
		{"source_bytes", st.SourceBytes}, {"stored_bytes", st.StoredBytes}, {"file_bytes", st.FileBytes},
	} {
		fmt.Fprintf(&b, "%-15s %v\n", s.key, s.val)
	}
	if source := st.SourceBytes; source > 0 {
		fmt.Fprintf(&b, "%-15s %.3f (compressed source and events / source)\n", "stored_ratio", float64(st.StoredBytes)/float64(source))
		fmt.Fprintf(&b, "%-15s %.3f (archive file / source)\n", "file_ratio", float64(st.FileBytes)/float64(source))
	}
	_, err = x.out().Write(b.Bytes())
	return err
}
