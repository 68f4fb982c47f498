package db

import (
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/casper-chronicle/chronicle/engine"

	bolt "go.etcd.io/bbolt"
)

// IngestResult says what one ingest did.
type IngestResult struct {
	Doc     *Document
	Reused  bool     // the bytes were already in the archive
	Added   []string // names newly attached to the document
	Moved   map[string]Digest
	Receipt *Receipt // the INGEST receipt (kept in the archive)
	// Derived: for the first text derived from an original file, what
	// was kept and ingested from that file (IngestDerived).
	Derived *DerivedResult
}

// Ingest adds src under the given names in one write transaction. Bytes
// already present reuse their document (and its first import time); new
// bytes are extracted with the V2 grammars. A rejected source returns the
// *engine.ExtractError (wrapped) and leaves the archive unchanged. A name that
// pointed at another document moves to this one (reported in Moved); the
// other document stays, reachable by hash and its other names.
func (a *Archive) Ingest(src []byte, importedAt uint64, names ...string) (*IngestResult, error) {
	return a.ingest(src, importedAt, nil, names, nil)
}

// Prepared is a document's extraction, compression and index entries,
// computed by Prepare without the archive, for IngestPrepared.
type Prepared struct {
	src        []byte
	importedAt uint64
	p          *prepared
	err        error
	known      bool   // PrepareUnlessKnown found doc known: nothing was prepared
	doc        Digest // the source's digest, when known
}

// Prepare computes everything Ingest of src would store. It touches no
// file and may run on another goroutine while the archive commits an
// earlier document (IngestPrepared), so a batch prepares document n+1 while
// document n commits. A rejected source is reported by IngestPrepared.
func (a *Archive) Prepare(src []byte, importedAt uint64) *Prepared {
	pp := &Prepared{src: src, importedAt: importedAt}
	pp.p, pp.err = a.prepareDocument(src, importedAt)
	return pp
}

// PrepareUnlessKnown is Prepare, except for a source whose document is in
// known (KnownDocuments): IngestPrepared will only add its names and
// receipt, so nothing is extracted, compressed or indexed. Should the
// document be missing after all, IngestPrepared prepares it then. With
// known empty (a new archive) no digest is computed ahead: the extraction
// hashes the source anyway.
func (a *Archive) PrepareUnlessKnown(src []byte, importedAt uint64, known map[Digest]bool) *Prepared {
	if len(known) > 0 {
		if d := Digest(sha256.Sum256(src)); known[d] {
			return &Prepared{src: src, importedAt: importedAt, known: true, doc: d}
		}
	}
	return a.Prepare(src, importedAt)
}

// KnownDocuments returns the digests of the archive's documents, for a
// batch to tell which of its files need no preparation (PrepareUnlessKnown).
func (a *Archive) KnownDocuments() (map[Digest]bool, error) {
	known := map[Digest]bool{}
	err := a.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDocs).ForEach(func(k, _ []byte) error {
			if len(k) == len(Digest{}) {
				known[Digest(k)] = true
			}
			return nil
		})
	})
	return known, err
}

// IngestPrepared is Ingest of the source pp was prepared from (an existing
// document is reused as Ingest reuses it; a rejected source returns
// Prepare's error and leaves the archive unchanged).
func (a *Archive) IngestPrepared(pp *Prepared, names ...string) (*IngestResult, error) {
	return a.ingest(pp.src, pp.importedAt, pp, names, nil)
}

// IngestFile is IngestPrepared of the file at path: path is the
// document's name as typed, and its cleaned absolute path is kept so that
// other spellings of the same file resolve to it (Resolve). chosen are
// names the user chose (--name): each must be non-empty and not a hash
// prefix of another document (ErrBadChosenName), or nothing is written.
func (a *Archive) IngestFile(pp *Prepared, path string, chosen ...string) (*IngestResult, error) {
	return a.ingest(pp.src, pp.importedAt, pp, append([]string{path}, chosen...), &fileNames{path: path, abs: AbsPath(path), chosen: chosen})
}

// fileNames says which names of an ingest are a file path and which the
// user chose.
type fileNames struct {
	path, abs string
	chosen    []string
}

func (a *Archive) ingest(src []byte, importedAt uint64, pp *Prepared, names []string, file *fileNames) (*IngestResult, error) {
	lp := a.lazy(src, importedAt, pp)
	doc := lp.digest()
	// A released archive (Release) is looked at under a shared lock and
	// written under the exclusive one, taken only for the commit.
	released := a.bolt == nil
	if released {
		a.yield()
		if err := a.reacquire(true); err != nil {
			return nil, err
		}
	}
	// Extraction is the expensive part and may fail: do it outside the write
	// transaction unless the document is already present.
	exists := false
	if err := a.bolt.View(func(tx *bolt.Tx) error {
		exists = tx.Bucket(bucketDocs).Get(doc[:]) != nil
		return nil
	}); err != nil {
		return nil, err
	}
	if released {
		a.Release()
	}
	if !exists {
		if _, err := lp.get(); err != nil {
			return nil, err
		}
	}
	if released {
		if err := a.reacquire(false); err != nil {
			return nil, err
		}
		defer a.Release()
	}
	var res *IngestResult
	committed := func() {}
	err := a.update(func(tx *bolt.Tx) error {
		var err error
		res, committed, err = a.ingestIn(tx, lp, names, file)
		return err
	})
	if err != nil {
		return nil, err
	}
	committed()
	return res, nil
}

