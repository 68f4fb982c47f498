package db

import (
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/index"

	bolt "go.etcd.io/bbolt"
)

// FindHit is one document's canonical find result in a cross-archive search.
type FindHit struct {
	Doc    *Document
	Result *find.Result
	// From: the derivation of a document derived from an original file
	// (a mail, a page, a PDF), nil for a text ingested as it is.
	From *Derivation
}

// FindStats tells how much of the archive a Find touched.
type FindStats struct {
	Candidates int // documents the term index could not rule out
	Searched   int // documents read and searched
}

// Find searches the whole archive: the term index selects the documents
// that can match, each candidate's lines are scored from its line index (in
// parallel, one document per core), and the documents with at least one
// matching line are ranked by best matched_terms, then total matching lines,
// then import order. limit <= 0 keeps them all. Only the lines a result
// lists are read from the source.
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

// FindWithStats is Find, also reporting the candidates and how many of them
// were searched.
//
// It runs in two phases. The first scores candidates from their line
// indexes alone (index.LineScorer: exact per-line scores, no source read),
// best bound first, until no candidate left can enter the first limit. The
// second reads, for the documents kept, only the lines their results list:
// the chunks holding them are decompressed and checked against their
// SHA-256, and every listed line is re-scored from its bytes.
func (a *Archive) FindWithStats(q *find.Query, limit int) ([]FindHit, FindStats, error) {
	return a.FindUpTo(q, limit, math.MaxUint64)
}

// FindUpTo is FindWithStats over documents #1..#upTo only: the answer the
// archive gave when it held upTo documents (cross-archive receipts replay
// it; see archive_receipt.go).
func (a *Archive) FindUpTo(q *find.Query, limit int, upTo uint64) ([]FindHit, FindStats, error) {
	cands, err := a.boundsOnCores(q.Terms(), upTo)
	if err != nil {
		return nil, FindStats{}, err
	}
	stats := FindStats{Candidates: len(cands)}
	// With a limit, candidates are taken best bound first, and usually
	// only a few before the bound stops: a heap orders them as they are
	// taken instead of sorting all of them (77,000 for a common word at
	// 100,000 documents, several milliseconds).
	order := bestFirst{heap: cands}
	if limit > 0 {
		heap.Init(&order)
	} else {
		order.out, order.heap = cands, nil
	}

	var (
		mu      sync.Mutex
		next    int
		scored  []scoredDoc
		top     []rankKey // the best exact keys so far, best first, at most limit
		errAt   = -1
		firstEr error
	)
	// take returns the next candidate to score, or -1 when none is left or
	// none left can rank among the first limit.
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if errAt >= 0 || !order.has(next) {
			return -1
		}
		if limit > 0 && len(top) == limit && top[limit-1].before(boundKey(order.out[next])) {
			return -1
		}
		next++
		return next - 1
	}
	fail := func(j int, err error) {
		if errAt < 0 || j < errAt {
			errAt, firstEr = j, err
		}
	}
	done := func(j int, sd scoredDoc, err error) {
		mu.Lock()
		defer mu.Unlock()
		stats.Searched++
		if err != nil {
			fail(j, err)
			return
		}
		if sd.total == 0 {
			return
		}
		scored = append(scored, sd)
		if limit > 0 {
			k := sd.key()
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
	// take, not parallel's plain counter, hands out the candidates: it
	// stops at the bound.
	a.parallel(len(cands), func(func() int) {
		var sc lineScorer
		for j := take(); j >= 0; j = take() {
			mu.Lock()
			c := order.out[j]
			mu.Unlock()
			sd, err := a.scoreDoc(c, q, &sc)
			done(j, sd, err)
		}
	})
	if firstEr != nil {
		return nil, stats, firstEr
	}
	slices.SortFunc(scored, func(x, y scoredDoc) int {
		if x.key().before(y.key()) {
			return -1
		}
		return 1
	})
	if limit > 0 && len(scored) > limit {
		scored = scored[:limit]
	}

	hits := make([]FindHit, len(scored))
	errAt = -1
	a.parallel(len(scored), func(next func() int) {
		for j := next(); j >= 0; j = next() {
			h, err := a.listLines(scored[j], q)
			mu.Lock()
			if err != nil {
				fail(j, err)
			}
			hits[j] = h
			mu.Unlock()
		}
	})
	if firstEr != nil {
		return nil, stats, firstEr
	}
	return hits, stats, nil
}

// parallel runs work on one goroutine per core (at most n; on the caller's
// for a single item); next hands out 0..n-1 once each, then -1. Work that
// reads memory-mapped pages recovers its own panics.
func (a *Archive) parallel(n int, work func(next func() int)) {
	var (
		mu sync.Mutex
		i  int
		wg sync.WaitGroup
	)
	next := func() int {
		mu.Lock()
		defer mu.Unlock()
		if i >= n {
			return -1
		}
		i++
		return i - 1
	}
	if n == 1 { // one item: no goroutine to start and wait for
		work(next)
		return
	}
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(next)
		}()
	}
	wg.Wait()
}

