package repl

import (
	"fmt"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/migrate"
)

// runImport brings existing .chronicle stores (V1 or V2) and the receipts
// beside them into the archive.
func runImport(x *ctx) (err error) {
	a, err := x.open(true)
	if err != nil {
		return err
	}
	// The stores' term postings are written together at the end.
	a.BeginBatch()
	defer func() {
		if ferr := a.EndBatch(); ferr != nil && err == nil {
			err = ferr
		}
	}()
	failed := 0
	for _, path := range x.p.args {
		rep, err := migrate.ImportFile(a, path)
		if err != nil {
			failed++
			fmt.Fprintf(x.out(), "%-8s  %v\n", "rejected", err) // err names path
			continue
		}
		r := rep.Result
		switch {
		case r.Conflict:
			fmt.Fprintf(x.out(), "%-8s  %s  %s  the document is already in the archive with another store (V%d, imported %s); kept that one, %d receipts not imported\n",
				"conflict", path, r.Doc.SHA256.Short(), r.Doc.Version, r.Doc.Imported().Format("2006-01-02T15:04:05Z"), len(rep.Receipts))
		case r.Present:
			fmt.Fprintf(x.out(), "%-8s  %s  %s  already in the archive; %d new receipts (%d already kept)\n",
				"present", path, r.Doc.SHA256.Short(), r.Receipts, r.Unchanged)
		default:
			fmt.Fprintf(x.out(), "%-8s  %s  %s  V%d store, %d events, %d receipts\n",
				"imported", path, r.Doc.SHA256.Short(), rep.Store.Version, len(rep.Store.Events), r.Receipts)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d stores rejected", failed, len(x.p.args))
	}
	return nil
}

// runMigrate upgrades the archive schema (opening for writing runs every
// registered step in one transaction) and reports it.
func runMigrate(x *ctx) error {
	a, err := x.open(true)
	if err != nil {
		return err
	}
	v, err := a.Schema()
	if err != nil {
		return err
	}
	if a.UpgradedFrom == 0 {
		fmt.Fprintf(x.out(), "%s: schema %d, nothing to do\n", a.Path(), v)
		return nil
	}
	fmt.Fprintf(x.out(), "%s: upgraded schema %d to %d\n", a.Path(), a.UpgradedFrom, v)
	for _, u := range db.Upgrades[a.UpgradedFrom-1 : v-1] {
		fmt.Fprintf(x.out(), "  %d→%d  %s\n", u.From, u.From+1, u.Summary)
	}
	return nil
}
