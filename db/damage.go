package db

import (
	"errors"
	"fmt"
)

// The typed damage error. bbolt checksums no page and says what is wrong
// with a file in its own words ("file size too small 4123", "invalid
// database") or by panicking on a page it cannot make sense of. db is the
// one place that sees those words and panics where they happen (Open, the
// read sites, Guard), so it is db that turns them into a DamageError:
// front-ends branch on its Kind (errors.As) and print its line as it is,
// and none of them reads bbolt's or the runtime's text.

// ErrDamaged: the archive's file is damaged where a read could not get
// past it (a page that cannot be read, header pages that do not check, a
// file cut short). Every such error is a *DamageError; errors.Is finds
// ErrDamaged on all of them but those of kind NotRegular (a directory or a
// FIFO is not a damaged archive, only no archive at all).
var ErrDamaged = errors.New("archive is damaged")

// Damage is what is wrong with the archive (DamageError.Kind).
type Damage uint8

const (
	// PageUnreadable: reading a page panicked or faulted. A damaged page
	// can make bbolt index out of range, fail one of its assertions, or
	// point it outside the memory mapping (a fault, which
	// debug.SetPanicOnFault turns into a panic).
	PageUnreadable Damage = iota + 1
	// PageLoop: a page tree loops (a branch page points back into its
	// own path), so a search through it never ends (the stack watch,
	// stackwatch.go).
	PageLoop
	// Truncated: the file is shorter than the pages its last commit
	// uses (a truncated copy).
	Truncated
	// HeaderDamaged: one of the two header (meta) pages does not check;
	// bbolt would silently show the earlier state the other one holds.
	HeaderDamaged
	// TooShort: the file is too short to hold its header pages.
	TooShort
	// HeaderInvalid: neither header page checks (bbolt's invalid
	// database, version mismatch, checksum error or invalid mapping).
	HeaderInvalid
	// NotRegular: the path names a directory, a FIFO or another file
	// that is not a regular one.
	NotRegular
)

// checkHint is the next step of a page that could not be read.
const checkHint = "`chronicle check` lists the problems it can find"

// DamageError is the one line of a damaged archive: the archive, what
// was wrong and the next step, never the panic's or bbolt's own text
// (the cause stays reachable through Unwrap).
type DamageError struct {
	// Path is the archive as the caller named it.
	Path string
	Kind Damage
	// Where is what was being read when it failed ("document #2", "the
	// kept receipts"), "" for the archive as a whole.
	Where string
	// Detail is what was found, for Truncated and HeaderDamaged ("the
	// file is truncated (… bytes, its pages need …)").
	Detail string
	// Next replaces the next step the line ends with; "" keeps the
	// kind's own.
	Next string
	// Err is the cause: the recovered panic as an error, bbolt's error,
	// a *fileio.NotRegularError, ErrWriteRefused; nil when db found the
	// damage itself.
	Err error
	// found is what the write guard found (writeguard.go), for tests and
	// debugging: `chronicle check` reports it to the user.
	found string
}

func (e *DamageError) Error() string {
	next := func(own string) string {
		if e.Next != "" {
			return e.Next
		}
		return own
	}
	switch e.Kind {
	case PageUnreadable:
		if e.Where == "" {
			return fmt.Sprintf("archive %s is damaged: a page could not be read; %s", e.Path, next(checkHint))
		}
		return fmt.Sprintf("archive %s: %s: %v: a page could not be read; %s", e.Path, e.Where, ErrCorrupt, next(checkHint))
	case PageLoop:
		return fmt.Sprintf("archive %s is damaged: a page tree loops (a page points back into its own path), and the read could not end; %s",
			e.Path, next("`chronicle check` lists the problems"))
	case Truncated, HeaderDamaged:
		return fmt.Sprintf("archive %s: %v: %s; %s", e.Path, ErrCorrupt, e.Detail, next("restore it from a copy"))
	case TooShort:
		return notArchiveLine(e.Path, "the file is too short to hold its header pages", next(restoreIfArchive))
	case HeaderInvalid:
		return notArchiveLine(e.Path, "its header pages do not check", next(restoreIfArchive))
	case NotRegular:
		if e.Err != nil {
			return "archive " + e.Err.Error() // "P is a FIFO, not a regular file"
		}
		return fmt.Sprintf("archive %s is not a regular file", e.Path)
	}
	return fmt.Sprintf("archive %s is damaged", e.Path)
}

// restoreIfArchive is the next step for a file that may be no archive.
const restoreIfArchive = "if it is an archive, restore it from a copy"

// notArchiveLine is the line of a file that is no archive, or a damaged
// one: which, the header pages cannot tell.
func notArchiveLine(path, why, next string) string {
	return fmt.Sprintf("archive %s: not a Chronicle archive, or a damaged one (%s); %s", path, why, next)
}

// Unwrap gives errors.Is and errors.As the sentinels callers branched on
// before DamageError existed, and the cause: ErrDamaged and ErrCorrupt for
// damage found in the file, ErrDamaged and ErrNotArchive for a file whose
// header pages do not make it an archive (it may be none), and for
// NotRegular the *fileio.NotRegularError alone (fileio.ErrNotRegular).
func (e *DamageError) Unwrap() []error {
	var errs []error
	switch e.Kind {
	case NotRegular:
	case TooShort, HeaderInvalid:
		errs = append(errs, ErrDamaged, ErrNotArchive)
	default:
		errs = append(errs, ErrDamaged, ErrCorrupt)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// unreadable is the damage of a read of the archive at path that
// panicked with r (a recovered panic or fault); where names what was
// being read, "" for the archive as a whole.
func unreadable(path, where string, r any) *DamageError {
	cause, ok := r.(error)
	if !ok {
		cause = fmt.Errorf("%v", r)
	}
	return &DamageError{Path: path, Kind: PageUnreadable, Where: where, Err: cause}
}
