package db

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// DocOrder is the order ListDocs walks the documents in.
type DocOrder int

const (
	// OrderImport is import order: the seqs bucket, by sequence number.
	OrderImport DocOrder = iota
	// OrderName is by each document's first name in byte order (the names
	// bucket, walked from a seek); documents left without a name (every
	// name moved to another document) come last, in import order, which
	// reads every record once the names run out.
	OrderName
	// OrderSize is by source size, largest first, then import order (the
	// docorder bucket, walked from a seek).
	OrderSize
	// OrderEvents is by event count, most first, then import order (the
	// docorder bucket).
	OrderEvents
	// OrderNewest is import order reversed, the last imported first: the
	// seqs bucket walked backwards.
	OrderNewest
)

// ListOptions select a page of ListDocs.
type ListOptions struct {
	Order DocOrder
	// After, when set, starts the listing after this document (the last
	// row of the previous page).
	After *Digest
	// Limit caps the documents listed; 0 lists them all.
	Limit int
	// Origins sets each listed document's From: the original file it
	// was derived from (a mail, a page, a PDF), nil for a text ingested
	// as it is. One lookup per document, in the listing's transaction.
	Origins bool
}

// ListDocs calls fn with the documents in opts.Order, one at a time as it
// reads them (import and name order read only the records they list), and
// reports whether documents remain after the last one listed when
// opts.Limit stopped it. Every record listed is checked as Docs checks it
// (its digest, its names and sequence entry pointing back), and import
// order checks that the sequence entries are #1 to the last issued without
// a gap, so that damage fails the listing instead of shortening it. fn runs
// inside a read transaction.
func (a *Archive) ListDocs(opts ListOptions, fn func(*Document) error) (more bool, err error) {
	err = a.bolt.View(func(tx *bolt.Tx) error {
		var after *Document
		if opts.After != nil {
			raw := tx.Bucket(bucketDocs).Get(opts.After[:])
			if raw == nil {
				return fmt.Errorf("document %s: %w", opts.After, ErrUnknownDoc)
			}
			var err error
			if after, err = decodeDocument(opts.After[:], raw); err != nil {
				return err
			}
			if err := checkLinks(tx, after); err != nil {
				return err
			}
		}
		n := 0
		emit := func(d *Document) (stop bool, err error) {
			if opts.Limit > 0 && n == opts.Limit {
				more = true
				return true, nil
			}
			n++
			if opts.Origins {
				var err error
				if d.From, err = originOf(tx, d.SHA256); err != nil {
					return true, err
				}
			}
			return false, fn(d)
		}
		switch opts.Order {
		case OrderName:
			return listByName(tx, after, emit)
		case OrderSize:
			return listByOrder(tx, orderSize, after, emit)
		case OrderEvents:
			return listByOrder(tx, orderEvents, after, emit)
		case OrderNewest:
			last := maxSeq(tx)
			if after != nil {
				last = after.Seq - 1
			}
			return listBySeqDown(tx, last, emit)
		default:
			from := uint64(1)
			if after != nil {
				from = after.Seq + 1
			}
			return listBySeq(tx, from, nil, emit)
		}
	})
	return more, err
}

// listedDoc reads and checks the record of a document reached by key.
func listedDoc(tx *bolt.Tx, key []byte, what string) (*Document, error) {
	d, err := linkedDocument(tx, key, what)
	if err != nil {
		return nil, err
	}
	return d, checkLinks(tx, d)
}

// listBySeq emits the documents from sequence number from on (those keep
// accepts, when set), walking the seqs bucket; the entries must be
// numbered without a gap up to the last sequence number issued.
func listBySeq(tx *bolt.Tx, from uint64, keep func(*Document) bool, emit func(*Document) (bool, error)) error {
	last := maxSeq(tx)
	next := from
	c := tx.Bucket(bucketSeqs).Cursor()
	for k, v := c.Seek(seqKey(from)); k != nil; k, v = c.Next() {
		d, err := seqEntry(tx, k, v, next, last)
		if err != nil {
			return err
		}
		next++
		if keep != nil && !keep(d) {
			continue
		}
		if stop, err := emit(d); stop || err != nil {
			return err
		}
	}
	if next <= last {
		return fmt.Errorf("%w: the archive issued %d documents but sequence entry #%d is missing (run `chronicle check`; restore the archive from a copy)",
			ErrCorrupt, last, next)
	}
	return nil
}

