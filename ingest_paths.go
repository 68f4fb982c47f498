package chronicle

import (
	"context"
	"errors"
	"fmt"

	"github.com/casper-chronicle/chronicle/db"
)

// ErrInterrupted: the context of a long call (IngestPaths) ended; the
// call stopped at a document boundary and what it committed stays. The
// error is also errors.Is the context's cause (context.Canceled,
// context.DeadlineExceeded).
var ErrInterrupted = db.ErrInterrupted

// Outcomes of IngestPaths: only OutcomeRejected is a failure.
const (
	OutcomeNew      = string(db.OutcomeNew)      // a document the archive did not hold
	OutcomeReused   = string(db.OutcomeReused)   // bytes it held: the path was added as a name
	OutcomeRejected = string(db.OutcomeRejected) // not ingested: Err says why
	OutcomeSkipped  = string(db.OutcomeSkipped)  // inside a directory, not a document: Reason
	OutcomeEmpty    = string(db.OutcomeEmpty)    // a directory with no file to ingest
)

// PathIngested is what IngestPaths did with one path.
type PathIngested struct {
	Path     string
	Outcome  string    // one of the Outcome constants
	Reason   string    // OutcomeSkipped, OutcomeEmpty
	Ingested *Ingested // OutcomeNew, OutcomeReused: committed
	Err      error     // OutcomeRejected
}

// IngestPaths ingests files and directories as `chronicle ingest` does,
// with the same code: a directory is walked in lexical order (hidden
// entries, symbolic links and special files inside it are skipped), the
// files are read and prepared on several cores, and they commit in groups
// of up to 2,048 files (16 MiB), each group in one durable transaction
// taken under the exclusive lock, which is let go between groups. each,
// when set, is told every path's outcome in order, a file's once its group
// has committed; an error it returns ends the call. A rejected file
// leaves no trace and is not an error of the call; a path's bytes that
// the archive holds already only add the path as a name, so running a
// batch again after a failure or an interruption resumes it.
//
// When ctx ends, the group gathered so far commits and IngestPaths
// returns an error that is errors.Is ErrInterrupted and the context's
// cause (a canceled ctx ingests nothing); the files after it are left for
// a later call.
func (a *Archive) IngestPaths(ctx context.Context, paths []string, each func(PathIngested) error) error {
	at, err := db.ImportTime()
	if err != nil {
		return err
	}
	err = a.guard(func() error {
		return a.db.IngestPaths(ctx, db.WalkPaths(paths), db.IngestOptions{ImportedAt: at,
			Outcome: func(o db.PathOutcome) error {
				if each == nil {
					return nil
				}
				p := PathIngested{Path: o.Path, Outcome: string(o.Kind), Reason: o.Reason, Err: o.Err}
				if r := o.Result; r != nil {
					p.Ingested = &Ingested{Document: document(r.Doc), Reused: r.Reused, Receipt: r.Receipt.Encode()}
				}
				return each(p)
			}})
	})
	if err != nil && !errors.Is(err, ErrInterrupted) { // that one says "ingest interrupted"
		return fmt.Errorf("ingest: %w", err)
	}
	return err
}
