package receipt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/casper-chronicle/chronicle/engine"
)

// Outcome is the verdict of Verify.
type Outcome int

// Verdicts and their exit codes (CONTRACT 1): VALID 0, INVALID 1, UNSUPPORTED 3.
const (
	Invalid Outcome = iota
	Valid
	Unsupported
)

func (o Outcome) String() string {
	switch o {
	case Valid:
		return "VALID"
	case Unsupported:
		return "UNSUPPORTED"
	default:
		return "INVALID"
	}
}

// ExitCode is the documented process exit code of the outcome.
func (o Outcome) ExitCode() int {
	switch o {
	case Valid:
		return 0
	case Unsupported:
		return 3
	default:
		return 1
	}
}

// Replayer recomputes canonical results: the query (settlement or claim)
// and find JSON of CONTRACT 5 for a loaded store.
type Replayer interface {
	Query(s *engine.Store, question string) ([]byte, error)
	Find(s *engine.Store, terms string) ([]byte, error)
}

// Sentinel reasons for an INVALID verdict.
var (
	ErrStoreDigest    = errors.New("store file digest differs from store_sha256")
	ErrDocumentDigest = errors.New("store document digest differs from document_sha256")
	ErrVersion        = errors.New("V1 receipt for a V2 store")
	ErrResultDigest   = errors.New("recomputed result digest differs from result_sha256")
)

// Verify runs the semantic checks of CONTRACT 4.2 on a parsed receipt, given the
// bytes of the file its store path names, in the order that decides the
// outcome: store digest, store load with replay, document digest, version
// compatibility, V1 QUERY → UNSUPPORTED, then the recomputed result. The
// error explains an INVALID verdict (nil for VALID and UNSUPPORTED).
func Verify(r *Receipt, storeBytes []byte, replay Replayer) (Outcome, error) {
	sum := sha256.Sum256(storeBytes)
	if hex.EncodeToString(sum[:]) != r.StoreSHA256 {
		return Invalid, ErrStoreDigest
	}
	store, err := engine.Load(storeBytes)
	if err != nil {
		return Invalid, fmt.Errorf("store %s: %w", r.StorePath, err)
	}
	if hex.EncodeToString(store.Document[:]) != r.DocumentSHA256 {
		return Invalid, ErrDocumentDigest
	}
	if r.Version == 1 && store.Version != 1 {
		return Invalid, ErrVersion
	}
	if r.Version == 1 && r.Kind == KindQuery {
		return Unsupported, nil
	}
	result, err := Recompute(r.Kind, storeBytes, store, r.Question, replay)
	if err != nil {
		return Invalid, err
	}
	sum = sha256.Sum256(result)
	if hex.EncodeToString(sum[:]) != r.ResultSHA256 {
		return Invalid, ErrResultDigest
	}
	return Valid, nil
}

// Recompute reproduces the result a receipt of this kind attests: the store
// bytes for INGEST, the replayed query or find JSON otherwise.
func Recompute(kind Kind, storeBytes []byte, store *engine.Store, question string, replay Replayer) ([]byte, error) {
	var result []byte
	var err error
	switch kind {
	case KindIngest:
		result = storeBytes
	case KindQuery:
		result, err = replay.Query(store, question)
	case KindFind:
		result, err = replay.Find(store, question)
	default:
		err = fmt.Errorf("unknown receipt kind %q", kind)
	}
	if err != nil {
		return nil, fmt.Errorf("replaying the %s: %w", kind, err)
	}
	return result, nil
}
