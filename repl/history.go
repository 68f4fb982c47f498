package repl

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/db/keys"
)

// historyLimit caps the history file (older lines are dropped when the
// REPL starts).
const historyLimit = 1000

// configDir is Chronicle's configuration directory (history, init file,
// the signing key): $XDG_CONFIG_HOME/chronicle, else the user's config
// directory (os.UserConfigDir, ~/.config on Linux) plus chronicle.
func configDir() (string, error) { return keys.ConfigDir() }

// historyPath is $XDG_CONFIG_HOME/chronicle/history, else the user's
// config directory (os.UserConfigDir) plus chronicle/history. The history
// holds the questions asked, so it is private: the directory is created
// mode 0700 and the file 0600 (both tightened when an older Chronicle made
// them wider), and it must be a regular file (a FIFO there would block the
// REPL's start). See prepareHistory.
func historyPath() (string, error) {
	dir, err := configDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if st, err := os.Stat(dir); err == nil && st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, "history")
	if err := prepareHistory(path); err != nil {
		return "", err
	}
	return path, nil
}

// maxHistoryFile bounds the history file read to trim it.
const maxHistoryFile = 64 << 20

// prepareHistory makes the history file exist, private and at most
// historyLimit lines long before readline opens it: readline creates it
// 0666 (before the umask) and rewrites an over-long one through a new
// file of that mode, so Chronicle does both itself, mode 0600.
func prepareHistory(path string) error {
	err := fileio.CreateExclusive(path, nil)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return err
	}
	data, err := fileio.ReadLimited(path, maxHistoryFile)
	if err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm() != fileio.PrivatePerm {
		if err := os.Chmod(path, fileio.PrivatePerm); err != nil {
			return err
		}
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= historyLimit {
		return nil
	}
	tmp := path + ".tmp"
	os.Remove(tmp)
	if err := fileio.CreateExclusive(tmp, bytes.Join(lines[len(lines)-historyLimit:], nil)); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// keepInHistory reports whether a submitted line is saved: not blank, and
// not starting with a space (the way to keep one line out of the history).
func keepInHistory(line string) bool {
	return strings.TrimSpace(line) != "" && line[0] != ' '
}
