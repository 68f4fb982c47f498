package repl

// Machine output (README "Machine output"): the exit codes in one table,
// the stable kind of every error, and the JSON error object that --json
// (or a session in JSON mode) prints on stderr instead of the text line.
// The kind and the object an error names come from typed and sentinel
// errors (errors.Is/As), never from its text.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
)

// exitCodesLines is the table as help's summary: "exit codes:", then one
// line per code, so that a code never wraps away from its meaning.
func exitCodesLines() []string {
	lines := []string{"exit codes:"}
	for _, c := range ExitCodes {
		lines = append(lines, fmt.Sprintf("  %-4d %s", c.Code, c.Short))
	}
	return lines
}

// Error kinds: the "error" field of a JSON error, stable for scripts.
const (
	kindUsage         = "usage"
	kindFailure       = "failure"
	kindNoArchive     = "no_archive"
	kindBusy          = "busy"
	kindInterrupted   = "interrupted"
	kindDamaged       = "damaged"
	kindNotArchive    = "not_archive"
	kindNewerSchema   = "newer_schema"
	kindNeedsUpgrade  = "needs_upgrade"
	kindNoSuchDoc     = "no_such_document"
	kindAmbiguousDoc  = "ambiguous_document"
	kindNotRegular    = "not_regular_file"
	kindNoSuchFile    = "no_such_file"
	kindPermission    = "permission"
	kindTooLarge      = "too_large"
	kindExists        = "exists"
	kindRejected      = "rejected"
	kindInvalid       = "invalid"
	kindUnsupported   = "unsupported"
	kindProblemsFound = "problems_found"
)