// scoredDoc is a document scored by the first phase of Find.
type scoredDoc struct {
	seq   uint64
	total int                // matching lines
	top   []index.LineScore  // the lines to list, in result order
	loc   *index.LineLocator // where they are (from the checked record)
	doc   *Document          // its record, when scoring read it already
	hit   *FindHit           // set when the document was searched whole
}

func (s scoredDoc) key() rankKey { return rankKey{s.top[0].Score, uint64(s.total), s.seq} }

// lineScorer is one goroutine's scoring state, reused across documents.
type lineScorer struct {
	index.LineScorer
	lines index.Lines // the parsed record, its buffers reused
}

// scoreDoc scores candidate c from its line index. A document without one
// (its archive was not reindexed) is searched whole instead. When the term
// index counted its matching lines exactly (c.Exact), only the lines to
// list are looked up. It runs on a worker goroutine, so a panic from a
// damaged bbolt page becomes an error here (the caller's recover cannot
// see it).
func (a *Archive) scoreDoc(c index.Bound, q *find.Query, sc *lineScorer) (sd scoredDoc, err error) {
	seq := c.Seq
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer a.recoverPage(func() string { return fmt.Sprintf("document #%d", seq) }, &err)
	sd.seq = seq
	err = a.bolt.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketSeqs).Get(seqKey(seq)) == nil {
			return fmt.Errorf("archive %s: document #%d: %w: no sequence entry (run `chronicle check`; restore from a copy)", tx.DB().Path(), seq, ErrCorrupt)
		}
		rec := index.LinesRecord(tx, seq)
		if rec == nil {
			return a.searchWhole(tx, seq, q, &sd)
		}
		l, err := index.ParseLinesReusing(rec, &sc.lines)
		if err != nil {
			return a.lineIndexError(tx, seq, err)
		}
		if c.Exact {
			sd.total = int(min(c.Lines, uint64(l.NumLines)+1))
			if sd.loc, err = l.Locator(); err != nil {
				return a.lineIndexError(tx, seq, err)
			}
			var fromSource bool
			if c.Lines <= uint64(l.NumLines) {
				if sd.doc, sd.top, fromSource, err = a.firstLinesFromSource(tx, seq, sd.loc, q, sd.total); err != nil {
					return err
				}
			}
			if !fromSource {
				sd.top, err = sc.ScoreFirst(l, q, find.MaxMatches)
			}
			if err == nil && (c.Lines > uint64(l.NumLines) || len(sd.top) != min(sd.total, find.MaxMatches)) {
				// Both indexes are sealed and were built from the same
				// bytes: a disagreement is damage, never an answer.
				err = fmt.Errorf("%w: the term index counts %d lines holding the term, the line index lists %d", index.ErrLineIndex, sd.total, len(sd.top))
			}
		} else {
			sd.total, sd.top, err = sc.Score(l, q, find.MaxMatches)
		}
		if err != nil {
			return a.lineIndexError(tx, seq, err)
		}
		if sd.total > 0 && sd.loc == nil {
			// The locator is checked only for the documents that list
			// lines: the others never read it.
			if sd.loc, err = l.Locator(); err != nil {
				return a.lineIndexError(tx, seq, err)
			}
		}
		return nil
	})
	return sd, err
}

// checkLocator checks that the line index's locator describes document
// d's stored source, before its chunks are read through it.
func (a *Archive) checkLocator(tx *bolt.Tx, d *Document, l *index.LineLocator) error {
	if l.SourceSize != uint64(d.SourceSize) || l.ChunkSize != d.ChunkSize {
		return a.lineIndexError(tx, d.Seq, fmt.Errorf("it describes %d bytes in chunks of %d", l.SourceSize, l.ChunkSize))
	}
	return nil
}

