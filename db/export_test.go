package db

import (
	"chronicle/index"
	bolt "go.etcd.io/bbolt"
)

// BoundsForTest returns the term index's candidates with their ranking
// bounds, as Find computes them.
func (a *Archive) BoundsForTest(terms [][]byte) ([]index.Bound, error) {
	var out []index.Bound
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		out, err = index.Bounds(tx, maxSeq(tx), terms)
		return err
	})
	return out, err
}
