package db

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/index"

	bolt "go.etcd.io/bbolt"
)

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// indexPrep is a document's term and line index entries, computed before
// the transaction that stores them.
type indexPrep struct {
	grams *index.DocGrams // its Seq is set when the document gets one
	lines []byte
}

// prepareIndex computes a document's index entries, the two halves in
// parallel.
func prepareIndex(src []byte, chunkSize int) *indexPrep {
	p := &indexPrep{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.lines = index.BuildLines(src, chunkSize)
	}()
	// Compacted here, off the committing goroutine: only the sequence
	// number waits for the commit.
	p.grams = index.CountGrams(src).Compact(0)
	<-done
	return p
}

// indexDocument adds a document to the line and entity indexes, inside the
// transaction that stores it (its grams go to the term index through
// addGrams or a reindex batch).
func indexDocument(tx *bolt.Tx, d *Document, p *indexPrep, src []byte, events []engine.Event) error {
	if err := index.PutLines(tx, d.Seq, p.lines); err != nil {
		return err
	}
	return index.AddEntities(tx, d.Seq, spanDoc(d), events, src)
}

// spanDoc is what the entity index keeps of d beside each of its events.
func spanDoc(d *Document) index.SpanDoc {
	return index.SpanDoc{SHA256: d.SHA256, Version: byte(d.Version)}
}

// maxSeq is the highest document sequence number issued.
func maxSeq(tx *bolt.Tx) uint64 { return tx.Bucket(bucketDocs).Sequence() }

// docBySeq returns the document with sequence number seq.
func docBySeq(tx *bolt.Tx, seq uint64) (*Document, error) {
	key, raw, err := docRecordBySeq(tx, seq)
	if err != nil {
		return nil, err
	}
	d, err := decodeDocument(key, raw)
	if err == nil && d.Seq != seq {
		err = fmt.Errorf("document %s (%s): %w: sequence entry #%d points at it but its record has #%d (run `chronicle check`)", d.Label(), d.SHA256, ErrCorrupt, seq, d.Seq)
	}
	return d, err
}

// docRecordBySeq returns the key and the undecoded record of the document
// with sequence number seq (decodeDocument decodes them). Both belong to tx.
func docRecordBySeq(tx *bolt.Tx, seq uint64) (key, raw []byte, err error) {
	key = tx.Bucket(bucketSeqs).Get(seqKey(seq))
	if key == nil {
		return nil, nil, fmt.Errorf("document #%d: %w: no sequence entry", seq, ErrCorrupt)
	}
	raw = tx.Bucket(bucketDocs).Get(key)
	if raw == nil {
		return nil, nil, fmt.Errorf("document #%d: %w: sequence entry points at missing document %x", seq, ErrCorrupt, key)
	}
	return key, raw, nil
}

// keyReindexNext (meta) marks a rebuild of the indexes in progress: the
// documents with a lower sequence number are indexed, the others not yet.
// While it is present the indexes are incomplete, so every open finishes
// the rebuild first (finishReindex) and no reader ever sees them partial.
var keyReindexNext = []byte("reindex_next")

// Reindex batches: a rebuild commits after this many documents or source
// bytes. One transaction for a whole large archive would keep every new
// page in memory until its commit, and bbolt only splits nodes at commit,
// so its inserts slow down as the transaction grows; batches keep both
// bounded.
const (
	reindexBatchDocs  = 32
	reindexBatchBytes = 64 << 20
)

// startReindex empties the indexes and marks the rebuild in progress (from
// document #1). It also rebuilds the sequence bucket from the document
// records, which the rebuild walks.
func (a *Archive) startReindex(tx *bolt.Tx) error {
	if err := index.DropBuckets(tx); err != nil {
		return err
	}
	seqs := tx.Bucket(bucketSeqs)
	if err := tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		// An upgrade rebuilds the indexes before its later steps rewrite
		// the records (rewriteRecords): only the sequence number is used.
		d, err := decodeLegacyDocument(k, v)
		if err != nil {
			return err
		}
		return seqs.Put(seqKey(d.Seq), d.SHA256[:])
	}); err != nil {
		return err
	}
	return tx.Bucket(bucketMeta).Put(keyReindexNext, []byte("1"))
}

// reindexPending reports whether a rebuild is in progress.
func reindexPending(tx *bolt.Tx) bool { return tx.Bucket(bucketMeta).Get(keyReindexNext) != nil }

