package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/casper-chronicle/chronicle/engine"

	bolt "go.etcd.io/bbolt"
)

// Errors of Resolve.
var (
	// ErrUnknownDoc: no name or hash prefix matches.
	ErrUnknownDoc = errors.New("no such document")
	// ErrAmbiguousDoc: a hash prefix matches several documents.
	ErrAmbiguousDoc = errors.New("ambiguous document")
)

// MinPrefix is the shortest hash prefix accepted as a DOC argument.
const MinPrefix = 8

// Resolve turns a DOC argument into a document: an exact name first, then
// a path to the file a document was ingested from (its cleaned absolute
// path, resolvePath), else a unique prefix of at least MinPrefix hex digits
// of the document SHA-256. An unknown argument's error suggests the nearest
// names.
func (a *Archive) Resolve(arg string) (*Document, error) {
	var d *Document
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		d, err = resolve(tx, arg)
		return err
	})
	if err != nil {
		err = &DocumentError{Arg: arg, Err: err}
	}
	return d, err
}

func resolve(tx *bolt.Tx, arg string) (*Document, error) {
	if d, ok, err := resolveName(tx, arg); ok {
		return d, err
	}
	if d, ok, err := resolvePath(tx, arg); ok {
		return d, err
	}
	prefix := strings.ToLower(arg)
	if len(prefix) < MinPrefix || len(prefix) > 64 || !isHex(prefix) {
		return nil, fmt.Errorf("%q: %w%s (give a document name or at least %d hex digits of its SHA-256; `docs` lists them)",
			arg, ErrUnknownDoc, suggestNames(tx, arg), MinPrefix)
	}
	var found []*Document
	for _, k := range hashPrefixMatches(tx, prefix) {
		d, err := decodeDocument(k[:], tx.Bucket(bucketDocs).Get(k[:]))
		if err != nil {
			return nil, err
		}
		if err := checkLinks(tx, d); err != nil {
			return nil, err
		}
		found = append(found, d)
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%q: %w (no name or hash prefix matches; `docs` lists them)", arg, ErrUnknownDoc)
	case 1:
		return found[0], nil
	}
	var labels []string
	for _, d := range found {
		labels = append(labels, d.SHA256.Short()+" "+d.Label())
	}
	return nil, fmt.Errorf("%q: %w: it matches %s; give more digits", arg, ErrAmbiguousDoc, strings.Join(labels, ", "))
}

// resolveName finds the document of an exact name; ok is false when no
// name entry matches (a source path entry never does: names hold no NUL).
func resolveName(tx *bolt.Tx, name string) (*Document, bool, error) {
	if isPathKey([]byte(name)) {
		return nil, false, nil
	}
	key := tx.Bucket(bucketNames).Get([]byte(name))
	if key == nil {
		return nil, false, nil
	}
	d, err := linkedDocument(tx, key, fmt.Sprintf("name %q", name))
	if err != nil {
		return nil, true, err
	}
	// Both ways: the record must list the name that led to it.
	if !d.hasName(name) {
		return nil, true, fmt.Errorf("name %q: %w: its entry points at document %s, whose record does not list it (run `chronicle check`)", name, ErrCorrupt, d.SHA256)
	}
	return d, true, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// Docs lists every document in import order. Every record is checked
// against its digest and against the name and sequence entries pointing at
// it, both ways, and the records must be exactly the documents #1 to the
// last sequence number issued: a document missing from the listing is
// corruption, not a shorter answer.
func (a *Archive) Docs() ([]*Document, error) {
	var out []*Document
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		if out, err = docRecords(tx); err != nil {
			return err
		}
		for _, d := range out {
			if err := checkLinks(tx, d); err != nil {
				return err
			}
		}
		return checkSeqRange(tx, out)
	})
	return out, err
}

// docRecords decodes every document record, in import order.
func docRecords(tx *bolt.Tx) ([]*Document, error) {
	var out []*Document
	err := tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		d, err := decodeDocument(k, v)
		if err != nil {
			return err
		}
		out = append(out, d)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, err
}

// checkSeqRange checks that docs (in import order) are the documents #1 to
// the last sequence number issued, once each.
func checkSeqRange(tx *bolt.Tx, docs []*Document) error {
	last := maxSeq(tx)
	for i, d := range docs {
		if d.Seq != uint64(i+1) {
			return fmt.Errorf("document %s (%s): %w: its record has sequence number #%d where #%d was expected (run `chronicle check`; restore the archive from a copy)",
				d.Label(), d.SHA256, ErrCorrupt, d.Seq, i+1)
		}
	}
	if uint64(len(docs)) != last {
		return fmt.Errorf("%w: the archive issued %d documents but holds %d records (run `chronicle check`; restore the archive from a copy)",
			ErrCorrupt, last, len(docs))
	}
	return nil
}