// lineIndexError names the document whose line index is damaged.
func (a *Archive) lineIndexError(tx *bolt.Tx, seq uint64, err error) error {
	label := fmt.Sprintf("#%d", seq)
	if d, derr := docBySeq(tx, seq); derr == nil {
		label = fmt.Sprintf("%s (%s)", d.Label(), d.SHA256)
	}
	return fmt.Errorf("document %s: %w: %v (run `chronicle check`, then `chronicle reindex`)", label, ErrCorrupt, err)
}

// searchWhole is the scan of a document without a line index: the whole
// source, re-hashed with SHA-256 like every read, and the event table's
// digest checked.
func (a *Archive) searchWhole(tx *bolt.Tx, seq uint64, q *find.Query, sd *scoredDoc) error {
	d, err := docBySeq(tx, seq)
	if err != nil {
		return err
	}
	if _, err := a.readEventTable(tx, d); err != nil {
		return err
	}
	src, err := a.readSource(tx, d)
	if err != nil {
		return err
	}
	r := q.Search(src, d.SHA256)
	sd.total = r.TotalMatchingLines
	sd.top = sd.top[:0]
	for _, m := range r.Matches {
		sd.top = append(sd.top, index.LineScore{Line: m.Line, Score: m.MatchedTerms})
	}
	from, err := originOf(tx, d.SHA256)
	if err != nil {
		return err
	}
	sd.hit = &FindHit{Doc: d, Result: r, From: from}
	return nil
}

// listLines completes a scored document's result: its record, its event
// table's digest (damage in a document fails any read of it, even where
// find does not look: FORMAT.md, "What is checked where"), and the listed
// lines, read from their chunks (each checked against its digest) at the
// offsets the line index gave and re-scored from their bytes.
func (a *Archive) listLines(sd scoredDoc, q *find.Query) (h FindHit, err error) {
	if sd.hit != nil {
		return *sd.hit, nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer a.recoverPage(func() string { return fmt.Sprintf("document #%d", sd.seq) }, &err)
	err = a.bolt.View(func(tx *bolt.Tx) error {
		d := sd.doc // read already when its lines were found in its source
		if d == nil {
			var err error
			if d, err = docBySeq(tx, sd.seq); err != nil {
				return err
			}
			if err := a.checkLocator(tx, d, sd.loc); err != nil {
				return err
			}
		}
		if err := a.checkEventTable(tx, d); err != nil {
			return err
		}
		l := sd.loc
		lr := newLineReader(a, tx, d, l)
		defer lr.release()
		r := &find.Result{Status: find.StatusMatches, Query: q.Text(), Document: d.SHA256, TotalMatchingLines: sd.total}
		r.Matches = make([]find.Match, len(sd.top))
		// The lines are read in ascending order, whatever their place in
		// the result: the reader then only steps forward through the
		// source, decompressing each chunk once and keeping one.
		for _, i := range lineOrder(sd.top) {
			ls := sd.top[i]
			m, text, err := lr.line(ls.Line)
			if err != nil {
				return err
			}
			if m.MatchedTerms = q.Score(text); m.MatchedTerms != ls.Score {
				return a.lineIndexError(tx, sd.seq, fmt.Errorf("line %d matches %d terms, the index says %d", ls.Line, m.MatchedTerms, ls.Score))
			}
			r.Matches[i] = m
		}
		from, err := originOf(tx, d.SHA256)
		if err != nil {
			return err
		}
		h = FindHit{Doc: d, Result: r, From: from}
		return nil
	})
	return h, err
}

// splitBoundsSupers is the fewest super-groups whose bounds
// boundsOnCores splits across the cores (a variable for the tests).
var splitBoundsSupers uint64 = 2

// boundsOnCores is liveBounds over documents #1..#upTo, its super-groups
// cut into one range per core, each read in a read transaction of its own
// on its own goroutine, joined in order: the bounds of 100,000 documents
// were half of a three-word find, on one core. Every range is read from
// one consistent snapshot; the first fixes the number of documents, and
// documents a writer adds meanwhile are past it.
func (a *Archive) boundsOnCores(terms [][]byte, upTo uint64) ([]index.Bound, error) {
	var (
		cands   []index.Bound
		results [][]index.Bound
		errs    []error
		wg      sync.WaitGroup
	)
	err := a.bolt.View(func(tx *bolt.Tx) error {
		upTo = min(upTo, maxSeq(tx))
		supers := upTo/index.SuperSize + 1
		parts := min(uint64(runtime.GOMAXPROCS(0)), supers)
		if parts < 2 || supers < splitBoundsSupers {
			var err error
			cands, err = liveBounds(tx, terms, upTo)
			return err
		}
		// The other ranges on goroutines, each in a transaction of its
		// own (never waited for inside this one: a writer waiting for
		// the mapping between two readers of one handle would wait
		// forever); the first here.
		results, errs = make([][]index.Bound, parts), make([]error, parts)
		cut := func(p uint64) uint32 { return uint32(supers * p / parts) }
		for p := uint64(1); p < parts; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[p] = a.boundsOfSupers(terms, upTo, cut(p), cut(p+1), &results[p])
			}()
		}
		if err := checkLastSeq(tx); err != nil {
			return err
		}
		var err error
		results[0], err = index.BoundsOfSupers(tx, upTo, terms, 0, cut(1))
		return indexDamage(tx, err)
	})
	wg.Wait()
	if err != nil || results == nil {
		return cands, err
	}
	for p, r := range results {
		if errs[p] != nil {
			return nil, errs[p]
		}
		cands = append(cands, r...)
	}
	return cands, nil
}