// finishReindex indexes the documents a rebuild in progress has not reached
// yet, in batches of write transactions, each moving the mark forward, and
// removes the mark with the last one; an interrupted rebuild resumes where
// it stopped. A document that cannot be read (corruption) is left out of
// the indexes and reported in skipped (check reports it too); any other
// error stops the rebuild, which the next open resumes.
func (a *Archive) finishReindex() (indexed int, skipped []error, err error) {
	// Inside Open (an upgrade, or a rebuild another process left): nobody
	// can cancel it, and the caller waits for the archive anyway.
	return a.rebuildIndexes(context.Background(), false, nil)
}

// rebuildIndexes is finishReindex that also ends, with ErrInterrupted,
// between two batches once ctx ends: the mark stays, and the next open of
// the archive resumes the rebuild. share releases the archive between
// batches; progress, when set, is told after each batch how far the
// rebuild is (documents by import sequence).
func (a *Archive) rebuildIndexes(ctx context.Context, share bool, progress func(done, total int)) (indexed int, skipped []error, err error) {
	for done := false; !done; {
		if err := Interrupted(ctx, "reindex interrupted after %d documents; the next open of the archive finishes the rebuild", indexed); err != nil {
			return indexed, skipped, err
		}
		err := a.update(func(tx *bolt.Tx) error {
			meta := tx.Bucket(bucketMeta)
			raw := meta.Get(keyReindexNext)
			if raw == nil {
				done = true
				return nil
			}
			next, err := strconv.ParseUint(string(raw), 10, 64)
			if err != nil || next == 0 {
				return fmt.Errorf("%w: bad %s %q", ErrCorrupt, keyReindexNext, raw)
			}
			last := maxSeq(tx)
			docs, bytes := 0, int64(0)
			var grams []*index.DocGrams
			for ; next <= last && docs < reindexBatchDocs && bytes < reindexBatchBytes; next++ {
				d, err := docBySeq(tx, next)
				if err != nil {
					skipped = append(skipped, err)
					continue
				}
				s, err := a.loadIn(tx, d)
				if err != nil {
					skipped = append(skipped, err)
					continue
				}
				ix := prepareIndex(s.Source, d.ChunkSize)
				if err := indexDocument(tx, d, ix, s.Source, s.Events); err != nil {
					return err
				}
				ix.grams.Seq = d.Seq
				grams = append(grams, ix.grams)
				docs++
				bytes += d.SourceSize
			}
			// The batch's grams go into the term postings in one pass.
			if err := index.FoldTerms(tx, grams); err != nil {
				return indexDamage(tx, err)
			}
			indexed += docs
			if progress != nil {
				progress(int(next-1), int(last))
			}
			if next > last {
				done = true
				return meta.Delete(keyReindexNext)
			}
			return meta.Put(keyReindexNext, []byte(strconv.FormatUint(next, 10)))
		})
		if err != nil {
			return indexed, skipped, fmt.Errorf("archive %s: rebuilding the indexes (it resumes on the next open): %w", a.path, err)
		}
		if share && !done {
			// `reindex` (not an upgrade inside Open) lets others in
			// between its batches: a process that opens meanwhile finds
			// the rebuild marked and finishes it itself, so nobody sees
			// half an index and nobody waits for the whole rebuild.
			a.Release()
			a.yield()
			if err := a.reacquire(false); err != nil {
				return indexed, skipped, err
			}
		}
	}
	return indexed, skipped, nil
}

// ErrReindexSkipped: Reindex left documents it could not read out of the
// indexes.
var ErrReindexSkipped = errors.New("documents left out of the indexes")

// Reindex rebuilds the term, line and entity indexes from the stored
// documents and returns the number of documents indexed. It commits in
// batches (see finishReindex); until it finishes the archive is marked,
// and an interrupted rebuild is completed by the next open. Documents that
// cannot be read are left out and reported (errors.Is ErrReindexSkipped).
// Once ctx ends it stops between two batches (ErrInterrupted); the next
// open resumes the rebuild. Between batches it releases the archive for a
// moment (see rebuildIndexes).
func (a *Archive) Reindex(ctx context.Context) (int, error) {
	return a.ReindexWith(ctx, ReindexOptions{})
}

// ReindexOptions tune ReindexWith.
type ReindexOptions struct {
	// Progress is told after each committed batch: done of total
	// documents (by import sequence).
	Progress func(done, total int)
}

