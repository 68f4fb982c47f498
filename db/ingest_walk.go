package db

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/casper-chronicle/chronicle/db/fileio"
)

// PathEntry is one path of a batch ingest, as WalkPaths found it: a file
// to ingest (Outcome ""), or one whose outcome is decided before anything
// is read: OutcomeSkipped (inside a walk: not a document, with the
// Reason), OutcomeRejected (a failure, Err says why) or OutcomeEmpty (a
// directory argument that gave no file).
type PathEntry struct {
	Path    string
	Outcome OutcomeKind
	Reason  string
	Err     error
}

// Reasons of the entries a walk skips, and of an empty directory argument.
const (
	ReasonHidden  = "hidden (its name starts with a dot)"
	ReasonSymlink = "a symbolic link (not followed in a directory walk)"
	ReasonEmpty   = "no files to ingest in this directory"
)

// WalkPaths turns arguments into entries, in order. A path named as an
// argument is followed when it is a symbolic link; it must be a regular
// file or a directory, anything else (a FIFO, a socket, a device) is
// rejected. A directory contributes its entries in lexical order,
// recursively: regular files to ingest; hidden entries, symbolic links,
// FIFOs, sockets and devices skipped with the reason; a directory that
// cannot be listed rejected. A directory argument in which the walk found
// nothing to ingest or reject is followed by an OutcomeEmpty entry, so
// that it is not passed over in silence.
func WalkPaths(args []string) []PathEntry {
	var out []PathEntry
	for _, arg := range args {
		st, err := os.Stat(arg)
		switch {
		case err != nil:
			out = append(out, PathEntry{Path: arg, Outcome: OutcomeRejected, Err: err})
		case st.IsDir():
			n := len(out)
			out = walkDir(arg, out)
			if !slices.ContainsFunc(out[n:], func(e PathEntry) bool { return e.Outcome == "" || e.Outcome == OutcomeRejected }) {
				out = append(out, PathEntry{Path: arg, Outcome: OutcomeEmpty, Reason: ReasonEmpty})
			}
		case st.Mode().IsRegular():
			out = append(out, PathEntry{Path: arg})
		default:
			out = append(out, PathEntry{Path: arg, Outcome: OutcomeRejected, Err: &fileio.NotRegularError{Path: arg, Mode: st.Mode()}})
		}
	}
	return out
}

// walkDir appends the entries of dir, recursively, in lexical order.
func walkDir(dir string, out []PathEntry) []PathEntry {
	entries, err := os.ReadDir(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		// Not a *fs.PathError any more: the path is the entry's, and the
		// text says what could not be done with it.
		out = append(out, PathEntry{Path: dir, Outcome: OutcomeRejected, Err: fmt.Errorf("the directory cannot be read: %w", err)})
		if len(entries) == 0 {
			return out
		}
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		t := e.Type()
		switch {
		case strings.HasPrefix(e.Name(), "."):
			out = append(out, PathEntry{Path: path, Outcome: OutcomeSkipped, Reason: ReasonHidden})
		case t.IsDir():
			out = walkDir(path, out)
		case t.IsRegular():
			out = append(out, PathEntry{Path: path})
		case t&fs.ModeSymlink != 0:
			out = append(out, PathEntry{Path: path, Outcome: OutcomeSkipped, Reason: ReasonSymlink})
		default:
			out = append(out, PathEntry{Path: path, Outcome: OutcomeSkipped, Reason: NotRegularReason(t)})
		}
	}
	return out
}

// NotRegularReason is the reason for a path that is not a regular file: "a FIFO,
// not a regular file".
func NotRegularReason(m fs.FileMode) string {
	return fileio.Kind(m) + ", not a regular file"
}
