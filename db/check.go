package db

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Problem is one thing `check` found wrong.
type Problem struct {
	Doc    string // label of the document concerned, or "" for the archive
	Detail string
}

func (p Problem) String() string {
	if p.Doc == "" {
		return p.Detail
	}
	return p.Doc + ": " + p.Detail
}

// Check re-reads every document (store rebuild, every digest, canonical
// replay of the events) and the cross references between buckets. It
// returns one Problem per finding; an error only when the archive cannot be
// read at all.
func (a *Archive) Check() ([]Problem, error) {
	// The records alone: the links between buckets are checked below, one
	// problem each.
	var docs []*Document
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		if docs, err = docRecords(tx); err == nil {
			err = checkSeqRange(tx, docs)
		}
		return err
	})
	if err != nil {
		return []Problem{{Detail: err.Error()}}, nil
	}
	var problems []Problem
	known := map[Digest]*Document{}
	for _, d := range docs {
		known[d.SHA256] = d
		if _, _, err := a.Rebuild(d); err != nil {
			problems = append(problems, Problem{Doc: d.Label(), Detail: err.Error()})
		} else if err := a.bolt.View(func(tx *bolt.Tx) error { return a.checkEventTable(tx, d) }); err != nil {
			// The table rebuilds, so the record's frame digest is wrong.
			problems = append(problems, Problem{Doc: d.Label(), Detail: err.Error()})
		}
	}
	err = a.bolt.View(func(tx *bolt.Tx) error {
		nb := tx.Bucket(bucketNames)
		if err := nb.ForEach(func(k, v []byte) error {
			var d *Document
			ok := len(v) == 32 // a shorter value cannot be converted to a Digest
			if ok {
				d, ok = known[Digest(v)]
			}
			switch {
			case !ok:
				problems = append(problems, Problem{Detail: fmt.Sprintf("name %q points at unknown document %x", k, v)})
			case !d.hasName(string(k)):
				problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("name %q is not in the document's record", k)})
			}
			return nil
		}); err != nil {
			return err
		}
		for _, d := range docs {
			for _, n := range d.Names {
				if !bytes.Equal(nb.Get([]byte(n)), d.SHA256[:]) {
					problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("name %q does not point back at the document", n)})
				}
			}
		}
		orphans := func(bucket []byte, what string) error {
			return tx.Bucket(bucket).ForEach(func(k, _ []byte) error {
				if len(k) < 32 || known[Digest(k[:32])] == nil {
					problems = append(problems, Problem{Detail: fmt.Sprintf("%s entry %s… belongs to no document", what, hex.EncodeToString(k[:min(len(k), 8)]))})
					return nil
				}
				// A chunk key is digest ‖ index (u32 BE) below the document's chunk count.
				if d := known[Digest(k[:32])]; bytes.Equal(bucket, bucketChunks) &&
					(len(k) != 36 || int64(binary.BigEndian.Uint32(k[32:])) >= int64(d.Chunks())) {
					problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("chunk entry %x is not one of the document's %d chunks", k[32:], d.Chunks())})
				}
				return nil
			})
		}
		for _, o := range []struct {
			bucket []byte
			what   string
		}{{bucketChunks, "chunk"}, {bucketEvents, "event table"}, {bucketReceipts, "receipt"}} {
			if err := orphans(o.bucket, o.what); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return problems, err
	}
	if _, err := a.Receipts(nil); err != nil {
		problems = append(problems, Problem{Detail: err.Error()})
	}
	problems = append(problems, a.checkIndex(docs)...)
	problems = append(problems, a.checkClaimChecks()...)
	return problems, nil
}

// checkClaimChecks reads every kept claim check (its digest bound to its
// key) and replays it: the kept rows must come out of the kept file and
// resolutions again, byte for byte.
func (a *Archive) checkClaimChecks() []Problem {
	var problems []Problem
	var keys [][]byte
	var values [][]byte
	if err := a.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketClaims).ForEach(func(k, v []byte) error {
			keys, values = append(keys, bytes.Clone(k)), append(values, bytes.Clone(v))
			return nil
		})
	}); err != nil {
		return []Problem{{Detail: err.Error()}}
	}
	for i, k := range keys {
		c, err := decodeCheck(k, values[i])
		if err == nil {
			_, err = a.ReplayCheck(c)
		}
		if err != nil {
			problems = append(problems, Problem{Detail: err.Error()})
		}
	}
	return problems
}
