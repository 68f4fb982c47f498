package db

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"chronicle/engine/receipt"
)

// Reasons an archive receipt is INVALID.
var (
	ErrReceiptStore  = errors.New("the archive's store differs from the receipt's store_sha256")
	ErrReceiptResult = errors.New("replaying the question gives a different result")
)

// Verify checks an archive receipt against the archive: the document must be
// present, its canonical store must rebuild to the receipt's store digest
// and load with full replay, and the replayed result must hash to the
// receipt's result digest.
func (a *Archive) Verify(r *Receipt, replay receipt.Replayer) (receipt.Outcome, error) {
	d, err := a.Document(r.Document)
	if err != nil {
		return receipt.Invalid, err
	}
	storeBytes, store, err := a.Rebuild(d)
	if err != nil {
		return receipt.Invalid, err
	}
	if d.StoreSHA256 != r.Store {
		return receipt.Invalid, ErrReceiptStore
	}
	var result []byte
	switch r.Kind {
	case KindIngest:
		result = storeBytes
	case KindQuery:
		result, err = replay.Query(store, r.Question)
	case KindFind:
		result, err = replay.Find(store, r.Question)
	}
	if err != nil {
		return receipt.Invalid, fmt.Errorf("replaying the %s: %w", r.Kind, err)
	}
	if Digest(sha256.Sum256(result)) != r.Result {
		return receipt.Invalid, ErrReceiptResult
	}
	return receipt.Valid, nil
}