// seqEntry reads and checks the document of sequence entry k → v, which
// must be #want of the last issued.
func seqEntry(tx *bolt.Tx, k, v []byte, want, last uint64) (*Document, error) {
	if len(k) != 8 || binary.BigEndian.Uint64(k) != want || want > last {
		return nil, fmt.Errorf("%w: sequence entry %x is where #%d of the %d documents issued was expected (run `chronicle check`; restore the archive from a copy)",
			ErrCorrupt, k, want, last)
	}
	d, err := listedDoc(tx, v, fmt.Sprintf("sequence entry #%d", want))
	if err != nil {
		return nil, err
	}
	if d.Seq != want {
		return nil, fmt.Errorf("document %s (%s): %w: its record has sequence number #%d where #%d was expected (run `chronicle check`; restore the archive from a copy)",
			d.Label(), d.SHA256, ErrCorrupt, d.Seq, want)
	}
	return d, nil
}

// firstName is the smallest of a document's names, "" when it has none.
func firstName(d *Document) string {
	if len(d.Names) == 0 {
		return ""
	}
	return slices.Min(d.Names)
}

// listByName emits the documents by first name, walking the names bucket
// (each document at the entry of its first name), then the documents
// without a name in import order.
func listByName(tx *bolt.Tx, after *Document, emit func(*Document) (bool, error)) error {
	nameless := func(d *Document) bool { return len(d.Names) == 0 }
	if after != nil && nameless(after) {
		return listBySeq(tx, after.Seq+1, nameless, emit)
	}
	c := tx.Bucket(bucketNames).Cursor()
	var k, v []byte
	if after != nil {
		first := []byte(firstName(after))
		if k, v = c.Seek(first); k != nil && string(k) == string(first) {
			k, v = c.Next()
		}
	} else {
		// Source path entries (a NUL, then the path) sort first.
		k, v = c.Seek([]byte{1})
	}
	for ; k != nil; k, v = c.Next() {
		if isPathKey(k) {
			continue
		}
		d, err := listedDoc(tx, v, fmt.Sprintf("name %q", k))
		if err != nil {
			return err
		}
		if !d.hasName(string(k)) {
			return fmt.Errorf("name %q: %w: its entry points at document %s, whose record does not list it (run `chronicle check`)", k, ErrCorrupt, d.SHA256)
		}
		if firstName(d) != string(k) {
			continue // listed at its first name
		}
		if stop, err := emit(d); stop || err != nil {
			return err
		}
	}
	return listBySeq(tx, 1, nameless, emit)
}

// listBySeqDown emits the documents from sequence number from down to #1,
// walking the seqs bucket backwards; the entries must be numbered without
// a gap, as listBySeq checks them going up (from is at most the last
// sequence number issued).
func listBySeqDown(tx *bolt.Tx, from uint64, emit func(*Document) (bool, error)) error {
	last := maxSeq(tx)
	next := from
	c := tx.Bucket(bucketSeqs).Cursor()
	k, v := c.Seek(seqKey(from))
	if k == nil || binary.BigEndian.Uint64(k) != from {
		k, v = c.Last()
		if k != nil && len(k) == 8 && binary.BigEndian.Uint64(k) > from {
			k, v = c.Prev()
		}
	}
	for ; k != nil && next > 0; k, v = c.Prev() {
		d, err := seqEntry(tx, k, v, next, last)
		if err != nil {
			return err
		}
		next--
		if stop, err := emit(d); stop || err != nil {
			return err
		}
	}
	if next > 0 {
		return fmt.Errorf("%w: the archive issued %d documents but sequence entry #%d is missing (run `chronicle check`; restore the archive from a copy)",
			ErrCorrupt, last, next)
	}
	return nil
}

// CompleteDocs is what Tab completion offers for a DOC argument that
// starts with prefix: at most max document names starting with it, in
// byte order, read by a seek on the names bucket, and, when prefix is
// lower-case hex, the digests (at most max) of the documents whose SHA-256
// starts with it, by a seek on the documents bucket. Nothing is read
// beyond what it returns, at any size of the archive.
func (a *Archive) CompleteDocs(prefix string, max int) (names []string, digests []Digest, err error) {
	err = a.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketNames).Cursor()
		seek := []byte(prefix)
		if prefix == "" {
			seek = []byte{1} // after the source path entries
		}
		for k, _ := c.Seek(seek); k != nil && len(names) < max && strings.HasPrefix(string(k), prefix); k, _ = c.Next() {
			if !isPathKey(k) {
				names = append(names, string(k))
			}
		}
		if prefix == "" || len(prefix) > 64 || !isHex(prefix) {
			return nil
		}
		seek, _ = hex.DecodeString(prefix[:len(prefix)&^1]) // whole bytes; the odd digit is checked below
		dc := tx.Bucket(bucketDocs).Cursor()
		for k, _ := dc.Seek(seek); k != nil && len(digests) < max && bytes.HasPrefix(k, seek); k, _ = dc.Next() {
			if len(k) == 32 && strings.HasPrefix(Digest(k).String(), prefix) {
				digests = append(digests, Digest(k))
			}
		}
		return nil
	})
	return names, digests, err
}
