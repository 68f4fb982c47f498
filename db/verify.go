package db

import (
	"crypto/sha256"
	"errors"

	"github.com/casper-chronicle/chronicle/engine/receipt"
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
	// Archive receipt kinds carry the same names as the original's.
	result, err := receipt.Recompute(receipt.Kind(r.Kind), storeBytes, store, r.Question, replay)
	if err != nil {
		return receipt.Invalid, err
	}
	if Digest(sha256.Sum256(result)) != r.Result {
		return receipt.Invalid, ErrReceiptResult
	}
	return receipt.Valid, nil
}
