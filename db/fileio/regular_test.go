//go:build unix

// FIFOs, O_NONBLOCK and umask modes are Unix facilities; open_windows.go
// is checked by the platform-neutral tests and the Windows cross-vet.

package fileio_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/db/fileio"

	"github.com/stretchr/testify/require"
)

// TestNotRegular: a FIFO, a socket, a device or a directory is refused at
// once by every read and by write-once (which would read it to compare),
// with an error naming the path and what it is; a symbolic link to a
// regular file is read through.
func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	short, err := os.MkdirTemp("", "s")
	require.NoError(t, err)
	defer os.RemoveAll(short)
	sock := filepath.Join(short, "s")
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	defer l.Close()
	write(t, filepath.Join(dir, "f.txt"), []byte("text\n"))
	require.NoError(t, os.Symlink("f.txt", filepath.Join(dir, "link")))

	for _, tc := range []struct{ path, kind string }{
		{fifo, "a FIFO"}, {sock, "a socket"}, {"/dev/null", "a character device"}, {dir, "a directory"},
	} {
		start := time.Now()
		_, err := fileio.ReadLimited(tc.path, 100)
		require.ErrorIs(t, err, fileio.ErrNotRegular)
		require.EqualError(t, err, tc.path+" is "+tc.kind+", not a regular file")
		var nr *fileio.NotRegularError
		require.True(t, errors.As(err, &nr))
		require.Equal(t, tc.path, nr.Path)
		require.ErrorIs(t, fileio.CheckRegular(tc.path), fileio.ErrNotRegular)
		require.ErrorIs(t, fileio.CheckTarget(tc.path), fileio.ErrNotRegular)
		require.ErrorIs(t, fileio.WriteOnce(tc.path, []byte("x")), fileio.ErrNotRegular)
		require.ErrorIs(t, fileio.WriteOnceShared(tc.path, []byte("x")), fileio.ErrNotRegular)
		require.Less(t, time.Since(start), 2*time.Second)
	}
	st, err := os.Lstat(fifo)
	require.NoError(t, err)
	require.NotZero(t, st.Mode()&fs.ModeNamedPipe, "the FIFO is left as it was")

	data, err := fileio.ReadLimited(filepath.Join(dir, "link"), 100)
	require.NoError(t, err)
	require.Equal(t, "text\n", string(data))
	require.NoError(t, fileio.CheckTarget(filepath.Join(dir, "missing")))
	require.NoError(t, fileio.CheckTarget(filepath.Join(dir, "f.txt")))

	// The opened descriptor is blocking again: a read waits for data
	// rather than failing with EAGAIN (a regular file never does, but the
	// flag must not leak to whoever uses the file).
	f, err := fileio.OpenRegular(filepath.Join(dir, "f.txt"))
	require.NoError(t, err)
	defer f.Close()
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFL, 0)
	require.Zero(t, errno)
	require.Zero(t, flags&syscall.O_NONBLOCK)
}

// TestModes: CreateExclusive and WriteOnce make private files (0600
// whatever the umask), CreateShared and WriteOnceShared files of 0644
// before the umask.
func TestModes(t *testing.T) {
	dir := t.TempDir()
	orig := syscall.Umask(0o022)
	defer syscall.Umask(orig)
	for _, umask := range []int{0o022, 0o000, 0o077} {
		syscall.Umask(umask)
		for name, tc := range map[string]struct {
			write func(string, []byte) error
			want  fs.FileMode
		}{
			"create":         {fileio.CreateExclusive, 0o600},
			"writeonce":      {fileio.WriteOnce, 0o600},
			"shared":         {fileio.CreateShared, 0o644 &^ fs.FileMode(umask)},
			"writeonceshare": {fileio.WriteOnceShared, 0o644 &^ fs.FileMode(umask)},
			"sharedfrom": {func(p string, b []byte) error {
				return fileio.CreateSharedFrom(p, func(w io.Writer) error { _, err := w.Write(b); return err })
			}, 0o644 &^ fs.FileMode(umask)},
		} {
			path := filepath.Join(dir, fmt.Sprintf("%s-%03o", name, umask))
			require.NoError(t, tc.write(path, []byte("x")))
			st, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, tc.want, st.Mode().Perm(), "%s under umask %03o", name, umask)
		}
	}
}
