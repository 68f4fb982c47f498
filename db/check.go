package db

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

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

// CheckOptions tune CheckWith.
type CheckOptions struct {
	// Progress is told before each document (i from 0 of n).
	Progress func(i, n int, d *Document)
	// Share releases the archive between documents, so that a writer
	// commits instead of waiting for the whole check. The documents present
	// at the start are checked one by one; those a writer added meanwhile,
	// and every cross reference, are then checked in one snapshot.
	Share bool
}

// Check re-reads every document (store rebuild, every digest, canonical
// replay of the events) and the cross references between buckets. It
// returns one Problem per finding; an error only when the archive cannot be
// read at all, or when ctx ends before the last document (ErrInterrupted,
// with the problems found so far).
func (a *Archive) Check(ctx context.Context) ([]Problem, error) {
	return a.CheckWith(ctx, CheckOptions{})
}

// CheckWith is Check with options.
func (a *Archive) CheckWith(ctx context.Context, opts CheckOptions) ([]Problem, error) {
	// The page structure first: a damaged branch page can hide a record
	// from a lookup by key (every command) while a walk of the bucket (the
	// checks below) still finds it.
	if found := a.pageProblems(); len(found) > 0 {
		return []Problem{{Detail: fmt.Sprintf("archive %s: its page structure is damaged (%s); restore it from a copy", a.path, strings.Join(found, "; "))}}, nil
	}
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
	ic := newIndexCheck()
	checkDoc := func(d *Document) {
		known[d.SHA256] = d
		if _, _, err := a.Rebuild(d); err != nil {
			problems = append(problems, Problem{Doc: d.Label(), Detail: err.Error()})
		} else if err := a.bolt.View(func(tx *bolt.Tx) error { return a.checkEventTable(tx, d) }); err != nil {
			// The table rebuilds, so the record's frame digest is wrong.
			problems = append(problems, Problem{Doc: d.Label(), Detail: err.Error()})
		}
		if err := a.bolt.View(func(tx *bolt.Tx) error {
			problems = append(problems, a.checkDocIndex(tx, d, ic)...)
			return nil
		}); err != nil {
			problems = append(problems, Problem{Doc: d.Label(), Detail: err.Error()})
		}
	}
	for i, d := range docs {
		if err := Interrupted(ctx, "check interrupted after %d of %d documents", i, len(docs)); err != nil {
			return problems, err
		}
		if opts.Progress != nil {
			opts.Progress(i, len(docs), d)
		}
		if opts.Share && i > 0 {
			a.Release()
			a.yield()
			if err := a.reacquire(true); err != nil {
				return problems, err
			}
		}
		checkDoc(d)
	}
	if opts.Share && len(docs) > 0 {
		// From here on the lock is held: what a writer added meanwhile is
		// checked in the snapshot the cross references are checked in.
		var now []*Document
		if err := a.bolt.View(func(tx *bolt.Tx) error {
			var err error
			if now, err = docRecords(tx); err == nil {
				err = checkSeqRange(tx, now)
			}
			return err
		}); err != nil {
			return append(problems, Problem{Detail: err.Error()}), nil
		}
		for _, d := range now {
			if known[d.SHA256] == nil {
				checkDoc(d)
			}
		}
	}
	err = a.bolt.View(func(tx *bolt.Tx) error {
		problems = append(problems, a.checkLog(tx, known)...)
		checkOriginals(tx, func(what string) { problems = append(problems, Problem{Detail: what}) })
		nb := tx.Bucket(bucketNames)
		if err := nb.ForEach(func(k, v []byte) error {
			var d *Document
			ok := len(v) == 32 // a shorter value cannot be converted to a Digest
			if ok {
				d, ok = known[Digest(v)]
			}
			switch {
			case !ok && isPathKey(k):
				problems = append(problems, Problem{Detail: fmt.Sprintf("source path %q points at unknown document %x", k[1:], v)})
			case !ok:
				problems = append(problems, Problem{Detail: fmt.Sprintf("name %q points at unknown document %x", k, v)})
			case isPathKey(k):
				if !d.hasSource(string(k[1:])) {
					problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("source path %q is not in the document's record", k[1:])})
				}
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
			if err := checkSources(nb, d); err != nil {
				problems = append(problems, Problem{Doc: d.Label(), Detail: err.Error()})
			}
		}
		// Every document checked, with those a writer added meanwhile
		// (Share), whose entries are in this snapshot too.
		all := make([]*Document, 0, len(known))
		for _, d := range known {
			all = append(all, d)
		}
		problems = append(problems, checkOrder(tx, all)...)
		problems = append(problems, checkReceiptIndexes(tx)...)
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
	if err := a.bolt.View(func(tx *bolt.Tx) error {
		problems = append(problems, ic.rest(tx)...)
		return nil
	}); err != nil {
		problems = append(problems, Problem{Detail: err.Error()})
	}
	problems = append(problems, a.checkClaimChecks()...)
	if problem := a.checkTotals(); problem != "" {
		problems = append(problems, Problem{Detail: problem})
	}
	return problems, nil
}

// pageProblems walks every bucket and looks each entry up again by its
// key: a damaged branch page can send a lookup (what every command does)
// to the wrong leaf while the walk still finds the entry. (bbolt's own
// consistency check can run for ever on damaged pages, so it is not
// used.) It returns a description per bucket with unreachable entries.
func (a *Archive) pageProblems() []string {
	var out []string
	err := a.bolt.View(func(tx *bolt.Tx) error {
		// The trees must be finite before a cursor descends them.
		if problem := pageTree(a.path, tx); problem != "" {
			out = append(out, problem)
			return nil
		}
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			lost := 0
			c := b.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if v == nil {
					continue // a nested bucket
				}
				if !bytes.Equal(b.Get(k), v) {
					lost++
				}
			}
			if lost > 0 {
				out = append(out, fmt.Sprintf("bucket %s: %d entries cannot be found by their key", name, lost))
			}
			return nil
		})
	})
	if err != nil {
		out = append(out, err.Error())
	}
	return out
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
