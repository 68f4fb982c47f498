package db

import (
	"runtime"
	"sort"
	"sync"

	"chronicle/engine/find"
	bolt "go.etcd.io/bbolt"
)

// FindHit is one document's canonical find result in a cross-archive search.
type FindHit struct {
	Doc    *Document
	Result *find.Result
}

// Find searches the whole archive: the term index selects the documents
// that can match, each candidate is decompressed, re-hashed and searched
// (in parallel, one document per core), and the documents with at least one
// matching line are ranked by best matched_terms, then total matching lines,
// then import order. limit <= 0 keeps them all. A document that fails to
// read stops the search with its error: a corrupted document never yields a
// partial answer.
func (a *Archive) Find(q *find.Query, limit int) ([]FindHit, error) {
	docs, err := a.Candidates(q.Terms())
	if err != nil {
		return nil, err
	}
	results := make([]*find.Result, len(docs))
	errs := make([]error, len(docs))
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(docs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				j := i
				i++
				next.Unlock()
				if j >= len(docs) {
					return
				}
				src, err := a.searchSource(docs[j])
				if err != nil {
					errs[j] = err
					continue
				}
				results[j] = q.Search(src, docs[j].SHA256)
			}
		}()
	}
	wg.Wait()
	var hits []FindHit
	for j, d := range docs {
		if errs[j] != nil {
			return nil, errs[j]
		}
		if results[j].TotalMatchingLines > 0 {
			hits = append(hits, FindHit{Doc: d, Result: results[j]})
		}
	}
	sort.SliceStable(hits, func(x, y int) bool {
		bx, by := hits[x].Result.Matches[0].MatchedTerms, hits[y].Result.Matches[0].MatchedTerms
		if bx != by {
			return bx > by
		}
		return hits[x].Result.TotalMatchingLines > hits[y].Result.TotalMatchingLines
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// searchSource reads one document's source for Find: the whole source,
// re-hashed with SHA-256 like every read, and the event table's digest
// checked (damage anywhere in a document fails any read of it) without
// decoding the events, which find does not use.
func (a *Archive) searchSource(d *Document) ([]byte, error) {
	var src []byte
	err := a.bolt.View(func(tx *bolt.Tx) error {
		if _, err := a.readEventTable(tx, d); err != nil {
			return err
		}
		var err error
		src, err = a.readSource(tx, d)
		return err
	})
	return src, err
}