// ReindexWith is Reindex with options.
func (a *Archive) ReindexWith(ctx context.Context, opts ReindexOptions) (int, error) {
	if err := Interrupted(ctx, "reindex interrupted before it started; the indexes are as they were"); err != nil {
		return 0, err
	}
	if err := a.updateWhole(func(tx *bolt.Tx) error {
		if err := a.startReindex(tx); err != nil {
			return err
		}
		// The buckets derived from the records and receipts too (schema
		// 16), so that a reindex repairs them.
		for _, rebuild := range []func(*bolt.Tx) error{rebuildOrder, rebuildReceiptIndexes} {
			if err := rebuild(tx); err != nil {
				return err
			}
		}
		return resetTotals(tx)
	}); err != nil {
		return 0, err
	}
	n, skipped, err := a.rebuildIndexes(ctx, true, opts.Progress)
	if err != nil {
		return n, err
	}
	if len(skipped) > 0 {
		return n, fmt.Errorf("%w: %d (first: %v); run `chronicle check`", ErrReindexSkipped, len(skipped), skipped[0])
	}
	return n, nil
}

// Candidates returns the documents, in import order, that may contain at
// least one of the terms (a superset of the documents that do).
func (a *Archive) Candidates(terms [][]byte) ([]*Document, error) {
	var out []*Document
	err := a.bolt.View(func(tx *bolt.Tx) error {
		bounds, err := liveBounds(tx, terms, math.MaxUint64)
		if err != nil {
			return err
		}
		for _, b := range bounds {
			d, err := docBySeq(tx, b.Seq)
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return nil
	})
	return out, err
}

// EntityHit is one event naming an entity, with its checked evidence span.
type EntityHit struct {
	// Doc is the document's record. EntityEvents leaves it nil: its
	// answer comes from the entity index alone (AttachDocs reads them).
	Doc      *Document
	Document Digest // the document's SHA-256, kept with the event's span
	Seq      uint64 // the document's sequence number
	Event    engine.Event
	Index    int // position of the event in the document's store
	Role     index.Role
	Text     []byte // the span bytes, re-read and re-hashed
	// From: the derivation of the document when it was derived from an
	// original file; read with Doc (AttachDocs), nil otherwise.
	From *Derivation
}

// Entity returns every event whose subject or object is exactly name, in
// import then source order, each with its document's record (EntityEvents
// is the same answer without them).
func (a *Archive) Entity(name string) ([]EntityHit, error) {
	return a.entity(entityQuery{name: name, docs: true})
}

// EntityEvents is Entity without the documents' records (each hit's Doc is
// nil): it reads the entity index alone. Each entry keeps its evidence
// span and its document's digest and store version, all bound by a digest
// checked on the read; the span is re-hashed against the span digest kept
// with it and the event re-derived from the span with the document's
// grammar (engine.ExtractLine), so the answer is the stored event without
// reading any document. An entry that does not re-derive to an event
// naming name in that role is corruption.
func (a *Archive) EntityEvents(name string) ([]EntityHit, error) {
	return a.entity(entityQuery{name: name})
}

// entityQuery is what an entity lookup reads: the events naming name (in
// role only, unless role is 0) in documents #1..#upTo (every document
// when upTo is 0), with their documents' records when docs is set.
type entityQuery struct {
	name string
	role index.Role
	upTo uint64
	docs bool
}

// admits reports whether the lookup answers with entry r.
func (q *entityQuery) admits(r index.EntityRef) bool {
	return (q.role == 0 || r.Role == q.role) && (q.upTo == 0 || r.Seq <= q.upTo)
}

// entity answers q. The transaction's goroutine reads the entries in
// order (cheap: a cursor step each), then one goroutine per core
// re-derives the events (and decodes the records) in batches, the costly
// part; the answer and the error are those of a lookup that checks the
// entries one by one in order and stops at the first failure. A panic of
// a worker (a damaged page faults into one) is returned as the
// DamageError of the archive.
func (a *Archive) entity(q entityQuery) ([]EntityHit, error) {
	var out []EntityHit
	err := a.bolt.View(func(tx *bolt.Tx) error {
		all, err := index.Entity(tx, q.name)
		if err != nil && !errors.Is(err, index.ErrDamaged) {
			return err
		}
		// A name whose entries differ from its count fails after its
		// entries are checked (their errors are more precise).
		countErr := err
		if countErr != nil {
			countErr = fmt.Errorf("%w: entity %q: %v (run `chronicle check`, then `chronicle reindex`)", ErrCorrupt, q.name, err)
		}
		refs := all[:0:0]
		for _, r := range all {
			if q.admits(r) {
				refs = append(refs, r)
			}
		}
		if len(refs) == 0 {
			return countErr
		}
		spans, err := index.NewSpans(tx)
		if err != nil {
			return err
		}
		l := &entityLookup{
			name:   q.name,
			refs:   refs,
			values: make([][]byte, len(refs)),
			out:    make([]EntityHit, len(refs)),
			failAt: len(refs),
		}
		if q.docs {
			l.docs = make([]*entityDoc, len(refs))
		}
		l.read(tx, spans)
		a.parallel((l.failAt+entityBatch-1)/entityBatch, l.work)
		if l.panicked { // a worker's: the one line a guarded call gives
			return unreadable(a.path, "", l.panicVal)
		}
		if l.failAt > 0 {
			out = l.out[:l.failAt]
		}
		if l.err == nil && countErr != nil {
			out = nil
			return countErr
		}
		return nameEntry(tx, l.err)
	})
	if err == nil && q.docs {
		// With the records, as the printed answer shows them: where a
		// derived document came from.
		err = a.attachOrigins(out)
	}
	return out, err
}

// entityBatch is the number of entries re-derived as one unit of work.
const entityBatch = 64

// entityLookup is one entity lookup: entry i is refs[i], its kept span
// values[i] and, when the lookup reads records, its document docs[i]; its
// hit goes to out[i].
type entityLookup struct {
	name   string
	refs   []index.EntityRef
	values [][]byte     // kept span values, owned by the transaction
	docs   []*entityDoc // nil: the records are not read
	out    []EntityHit

	mu       sync.Mutex
	failAt   int   // the first entry known to fail, len(refs) if none
	err      error // its error, or
	panicked bool  // it panicked
	panicVal any
}

// entityDoc is a document of an Entity answer, decoded once by whichever
// goroutine needs it first and shared by its hits.
type entityDoc struct {
	seq      uint64
	key, raw []byte // the document record, owned by the transaction
	once     sync.Once
	doc      *Document
	err      error
}

func (d *entityDoc) get() (*Document, error) {
	d.once.Do(func() {
		d.doc, d.err = decodeDocument(d.key, d.raw)
		if d.err == nil && d.doc.Seq != d.seq {
			d.err = fmt.Errorf("document %s (%s): %w: sequence entry #%d points at it but its record has #%d (run `chronicle check`)", d.doc.Label(), d.doc.SHA256, ErrCorrupt, d.seq, d.doc.Seq)
		}
	})
	return d.doc, d.err
}

// read reads the entries' span values (and document records, when the
// lookup reads them) in order. It stops at an entry whose document record
// cannot be read: entries after a failure do not matter. It runs on the
// transaction's goroutine, so a damaged page faults into the caller's
// recover.
func (l *entityLookup) read(tx *bolt.Tx, spans *index.Spans) {
	var d *entityDoc
	bySeq := map[uint64]*entityDoc{}
	for i, r := range l.refs {
		if l.docs != nil {
			if d == nil || d.seq != r.Seq {
				if d = bySeq[r.Seq]; d == nil {
					key, raw, err := docRecordBySeq(tx, r.Seq)
					if err != nil {
						l.fail(i, err)
						return
					}
					d = &entityDoc{seq: r.Seq, key: key, raw: raw}
					bySeq[r.Seq] = d
				}
			}
			l.docs[i] = d
		}
		l.values[i] = spans.Value(r.Seq, r.Event)
	}
}

func (l *entityLookup) failed() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failAt
}

