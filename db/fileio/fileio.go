package fileio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// MaxStoreFile is the largest file that can be a valid store: header, the
// largest source and the largest event table. Anything bigger is rejected
// before it is read into memory.
const MaxStoreFile = engine.HeaderSize + engine.MaxSourceSize + engine.MaxEvents*(177+8*engine.MaxFieldLen)

// ErrTooLarge: a file exceeds the size its kind can have.
var ErrTooLarge = errors.New("file is too large")

// ReadLimited reads a whole regular file (or a symbolic link to one) that
// must not exceed limit bytes. Anything else fails at once with a
// *NotRegularError (see OpenRegular): it never blocks on a FIFO.
func ReadLimited(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One allocation of the file's size (plus the byte that sees EOF, or
	// growth past the limit): io.ReadAll's growing chunks and its final
	// copy would hold twice a 5 MB document at once.
	hint := int64(512)
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		if st.Size() > limit {
			return nil, fmt.Errorf("%s: %w (more than %d bytes)", path, ErrTooLarge, limit)
		}
		hint = st.Size() + 1
	}
	data, err := readAll(io.LimitReader(f, limit+1), hint)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (more than %d bytes)", path, ErrTooLarge, limit)
	}
	return data, nil
}

// readAll reads r to EOF into a buffer of capacity hint, grown only if r
// holds more (a file that grew since its stat, or a size the stat did not
// know, as in /proc).
func readAll(r io.Reader, hint int64) ([]byte, error) {
	data := make([]byte, 0, hint)
	for {
		if len(data) == cap(data) {
			data = slices.Grow(data, max(512, cap(data)/2))
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
}

// File modes. Private by default: a file Chronicle writes for its user
// (--receipt FILE, claims rows) holds evidence and is exactly PrivatePerm
// (CreateExclusive, WriteOnce). Files written for the original tool
// (casper-chronicle's stores and receipts, `chronicle export`) are
// SharedPerm before the umask, as the original tool's are (CreateShared,
// WriteOnceShared).
const (
	PrivatePerm os.FileMode = 0o600
	SharedPerm  os.FileMode = 0o644
)

// CreateExclusive writes data to a new file at path, of mode PrivatePerm
// whatever the umask; it fails if anything exists there (a FIFO included:
// O_EXCL never opens it) and removes its partial file when the write fails.
func CreateExclusive(path string, data []byte) error {
	return createExclusive(path, data, PrivatePerm)
}

// CreateShared is CreateExclusive for a file of mode SharedPerm before the
// umask.
func CreateShared(path string, data []byte) error {
	return createExclusive(path, data, SharedPerm)
}

// CreateSharedFrom is CreateShared for content written by write, through
// a buffer: a store is streamed to its file instead of being encoded into
// one more copy of its source first.
func CreateSharedFrom(path string, write func(io.Writer) error) error {
	return createExclusiveFrom(path, SharedPerm, func(f *os.File) error {
		w := bufio.NewWriterSize(f, 64<<10)
		if err := write(w); err != nil {
			return err
		}
		return w.Flush()
	})
}

func createExclusive(path string, data []byte, perm os.FileMode) error {
	return createExclusiveFrom(path, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

func createExclusiveFrom(path string, perm os.FileMode, write func(*os.File) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if perm == PrivatePerm {
		err = f.Chmod(perm) // exactly 0600, whatever the umask took away
	}
	if err == nil {
		err = write(f)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ErrReceiptCollision: a different receipt already occupies the path.
var ErrReceiptCollision = errors.New("a different receipt already exists at this path; it was left untouched")

// WriteOnce writes a receipt with write-once semantics (CONTRACT 1.1): a new file
// (mode PrivatePerm), or an existing regular file holding exactly these
// bytes. Anything else at the path (a FIFO, a directory) is a
// *NotRegularError, found without blocking.
func WriteOnce(path string, data []byte) error {
	return writeOnce(path, data, PrivatePerm)
}

// WriteOnceShared is WriteOnce for a new file of mode SharedPerm before
// the umask.
func WriteOnceShared(path string, data []byte) error {
	return writeOnce(path, data, SharedPerm)
}

func writeOnce(path string, data []byte, perm os.FileMode) error {
	_, err := writeOnceCreated(path, data, perm)
	return err
}

// writeOnceCreated is writeOnce, saying whether it created the file
// (false: the same bytes were there already).
func writeOnceCreated(path string, data []byte, perm os.FileMode) (bool, error) {
	err := createExclusive(path, data, perm)
	if err == nil || !errors.Is(err, os.ErrExist) {
		return err == nil, err
	}
	return false, sameContent(path, data)
}

// sameContent is nil when path holds exactly data, else why not: a
// *NotRegularError, or a *CollisionError for other bytes (or a file
// that cannot be read).
func sameContent(path string, data []byte) error {
	existing, rerr := ReadLimited(path, int64(len(data)))
	if errors.Is(rerr, ErrNotRegular) {
		return rerr
	}
	if rerr == nil && bytes.Equal(existing, data) {
		return nil
	}
	return &CollisionError{Path: path}
}

// CollisionError is ErrReceiptCollision at Path: of a file and its
// signature (WriteOnceSigned), it names the one in the way.
type CollisionError struct{ Path string }

func (e *CollisionError) Error() string { return e.Path + ": " + ErrReceiptCollision.Error() }
func (e *CollisionError) Unwrap() error { return ErrReceiptCollision }

// WriteOnceSigned writes a receipt or rows file and its detached
// signature beside it (sigPath, FILE.sig), both write-once (WriteOnce)
// and both or neither: a signature path already holding other bytes is
// refused before anything is written, and when the signature cannot be
// written the file written just now is removed again. An existing file
// with the same bytes is kept as it is; its signature is added when it
// had none.
func WriteOnceSigned(path string, data []byte, sigPath string, sig []byte) error {
	_, err := writeOnceSigned(path, data, sigPath, sig, PrivatePerm)
	return err
}

// WriteOnceSignedShared is WriteOnceSigned for files of mode SharedPerm
// before the umask (an exported receipt, for the original tool). created
// says whether the file was written now (false: the same bytes were
// there).
func WriteOnceSignedShared(path string, data []byte, sigPath string, sig []byte) (created bool, err error) {
	return writeOnceSigned(path, data, sigPath, sig, SharedPerm)
}

func writeOnceSigned(path string, data []byte, sigPath string, sig []byte, perm os.FileMode) (bool, error) {
	if err := CheckTarget(sigPath); err != nil {
		return false, err
	}
	if _, err := os.Stat(sigPath); err == nil {
		if err := sameContent(sigPath, sig); err != nil {
			return false, err
		}
	}
	created, err := writeOnceCreated(path, data, perm)
	if err != nil {
		return false, err
	}
	if _, err := writeOnceCreated(sigPath, sig, perm); err != nil {
		if created {
			os.Remove(path)
		}
		return false, err
	}
	return created, nil
}

// maxReceiptFile bounds a receipt read: seven lines of at most 4128 bytes.
const maxReceiptFile = 7 * (receipt.MaxLineLen + 1)

// VerifyReceiptFile verifies an original V1/V2 receipt file against the store
// file it names, resolved against the current directory (CONTRACT 4.1–4.2). The
// error explains an INVALID outcome.
func VerifyReceiptFile(path string, replay receipt.Replayer) (receipt.Outcome, error) {
	if path == "" || !engine.ValidTextString(path) {
		return receipt.Invalid, fmt.Errorf("RECEIPT must be non-empty UTF-8 text")
	}
	data, err := ReadLimited(path, maxReceiptFile)
	if err != nil {
		return receipt.Invalid, err
	}
	rec, err := receipt.Parse(data)
	if err != nil {
		return receipt.Invalid, err
	}
	storeBytes, err := ReadLimited(rec.StorePath, MaxStoreFile)
	if err != nil {
		return receipt.Invalid, err
	}
	return receipt.Verify(rec, storeBytes, replay)
}
