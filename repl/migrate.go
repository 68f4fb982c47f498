package repl

import (
	"fmt"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/original"
)

// runImport brings existing .chronicle stores (V1 or V2) and the receipts
// beside them into the archive (original.ImportFiles): one outcome line
// per store, a progress bar on a terminal, and Ctrl-C (which cancels the
// command's context) stops it before the next store.
func runImport(x *invocation) error {
	a, err := x.open(true)
	if err != nil {
		return err
	}
	failed := 0
	bar := newProgress(x.env, len(x.p.args))
	defer bar.clear()
	err = original.ImportFiles(x.context(), a, x.p.args, original.ImportOptions{
		Before: func(i int, path string) { bar.step(i, sanitize(path)) },
		Outcome: func(path string, rep *original.Report, err error) error {
			bar.clear()
			if err != nil {
				failed++
			}
			x.importOutcome(path, rep, fileErr(path, err))
			return nil
		},
	})
	if err != nil { // interrupted, or a refused write
		return err
	}
	if failed > 0 {
		return rejectedErrorf("%d of %d stores rejected", failed, len(x.p.args))
	}
	return nil
}

// importOutcome prints one store's outcome: imported, present, conflict
// or rejected (err, which names the path).
func (x *invocation) importOutcome(path string, rep *original.Report, err error) {
	if x.askedJSON() {
		if err != nil {
			_, kind := classify(err)
			printJSONLine(x.out(), commands.ImportRejected(path, kind, err))
			return
		}
		printJSONLine(x.out(), commands.ImportedOf(path, rep))
		return
	}
	if err != nil {
		fmt.Fprintf(x.out(), "%-8s  %v\n", "rejected", err) // err names path
		return
	}
	out, r := commands.ImportedOf(path, rep), rep.Result
	switch out.Outcome {
	case commands.OutcomeConflict:
		fmt.Fprintf(x.out(), "%-8s  %s  %s  the document is already in the archive with another store (V%d, imported %s); kept that one, %d receipts not imported\n",
			out.Outcome, path, r.Doc.SHA256.Short(), r.Doc.Version, out.Imported, *out.ReceiptsNotImported)
	case commands.OutcomePresent:
		fmt.Fprintf(x.out(), "%-8s  %s  %s  already in the archive; %d new receipts (%d already kept)\n",
			out.Outcome, path, r.Doc.SHA256.Short(), *out.Receipts, *out.ReceiptsKeptBefore)
	default:
		fmt.Fprintf(x.out(), "%-8s  %s  %s  V%d store, %d events, %d receipts\n",
			out.Outcome, path, r.Doc.SHA256.Short(), rep.Store.Version, *out.Events, *out.Receipts)
	}
}

// runMigrate upgrades the archive schema (opening for writing runs every
// registered step in one transaction) and reports it (commands.Migrate).
func runMigrate(x *invocation) error {
	a, err := x.openExisting()
	if err != nil {
		return err
	}
	out, err := commands.Migrate(a)
	if err != nil {
		return err
	}
	if x.askedJSON() {
		printJSONLine(x.out(), out)
		return nil
	}
	if !out.Upgraded {
		fmt.Fprintf(x.out(), "%s: schema %d, nothing to do\n", out.Archive, out.Schema)
		return nil
	}
	fmt.Fprintf(x.out(), "%s: upgraded schema %d to %d\n", out.Archive, out.SchemaFrom, out.Schema)
	for _, u := range out.Steps {
		fmt.Fprintf(x.out(), "  %d→%d  %s\n", u.From, u.To, u.Summary)
	}
	return nil
}