// statusError carries its own exit code and kind: verdicts (INVALID,
// UNSUPPORTED), rejected batches, problems found. quiet: the readable view
// already said it (a verdict on stdout), so only JSON mode prints it.
type statusError struct {
	code  int
	kind  string
	err   error
	quiet bool
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// withStatus gives err an exit code and kind.
func withStatus(code int, kind string, err error) error {
	return &statusError{code: code, kind: kind, err: err}
}

// quietStatus is withStatus for an outcome the command already printed.
func quietStatus(code int, kind string, err error) error {
	return &statusError{code: code, kind: kind, err: err, quiet: true}
}

// rejectedErrorf is a batch with rejected inputs (ingest, import): exit 1,
// kind "rejected"; the outcome lines named each one.
func rejectedErrorf(format string, args ...any) error {
	return withStatus(ExitFailure, kindRejected, fmt.Errorf(format, args...))
}

// interruptedErrorf is a command stopped by Ctrl-C (exit 130); the text
// begins with "interrupted".
func interruptedErrorf(format string, args ...any) error {
	return fmt.Errorf("%w; "+format, append([]any{db.ErrInterrupted}, args...)...)
}

// objectError names the object an error is about ("document", "file",
// "flag", "archive") for the JSON error; its text is its cause's.
type objectError struct {
	key, value string
	err        error
}

func (e *objectError) Error() string { return e.err.Error() }
func (e *objectError) Unwrap() error { return e.err }

// withObject attaches the object key=value to err (nil stays nil).
func withObject(err error, key, value string) error {
	if err == nil {
		return nil
	}
	return &objectError{key: key, value: value, err: err}
}

// classify maps an error to its exit code and kind. The order matters:
// an explicit status first, then the most specific sentinels.
func classify(err error) (int, string) {
	var status *statusError
	var usage *usageError
	var damaged *db.DamageError
	switch {
	case errors.As(err, &status):
		return status.code, status.kind
	case errors.As(err, &usage):
		return ExitUsage, kindUsage
	case errors.Is(err, db.ErrInterrupted):
		return ExitInterrupted, kindInterrupted
	case errors.Is(err, db.ErrNoArchive):
		return ExitNoArchive, kindNoArchive
	case errors.Is(err, db.ErrLocked):
		return ExitBusy, kindBusy
	case errors.As(err, &damaged):
		return ExitFailure, damageKind(damaged.Kind)
	case errors.Is(err, db.ErrCorrupt):
		return ExitFailure, kindDamaged
	}
	for _, k := range []struct {
		err  error
		kind string
	}{
		{db.ErrNotArchive, kindNotArchive}, {db.ErrNewerSchema, kindNewerSchema}, {db.ErrNeedsUpgrade, kindNeedsUpgrade},
		{db.ErrUnknownDoc, kindNoSuchDoc}, {db.ErrAmbiguousDoc, kindAmbiguousDoc},
		{fileio.ErrNotRegular, kindNotRegular}, {fileio.ErrTooLarge, kindTooLarge},
		{fileio.ErrReceiptCollision, kindExists}, {fs.ErrExist, kindExists},
		{fs.ErrNotExist, kindNoSuchFile}, {fs.ErrPermission, kindPermission},
	} {
		if errors.Is(err, k.err) {
			return ExitFailure, k.kind
		}
	}
	return ExitFailure, kindFailure
}

// damageKind is the kind of a damaged archive: a path that is no regular
// file and a file whose header pages do not make it an archive are not
// (necessarily) damage; everything else is.
func damageKind(k db.Damage) string {
	switch k {
	case db.NotRegular:
		return kindNotRegular
	case db.TooShort, db.HeaderInvalid:
		return kindNotArchive
	}
	return kindDamaged
}

// objects collects the objects an error names: every objectError on its
// chain (the outermost wins for a key), a document that did not resolve,
// and the file of a path error.
func objects(err error) map[string]string {
	out := map[string]string{}
	set := func(k, v string) {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if o, ok := e.(*objectError); ok {
			set(o.key, o.value)
		}
	}
	var doc *db.DocumentError
	if errors.As(err, &doc) {
		set("document", doc.Arg)
	}
	var notRegular *fileio.NotRegularError
	if errors.As(err, &notRegular) {
		set("file", notRegular.Path)
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		set("file", pathErr.Path)
	}
	return out
}

// errorJSON is the JSON error object: code, error (the kind), message
// (the text line the readable view prints), command, the objects the
// error names, and location inside a script.
func errorJSON(env *Env, name string, code int, kind string, err error) map[string]any {
	j := map[string]any{"code": code, "error": kind, "command": name,
		"message": fmt.Sprintf("%schronicle %s: %v", env.where(), name, err)}
	for k, v := range objects(err) {
		j[k] = v
	}
	if env.Location != "" {
		j["location"] = env.Location
	}
	return j
}

// askedJSON reports whether the command prints for machines: --json, or a
// session in JSON mode without --text. Unlike results, errors and
// receipts never switch to JSON only because stdout is not a terminal
// (restic's rule): a script that did not ask for JSON reads text.
func (x *invocation) askedJSON() bool {
	return x.p.has("json") || x.env.JSON && !x.p.has("text")
}

// argvAskedJSON is askedJSON for a command line that may not parse: a
// "--json" before any "--".
func argvAskedJSON(env *Env, argv []string) bool {
	for _, a := range argv {
		switch a {
		case "--":
			return env.JSON
		case "--json":
			return true
		case "--text":
			return false
		}
	}
	return env.JSON
}

// receiptField is the JSON field that carries a receipt printed with
// --receipt - in machine mode.
const receiptField = "receipt"

// inlineReceipt reports whether --receipt - goes inside the JSON instead
// of being printed as text after the result.
func (x *invocation) inlineReceipt() bool {
	return x.p.value("receipt") == "-" && x.askedJSON()
}

// printWithReceipt prints a one-line JSON answer (a canonical result, byte
// for byte) with its receipt inside:
// {"receipt":"…","receipt_id":"…","result":R}. R is the
// canonical line exactly, so it is what lies between `"result":` and the
// final `}`.
func (x *invocation) printWithReceipt(result []byte, id db.Digest, receipt []byte) {
	rec, err := json.Marshal(string(receipt))
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(x.out(), "{%q:%s,\"receipt_id\":%q,\"result\":%s}\n", receiptField, rec, id.String(), result)
}

// printReceiptLine prints a receipt as a JSON line of its own, after the
// lines of an answer of several lines (find across the archive, entity).
func (x *invocation) printReceiptLine(id db.Digest, receipt []byte) {
	printJSONLine(x.out(), map[string]any{receiptField: string(receipt), "receipt_id": id.String()})
}

// printAnswerJSON prints a one-line JSON answer of one document: the
// canonical line, or with --receipt - in machine mode that line inside
// printWithReceipt's object.
func (x *invocation) printAnswerJSON(line []byte, rec *db.Receipt) {
	if x.inlineReceipt() {
		x.printWithReceipt(line, rec.ID(), rec.Encode())
		return
	}
	fmt.Fprintf(x.out(), "%s\n", line)
}

// printSetAnswerJSON is printAnswerJSON for a one-line answer across
// documents (settle), whose receipt, when one was issued, is a set receipt.
func (x *invocation) printSetAnswerJSON(line []byte, rec *db.SetReceipt) {
	if rec != nil && x.inlineReceipt() {
		x.printWithReceipt(line, rec.ID(), rec.Encode())
		return
	}
	fmt.Fprintf(x.out(), "%s\n", line)
}

// fileError is a file that could not be read or written, in the tool's own
// words ("nosuch.jsonl: no such file"), naming the path once; Go's
// "stat PATH: no such file or directory" stays on the chain for the kind
// (errors.Is) and the "file" object.
type fileError struct {
	path, what string
	err        error
}

func (e *fileError) Error() string { return sanitize(e.path) + ": " + e.what }
func (e *fileError) Unwrap() error { return e.err }

// fileErr rewrites err when it is a bare *fs.PathError about path (an
// error with context of its own is left as it is); other errors stay.
func fileErr(path string, err error) error {
	pe, ok := err.(*fs.PathError)
	if !ok {
		return err
	}
	what := fmt.Sprintf("cannot %s it: %v", pe.Op, pe.Err)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		what = "no such file"
		// a file to be written is missing its directory, not itself
		if pe.Op == "open" && !exists(filepath.Dir(path)) {
			what = "its directory does not exist"
		}
	case errors.Is(err, fs.ErrPermission):
		what = "permission denied"
	}
	return withObject(&fileError{path: path, what: what, err: err}, "file", path)
}

// isFileError reports whether fileErr rewrote err.
func isFileError(err error) bool {
	var fe *fileError
	return errors.As(err, &fe)
}

// exists reports whether path names anything (a broken symlink counts).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
