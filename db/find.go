package db

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"chronicle/engine/find"
	"chronicle/index"
	bolt "go.etcd.io/bbolt"
)

// FindHit is one document's canonical find result in a cross-archive search.
type FindHit struct {
	Doc    *Document
	Result *find.Result
}

// FindStats tells how much of the archive a Find touched.
type FindStats struct {
	Candidates int // documents the term index could not rule out
	Searched   int // documents read and searched
}

// Find searches the whole archive: the term index selects the documents
// that can match, each candidate is decompressed, re-hashed and searched
// (in parallel, one document per core), and the documents with at least one
// matching line are ranked by best matched_terms, then total matching lines,
// then import order. limit <= 0 keeps them all.
//
// With limit > 0 the search stops early. The index bounds every candidate's
// ranking key from above (see index.Bounds); candidates are searched best
// bound first, and the search stops once limit documents are found whose
// exact keys all rank before the next candidate's bound: no candidate left
// can enter the first limit. The answer is that of the exhaustive search.
//
// A document that fails to read stops the search with its error: a
// corrupted document never yields a partial answer.
func (a *Archive) Find(q *find.Query, limit int) ([]FindHit, error) {
	hits, _, err := a.FindWithStats(q, limit)
	return hits, err
}

// rankKey is a document's place in the ranking: best matched_terms
// descending, total_matching_lines descending, import order.
type rankKey struct {
	terms int
	lines uint64
	seq   uint64
}

// before reports whether k ranks strictly before o.
func (k rankKey) before(o rankKey) bool {
	if k.terms != o.terms {
		return k.terms > o.terms
	}
	if k.lines != o.lines {
		return k.lines > o.lines
	}
	return k.seq < o.seq
}

func boundKey(b index.Bound) rankKey { return rankKey{b.Terms, b.Lines, b.Seq} }

func hitKey(h FindHit) rankKey {
	return rankKey{h.Result.Matches[0].MatchedTerms, uint64(h.Result.TotalMatchingLines), h.Doc.Seq}
}

// FindWithStats is Find, also reporting the candidates and how many of them
// were searched.
func (a *Archive) FindWithStats(q *find.Query, limit int) ([]FindHit, FindStats, error) {
	var cands []index.Bound
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		cands, err = liveBounds(tx, q.Terms())
		return err
	})
	if err != nil {
		return nil, FindStats{}, err
	}
	stats := FindStats{Candidates: len(cands)}
	if limit > 0 {
		slices.SortFunc(cands, func(x, y index.Bound) int {
			if boundKey(x).before(boundKey(y)) {
				return -1
			}
			return 1 // keys are distinct: sequence numbers are
		})
	}

	var (
		mu      sync.Mutex
		next    int
		hits    []FindHit
		top     []rankKey // the best exact keys so far, best first, at most limit
		errAt   = -1
		firstEr error
	)
	// take returns the next candidate to search, or -1 when none is left or
	// none left can rank among the first limit.
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(cands) || errAt >= 0 {
			return -1
		}
		if limit > 0 && len(top) == limit && top[limit-1].before(boundKey(cands[next])) {
			return -1
		}
		next++
		return next - 1
	}
	done := func(j int, h FindHit, err error) {
		mu.Lock()
		defer mu.Unlock()
		stats.Searched++
		if err != nil {
			if errAt < 0 || j < errAt {
				errAt, firstEr = j, err
			}
			return
		}
		if h.Result.TotalMatchingLines == 0 {
			return
		}
		hits = append(hits, h)
		if limit > 0 {
			k := hitKey(h)
			i, _ := slices.BinarySearchFunc(top, k, func(x, y rankKey) int {
				if x.before(y) {
					return -1
				}
				return 1
			})
			if i < limit {
				top = slices.Insert(top, i, k)
				if len(top) > limit {
					top = top[:limit]
				}
			}
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(cands)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := take(); j >= 0; j = take() {
				d, src, err := a.searchSource(cands[j].Seq)
				if err != nil {
					done(j, FindHit{}, err)
					continue
				}
				done(j, FindHit{Doc: d, Result: q.Search(src, d.SHA256)}, nil)
			}
		}()
	}
	wg.Wait()
	if firstEr != nil {
		return nil, stats, firstEr
	}
	slices.SortFunc(hits, func(x, y FindHit) int {
		if hitKey(x).before(hitKey(y)) {
			return -1
		}
		return 1
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, stats, nil
}

// searchSource reads one document's record and source for Find: the whole
// source, re-hashed with SHA-256 like every read, and the event table's
// digest checked (damage anywhere in a document fails any read of it)
// without decoding the events, which find does not use. It runs on a
// worker goroutine, so a panic from a damaged bbolt page becomes an error
// here (the caller's recover cannot see it).
func (a *Archive) searchSource(seq uint64) (d *Document, src []byte, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			d, src, err = nil, nil, fmt.Errorf("document #%d: %w: reading it failed: %v", seq, ErrCorrupt, r)
		}
	}()
	return a.searchSourceIn(seq)
}

func (a *Archive) searchSourceIn(seq uint64) (*Document, []byte, error) {
	var d *Document
	var src []byte
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		if d, err = docBySeq(tx, seq); err != nil {
			return err
		}
		if _, err := a.readEventTable(tx, d); err != nil {
			return err
		}
		src, err = a.readSource(tx, d)
		return err
	})
	return d, src, err
}

// liveBounds is index.Bounds without stray bits: candidates whose sequence
// number names no document (check reports those) are dropped.
func liveBounds(tx *bolt.Tx, terms [][]byte) ([]index.Bound, error) {
	bounds, err := index.Bounds(tx, maxSeq(tx), terms)
	if err != nil {
		return nil, err
	}
	seqs := tx.Bucket(bucketSeqs)
	live := bounds[:0]
	for _, b := range bounds {
		if seqs.Get(seqKey(b.Seq)) != nil {
			live = append(live, b)
		}
	}
	return live, nil
}
