package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"chronicle/engine"
)

// maxStoreFile is the largest file that can be a valid store: header, the
// largest source and the largest event table. Anything bigger is rejected
// before it is read into memory.
const maxStoreFile = engine.HeaderSize + engine.MaxSourceSize + engine.MaxEvents*(177+8*engine.MaxFieldLen)

var errTooLarge = errors.New("file is too large")

// readLimited reads a whole file that must not exceed limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
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
		return nil, fmt.Errorf("%s: %w (more than %d bytes)", path, errTooLarge, limit)
	}
	return data, nil
}

// createExclusive writes data to a new file at path; it fails if anything
// exists there and removes its partial file when the write fails.
func createExclusive(path string, data []byte) error {
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

// errReceiptCollision: a different receipt already occupies the path.
var errReceiptCollision = errors.New("a different receipt already exists at this path; it was left untouched")

// writeOnce writes a receipt with write-once semantics (SPEC 1.1): a new file,
// or an existing file holding exactly these bytes.
func writeOnce(path string, data []byte) error {
	err := createExclusive(path, data)
	if err == nil || !errors.Is(err, os.ErrExist) {
		return err
	}
	existing, rerr := readLimited(path, int64(len(data)))
	if rerr == nil && bytes.Equal(existing, data) {
		return nil
	}
	return fmt.Errorf("%s: %w", path, errReceiptCollision)
}
