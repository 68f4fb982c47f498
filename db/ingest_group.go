package db

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// FileToIngest is one file of IngestFiles: what Prepare (or
// PrepareUnlessKnown) computed from its bytes, its path as typed, and the
// names the user chose for it.
type FileToIngest struct {
	Prepared *Prepared
	Path     string
	Chosen   []string
	// Derived: an original file and what was derived from it, prepared
	// (instead of Prepared).
	Derived *DerivedSet
}

// FileOutcome is what IngestFiles did with one file: its Result, or the
// Err that left it out (a rejected source, a bad name, a refused write).
type FileOutcome struct {
	Result *IngestResult
	Err    error
	// Derived: the originals kept from a rejected original file (read
	// whole), or nil.
	Derived *DerivedResult
}

// IngestFiles is IngestFile of each file, committed as one group: one
// write transaction (one lock, one fsync) for all of them, so a file lands
// with its group or not at all. That is what makes a batch of small files
// fast: a commit per document costs more than preparing a small one.
//
// Each file gets the outcome IngestFile would have given it, in order: a
// file that fails inside the group is left out of it (the files before it
// commit as a group, it is ingested alone, which returns its error, and the
// files after it form the next group); when the group as a whole cannot
// commit (the write guard refuses, the disk fails), its files are ingested
// one by one, so the first that cannot land says why and the error reaches
// every file as it would have without groups; after a refused write
// (ErrWriteRefused) the later files get that error without trying again,
// and when the archive's lock cannot be taken every file gets that error.
// An outcome is final once
// IngestFiles returns: nothing of a file whose outcome is an error was
// written, and every result is committed.
func (a *Archive) IngestFiles(files []FileToIngest) []FileOutcome {
	out := make([]FileOutcome, len(files))
	a.ingestGroups(files, out)
	return out
}

// ingestGroups commits files as one group, splitting it around a file that
// fails (see IngestFiles).
func (a *Archive) ingestGroups(files []FileToIngest, out []FileOutcome) {
	for len(files) > 0 {
		results, err := a.commitGroup(files)
		if err == nil {
			for i, r := range results {
				out[i] = FileOutcome{Result: r}
			}
			return
		}
		var le *groupLockError
		if errors.As(err, &le) {
			// The archive could not be taken: no file can land now.
			for i := range files {
				out[i] = FileOutcome{Err: le.err}
			}
			return
		}
		var fe *groupFileError
		if !errors.As(err, &fe) {
			// Not one file's failure: the group's. One by one, each file
			// meets it (or not) on its own, until a write is refused:
			// every later one would be too.
			for i := range files {
				out[i] = a.ingestAlone(files[i])
				if errors.Is(out[i].Err, ErrWriteRefused) {
					for j := i + 1; j < len(files); j++ {
						out[j] = FileOutcome{Err: out[i].Err}
					}
					return
				}
			}
			return
		}
		a.ingestGroups(files[:fe.i], out[:fe.i])
		out[fe.i] = a.ingestAlone(files[fe.i])
		files, out = files[fe.i+1:], out[fe.i+1:]
	}
}

// ingestAlone is IngestFile of f, in a transaction of its own.
func (a *Archive) ingestAlone(f FileToIngest) FileOutcome {
	if set := f.Derived; set != nil {
		res, err := a.ingestDerivedSet(set) // prepared already
		if err == nil {
			return FileOutcome{Result: res.Texts[0]}
		}
		out := FileOutcome{Err: err}
		if !errors.Is(err, ErrWriteRefused) {
			// A text the grammar rejects: the originals, read whole, are
			// kept all the same.
			out.Derived, _ = a.IngestDerived(set.importedAt, set.Originals, nil)
		}
		return out
	}
	res, err := a.IngestFile(f.Prepared, f.Path, f.Chosen...)
	return FileOutcome{Result: res, Err: err}
}

// groupFileError is the failure of file i inside a group's transaction,
// which rolls the whole group back.
type groupFileError struct {
	i   int
	err error
}

func (e *groupFileError) Error() string { return fmt.Sprintf("file %d of the group: %v", e.i, e.err) }
func (e *groupFileError) Unwrap() error { return e.err }

// groupLockError: the archive's lock could not be taken for the group.
type groupLockError struct{ err error }

func (e *groupLockError) Error() string { return e.err.Error() }
func (e *groupLockError) Unwrap() error { return e.err }

// commitGroup ingests files in one write transaction. A file's failure
// returns a *groupFileError and nothing is written.
func (a *Archive) commitGroup(files []FileToIngest) ([]*IngestResult, error) {
	if a.bolt == nil { // released between groups (Release)
		a.yield()
		if err := a.reacquire(false); err != nil {
			return nil, &groupLockError{err}
		}
		defer a.Release()
	}
	// The term batch sees each document's grams as it is added (a later
	// document of the group may fold them); a rolled-back group leaves the
	// batch as it was.
	var saved termBatch
	if a.batch != nil {
		saved = *a.batch
	}
	results := make([]*IngestResult, len(files))
	err := a.update(func(tx *bolt.Tx) error {
		for i, f := range files {
			if f.Derived != nil {
				res, after, err := a.ingestDerivedIn(tx, f.Derived)
				if err != nil {
					return &groupFileError{i: i, err: err}
				}
				for _, fn := range after {
					fn()
				}
				results[i] = res.Texts[0]
				continue
			}
			pp := f.Prepared
			lp := a.lazy(pp.src, pp.importedAt, pp)
			names := append([]string{f.Path}, f.Chosen...)
			res, committed, err := a.ingestIn(tx, lp, names, &fileNames{path: f.Path, abs: AbsPath(f.Path), chosen: f.Chosen})
			if err != nil {
				return &groupFileError{i: i, err: err}
			}
			committed()
			results[i] = res
		}
		return nil
	})
	if err != nil {
		if a.batch != nil {
			a.batch.docs, a.batch.entries = saved.docs, saved.entries
		}
		return nil, err
	}
	return results, nil
}
