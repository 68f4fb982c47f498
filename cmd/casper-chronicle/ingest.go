package main

import (
	"crypto/sha256"
	"fmt"
	"io"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// maxIngestPath keeps FILE + ".chronicle" within 2047 bytes (CONTRACT 1).
const maxIngestPath = 2037

// ingest follows CONTRACT 1.2 step by step. It holds one copy of the source at
// most: a new store is streamed to its file and hashed on the way, and a
// reused store's source file is hashed as it is read.
func (c *cli) ingest(file string) int {
	if file == "" || len(file) > maxIngestPath || !engine.ValidTextString(file) {
		return c.fail(exitUsage, "ingest: FILE must be 1..%d bytes of UTF-8 text", maxIngestPath)
	}
	storePath := file + ".chronicle"
	receiptPath := storePath + ".receipt"

	store, storeSum, err := c.reusableStore(file, storePath)
	if err != nil {
		return c.fail(exitFailure, "ingest %s: %v", file, err)
	}
	if store == nil {
		importedAt, err := db.ImportTime()
		if err != nil {
			return c.fail(exitFailure, "ingest %s: %v", file, err)
		}
		src, err := fileio.ReadLimited(file, engine.MaxSourceSize)
		if err != nil {
			return c.fail(exitFailure, "ingest: %v", err)
		}
		store, err = engine.NewStore(src, importedAt)
		if err != nil {
			return c.fail(exitFailure, "ingest %s: %v", file, err)
		}
		h := sha256.New()
		if err := fileio.CreateSharedFrom(storePath, func(w io.Writer) error {
			_, err := store.WriteTo(io.MultiWriter(w, h))
			return err
		}); err != nil {
			return c.fail(exitFailure, "ingest %s: cannot create store: %v", file, err)
		}
		h.Sum(storeSum[:0])
	}
	rec, err := receipt.NewForDigest(receipt.KindIngest, storePath, "", storeSum, store.Version, store.Document, nil)
	if err != nil {
		return c.fail(exitFailure, "ingest %s: %v", file, err)
	}
	if err := fileio.WriteOnceShared(receiptPath, rec.Encode()); err != nil {
		return c.fail(exitFailure, "ingest %s: %v", file, err)
	}
	fmt.Fprintf(c.stdout, "store=%s\nreceipt=%s\n", storePath, receiptPath)
	return exitOK
}

// reusableStore implements CONTRACT 1.2 step 2: when storePath holds a fully
// valid store, the source must still hash to its document digest and the
// store is reused untouched. It returns the store and the SHA-256 of its
// bytes, or a nil store when there is no valid store to reuse.
func (c *cli) reusableStore(file, storePath string) (*engine.Store, [32]byte, error) {
	var sum [32]byte
	data, err := fileio.ReadLimited(storePath, fileio.MaxStoreFile)
	if err != nil {
		return nil, sum, nil
	}
	store, err := engine.Load(data)
	if err != nil {
		return nil, sum, nil
	}
	src, err := fileSHA256(file, fileio.MaxStoreFile)
	if err != nil {
		return nil, sum, err
	}
	if src != store.Document {
		return nil, sum, fmt.Errorf("%s holds a store of different bytes; nothing was written", storePath)
	}
	return store, sha256.Sum256(data), nil
}

// fileSHA256 hashes a regular file of at most limit bytes while reading
// it, so that the source a reused store is compared with is never held
// beside the store.
func fileSHA256(path string, limit int64) ([32]byte, error) {
	var sum [32]byte
	f, err := fileio.OpenRegular(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return sum, fmt.Errorf("read %s: %w", path, err)
	}
	if n > limit {
		return sum, fmt.Errorf("%s: %w (more than %d bytes)", path, fileio.ErrTooLarge, limit)
	}
	h.Sum(sum[:0])
	return sum, nil
}
