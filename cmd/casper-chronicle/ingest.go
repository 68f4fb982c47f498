package main

import (
	"chronicle/db/fileio"
	"crypto/sha256"
	"fmt"

	"chronicle/db"
	"chronicle/engine"
	"chronicle/engine/receipt"
)

// maxIngestPath keeps FILE + ".chronicle" within 2047 bytes (SPEC 1).
const maxIngestPath = 2037

// ingest follows SPEC 1.2 step by step.
func (c *cli) ingest(file string) int {
	if file == "" || len(file) > maxIngestPath || !engine.ValidTextString(file) {
		return c.fail(exitUsage, "ingest: FILE must be 1..%d bytes of UTF-8 text", maxIngestPath)
	}
	storePath := file + ".chronicle"
	receiptPath := storePath + ".receipt"

	storeBytes, store, err := c.reusableStore(file, storePath)
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
		storeBytes = store.Encode()
		if err := fileio.CreateShared(storePath, storeBytes); err != nil {
			return c.fail(exitFailure, "ingest %s: cannot create store: %v", file, err)
		}
	}
	rec, err := receipt.New(receipt.KindIngest, storePath, "", storeBytes, store.Version, store.Document, nil)
	if err != nil {
		return c.fail(exitFailure, "ingest %s: %v", file, err)
	}
	if err := fileio.WriteOnceShared(receiptPath, rec.Encode()); err != nil {
		return c.fail(exitFailure, "ingest %s: %v", file, err)
	}
	fmt.Fprintf(c.stdout, "store=%s\nreceipt=%s\n", storePath, receiptPath)
	return exitOK
}

// reusableStore implements SPEC 1.2 step 2: when storePath holds a fully
// valid store, the source must still hash to its document digest and the
// store is reused untouched. It returns (nil, nil, nil) when there is no
// valid store to reuse.
func (c *cli) reusableStore(file, storePath string) ([]byte, *engine.Store, error) {
	data, err := fileio.ReadLimited(storePath, fileio.MaxStoreFile)
	if err != nil {
		return nil, nil, nil
	}
	store, err := engine.Load(data)
	if err != nil {
		return nil, nil, nil
	}
	src, err := fileio.ReadLimited(file, fileio.MaxStoreFile)
	if err != nil {
		return nil, nil, err
	}
	if sha256.Sum256(src) != store.Document {
		return nil, nil, fmt.Errorf("%s holds a store of different bytes; nothing was written", storePath)
	}
	return data, store, nil
}
