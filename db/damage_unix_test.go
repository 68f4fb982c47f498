//go:build unix

// A FIFO at the archive path (mkfifo): Unix only.

package db_test

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"

	"github.com/stretchr/testify/require"
)

// TestOpenNotRegular: a directory or a FIFO at the archive path is a
// DamageError of kind NotRegular (fileio.ErrNotRegular, not ErrDamaged),
// returned at once: opening a FIFO would block.
func TestOpenNotRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "a.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for path, what := range map[string]string{dir: "a directory", fifo: "a FIFO"} {
		for _, readOnly := range []bool{true, false} {
			_, err := db.Open(path, db.Options{ReadOnly: readOnly})
			requireDamage(t, err, path, db.NotRegular, fmt.Sprintf("archive %s is %s, not a regular file", path, what))
			require.ErrorIs(t, err, fileio.ErrNotRegular)
			require.NotErrorIs(t, err, db.ErrDamaged)
		}
	}
}
