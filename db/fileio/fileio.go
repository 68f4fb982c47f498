package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"chronicle/engine"
	"chronicle/engine/receipt"
)

// MaxStoreFile is the largest file that can be a valid store: header, the
// largest source and the largest event table. Anything bigger is rejected
// before it is read into memory.
const MaxStoreFile = engine.HeaderSize + engine.MaxSourceSize + engine.MaxEvents*(177+8*engine.MaxFieldLen)

// ErrTooLarge: a file exceeds the size its kind can have.
var ErrTooLarge = errors.New("file is too large")

// ReadLimited reads a whole file that must not exceed limit bytes.
func ReadLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (more than %d bytes)", path, ErrTooLarge, limit)
	}
	return data, nil
}

// CreateExclusive writes data to a new file at path; it fails if anything
// exists there and removes its partial file when the write fails.
func CreateExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
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

// WriteOnce writes a receipt with write-once semantics (SPEC 1.1): a new file,
// or an existing file holding exactly these bytes.
func WriteOnce(path string, data []byte) error {
	err := CreateExclusive(path, data)
	if err == nil || !errors.Is(err, os.ErrExist) {
		return err
	}
	existing, rerr := ReadLimited(path, int64(len(data)))
	if rerr == nil && bytes.Equal(existing, data) {
		return nil
	}
	return fmt.Errorf("%s: %w", path, ErrReceiptCollision)
}

// maxReceiptFile bounds a receipt read: seven lines of at most 4128 bytes.
const maxReceiptFile = 7 * (receipt.MaxLineLen + 1)

// VerifyReceiptFile verifies an original V1/V2 receipt file against the store
// file it names, resolved against the current directory (SPEC 4.1–4.2). The
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