// checkLinks checks that every name and source path of d's record and its
// sequence number point back at d.
func checkLinks(tx *bolt.Tx, d *Document) error {
	nb := tx.Bucket(bucketNames)
	for _, n := range d.Names {
		if !bytes.Equal(nb.Get([]byte(n)), d.SHA256[:]) {
			return fmt.Errorf("document %s (%s): %w: the name entry %q does not point back at it (run `chronicle check`)", d.Label(), d.SHA256, ErrCorrupt, n)
		}
	}
	if err := checkSources(nb, d); err != nil {
		return fmt.Errorf("document %s (%s): %w: %v (run `chronicle check`)", d.Label(), d.SHA256, ErrCorrupt, err)
	}
	return checkSeqOf(tx, d)
}

// checkSources checks that every source of d's record belongs to one of
// its names and that its path entry points back at d.
func checkSources(nb *bolt.Bucket, d *Document) error {
	for n, p := range d.Sources {
		if !d.hasName(n) {
			return fmt.Errorf("the source path of %q is kept for a name it does not have", n)
		}
		if !bytes.Equal(nb.Get(pathKey(p)), d.SHA256[:]) {
			return fmt.Errorf("the path entry %q does not point back at it", p)
		}
	}
	return nil
}

// checkSeqOf checks that d's sequence entry points at d.
func checkSeqOf(tx *bolt.Tx, d *Document) error {
	if !bytes.Equal(tx.Bucket(bucketSeqs).Get(seqKey(d.Seq)), d.SHA256[:]) {
		return fmt.Errorf("document %s (%s): %w: sequence entry #%d does not point back at it (run `chronicle check`)", d.Label(), d.SHA256, ErrCorrupt, d.Seq)
	}
	return nil
}

// Document returns the record of a document by digest.
func (a *Archive) Document(doc Digest) (*Document, error) {
	var d *Document
	err := a.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketDocs).Get(doc[:])
		if raw == nil {
			return fmt.Errorf("document %s: %w", doc, ErrUnknownDoc)
		}
		var err error
		if d, err = decodeDocument(doc[:], raw); err != nil {
			return err
		}
		return checkSeqOf(tx, d)
	})
	return d, err
}

// readEventTable decompresses a document's event table and checks its
// digest, and first its stored frame's when the record keeps one: some
// changed frames decode to the same table (a flag of the frame header,
// padding bits of a block), and every command, verify's rebuild included,
// must call the archive damaged where check and find do.
func (a *Archive) readEventTable(tx *bolt.Tx, d *Document) ([]byte, error) {
	frame, err := a.eventFrame(tx, d)
	if err != nil {
		return nil, err
	}
	table, err := a.dec.DecodeAll(frame, nil)
	if err != nil {
		return nil, fmt.Errorf("document %s (%s): %w: event table: %v", d.Label(), d.SHA256, ErrCorrupt, err)
	}
	if Digest(sha256.Sum256(table)) != d.EventsSHA256 {
		return nil, fmt.Errorf("document %s (%s): %w: event table does not hash to its digest", d.Label(), d.SHA256, ErrCorrupt)
	}
	return table, nil
}

// checkEventTable checks that a document's event table is intact: by the
// digest of its stored frame when the record keeps one (no decompression),
// else by decompressing it (readEventTable).
func (a *Archive) checkEventTable(tx *bolt.Tx, d *Document) error {
	if d.FrameSHA256 == nil {
		_, err := a.readEventTable(tx, d)
		return err
	}
	_, err := a.eventFrame(tx, d)
	return err
}

// eventFrame returns a document's stored event table frame, checked by its
// digest when the record keeps one (schema 7 on).
func (a *Archive) eventFrame(tx *bolt.Tx, d *Document) ([]byte, error) {
	frame := tx.Bucket(bucketEvents).Get(d.SHA256[:])
	if frame == nil {
		return nil, fmt.Errorf("document %s (%s): %w: event table is missing", d.Label(), d.SHA256, ErrCorrupt)
	}
	if d.FrameSHA256 != nil && Digest(sha256.Sum256(frame)) != *d.FrameSHA256 {
		return nil, fmt.Errorf("document %s (%s): %w: event table frame does not hash to its digest", d.Label(), d.SHA256, ErrCorrupt)
	}
	return frame, nil
}