// fail records that entry i fails with err; the first failing entry wins.
func (l *entityLookup) fail(i int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i < l.failAt {
		l.failAt, l.err, l.panicked, l.panicVal = i, err, false, nil
	}
}

// crash records that entry i panicked with r.
func (l *entityLookup) crash(i int, r any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i < l.failAt {
		l.failAt, l.err, l.panicked, l.panicVal = i, nil, true, r
	}
}

// work re-derives the batches next hands out (batch b is entries
// b·entityBatch on). The spans and records are memory-mapped: a damaged
// page must fault into a panic (recorded by derive and returned by the
// lookup as the archive's DamageError), not crash the process.
func (l *entityLookup) work(next func() int) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for b := next(); b >= 0; b = next() {
		if start := b * entityBatch; start <= l.failed() { // else only entries before a failure matter
			l.derive(start, min(start+entityBatch, len(l.refs)))
		}
	}
}

// derive re-derives entries lo to hi, stopping at the first that fails.
// Their span bytes are copied out of the transaction into one buffer.
func (l *entityLookup) derive(lo, hi int) {
	i := lo
	defer func() {
		if r := recover(); r != nil {
			l.crash(i, r)
		}
	}()
	size := 0
	for _, v := range l.values[lo:hi] {
		size += max(len(v)-index.SpanHeaderSize, 0)
	}
	buf := make([]byte, 0, size)
	if l.docs != nil {
		// Entries after a record that could not be read were not read.
		for hi > lo && l.docs[hi-1] == nil {
			hi--
		}
	}
	for ; i < hi; i++ {
		if err := l.hit(i, &buf); err != nil {
			l.fail(i, err)
			return
		}
	}
}

