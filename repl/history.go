package repl

import (
	"os"
	"path/filepath"
	"strings"
)

// historyLimit caps the history file (older lines are dropped when the
// REPL starts).
const historyLimit = 1000

// historyPath is $XDG_CONFIG_HOME/chronicle/history, else the user's
// config directory (os.UserConfigDir) plus chronicle/history. The
// directory is created (mode 0700).
func historyPath() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		dir = d
	}
	dir = filepath.Join(dir, "chronicle")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return filepath.Join(dir, "history"), nil
}

// keepInHistory reports whether a submitted line is saved: not blank, and
// not starting with a space (the way to keep one line out of the history).
func keepInHistory(line string) bool {
	return strings.TrimSpace(line) != "" && line[0] != ' '
}
