package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular: a path names something other than a regular file (a
// FIFO, a socket, a device, a directory). Chronicle reads and writes only
// regular files (a symbolic link to one is fine): opening a FIFO would
// block, and a device or socket holds no document.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError names the path and what it is: "p is a FIFO, not a
// regular file".
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, Kind(e.Mode))
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// Kind names the type of a file mode for messages: "a FIFO", "a socket",
// "a character device", "a block device", "a directory", "a symbolic
// link", "a regular file" or "an irregular file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}

// CheckRegular reports whether path, following symbolic links, is a
// regular file: nil, a *NotRegularError, or the error of stat (a missing
// file). It never opens the path, so it never blocks.
func CheckRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return nil
}

// CheckTarget reports whether a file may be created at path: nil when
// nothing is there or a regular file is (write-once then compares it),
// else a *NotRegularError (a FIFO, a directory…) or the error of stat.
func CheckTarget(path string) error {
	if err := CheckRegular(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// OpenRegular opens path for reading, following symbolic links, and
// fails at once unless it is a regular file, without ever blocking on
// what the path names. How it checks is the platform's (open_unix.go,
// open_windows.go): both check the path first and the opened file itself,
// which no rename between the two can fool.
func OpenRegular(path string) (*os.File, error) {
	if err := CheckRegular(path); err != nil {
		return nil, err
	}
	return openRegular(path)
}