// hit checks entry i and re-derives its event into out[i], appending its
// span bytes to buf.
func (l *entityLookup) hit(i int, buf *[]byte) error {
	r := l.refs[i]
	sp, ok := index.DecodeEntitySpan(r.Seq, r.Event, l.values[i])
	corrupt := func(why string) error {
		return &entryError{seq: r.Seq, event: r.Event, line: sp.Line, why: why}
	}
	if !ok && len(l.values[i]) >= index.SpanHeaderSize {
		return corrupt("does not match its digest (run `chronicle check`, then `chronicle reindex`)")
	}
	if !ok {
		return corrupt("is malformed")
	}
	var profile engine.Profile
	switch sp.Doc.Version {
	case 1:
		profile = engine.ProfileV1
	case 2:
		profile = engine.ProfileV2
	default:
		return corrupt(fmt.Sprintf("names store version %d", sp.Doc.Version))
	}
	if sp.Line == 0 {
		return corrupt("lies outside the document")
	}
	start := len(*buf)
	*buf = append(*buf, sp.Text...)
	text := (*buf)[start:len(*buf):len(*buf)]
	// ExtractLine hashes the span for the event; comparing that with
	// the kept digest re-hashes the span without a second SHA-256.
	e, ok, err := engine.ExtractLine(sp.Doc.SHA256, int(sp.Line), int(sp.ByteStart), text, profile)
	if ok && e.SpanHash != sp.SpanHash {
		return corrupt("does not hash to its span digest")
	}
	field := e.Subject
	if r.Role == index.RoleObject {
		field = e.Object
	}
	if err != nil || !ok || field != l.name || (r.Role != index.RoleSubject && r.Role != index.RoleObject) {
		return corrupt("does not re-derive to an event naming it")
	}
	l.out[i] = EntityHit{Document: sp.Doc.SHA256, Seq: r.Seq, Event: e, Index: r.Event, Role: r.Role, Text: text}
	if l.docs == nil {
		return nil
	}
	// The record must be the document the kept span names, in the store
	// version it names.
	d, err := l.docs[i].get()
	if err != nil {
		return err
	}
	if d.SHA256 != sp.Doc.SHA256 || d.Version != int(sp.Doc.Version) {
		return corrupt(fmt.Sprintf("names document %s (store version %d) (run `chronicle check`, then `chronicle reindex`)", Digest(sp.Doc.SHA256), sp.Doc.Version))
	}
	l.out[i].Doc = d
	return nil
}

// entryError is a damaged entity index entry: the document it belongs to
// is named once the lookup is over (nameEntry), on the transaction's
// goroutine, since the lookup itself reads no record.
type entryError struct {
	seq   uint64
	event int
	line  uint64
	why   string
	doc   string // "label (sha256)", or "#seq" when its record cannot be read
}

func (e *entryError) Error() string {
	doc := e.doc
	if doc == "" {
		doc = fmt.Sprintf("#%d", e.seq)
	}
	return fmt.Sprintf("document %s: %v: entity index entry for event %d (line %d) %s", doc, ErrCorrupt, e.event+1, e.line, e.why)
}

func (e *entryError) Unwrap() error { return ErrCorrupt }

// nameEntry names the document of a damaged entry in err by its record,
// when the record can be read.
func nameEntry(tx *bolt.Tx, err error) error {
	var e *entryError
	if errors.As(err, &e) && e.doc == "" {
		if d, derr := docBySeq(tx, e.seq); derr == nil {
			e.doc = fmt.Sprintf("%s (%s)", d.Label(), d.SHA256)
		}
	}
	return err
}

