package repl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
)

// runIngest adds files and walked directories, in groups of files that
// commit in one transaction each (ingestGroup); a rejected file leaves no
// trace and the others still land. Every path gets an outcome line, in
// walk order, once the group holding it has committed: new, reused, rejected (a failure:
// exit 1) or, inside a walk, skipped with the reason (not a failure). A
// directory argument with no file to ingest is said so (emptyDir): a
// silent exit 0 reads as if it had worked; when nothing at all was given
// to ingest that is a failure (exit 1) and the archive is left as it was
// (not created).
func runIngest(x *ctx) (err error) {
	entries := expandPaths(x.p.args)
	files, empty := 0, []string{}
	for _, e := range entries {
		switch e.outcome {
		case "":
			files++
		case outcomeEmpty:
			empty = append(empty, e.path)
		}
	}
	single := len(x.p.args) == 1 && len(entries) == 1 && entries[0].outcome == ""
	if (x.p.has("name") || x.p.has("receipt")) && !single {
		return usageErrorf("--name and --receipt need exactly one file")
	}
	if x.p.has("name") && x.p.value("name") == "" {
		return usageErrorf("--name cannot be empty; nothing was ingested")
	}
	maxFiles, err := x.p.intValue("commit-every", groupFiles)
	if err != nil {
		return err
	}
	importedAt, err := db.ImportTime()
	if err != nil {
		return err
	}
	var a *db.Archive
	var known map[db.Digest]bool
	if files > 0 { // nothing to ingest: the archive is not opened (or created)
		if a, err = x.open(true); err != nil {
			return err
		}
		// Files whose contents the archive holds already need no
		// preparation: re-ingesting a directory only adds names.
		if known, err = a.KnownDocuments(); err != nil {
			return err
		}
		// Hold the lock only while each group commits: readers (and
		// other writers) get in between groups.
		if err := a.Release(); err != nil {
			return err
		}
		// Term postings are written for many documents at a time (an
		// interrupted batch's are written by the next write).
		a.BeginBatch()
		defer func() {
			if ferr := a.EndBatch(); ferr != nil && err == nil {
				err = ferr
			}
		}()
	}
	var paths []string
	for _, e := range entries {
		if e.outcome == "" {
			paths = append(paths, e.path)
		}
	}
	var pre *preparer
	if a != nil {
		pre = startPreparing(a, paths, importedAt, known)
		defer pre.close()
	}
	interrupted := x.env.Interrupted // the CLI's too: Exec catches Ctrl-C for ingest
	g := &ingestGroup{x: x, a: a, pr: pre, progress: newProgress(x.env, files), single: single, maxFiles: maxFiles}
	done := 0
	for _, e := range entries {
		switch e.outcome {
		case "skipped":
			g.later(func() { x.outcome("skipped", e.path, nil, e.reason) })
			continue
		case outcomeEmpty:
			g.later(func() { x.emptyDir(e.path) })
			continue
		case "rejected":
			g.rejected++
			g.counted++
			g.later(func() { x.rejected(e.reject) })
			continue
		}
		if interrupted != nil && interrupted() {
			// What is prepared commits (a group lands whole); the rest
			// is left for a re-run, which resumes.
			if err := g.commit(); err != nil {
				return err
			}
			g.progress.clear()
			return interruptedErrorf("%d of %d files not ingested (the first is %s)", files-done, files, sanitize(e.path))
		}
		f, err := g.next()
		if err != nil {
			return err
		}
		done++
		g.counted++
		if err := g.add(f); err != nil {
			return err
		}
	}
	if err := g.commit(); err != nil {
		return err
	}
	rejected, counted := g.rejected, g.counted
	g.progress.clear()
	if rejected > 0 {
		return rejectedErrorf("%d of %d files rejected", rejected, counted)
	}
	if files == 0 && len(empty) > 0 {
		// Quiet: the readable view said it, one line per directory.
		return quietStatus(ExitFailure, kindFailure, withObject(
			fmt.Errorf("nothing was ingested: %s", noFilesIn(empty)), "file", empty[0]))
	}
	return nil
}

// outcomeEmpty marks a directory argument whose walk found no file to
// ingest (nothing in it, or only entries it skips).
const outcomeEmpty = "empty"

// reasonEmpty is what is said of such a directory.
const reasonEmpty = "no files to ingest in this directory"

