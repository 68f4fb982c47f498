package repl

import (
	"fmt"
	"maps"
	"slices"

	"github.com/casper-chronicle/chronicle/db"
)

// ingestView renders a batch ingest (db.IngestPaths): one outcome line per
// entry as db reports it, and the progress line with the rate of the
// files landed so far.
type ingestView struct {
	x        *invocation
	progress *progress
	single   bool // one file: --receipt applies to it
	rejected int
}

// step draws the progress line: files seen, and the rate of those landed.
func (v *ingestView) step(p db.IngestProgress) {
	rate := ""
	if secs := p.Elapsed.Seconds(); p.Landed > 0 && secs > 0 {
		rate = fmt.Sprintf("%.0f docs/s %.1f MB/s  ", float64(p.Landed)/secs, float64(p.LandedBytes)/1e6/secs)
	}
	v.progress.step(p.Seen, rate+p.Path)
}

// show prints one entry's outcome (the progress line gives way to it).
func (v *ingestView) show(o db.PathOutcome) error {
	x := v.x
	v.progress.clear()
	switch o.Kind {
	case db.OutcomeSkipped:
		x.outcome(string(o.Kind), o.Path, nil, o.Reason)
		return nil
	case db.OutcomeEmpty:
		x.emptyDir(o.Path)
		return nil
	case db.OutcomeRejected:
		v.rejected++
		x.rejected(newRejection(o.Path, o.Src, o.Err))
		if o.Derived != nil && len(o.Derived.Originals) > 0 && !(x.p.has("json") || x.env.JSON) {
			fmt.Fprintf(x.env.Stderr, "chronicle ingest: %s: the original file is kept (%s), no text was derived\n",
				sanitize(o.Path), o.Derived.Originals[0].Short())
		}
		return nil
	}
	res := o.Result
	switch {
	case o.Derived != nil:
		// Each text derived from the original file (its own, its
		// attachments', its messages'), one line each under its name:
		// FILE, FILE/PART.
		d := o.Derived
		for i, r := range d.Texts {
			kind := db.OutcomeNew
			if r.Reused {
				kind = db.OutcomeReused
			}
			x.outcome(string(kind), d.Names[i], r, plural(r.Doc.EventCount, "event")+derivedBy(d, i))
		}
	case o.Kind == db.OutcomeReused:
		x.outcome(string(o.Kind), o.Path, res, fmt.Sprintf("first imported %s", rfc3339(res.Doc.Imported())))
	default:
		x.outcome(string(o.Kind), o.Path, res, plural(res.Doc.EventCount, "event"))
	}
	if !(x.p.has("json") || x.env.JSON) { // JSON: the outcome's "moved"
		for _, name := range slices.Sorted(maps.Keys(res.Moved)) {
			fmt.Fprintf(x.env.Stderr, "chronicle ingest: name %q now points at %s (was %s, which stays in the archive)\n",
				sanitize(name), res.Doc.SHA256.Short(), res.Moved[name].Short())
		}
	}
	if v.single && x.p.value("receipt") == "-" {
		if !x.inlineReceipt() { // else it is in the JSON outcome line
			x.out().Write(res.Receipt.Encode())
		}
	} else if v.single && x.p.has("receipt") {
		if err := x.writeSigned(x.p.value("receipt"), res.Receipt.Encode()); err != nil {
			return err
		}
	}
	return nil
}

// derivedBy says, after a derived text's event count, what derived it:
// ", derived by pdftotext 24.02.0".
func derivedBy(d *db.DerivedResult, i int) string {
	if d == nil || i >= len(d.Tools) {
		return ""
	}
	return ", derived by " + d.Tools[i].Name + " " + d.Tools[i].Version
}