// readEvents decompresses, checks and decodes a document's event table.
func (a *Archive) readEvents(tx *bolt.Tx, d *Document) ([]byte, []engine.Event, error) {
	table, err := a.readEventTable(tx, d)
	if err != nil {
		return nil, nil, err
	}
	events, err := engine.DecodeEventTable(table, d.EventCount, uint64(d.SourceSize))
	if err != nil {
		return nil, nil, fmt.Errorf("document %s (%s): %w: event table: %v", d.Label(), d.SHA256, ErrCorrupt, err)
	}
	return table, events, nil
}

// Load returns a document's store for answering questions: its events and
// its source, every byte checked against the digests of its record. It
// skips the canonical replay, which Rebuild performs.
func (a *Archive) Load(d *Document) (*engine.Store, error) {
	var s *engine.Store
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		s, err = a.loadIn(tx, d)
		return err
	})
	return s, err
}

// loadIn is Load inside an open transaction.
func (a *Archive) loadIn(tx *bolt.Tx, d *Document) (*engine.Store, error) {
	_, events, err := a.readEvents(tx, d)
	if err != nil {
		return nil, err
	}
	src, err := a.readSource(tx, d)
	if err != nil {
		return nil, err
	}
	return &engine.Store{Version: d.Version, Document: d.SHA256, ImportedAt: d.ImportedAt, Source: src, Events: events}, nil
}

// LoadEvidence returns a document's store for settlement and claim
// questions without decompressing the whole source: the event table is
// checked against its digest, and only the chunks holding event spans are
// decompressed, each span re-hashed against its span digest. Source bytes
// outside event spans are zero, so the result is only fit for questions
// that read event spans (settle), not for find or show.
func (a *Archive) LoadEvidence(d *Document) (*engine.Store, error) {
	var s *engine.Store
	err := a.bolt.View(func(tx *bolt.Tx) error {
		_, events, err := a.readEvents(tx, d)
		if err != nil {
			return err
		}
		src := make([]byte, d.SourceSize)
		spans := a.newSpanReader(tx, d)
		for i := range events {
			e := &events[i]
			span, err := spans.span(e.ByteStart, e.ByteEnd, e.SpanHash)
			if err != nil {
				return fmt.Errorf("event %d (line %d): %w", i+1, e.LineStart, err)
			}
			copy(src[e.ByteStart:], span)
		}
		s = &engine.Store{Version: d.Version, Document: d.SHA256, ImportedAt: d.ImportedAt, Source: src, Events: events}
		return nil
	})
	return s, err
}

// Rebuild reproduces a document's canonical store bytes, checks them
// against the recorded store digest and loads them with every check of CONTRACT
// 3.3, including the canonical replay. The chunks are decompressed
// straight into the store bytes, which the returned store's Source
// aliases: one copy of the source in all.
func (a *Archive) Rebuild(d *Document) ([]byte, *engine.Store, error) {
	var out []byte
	reclaimBefore(d.SourceSize)
	err := a.bolt.View(func(tx *bolt.Tx) error {
		table, err := a.readEventTable(tx, d)
		if err != nil {
			return err
		}
		// The source is not hashed here: the store digest below and the
		// document digest check of engine.Load cover it.
		out = make([]byte, 0, engine.HeaderSize+d.SourceSize+int64(len(table)))
		if d.Version == 1 {
			out = append(out, engine.MagicV1...)
		} else {
			out = append(out, engine.MagicV2...)
		}
		out = append(out, d.SHA256[:]...)
		out = binary.LittleEndian.AppendUint64(out, uint64(d.SourceSize))
		out = binary.LittleEndian.AppendUint64(out, d.ImportedAt)
		out = binary.LittleEndian.AppendUint32(out, uint32(d.EventCount))
		if d.SourceSize > 0 {
			if out, err = a.appendChunks(tx, d, out, 0, d.Chunks()-1); err != nil {
				return err
			}
		}
		out = append(out, table...)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if Digest(sha256.Sum256(out)) != d.StoreSHA256 {
		return nil, nil, fmt.Errorf("document %s (%s): %w: rebuilt store does not hash to the recorded store digest", d.Label(), d.SHA256, ErrCorrupt)
	}
	s, err := engine.Load(out)
	if err != nil {
		return nil, nil, fmt.Errorf("document %s (%s): %w: rebuilt store is rejected: %v", d.Label(), d.SHA256, ErrCorrupt, err)
	}
	return out, s, nil
}

// Span re-reads one evidence span from the archive, decompressing only the
// chunks that hold it, and checks it against the span digest.
func (a *Archive) Span(d *Document, e *engine.Event) ([]byte, error) {
	var span []byte
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		span, err = a.newSpanReader(tx, d).span(e.ByteStart, e.ByteEnd, e.SpanHash)
		return err
	})
	return span, err
}