// EntityNames lists known entity names starting with prefix and how many
// events name each.
func (a *Archive) EntityNames(prefix string) ([]index.NameCount, error) {
	var out []index.NameCount
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		if out, err = index.EntityNames(tx, prefix); errors.Is(err, index.ErrDamaged) {
			err = fmt.Errorf("%w: %v (run `chronicle check`, then `chronicle reindex`)", ErrCorrupt, err)
		}
		return err
	})
	return out, err
}

// indexCheck carries what the scans for stray index entries need from the
// per-document checks: every document (those whose bytes cannot be read
// too: their entries are not strays) and the events of the readable ones.
type indexCheck struct {
	bySeq map[uint64][]engine.Event
	known map[uint64]bool
}

func newIndexCheck() *indexCheck {
	return &indexCheck{bySeq: map[uint64][]engine.Event{}, known: map[uint64]bool{}}
}

// checkDocIndex checks one document's sequence entry and its term, line
// and entity index entries against its stored source and events.
func (a *Archive) checkDocIndex(tx *bolt.Tx, d *Document, ic *indexCheck) []Problem {
	var problems []Problem
	ic.known[d.Seq] = true
	if got := tx.Bucket(bucketSeqs).Get(seqKey(d.Seq)); string(got) != string(d.SHA256[:]) {
		problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("sequence entry #%d does not point at the document", d.Seq)})
	}
	_, events, err := a.readEvents(tx, d)
	if err != nil {
		return problems // reported by the store check
	}
	src, err := a.readSource(tx, d)
	if err != nil {
		return problems
	}
	ic.bySeq[d.Seq] = events
	n, wrong, _, err := index.CheckTerms(tx, d.Seq, src)
	switch {
	case err != nil:
		problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("term index cannot be read: %v", err)})
	case n > 0:
		problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("term index misses %d grams of the document (run `chronicle reindex`)", n)})
	}
	if wrong > 0 {
		problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("term index holds wrong line counts for %d grams of the document (run `chronicle reindex`)", wrong)})
	}
	if !index.CheckLines(tx, d.Seq, src, d.ChunkSize) {
		problems = append(problems, Problem{Doc: d.Label(), Detail: "line index does not match the document (run `chronicle reindex`)"})
	}
	if n, err := index.CheckEntities(tx, d.Seq, spanDoc(d), events, src); err != nil || n > 0 {
		problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("entity index misses %d entries of the document (run `chronicle reindex`)%s", n, errSuffix(err))})
	}
	return problems
}

// rest checks what belongs to no one document: the entity counts, and
// index entries of unknown documents or naming no event.
func (ic *indexCheck) rest(tx *bolt.Tx) []Problem {
	var problems []Problem
	known, bySeq := ic.known, ic.bySeq
	if bad, err := index.CheckEntityCounts(tx); err != nil || bad > 0 {
		problems = append(problems, Problem{Detail: fmt.Sprintf("entity index: %d names do not match their counts (run `chronicle reindex`)%s", bad, errSuffix(err))})
	}
	stray, err := index.StrayTermBits(tx, func(seq uint64) bool { return known[seq] })
	if err != nil || stray > 0 {
		problems = append(problems, Problem{Detail: fmt.Sprintf("term index holds %d entries for unknown documents%s", stray, errSuffix(err))})
	}
	if missing, err := index.CheckSummaries(tx, maxSeq(tx)); err != nil || missing > 0 {
		problems = append(problems, Problem{Detail: fmt.Sprintf("term index summary misses or damages %d entries of the postings (run `chronicle reindex`)%s", missing, errSuffix(err))})
	}
	stray, err = index.StrayLines(tx, func(seq uint64) bool { return known[seq] })
	if err != nil || stray > 0 {
		problems = append(problems, Problem{Detail: fmt.Sprintf("line index holds %d records for unknown documents%s", stray, errSuffix(err))})
	}
	stray, err = index.StrayEntities(tx, func(seq uint64, event int, role index.Role, name string) bool {
		evs, ok := bySeq[seq]
		if !ok {
			return known[seq]
		}
		if event >= len(evs) {
			return false
		}
		if role == index.RoleObject {
			return evs[event].Object == name
		}
		return role == index.RoleSubject && evs[event].Subject == name
	})
	if err != nil || stray > 0 {
		problems = append(problems, Problem{Detail: fmt.Sprintf("entity index holds %d entries that name no event%s", stray, errSuffix(err))})
	}
	return problems
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}
