package db

import (
	"context"
	"errors"
	"slices"
	"time"
)

// Group limits of a batch ingest (IngestPaths). A group commits in one
// transaction (one lock, one fsync): the more files it holds, the less
// each pays for the commit, but its prepared documents wait in memory,
// readers wait for the lock while it commits, and its outcomes wait for
// it. So a group closes at GroupFiles files, groupBytes of sources or half
// the preparer's budget, and after groupAge when the next file is not
// ready yet (a slow batch still shows progress).
const (
	GroupFiles = 2048
	groupBytes = 16 << 20
	groupAge   = 500 * time.Millisecond
)

// pathGroup gathers the files of a batch into groups that commit in one
// transaction each (IngestFiles) and reports every entry's outcome in
// order, a file's only once its group has committed.
type pathGroup struct {
	a        *Archive
	pr       *preparer // the files' source
	opts     IngestOptions
	maxFiles int

	files  []FileToIngest
	srcs   [][]byte      // each file's bytes, where a rejection is located
	queued []queuedEntry // the outcomes waiting for the commit, in order
	bytes  int64         // of the files' sources
	weight int64         // of the preparer's budget the group holds
	opened time.Time     // when the group's first file came

	seen        int       // files handed to groups
	landed      int       // files whose group committed
	landedBytes int64     // their bytes
	started     time.Time // of the first file
}

// queuedEntry is one outcome waiting for the group's commit: of file (an
// index into files), or decided already (file < 0).
type queuedEntry struct {
	file    int
	decided PathOutcome
}

// later reports an outcome that needs no commit (skipped, empty, rejected
// before reading) after those of the files before it.
func (g *pathGroup) later(o PathOutcome) error {
	if len(g.files) == 0 {
		return g.report(o)
	}
	g.queued = append(g.queued, queuedEntry{file: -1, decided: o})
	return nil
}

func (g *pathGroup) report(o PathOutcome) error {
	if g.opts.Outcome == nil {
		return nil
	}
	return g.opts.Outcome(o)
}

// next returns the next prepared file, or !ok once ctx has ended. A group
// waiting longer than groupAge commits first, so its outcomes do not wait
// for a slow file.
func (g *pathGroup) next(ctx context.Context) (f preparedFile, ok bool, err error) {
	if ctx.Err() != nil {
		return preparedFile{}, false, nil
	}
	if len(g.files) > 0 {
		if wait := groupAge - time.Since(g.opened); wait > 0 {
			t := time.NewTimer(wait)
			defer t.Stop()
			select {
			case f := <-g.pr.next:
				return f, true, nil
			case <-ctx.Done():
				return preparedFile{}, false, nil
			case <-t.C:
			}
		}
		if err := g.commit(); err != nil {
			return preparedFile{}, false, err
		}
	}
	select {
	case f := <-g.pr.next:
		return f, true, nil
	case <-ctx.Done():
		return preparedFile{}, false, nil
	}
}

// add puts file f in the group (or, when it could not be read, its
// rejection after the group's outcomes) and commits a full group.
func (g *pathGroup) add(f preparedFile) error {
	if g.started.IsZero() {
		g.started = time.Now()
	}
	g.seen++
	if g.opts.Progress != nil {
		g.opts.Progress(IngestProgress{Seen: g.seen, Path: f.path, Landed: g.landed, LandedBytes: g.landedBytes, Elapsed: time.Since(g.started)})
	}
	g.weight += f.weight
	if f.derived != nil && f.err != nil {
		return g.addDerived(f) // rejected, its originals kept
	}
	if f.err != nil {
		return g.later(PathOutcome{Path: f.path, Kind: OutcomeRejected, Err: f.err})
	}
	if len(g.files) == 0 {
		g.opened = time.Now()
	}
	if f.derived != nil && len(g.opts.Chosen) > 0 {
		// --name names the file's own text (an mbox has none: its first
		// message's).
		i := slices.IndexFunc(f.derived.Texts, func(t DerivedText) bool { return t.File != "" })
		if i < 0 {
			i = 0
		}
		f.derived.Texts[i].Chosen = g.opts.Chosen
	}
	g.queued = append(g.queued, queuedEntry{file: len(g.files)})
	g.files = append(g.files, FileToIngest{Prepared: f.pp, Path: f.path, Chosen: g.opts.Chosen, Derived: f.derived})
	g.srcs = append(g.srcs, f.src)
	g.bytes += int64(len(f.src))
	if len(g.files) >= g.maxFiles || g.bytes >= groupBytes || g.weight >= preparerBudget/2 {
		return g.commit()
	}
	return nil
}

// commit commits the group's files and reports the outcomes waiting for
// it. A refused write (the archive is damaged) ends the batch: it returns
// the error, and the outcomes from that file on are not reported (nothing
// of theirs landed).
func (g *pathGroup) commit() error {
	var outs []FileOutcome
	if len(g.files) > 0 {
		outs = g.a.IngestFiles(g.files)
	}
	if g.weight > 0 { // files were read: a preparer gave them
		g.pr.budget.release(g.weight)
	}
	files, srcs, queued := g.files, g.srcs, g.queued
	g.files, g.srcs, g.queued, g.bytes, g.weight = nil, nil, nil, 0, 0
	for _, q := range queued {
		if q.file < 0 {
			if err := g.report(q.decided); err != nil {
				return err
			}
			continue
		}
		f, out, src := files[q.file], outs[q.file], srcs[q.file]
		if errors.Is(out.Err, ErrWriteRefused) {
			// The archive, not the file: the write was refused (nothing
			// changed), and so would every later one be.
			return out.Err
		}
		o := PathOutcome{Path: f.Path, Kind: OutcomeRejected, Err: out.Err, Src: src, Derived: out.Derived}
		if f.Derived != nil {
			o.Src = nil // the text at fault is not the file's bytes
		}
		if out.Err == nil {
			g.landed++
			g.landedBytes += int64(len(src))
			o = PathOutcome{Path: f.Path, Kind: OutcomeNew, Result: out.Result, Derived: out.Result.Derived}
			if out.Result.Reused {
				o.Kind = OutcomeReused
			}
		}
		if err := g.report(o); err != nil {
			return err
		}
	}
	return nil
}

// addDerived keeps the originals of a rejected original file (its
// extraction failed, or a text of it was rejected, after it was read
// whole), in a transaction of its own after the group before it, and
// reports the rejection.
func (g *pathGroup) addDerived(f preparedFile) error {
	// The commit also gives back f's share of the preparer's budget.
	if err := g.commit(); err != nil {
		return err
	}
	kept, err := g.a.IngestDerived(g.opts.ImportedAt, f.derived.Originals, nil)
	if errors.Is(err, ErrWriteRefused) {
		return err
	}
	o := PathOutcome{Path: f.path, Kind: OutcomeRejected, Err: f.err}
	if err == nil {
		o.Derived = kept
	}
	return g.report(o)
}