// emptyDir says that directory argument dir gave no file to ingest: a
// line on stderr ("chronicle ingest: DIR: no files to ingest in this
// directory"), or with --json an outcome line "empty" with the reason, as
// a skipped entry has (stdout stays JSON Lines, stderr JSON errors only).
func (x *ctx) emptyDir(dir string) {
	if x.p.has("json") || x.env.JSON {
		printJSONLine(x.out(), map[string]any{"path": dir, "outcome": outcomeEmpty, "reason": reasonEmpty})
		return
	}
	fmt.Fprintf(x.env.Stderr, "%schronicle ingest: %s: %s\n", x.env.where(), sanitize(dir), reasonEmpty)
}

// noFilesIn is the error's text for the directories that gave no file.
func noFilesIn(dirs []string) string {
	if len(dirs) == 1 {
		return fmt.Sprintf("%s has no files to ingest", sanitize(dirs[0]))
	}
	return fmt.Sprintf("%d directories have no files to ingest (the first is %s)", len(dirs), sanitize(dirs[0]))
}

// preparer reads and prepares the files of a batch ahead of their
// commits, on three goroutines (the preparation of one file keeps 1.3-1.5
// cores busy, and a third fills the gaps while another waits), and hands
// them over in order. Files are committed in groups (ingestGroup), so the
// workers run ahead of the commits by up to budget: the bytes of the files
// read and not yet committed, each file weighing four times its size plus
// fileWeight for what its preparation adds (its line index, grams, frames).
// A group closes once it holds half the budget (ingestGroup.add), so the
// next group is prepared in the other half while it commits.
type preparer struct {
	next   chan prepared
	stop   chan struct{}
	done   chan struct{}
	budget *byteBudget
}

// Memory of the files in flight (see preparer).
const (
	fileWeight     = 32 << 10
	preparerBudget = 4 * groupBytes
)

// prepared is one file of the batch, ready to commit or failed to read.
// src is kept to show the line of a rejected source; weight is what it
// holds of the preparer's budget until it is released.
type prepared struct {
	path   string
	src    []byte
	pp     *db.Prepared
	err    error
	weight int64
}

func startPreparing(a *db.Archive, paths []string, importedAt uint64, known map[db.Digest]bool) *preparer {
	pr := &preparer{next: make(chan prepared), stop: make(chan struct{}), done: make(chan struct{}),
		budget: newByteBudget(preparerBudget)}
	// Three files are prepared at once, each on its own goroutine, and
	// handed over in order: worker w prepares files w, w+3, ... and queues
	// them on its slot until each is next.
	const workers = 3
	slots := make([]chan prepared, workers)
	for i := range slots {
		slots[i] = make(chan prepared, groupFiles)
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				f := prepared{path: paths[i]}
				if f.src, f.err = fileio.ReadLimited(paths[i], engine.MaxSourceSize); f.err == nil {
					f.weight = 4*int64(len(f.src)) + fileWeight
				}
				if !pr.budget.acquire(i, f.weight) { // an unread file takes its turn too
					return // stopped
				}
				if f.err == nil {
					f.pp = a.PrepareUnlessKnown(f.src, importedAt, known)
				}
				select {
				case slots[w] <- f:
				case <-pr.stop:
					return
				}
			}
		}()
	}
	go func() {
		defer close(pr.done)
		defer wg.Wait()
		for i := range paths {
			var f prepared
			select {
			case f = <-slots[i%workers]:
			case <-pr.stop:
				return
			}
			select {
			case pr.next <- f:
			case <-pr.stop:
				return
			}
		}
	}()
	return pr
}

// close stops preparing and waits for the goroutine, which uses the
// archive's codecs, before the archive closes.
func (pr *preparer) close() {
	close(pr.stop)
	pr.budget.close()
	<-pr.done
}

// outcome prints one ingest line: text on a terminal, JSON Lines with --json
// (a skipped one carries "reason"; rejected is rejected's).
func (x *ctx) outcome(kind, path string, res *db.IngestResult, detail string) {
	if x.p.has("json") || x.env.JSON {
		j := map[string]any{"path": path, "outcome": kind}
		switch {
		case res != nil:
			j["document_sha256"] = res.Doc.SHA256.String()
			j["events"] = res.Doc.EventCount
			if x.inlineReceipt() {
				j[receiptField], j["receipt_id"] = string(res.Receipt.Encode()), res.Receipt.ID().String()
			}
			if len(res.Moved) > 0 {
				// Each name that moved here, and the document it named.
				moved := map[string]string{}
				for name, prev := range res.Moved {
					moved[name] = prev.String()
				}
				j["moved"] = moved
			}
		case kind == "skipped":
			j["reason"] = detail
		}
		printJSONLine(x.out(), j)
		return
	}
	hash := ""
	if res != nil {
		hash = res.Doc.SHA256.Short()
	}
	switch kind {
	case "skipped":
		fmt.Fprintf(x.out(), "%-8s  %s  %s\n", kind, sanitize(path), sanitize(detail))
	default:
		fmt.Fprintf(x.out(), "%-8s  %s  %s  %s\n", kind, sanitize(path), hash, detail)
	}
}

