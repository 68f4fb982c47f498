package db

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// ErrBadEpoch: SOURCE_DATE_EPOCH is set but is not a number of seconds.
var ErrBadEpoch = errors.New("SOURCE_DATE_EPOCH is not a non-negative integer number of seconds")

// ImportTime is the imported_at of a new store: SOURCE_DATE_EPOCH when set
// (the reproducible-builds convention, so tests can reproduce golden
// stores), else the current Unix time.
func ImportTime() (uint64, error) {
	if v, ok := os.LookupEnv("SOURCE_DATE_EPOCH"); ok {
		t, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: %q", ErrBadEpoch, v)
		}
		return t, nil
	}
	return uint64(time.Now().Unix()), nil
}