// Line is one line of a document as Lines gives it: numbered and cut as
// engine.ForEachLine cuts them (Start and End are source offsets, one CR
// before the LF excluded), its text in pieces that are never joined, since
// a line can be megabytes long.
type Line struct {
	Number, Start, End int
	Text               [][]byte // the bytes of source[Start:End], in order
}

// Lines calls fn, in order, for lines from to to (to < 0: to the end) of a
// document. The source is decompressed one chunk at a time and only the
// bytes of the lines asked for are kept, in blocks of at most lineBlock
// bytes, so the memory it takes is that of those lines; every chunk is
// hashed on the way, and fn is called only once the whole source has
// matched the document digest (and the event table its own): damage never
// prints a line.
func (a *Archive) Lines(d *Document, from, to int, fn func(Line) error) error {
	c := lineCollector{from: from, to: to}
	err := a.bolt.View(func(tx *bolt.Tx) error {
		if err := a.checkEventTable(tx, d); err != nil {
			return err
		}
		h := sha256.New()
		var chunk []byte
		for i := range d.Chunks() {
			var err error
			if chunk, err = a.appendChunks(tx, d, chunk[:0], i, i); err != nil {
				return err
			}
			h.Write(chunk)
			c.feed(chunk)
		}
		if Digest(h.Sum(nil)) != d.SHA256 {
			return fmt.Errorf("document %s (%s): %w: source bytes do not hash to the document digest", d.Label(), d.SHA256, ErrCorrupt)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.open {
		c.closeLine() // the last line has no LF
	}
	for i, l := range c.lines {
		end := len(c.pieces)
		if i+1 < len(c.lines) {
			end = c.lines[i+1].first
		}
		if err := fn(Line{Number: l.number, Start: l.start, End: l.end, Text: c.pieces[l.first:end]}); err != nil {
			return err
		}
	}
	return nil
}

// lineBlock is the size of the blocks Lines copies kept text into.
const lineBlock = 64 << 10

// lineCollector cuts a source fed piece by piece into lines and keeps the
// lines numbered from..to (to < 0: no upper bound). Their bytes are copied
// into blocks of lineBlock bytes, each kept line a run of pieces of them:
// no buffer grows by copying what it holds.
type lineCollector struct {
	from, to int
	number   int  // lines started so far: the current line's number
	pos      int  // source offset of the next byte fed
	start    int  // offset where the current line starts
	open     bool // a line has started and not ended
	keep     bool // the current line is kept
	block    []byte
	pieces   [][]byte
	extend   bool // the last piece is the current line's and ends the block
	lines    []keptLine
}

// keptLine is a kept line; its pieces start at pieces[first].
type keptLine struct {
	number, start, end, first int
}

func (c *lineCollector) feed(p []byte) {
	for len(p) > 0 {
		if !c.open {
			c.number++
			c.open, c.start = true, c.pos
			c.keep = c.number >= c.from && (c.to < 0 || c.number <= c.to)
			if c.keep {
				c.lines = append(c.lines, keptLine{number: c.number, start: c.start, first: len(c.pieces)})
			}
		}
		text := p
		i := bytes.IndexByte(p, '\n')
		if i >= 0 {
			text = p[:i]
		}
		if c.keep {
			c.copyText(text)
		}
		c.pos += len(text)
		p = p[len(text):]
		if i >= 0 {
			c.closeLine()
			c.pos++ // the LF
			p = p[1:]
		}
	}
}

// copyText appends text to the current kept line, extending its last piece
// while the line's bytes go on in the same block.
func (c *lineCollector) copyText(text []byte) {
	for len(text) > 0 {
		if len(c.block) == cap(c.block) {
			c.block, c.extend = make([]byte, 0, lineBlock), false
		}
		n := min(len(text), cap(c.block)-len(c.block))
		at := len(c.block)
		c.block = append(c.block, text[:n]...)
		text = text[n:]
		if last := len(c.pieces) - 1; c.extend {
			c.pieces[last] = c.block[at-len(c.pieces[last]) : at+n : at+n]
		} else {
			c.pieces = append(c.pieces, c.block[at:at+n:at+n])
		}
		c.extend = true
	}
}

// closeLine ends the current line: a kept line loses one CR before its
// end, as engine.ForEachLine cuts lines.
func (c *lineCollector) closeLine() {
	if c.keep {
		l := &c.lines[len(c.lines)-1]
		l.end = c.pos
		if last := len(c.pieces) - 1; last >= l.first {
			if p := c.pieces[last]; p[len(p)-1] == '\r' {
				c.pieces[last] = p[: len(p)-1 : len(p)-1]
				l.end--
			}
		}
	}
	c.open, c.keep, c.extend = false, false, false
}
