package repl

import (
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
)

// runOriginals lists the original files and what was derived from each:
// JSON Lines, or a line per original (digest prefix, kind, size, name)
// with its derived documents and inner originals indented under it.
func runOriginals(x *invocation) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	out, err := commands.Originals(a)
	if err != nil {
		return err
	}
	if len(out) == 0 && !x.resultJSON() {
		fmt.Fprintln(x.out(), "no original files: ingest a mail, an mbox, a web page or a PDF to keep one")
		return nil
	}
	for _, o := range out {
		if x.resultJSON() {
			printJSONLine(x.out(), o)
			continue
		}
		name := ""
		if len(o.Names) > 0 {
			name = o.Names[0]
		}
		indent := ""
		if o.DerivedFrom != "" {
			indent = "  "
		}
		fmt.Fprintf(x.out(), "%s%s  %-6s  %9d  %s\n", indent, o.OriginalSHA256[:12], o.Kind, o.Size, sanitize(name))
		for _, d := range o.Derived {
			part := d.Part
			if part == "" {
				part = "(its text)"
			}
			fmt.Fprintf(x.out(), "%s  -> %-8s %s  %s  by %s\n", indent, d.OutputKind, d.OutputSHA256[:12], sanitize(part),
				sanitize(strings.TrimSpace(d.Tool.Name+" "+d.Tool.Version)))
		}
	}
	return nil
}

// originNote is how the readable views name the original a derived
// document came from: "from email 93bfcef5a610 by chronicle-mail" (with
// "part P" when the text is a part of it); "" for a text ingested as it
// is. `originals` shows the whole tree, tool versions included.
func originNote(from *db.Derivation) string {
	if from == nil {
		return ""
	}
	kind := from.InputKind
	if kind == "" {
		kind = "original"
	}
	note := "from " + sanitize(kind) + " " + from.Input.Short()
	if from.Part != "" {
		note += " part " + sanitize(from.Part)
	}
	return note + " by " + sanitize(from.Tool.Name)
}

// originLine prints, on the readable view, the line that names the
// original document d was derived from ("LABEL: from email ..."), and
// nothing for a text ingested as it is.
func (x *invocation) originLine(a *db.Archive, d *db.Document) error {
	from, err := a.Origin(d.SHA256)
	if err != nil || from == nil {
		return err
	}
	fmt.Fprintf(x.out(), "%s: %s (`originals` lists it)\n", sanitize(d.Label()), originNote(from))
	return nil
}
