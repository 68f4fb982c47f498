package repl

import (
	"errors"
	"fmt"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/extract"
)

// groupFiles is --commit-every's default: files per group.
const groupFiles = db.GroupFiles

// runIngest adds files and walked directories through db's batch ingest
// (IngestPaths), in groups of files that commit in one transaction each; a
// rejected file leaves no trace and the others still land. Every path gets
// an outcome line, in walk order, once the group holding it has committed:
// new, reused, rejected (a failure: exit 1) or, inside a walk, skipped
// with the reason (not a failure). A directory argument with no file to
// ingest is said so (emptyDir): a silent exit 0 reads as if it had worked;
// when nothing at all was given to ingest that is a failure (exit 1) and
// the archive is left as it was (not created). Ctrl-C cancels the
// command's context: the group gathered so far commits, the rest is left
// for a re-run.
func runIngest(x *invocation) error {
	if handed, err := handOffIngest(x); handed {
		return err
	}
	entries := db.WalkPaths(x.p.args)
	files, counted, empty := 0, 0, []string{}
	for _, e := range entries {
		switch e.Outcome {
		case "":
			files++
			counted++
		case db.OutcomeRejected:
			counted++
		case db.OutcomeEmpty:
			empty = append(empty, e.Path)
		}
	}
	single := len(x.p.args) == 1 && len(entries) == 1 && entries[0].Outcome == ""
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
	if err := x.prepareKey(); err != nil {
		return err
	}
	var a *db.Archive
	if files > 0 { // nothing to ingest: the archive is not opened (or created)
		if a, err = x.open(true); err != nil {
			return err
		}
	}
	var chosen []string
	if name := x.p.value("name"); name != "" {
		chosen = append(chosen, name)
	}
	v := &ingestView{x: x, progress: newProgress(x.env, files), single: single}
	// Mail, mbox, web pages and PDFs are kept as originals and their
	// texts derived (engine/extract); text files are ingested as they are.
	dv := &deriver{ctx: x.context(), opts: extract.Options{OCR: x.p.has("ocr")}}
	err = a.IngestPaths(x.context(), entries, db.IngestOptions{
		ImportedAt: importedAt, Chosen: chosen, GroupFiles: maxFiles,
		Outcome: v.show, Progress: v.step, Derive: dv.derive,
	})
	v.progress.clear()
	var stopped *db.IngestInterrupted
	switch {
	case errors.As(err, &stopped):
		return interruptedErrorf("%d of %d files not ingested (the first is %s)", stopped.Left, stopped.Files, sanitize(stopped.First))
	case err != nil:
		return err
	case v.rejected > 0:
		return rejectedErrorf("%d of %d files rejected", v.rejected, counted)
	case files == 0 && len(empty) > 0:
		// Quiet: the readable view said it, one line per directory.
		return quietStatus(ExitFailure, kindFailure, withObject(
			fmt.Errorf("nothing was ingested: %s", noFilesIn(empty)), "file", empty[0]))
	}
	return nil
}

// emptyDir says that directory argument dir gave no file to ingest: a
// line on stderr ("chronicle ingest: DIR: no files to ingest in this
// directory"), or with --json an outcome line "empty" with the reason, as
// a skipped entry has (stdout stays JSON Lines, stderr JSON errors only).
func (x *invocation) emptyDir(dir string) {
	if x.p.has("json") || x.env.JSON {
		printJSONLine(x.out(), &commands.IngestOut{Outcome: string(db.OutcomeEmpty), Path: dir, Reason: db.ReasonEmpty})
		return
	}
	fmt.Fprintf(x.env.Stderr, "%schronicle ingest: %s: %s\n", x.env.where(), sanitize(dir), db.ReasonEmpty)
}

// noFilesIn is the error's text for the directories that gave no file.
func noFilesIn(dirs []string) string {
	if len(dirs) == 1 {
		return fmt.Sprintf("%s has no files to ingest", sanitize(dirs[0]))
	}
	return fmt.Sprintf("%d directories have no files to ingest (the first is %s)", len(dirs), sanitize(dirs[0]))
}

// outcome prints one ingest line: text on a terminal, JSON Lines with --json
// (a skipped one carries "reason"; rejected is rejected's).
func (x *invocation) outcome(kind, path string, res *db.IngestResult, detail string) {
	if x.p.has("json") || x.env.JSON {
		out := &commands.IngestOut{Outcome: kind, Path: path}
		switch {
		case res != nil:
			out = commands.IngestedOf(db.OutcomeKind(kind), path, res, x.inlineReceipt())
		case kind == string(db.OutcomeSkipped):
			out.Reason = detail
		}
		printJSONLine(x.out(), out)
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
func (x *invocation) rejected(r *rejection) {
	if x.p.has("json") || x.env.JSON {
		printJSONLine(x.out(), r.ingestOut())
		return
	}
	fmt.Fprintf(x.out(), "%-8s  %s\n", "rejected", sanitize(r.message()))
	for _, l := range r.caretLines() {
		fmt.Fprintln(x.out(), l)
	}
}
