//go:build unix

package keys_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/db/keys"
)

// TestReadFIFO: a FIFO named as the key fails at once instead of
// blocking the command.
func TestReadFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err := keys.Read(fifo)
	require.ErrorContains(t, err, "is a FIFO, not a regular file")
}
