package db

import (
	"errors"
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// Input checks and limits shared by every front-end (the CLI, the REPL,
// the MCP server and the Go API): each is written once, here, and the
// front-ends only say how a refusal reaches the user (the CLI exits 2 for
// an InputError).

// MaxReceiptSize bounds a receipt's bytes (an archive receipt, a set
// receipt, or the file `verify` reads): two questions' worth and its
// fixed lines.
const MaxReceiptSize = 2*MaxQuestion + 1024

// DefaultFindLimit is how many documents a find across the archive lists
// when no limit is given (the CLI's `--limit` default).
const DefaultFindLimit = 20

// InputError is an argument refused before any work: a wrong command line
// in the CLI's terms (exit 2). Errors of the checks below that are not
// InputErrors (a question too long for a receipt) are plain failures.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// InputErrorf is an InputError for the checks of other packages (the
// command table's, package commands).
func InputErrorf(format string, args ...any) error { return inputErrorf(format, args...) }

// IsInputError reports whether err is (or wraps) an InputError.
func IsInputError(err error) bool {
	var in *InputError
	return errors.As(err, &in)
}

// CheckText refuses s unless it is valid UTF-8 text without NUL bytes
// (engine.ValidTextString): "WHAT not valid UTF-8 text", an InputError.
// what names it with its verb: "the question is", "TERMS is".
func CheckText(what, s string) error {
	if !engine.ValidTextString(s) {
		return inputErrorf("%s not valid UTF-8 text", what)
	}
	return nil
}

// CheckQuestionSize refuses a question or find terms longer than a
// receipt carries (MaxQuestion bytes); what is "the question is" or "the
// terms are".
func CheckQuestionSize(what, s string) error {
	if len(s) > MaxQuestion {
		return fmt.Errorf("%s %d bytes; receipts carry at most %d", what, len(s), MaxQuestion)
	}
	return nil
}

// CheckQuestion is CheckText, then CheckQuestionSize.
func CheckQuestion(what, s string) error {
	if err := CheckText(what, s); err != nil {
		return err
	}
	return CheckQuestionSize(what, s)
}

// CheckEntityName refuses an entity name that cannot be a record field:
// not valid text, empty, over engine.MaxFieldLen bytes or holding a TAB.
func CheckEntityName(name string) error {
	switch {
	case !engine.ValidTextString(name):
		return inputErrorf("NAME must be valid UTF-8 text without NUL bytes")
	case name == "" || len(name) > engine.MaxFieldLen || strings.IndexByte(name, '\t') >= 0:
		return inputErrorf("NAME must be 1 to %d bytes without TAB", engine.MaxFieldLen)
	}
	return nil
}

// CheckClaimFields refuses claim fields (subject, predicate, object)
// longer than engine.MaxFieldLen bytes or holding a TAB.
func CheckClaimFields(fields ...string) error {
	for _, f := range fields {
		if len(f) > engine.MaxFieldLen || strings.IndexByte(f, '\t') >= 0 {
			return inputErrorf("SUBJECT, PREDICATE and OBJECT must be at most %d bytes without TAB", engine.MaxFieldLen)
		}
	}
	return nil
}

// FindLimit is the one reading of find's limit across the archive, as the
// CLI documents it: 0 (not given) is DefaultFindLimit, a negative limit
// is refused, and so is one above MaxLimit (what a receipt carries).
func FindLimit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultFindLimit, nil
	case n < 0:
		return 0, inputErrorf("--limit wants a count of at least 1, got %d", n)
	case n > MaxLimit:
		return 0, inputErrorf("--limit %d is above %d", n, MaxLimit)
	}
	return n, nil
}

// CheckStorePath refuses a store path an original receipt cannot record
// (`export` names its store in the INGEST receipt it writes): not UTF-8
// text, or longer than receipt.MaxPathLen bytes. It is no InputError: the
// path is formed from the directory and the document's name.
func CheckStorePath(path string) error {
	if !engine.ValidTextString(path) || len(path) > receipt.MaxPathLen {
		return fmt.Errorf("store path %q cannot be recorded in a receipt (UTF-8, at most %d bytes)", path, receipt.MaxPathLen)
	}
	return nil
}