// ingestIn is the part of an ingest that runs in the write transaction:
// the document (reused, or stored from what prepare returns), its names
// and its INGEST receipt. committed must be called once tx has committed
// (see addGrams).
func (a *Archive) ingestIn(tx *bolt.Tx, lp *lazyPrepared, names []string, file *fileNames) (res *IngestResult, committed func(), err error) {
	res, committed = &IngestResult{}, func() {}
	doc := lp.digest()
	docs := tx.Bucket(bucketDocs)
	var d *Document
	if raw := docs.Get(doc[:]); raw != nil {
		if d, err = decodeDocument(doc[:], raw); err != nil {
			return nil, nil, err
		}
		res.Reused = true
	} else {
		p, err := lp.get()
		if err != nil {
			return nil, nil, err
		}
		if d, committed, err = a.putDocument(tx, p); err != nil {
			return nil, nil, err
		}
	}
	if file != nil {
		for _, n := range file.chosen {
			if err := checkChosenName(tx, &d.SHA256, n); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := a.attachNames(tx, d, names, res); err != nil {
		return nil, nil, err
	}
	if err := logDocument(tx, d, !res.Reused, res.Added); err != nil {
		return nil, nil, err
	}
	if file != nil && file.path != "" { // chosen names only: no file behind them
		if err := attachSource(tx, d, file.path, file.abs); err != nil {
			return nil, nil, err
		}
	}
	rec := &Receipt{Kind: KindIngest, Document: d.SHA256, Store: d.StoreSHA256, Result: d.StoreSHA256}
	if err := putReceipt(tx, rec); err != nil {
		return nil, nil, err
	}
	res.Doc, res.Receipt = d, rec
	return res, committed, nil
}

// lazyPrepared is the document of one ingest, prepared at most once and
// only when the archive does not hold it already.
type lazyPrepared struct {
	a          *Archive
	src        []byte
	importedAt uint64
	pp         *Prepared // what Prepare computed ahead, or nil
	p          *prepared
	err        error
	done       bool
	doc        *Digest // the source's digest once hashed here
}

func (a *Archive) lazy(src []byte, importedAt uint64, pp *Prepared) *lazyPrepared {
	return &lazyPrepared{a: a, src: src, importedAt: importedAt, pp: pp}
}

// digest is the SHA-256 of the source: the extraction's, the known one,
// or hashed here once.
func (l *lazyPrepared) digest() Digest {
	switch {
	case l.pp != nil && l.pp.p != nil:
		return l.pp.p.store.Document // hashed by the extraction
	case l.pp != nil && l.pp.known:
		return l.pp.doc
	case l.doc == nil:
		d := Digest(sha256.Sum256(l.src))
		l.doc = &d
	}
	return *l.doc
}

// get returns the prepared document: Prepare's, or prepared now (a source
// PrepareUnlessKnown skipped as known whose document is gone).
func (l *lazyPrepared) get() (*prepared, error) {
	if !l.done {
		l.done = true
		if l.pp != nil && !l.pp.known {
			l.p, l.err = l.pp.p, l.pp.err
		} else {
			l.p, l.err = l.a.prepareDocument(l.src, l.importedAt)
		}
	}
	return l.p, l.err
}

// prepared is everything a new document's write transaction stores,
// computed before it: outside the archive's write lock, and in parallel
// (the extraction, the compression of the chunks and the two term indexes
// are independent).
type prepared struct {
	store        *engine.Store
	storeSHA256  Digest
	eventsSHA256 Digest
	eventsFrame  []byte
	frameSHA256  Digest
	frames       [][]byte
	chunkSize    int
	ix           *indexPrep
}

// prepareDocument extracts src's store and computes what putDocument
// stores. A rejected source returns the extraction error.
func (a *Archive) prepareDocument(src []byte, importedAt uint64) (*prepared, error) {
	p := &prepared{}
	defer p.startSource(src, a.newChunkSize())()
	store, err := engine.NewStore(src, importedAt)
	if err != nil {
		return nil, err
	}
	// The store's digest is hashed as it streams and its event table
	// encoded alone: no second copy of the source.
	p.setStoreDigest(a, store, store.SHA256(), store.EncodeEventTable())
	return p, nil
}

// prepareStore is prepareDocument for a store already loaded and checked
// (an import keeps its exact bytes).
func (a *Archive) prepareStore(store *engine.Store, storeBytes []byte) *prepared {
	p := &prepared{}
	defer p.startSource(store.Source, a.newChunkSize())()
	p.setStore(a, store, storeBytes)
	return p
}

// startSource compresses the source and computes its index entries on
// other goroutines; the returned function waits for them.
func (p *prepared) startSource(src []byte, chunkSize int) (wait func()) {
	p.chunkSize = chunkSize
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		p.ix = prepareIndex(src, chunkSize)
	}()
	go func() {
		defer wg.Done()
		p.frames = compressSource(src, chunkSize)
	}()
	return wg.Wait
}

func (p *prepared) setStore(a *Archive, store *engine.Store, storeBytes []byte) {
	p.setStoreDigest(a, store, sha256.Sum256(storeBytes), storeBytes[engine.HeaderSize+len(store.Source):])
}

// setStoreDigest is setStore given the store's digest and its event table.
func (p *prepared) setStoreDigest(a *Archive, store *engine.Store, storeSHA256 Digest, table []byte) {
	p.store = store
	p.storeSHA256 = storeSHA256
	p.eventsSHA256 = sha256.Sum256(table)
	p.eventsFrame = a.enc.EncodeAll(table, nil)
	p.frameSHA256 = sha256.Sum256(p.eventsFrame)
}

// putDocument writes a new document: chunks, event table, record and index
// entries. committed must be called once tx has committed (see addGrams).
func (a *Archive) putDocument(tx *bolt.Tx, p *prepared) (d *Document, committed func(), err error) {
	docs := tx.Bucket(bucketDocs)
	seq, err := docs.NextSequence()
	if err != nil {
		return nil, nil, err
	}
	store := p.store
	d = &Document{
		SHA256:       store.Document,
		Seq:          seq,
		Version:      store.Version,
		ImportedAt:   store.ImportedAt,
		SourceSize:   int64(len(store.Source)),
		EventCount:   len(store.Events),
		StoreSHA256:  p.storeSHA256,
		EventsSHA256: p.eventsSHA256,
		FrameSHA256:  &p.frameSHA256,
		ChunkSize:    p.chunkSize,
		Codec:        CodecS2,
		Names:        []string{},
	}
	stored, err := a.putSource(tx, d.SHA256, p.frames)
	if err != nil {
		return nil, nil, err
	}
	d.StoredBytes = stored + int64(len(p.eventsFrame))
	if err := tx.Bucket(bucketEvents).Put(d.SHA256[:], p.eventsFrame); err != nil {
		return nil, nil, err
	}
	if err := tx.Bucket(bucketSeqs).Put(seqKey(seq), d.SHA256[:]); err != nil {
		return nil, nil, err
	}
	if err := putOrder(tx, d); err != nil {
		return nil, nil, err
	}
	if err := indexDocument(tx, d, p.ix, store.Source, store.Events); err != nil {
		return nil, nil, err
	}
	if committed, err = a.addGrams(tx, seq, p.ix.grams); err != nil {
		return nil, nil, err
	}
	if err := countDocument(tx, d); err != nil {
		return nil, nil, err
	}
	return d, committed, docs.Put(d.SHA256[:], d.encode())
}

// attachNames points each name at d, moving names that pointed elsewhere.
func (a *Archive) attachNames(tx *bolt.Tx, d *Document, names []string, res *IngestResult) error {
	nb, docs := tx.Bucket(bucketNames), tx.Bucket(bucketDocs)
	for _, name := range names {
		if len(name) > maxNameLen || !engine.ValidTextString(name) {
			return fmt.Errorf("name %.60q: %w", name, errBadName)
		}
		if name == "" || d.hasName(name) {
			continue
		}
		if prev := nb.Get([]byte(name)); prev != nil && string(prev) != string(d.SHA256[:]) {
			raw := docs.Get(prev)
			if raw != nil {
				other, err := decodeDocument(prev, raw)
				if err != nil {
					return err
				}
				other.Names = removeName(other.Names, name)
				if err := dropSource(nb, other, name); err != nil {
					return err
				}
				if err := docs.Put(prev, other.encode()); err != nil {
					return err
				}
				// Only a name taken from a present document moved; a
				// damaged entry (any length) is simply overwritten.
				if res.Moved == nil {
					res.Moved = map[string]Digest{}
				}
				res.Moved[name] = other.SHA256
			}
		}
		if err := nb.Put([]byte(name), d.SHA256[:]); err != nil {
			return err
		}
		d.Names = append(d.Names, name)
		res.Added = append(res.Added, name)
	}
	if len(res.Added) == 0 {
		return nil
	}
	return docs.Put(d.SHA256[:], d.encode())
}

func removeName(names []string, name string) []string {
	out := names[:0]
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

// errBadName guards the bbolt key limit and keeps names printable text.
var errBadName = fmt.Errorf("a name must be UTF-8 text of at most %d bytes", maxNameLen)

const maxNameLen = 4096
