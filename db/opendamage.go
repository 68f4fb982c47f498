package db

import (
	"errors"
	"strings"

	"github.com/casper-chronicle/chronicle/db/fileio"

	bolt "go.etcd.io/bbolt"
)

// openDamage classifies an error of bolt.Open: the Damage of a file whose
// header pages do not make it an archive, 0 for any other error (a lock
// wait, a permission). This is the one place that reads bbolt's words:
// its sentinels where it has them, and, for a file too short to hold its
// header pages, the text of the error bbolt makes without one (db.go,
// fileSize: "file size too small %d").
func openDamage(err error) Damage {
	switch {
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrVersionMismatch),
		errors.Is(err, bolt.ErrChecksum), errors.Is(err, bolt.ErrInvalidMapping):
		return HeaderInvalid
	case strings.HasPrefix(err.Error(), "file size too small "):
		return TooShort
	}
	return 0
}

// checkRegular refuses an archive path that names a directory, a FIFO or
// another file that is not a regular one, before bbolt opens it: bbolt's
// own errors for them ("read …: is a directory") say nothing useful, and
// opening a FIFO can block. A missing path (created or refused later) and
// a stat error pass to Open's own handling.
func checkRegular(path string) error {
	var notRegular *fileio.NotRegularError
	if err := fileio.CheckTarget(path); errors.As(err, &notRegular) {
		return &DamageError{Path: path, Kind: NotRegular, Err: notRegular}
	}
	return nil
}