// boundsOfSupers is liveBounds of super-groups from..to-1 into out, on a
// worker goroutine: a panic from a damaged page becomes an error here.
func (a *Archive) boundsOfSupers(terms [][]byte, upTo uint64, from, to uint32, out *[]index.Bound) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer a.recoverPage(func() string { return "the term index" }, &err)
	return a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		*out, err = index.BoundsOfSupers(tx, upTo, terms, from, to)
		return indexDamage(tx, err)
	})
}

// liveBounds is index.Bounds over documents #1..#upTo. The archive numbers
// its documents 1..maxSeq without gaps, each with a sequence entry: a
// candidate without one, or a last entry that is not maxSeq's, is damage
// (a dropped candidate would be a document silently left out).
func liveBounds(tx *bolt.Tx, terms [][]byte, upTo uint64) ([]index.Bound, error) {
	upTo = min(upTo, maxSeq(tx))
	if err := checkLastSeq(tx); err != nil {
		return nil, err
	}
	bounds, err := index.Bounds(tx, upTo, terms)
	if err != nil {
		return nil, indexDamage(tx, err)
	}
	// A candidate's own sequence entry is checked when it is scored
	// (scoreDoc): one the ranking never reaches cannot change the answer.
	return bounds, nil
}

// checkLastSeq checks that the last sequence entry is the last number
// issued: a lost one would hide the documents after it.
func checkLastSeq(tx *bolt.Tx) error {
	last := maxSeq(tx)
	if k, _ := tx.Bucket(bucketSeqs).Cursor().Last(); last > 0 && !bytes.Equal(k, seqKey(last)) {
		return fmt.Errorf("archive %s: %w: the archive numbers %d documents but its last sequence entry is %x (run `chronicle check`; restore from a copy)", tx.DB().Path(), ErrCorrupt, last, k)
	}
	return nil
}

// indexDamage names the archive in an error of the index package that
// reports damage (index.ErrDamaged), as ErrCorrupt; other errors pass.
func indexDamage(tx *bolt.Tx, err error) error {
	if errors.Is(err, index.ErrDamaged) {
		return fmt.Errorf("archive %s: %w: %v", tx.DB().Path(), ErrCorrupt, err)
	}
	return err
}

// bestFirst hands out bounds best first (by boundKey), ordering them as
// they are taken: out is the sorted prefix, heap the rest.
type bestFirst struct {
	heap []index.Bound
	out  []index.Bound
}

// has reports whether a bound at index i of the order exists, moving it
// into out.
func (b *bestFirst) has(i int) bool {
	for len(b.out) <= i && len(b.heap) > 0 {
		b.out = append(b.out, heap.Pop(b).(index.Bound))
	}
	return i < len(b.out)
}

func (b *bestFirst) Len() int { return len(b.heap) }
func (b *bestFirst) Less(i, j int) bool {
	return boundKey(b.heap[i]).before(boundKey(b.heap[j])) // keys are distinct: sequence numbers are
}
func (b *bestFirst) Swap(i, j int) { b.heap[i], b.heap[j] = b.heap[j], b.heap[i] }
func (b *bestFirst) Push(x any)    { b.heap = append(b.heap, x.(index.Bound)) }
func (b *bestFirst) Pop() any {
	x := b.heap[len(b.heap)-1]
	b.heap = b.heap[:len(b.heap)-1]
	return x
}