// rejected prints a rejected file: "rejected  FILE:LINE:COL: RULE (byte
// N)" and, when a line is at fault, the line and a caret under the byte
// (indented, so that the outcome lines of a batch still line up). With
// --json it is one record with "error" (that line) and the "file",
// "line", "col", "byte" and "rule" fields (rejection.json).
func (x *ctx) rejected(r *rejection) {
	if x.p.has("json") || x.env.JSON {
		j := map[string]any{"path": r.path, "outcome": "rejected"}
		r.json(j)
		printJSONLine(x.out(), j)
		return
	}
	fmt.Fprintf(x.out(), "%-8s  %s\n", "rejected", sanitize(r.message()))
	for _, l := range r.caretLines() {
		fmt.Fprintln(x.out(), l)
	}
}

// pathEntry is one path to ingest (outcome "") or one already decided:
// "skipped" (inside a walk: not a document, with its reason) or
// "rejected" (a failure).
type pathEntry struct {
	path, outcome, reason string
	reject                *rejection
}

// Reasons of the entries a walk skips.
const (
	reasonHidden  = "hidden (its name starts with a dot)"
	reasonSymlink = "a symbolic link (not followed in a directory walk)"
)

// expandPaths turns arguments into entries, in order. A path named on the
// command line is followed when it is a symbolic link; it must be a
// regular file or a directory, anything else (a FIFO, a socket, a device)
// is rejected. A directory contributes its entries in lexical order,
// recursively: regular files to ingest; hidden entries, symbolic links,
// FIFOs, sockets and devices skipped with the reason; a directory that
// cannot be listed rejected. A directory argument in which the walk
// found nothing to ingest or reject is followed by an outcomeEmpty entry.
func expandPaths(args []string) []pathEntry {
	var out []pathEntry
	for _, arg := range args {
		st, err := os.Stat(arg)
		switch {
		case err != nil:
			out = append(out, rejectedEntry(arg, fileRule(err)))
		case st.IsDir():
			n := len(out)
			out = walkDir(arg, out)
			if !slices.ContainsFunc(out[n:], func(e pathEntry) bool { return e.outcome == "" || e.outcome == "rejected" }) {
				out = append(out, pathEntry{path: arg, outcome: outcomeEmpty})
			}
		case st.Mode().IsRegular():
			out = append(out, pathEntry{path: arg})
		default:
			out = append(out, rejectedEntry(arg, notRegular(st.Mode())))
		}
	}
	return out
}

// walkDir appends the entries of dir, recursively, in lexical order.
func walkDir(dir string, out []pathEntry) []pathEntry {
	entries, err := os.ReadDir(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		out = append(out, rejectedEntry(dir, "the directory cannot be read: "+err.Error()))
		if len(entries) == 0 {
			return out
		}
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		t := e.Type()
		switch {
		case strings.HasPrefix(e.Name(), "."):
			out = append(out, pathEntry{path: path, outcome: "skipped", reason: reasonHidden})
		case t.IsDir():
			out = walkDir(path, out)
		case t.IsRegular():
			out = append(out, pathEntry{path: path})
		case t&fs.ModeSymlink != 0:
			out = append(out, pathEntry{path: path, outcome: "skipped", reason: reasonSymlink})
		default:
			out = append(out, pathEntry{path: path, outcome: "skipped", reason: notRegular(t)})
		}
	}
	return out
}

// rejectedEntry is a path rejected before it is read, for rule.
func rejectedEntry(path, rule string) pathEntry {
	return pathEntry{path: path, outcome: "rejected", reject: &rejection{path: path, offset: -1, rule: rule}}
}

// notRegular is the reason for a path that is not a regular file: "a FIFO,
// not a regular file".
func notRegular(m fs.FileMode) string {
	return fileio.Kind(m) + ", not a regular file"
}
