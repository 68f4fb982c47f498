package fileio

import (
	"io/fs"
	"os"
)

// openRegular opens a path CheckRegular passed and checks the opened
// handle itself (GetFileType and the file's attributes, through Stat): a
// device (NUL, CON, COM1), a named pipe, a directory or a reparse point
// other than a symbolic link to a file is refused. Opening a regular file
// never blocks on Windows, and a path in the file system cannot name a
// pipe (those live under \\.\pipe\, which Stat reports as one).
func openRegular(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return f, nil
}
