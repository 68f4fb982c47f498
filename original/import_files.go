package original

import (
	"context"
	"errors"

	"github.com/casper-chronicle/chronicle/db"
)

// ImportOptions tune ImportFiles.
type ImportOptions struct {
	// Before, when set, is told before each store is read (a progress
	// line): i from 0 of the paths.
	Before func(i int, path string)
	// Outcome is told each store's outcome in order: its Report, or the
	// error that left it out (which names the path). An error it returns
	// ends the batch and is ImportFiles's.
	Outcome func(path string, rep *Report, err error) error
}

// ImportFiles is ImportFile of each path in turn, one transaction per
// store, with the stores' term postings written together at the end. A
// store that fails is told to Outcome and the others still land; a
// refused write (db.ErrWriteRefused: the archive, not the store) ends the
// batch with that error, as every later store would be refused too. Once
// ctx ends it stops before the next store, with an error that is
// errors.Is db.ErrInterrupted; the stores imported so far stay.
func ImportFiles(ctx context.Context, a *db.Archive, paths []string, opts ImportOptions) (err error) {
	a.BeginBatch()
	defer func() {
		if ferr := a.EndBatch(); ferr != nil && err == nil {
			err = ferr
		}
	}()
	for i, path := range paths {
		if err := db.Interrupted(ctx, "interrupted; %d of %d stores not imported", len(paths)-i, len(paths)); err != nil {
			return err
		}
		if opts.Before != nil {
			opts.Before(i, path)
		}
		rep, err := ImportFile(a, path)
		if errors.Is(err, db.ErrWriteRefused) {
			return err
		}
		if opts.Outcome != nil {
			if err := opts.Outcome(path, rep, err); err != nil {
				return err
			}
		}
	}
	return nil
}
