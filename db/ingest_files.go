package db

import (
	"context"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// OutcomeKind is what a batch ingest (IngestPaths) did with one path.
type OutcomeKind string

// The outcomes of IngestPaths. Only OutcomeRejected is a failure: a
// skipped entry is not a document, an empty directory had none.
const (
	OutcomeNew      OutcomeKind = "new"      // a document the archive did not hold
	OutcomeReused   OutcomeKind = "reused"   // bytes the archive held: names added
	OutcomeRejected OutcomeKind = "rejected" // not ingested: Err says why
	OutcomeSkipped  OutcomeKind = "skipped"  // inside a walk, not a document: Reason
	OutcomeEmpty    OutcomeKind = "empty"    // a directory argument with no file to ingest
)

// PathOutcome is the outcome of one entry of IngestPaths.
type PathOutcome struct {
	Path   string
	Kind   OutcomeKind
	Reason string        // OutcomeSkipped, OutcomeEmpty
	Result *IngestResult // OutcomeNew, OutcomeReused: committed
	// Derived: an original file's originals and texts (Result is its
	// first text's ingest), committed; for a rejected one, the originals
	// kept anyway (no text), or nil.
	Derived *DerivedResult
	Err     error // OutcomeRejected
	// Src is a rejected file's bytes, to show the line at fault (nil when
	// the file could not be read, or was never read).
	Src []byte
}

// decided is the outcome of an entry WalkPaths decided.
func (e PathEntry) decided() PathOutcome {
	return PathOutcome{Path: e.Path, Kind: e.Outcome, Reason: e.Reason, Err: e.Err}
}

// IngestProgress is how far a batch is, told as each file is handed to a
// group: for a terminal's progress line and its documents/s and MB/s.
type IngestProgress struct {
	Seen        int           // files handed to groups, this one included
	Path        string        // this file
	Landed      int           // files whose group committed
	LandedBytes int64         // their sources' bytes
	Elapsed     time.Duration // since the first file came
}

// IngestOptions tune IngestPaths.
type IngestOptions struct {
	ImportedAt uint64   // the documents' import time (ImportTime)
	Chosen     []string // names given to every file, besides its path
	GroupFiles int      // files per group at most; 0 is GroupFiles
	// Outcome is told each entry's outcome, in the entries' order, a
	// file's once its group has committed. An error it returns ends the
	// batch (what committed stays) and is IngestPaths's.
	Outcome func(PathOutcome) error
	// Progress, when set, is told as each file is handed to its group.
	Progress func(IngestProgress)
	// Derive, when set, is asked about every file read (on the
	// preparing goroutines): an original file (mail, web page, PDF)
	// gives what was derived from it, which lands in a transaction of its
	// own (IngestDerived); a text file gives nil, and is ingested as it
	// is.
	Derive DeriveFunc
}

// DeriveFunc derives the texts of an original file read from path: nil
// for a plain text file. An error rejects the file; a set returned with
// it holds the originals to keep anyway (they were read whole), and no
// text.
type DeriveFunc func(path string, src []byte) (*DerivedSet, error)

// DerivedSet is one original file and what was derived from it, for
// IngestDerived.
type DerivedSet struct {
	Originals  []OriginalInput
	Texts      []DerivedText
	prepared   []*Prepared     // each text's, by prepareDerived
	kept       []*keptOriginal // each original's, by prepareDerived
	importedAt uint64
}

// IngestInterrupted is IngestPaths's error when its context ended: the
// groups committed so far stay, Left of the batch's Files files were not
// ingested, First the first of them; a re-run of the batch adds them
// (the others are reused). It is errors.Is ErrInterrupted and the
// context's cause (context.Canceled on Ctrl-C).
type IngestInterrupted struct {
	Left, Files int
	First       string
	cause       error
}

func (e *IngestInterrupted) Error() string {
	return fmt.Sprintf("ingest interrupted: %d of %d files not ingested (the first is %s)", e.Left, e.Files, e.First)
}

func (e *IngestInterrupted) Unwrap() []error { return []error{ErrInterrupted, e.cause} }

// IngestPaths ingests the files among entries (WalkPaths), in groups that
// commit in one transaction each (IngestFiles), and tells opts.Outcome
// every entry's outcome in order: a rejected file leaves no trace and the
// others still land. The files are read and prepared on several cores
// ahead of the commits; a file whose bytes the archive holds is not
// prepared again (re-ingesting a directory only adds names).
//
// The archive's lock is held only while a group commits, so readers and
// other writers get in between groups; a must be able to write, and is
// left released. When entries hold no file the archive is not touched at
// all, and a may be nil: a batch with nothing to ingest creates nothing.
//
// When ctx ends, the group gathered so far commits (a group lands whole)
// and IngestPaths returns *IngestInterrupted before the next file; a
// canceled ctx ingests nothing. A refused write (ErrWriteRefused: the
// archive, not the file) ends the batch with that error, before the
// outcome of the file it refused.
func (a *Archive) IngestPaths(ctx context.Context, entries []PathEntry, opts IngestOptions) (err error) {
	var paths []string
	for _, e := range entries {
		if e.Outcome == "" {
			paths = append(paths, e.Path)
		}
	}
	g := &pathGroup{opts: opts, maxFiles: opts.GroupFiles}
	if g.maxFiles <= 0 {
		g.maxFiles = GroupFiles
	}
	if len(paths) > 0 {
		if a.opts.ReadOnly {
			// Refused before anything is read, rather than file by file.
			return fmt.Errorf("archive %s: ingest: %w", a.path, bolt.ErrDatabaseReadOnly)
		}
		var known map[Digest]bool
		if err := a.Hold(true, func() (err error) { known, err = a.KnownDocuments(); return err }); err != nil {
			return fmt.Errorf("ingest: listing the archive's documents: %w", err)
		}
		if err := a.Release(); err != nil {
			return fmt.Errorf("ingest: releasing the archive: %w", err)
		}
		// Term postings are written for many documents at a time (an
		// interrupted batch's are written by the next write).
		a.BeginBatch()
		defer func() {
			if ferr := a.EndBatch(); ferr != nil && err == nil {
				err = ferr
			}
		}()
		g.a = a
		g.pr = a.startPreparing(paths, opts.ImportedAt, known, opts.Derive)
		defer g.pr.close()
	}
	done := 0
	for _, e := range entries {
		if e.Outcome != "" {
			if err := g.later(e.decided()); err != nil {
				return err
			}
			continue
		}
		f, ok, err := g.next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			// What is gathered commits (a group lands whole); the rest is
			// left for a re-run, which resumes.
			if err := g.commit(); err != nil {
				return err
			}
			return &IngestInterrupted{Left: len(paths) - done, Files: len(paths), First: e.Path, cause: context.Cause(ctx)}
		}
		done++
		if err := g.add(f); err != nil {
			return err
		}
	}
	return g.commit()
}
