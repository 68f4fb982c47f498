package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/casper-chronicle/chronicle/engine/archivelog"
	"maps"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// ReceiptHeader starts every archive receipt. Archive receipts bind no file
// path: the store is found by its document digest inside the archive.
const ReceiptHeader = "CHRONICLE-ARCHIVE-RECEIPT-V1"

// ReceiptKind is what an archive receipt attests.
type ReceiptKind string

// Archive receipt kinds. A claim is a QUERY, as in the original tool.
const (
	KindIngest ReceiptKind = "INGEST"
	KindQuery  ReceiptKind = "QUERY"
	KindFind   ReceiptKind = "FIND"
	// KindDerive: a text derived from an original file; its question is
	// the derivation (DeriveQuestion), its result the text's SHA-256.
	KindDerive ReceiptKind = "DERIVE"
)

// MaxQuestion bounds the question an archive receipt carries.
const MaxQuestion = 1 << 16

// Receipt is an archive receipt:
//
//	CHRONICLE-ARCHIVE-RECEIPT-V1
//	kind:<INGEST|QUERY|FIND>
//	document_sha256:<64 hex>
//	store_sha256:<64 hex>
//	question_hex:<hex of the question bytes; empty for INGEST>
//	result_sha256:<64 hex>
//
// Lines end with LF, in exactly this order; the parser accepts only this
// canonical form. For INGEST the result is the canonical store itself.
type Receipt struct {
	Kind     ReceiptKind
	Document Digest
	Store    Digest
	Question string
	Result   Digest
}

// Encode renders the canonical receipt bytes.
func (r *Receipt) Encode() []byte {
	return fmt.Appendf(nil, "%s\nkind:%s\ndocument_sha256:%s\nstore_sha256:%s\nquestion_hex:%s\nresult_sha256:%s\n",
		ReceiptHeader, r.Kind, r.Document, r.Store, hex.EncodeToString([]byte(r.Question)), r.Result)
}

// ID is the SHA-256 of the receipt bytes; `receipts` lists it.
func (r *Receipt) ID() Digest { return sha256.Sum256(r.Encode()) }

// ErrReceipt wraps every archive receipt parse error.
var ErrReceipt = errors.New("malformed archive receipt")

// IsArchiveReceipt reports whether data claims to be an archive receipt.
func IsArchiveReceipt(data []byte) bool {
	return bytes.HasPrefix(data, []byte(ReceiptHeader+"\n"))
}

// ParseReceipt reads an archive receipt strictly: the six lines in order,
// LF endings, lowercase hex, nothing else.
func ParseReceipt(data []byte) (*Receipt, error) {
	vals, err := receiptFields(data, ReceiptHeader, "kind:", "document_sha256:", "store_sha256:", "question_hex:", "result_sha256:")
	if err != nil {
		return nil, err
	}
	r := &Receipt{Kind: ReceiptKind(vals[1])}
	switch r.Kind {
	case KindIngest, KindQuery, KindFind, KindDerive:
	default:
		return nil, fmt.Errorf("%w: line 2: kind %.20q is not INGEST, QUERY, FIND or DERIVE", ErrReceipt, vals[1])
	}
	if r.Question, err = decodeFields(vals, map[int]*Digest{2: &r.Document, 3: &r.Store, 5: &r.Result}, 4); err != nil {
		return nil, err
	}
	if r.Kind == KindIngest && r.Question != "" {
		return nil, fmt.Errorf("%w: an INGEST receipt carries no question", ErrReceipt)
	}
	// Only the canonical spelling (lowercase hex) is accepted.
	if !bytes.Equal(r.Encode(), data) {
		return nil, fmt.Errorf("%w: not in canonical form (lowercase hex, exact layout)", ErrReceipt)
	}
	return r, nil
}

// receiptFields splits an archive receipt (document or cross-archive) into
// its lines strictly: data is at most MaxReceiptSize bytes, ends with
// LF and holds exactly 1+len(keys) LF-terminated lines, the first being
// header and line i+2 starting with keys[i]. It returns what follows the
// key on each line, indexed by line number from 0 (vals[0], the header's,
// is empty). Errors wrap ErrReceipt.
func receiptFields(data []byte, header string, keys ...string) ([]string, error) {
	if len(data) > MaxReceiptSize {
		return nil, fmt.Errorf("%w: %d bytes is too long", ErrReceipt, len(data))
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("%w: the last line has no LF", ErrReceipt)
	}
	lines := strings.Split(string(data[:len(data)-1]), "\n")
	if len(lines) != 1+len(keys) {
		return nil, fmt.Errorf("%w: %d lines, want %d", ErrReceipt, len(lines), 1+len(keys))
	}
	if lines[0] != header {
		return nil, fmt.Errorf("%w: line 1 is not %s", ErrReceipt, header)
	}
	vals := make([]string, len(lines))
	for i, key := range keys {
		v, ok := strings.CutPrefix(lines[i+1], key)
		if !ok {
			return nil, fmt.Errorf("%w: line %d does not start with %s", ErrReceipt, i+2, key)
		}
		vals[i+1] = v
	}
	return vals, nil
}

// decodeFields decodes the values receiptFields returned that both kinds of
// archive receipt carry: each digest from the 64 lowercase hex at its index,
// and the question from the question_hex value at index question, which it
// returns. Errors wrap ErrReceipt and name the line.
func decodeFields(vals []string, digests map[int]*Digest, question int) (string, error) {
	// Digests in line order, then the question: a receipt with several bad
	// lines always gets the same error.
	for _, i := range slices.Sorted(maps.Keys(digests)) {
		if err := digests[i].UnmarshalText([]byte(vals[i])); err != nil {
			return "", fmt.Errorf("%w: line %d: %v", ErrReceipt, i+1, err)
		}
	}
	q, err := hex.DecodeString(vals[question])
	if err != nil {
		return "", fmt.Errorf("%w: line %d: question_hex: %v", ErrReceipt, question+1, err)
	}
	return string(q), nil
}

// receiptKey orders a document's receipts together.
func receiptKey(r *Receipt) []byte {
	id := r.ID()
	return append(append(make([]byte, 0, 64), r.Document[:]...), id[:]...)
}

// putReceipt keeps a receipt; the same receipt issued twice is kept once.
func putReceipt(tx *bolt.Tx, r *Receipt) error {
	return putReceiptBytes(tx, receiptKey(r), r.Encode())
}

// putReceiptBytes keeps the encoded receipt data under key, after the issue
// sequence number; a key already present is left as it is.
//
// A kept entry is key → seq (u64 BE) ‖ data ‖ seal, the seal being the
// first 8 bytes of the SHA-256 of key ‖ seq ‖ data; the key ends with the
// receipt's ID (the SHA-256 of data). Sequence numbers are the bucket's
// sequence, so the entries are numbered 1..Sequence without gaps: a lost
// entry is as visible as a damaged one (see keptReceipts).
func putReceiptBytes(tx *bolt.Tx, key, data []byte) error {
	b := tx.Bucket(bucketReceipts)
	if b.Get(key) != nil {
		return nil
	}
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	if err := b.Put(key, sealReceipt(key, seq, data)); err != nil {
		return err
	}
	if err := addReceiptCount(tx, key[:32]); err != nil {
		return err
	}
	if err := putReceiptOrder(tx, seq, key); err != nil {
		return err
	}
	if err := appendLeaf(tx, &archivelog.Leaf{Kind: archivelog.KindReceipt, Number: seq, SHA256: sha256.Sum256(data)}, receiptLocator(seq)); err != nil {
		return err
	}
	return countReceipt(tx, data)
}

// receiptSealLen is the length of a kept receipt's seal.
const receiptSealLen = 8

// sealReceipt is the value of a kept receipt entry.
func sealReceipt(key []byte, seq uint64, data []byte) []byte {
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(data)+receiptSealLen), seq)
	v = append(v, data...)
	h := sha256.New()
	h.Write(key)
	h.Write(v)
	return h.Sum(v)[:len(v)+receiptSealLen]
}

// openReceipt checks a kept receipt entry against its seal and its key and
// returns its sequence number and receipt bytes; the error says what is
// wrong.
func openReceipt(k, v []byte) (uint64, []byte, error) {
	if len(v) < 8+receiptSealLen {
		return 0, nil, errors.New("its entry is too short")
	}
	n := len(v) - receiptSealLen
	h := sha256.New()
	h.Write(k)
	h.Write(v[:n])
	if !bytes.Equal(h.Sum(nil)[:receiptSealLen], v[n:]) {
		return 0, nil, errors.New("its entry does not match its digest")
	}
	data := v[8:n]
	if id := sha256.Sum256(data); len(k) != 64 || !bytes.Equal(k[32:], id[:]) {
		return 0, nil, errors.New("its key does not name its bytes")
	}
	return binary.BigEndian.Uint64(v[:8]), data, nil
}

// rewriteReceipts re-keeps every receipt sealed and numbered 1..N in issue
// order (schema 10); the entries it reads are seq ‖ data.
func rewriteReceipts(tx *bolt.Tx) error {
	b := tx.Bucket(bucketReceipts)
	type entry struct {
		key, data []byte
		seq       uint64
	}
	var all []entry
	if err := b.ForEach(func(k, v []byte) error {
		if len(v) < 8 {
			return fmt.Errorf("receipt %x: %w: short value", k, ErrCorrupt)
		}
		all = append(all, entry{bytes.Clone(k), bytes.Clone(v[8:]), binary.BigEndian.Uint64(v[:8])})
		return nil
	}); err != nil {
		return err
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	for i, e := range all {
		if err := b.Put(e.key, sealReceipt(e.key, uint64(i+1), e.data)); err != nil {
			return err
		}
	}
	return b.SetSequence(uint64(len(all)))
}

// KeepReceipt stores a receipt the caller issued (query, claim, find).
func (a *Archive) KeepReceipt(r *Receipt) error {
	// Keep only what Receipts can parse back; anything else would later read
	// as archive corruption.
	if len(r.Question) > MaxQuestion {
		return fmt.Errorf("%w: the question is %d bytes, at most %d are kept", ErrReceipt, len(r.Question), MaxQuestion)
	}
	if _, err := ParseReceipt(r.Encode()); err != nil {
		return err
	}
	return a.update(func(tx *bolt.Tx) error { return putReceipt(tx, r) })
}

// Receipts lists the kept document receipts in issue order, of one document
// when doc is non-nil. Cross-archive receipts (SetReceipts) are not listed,
// but every kept receipt walked is parsed: one that no longer parses is
// reported as corruption.
func (a *Archive) Receipts(doc *Digest) ([]*Receipt, error) {
	kept, err := a.keptReceipts(doc)
	var out []*Receipt
	for _, k := range kept {
		if k.Doc != nil {
			out = append(out, k.Doc)
		}
	}
	if out == nil {
		out = []*Receipt{}
	}
	return out, err
}

// parseKept reads the receipt data of the kept entry under key, numbered
// seq: a document's receipt (whose key must name its document) or an
// archive-wide one.
func parseKept(key []byte, seq uint64, data []byte) (KeptReceipt, error) {
	kr := KeptReceipt{Seq: seq}
	var err error
	if IsSetReceipt(data) {
		kr.Set, err = ParseSetReceipt(data)
	} else if kr.Doc, err = ParseReceipt(data); err == nil && !bytes.Equal(kr.Doc.Document[:], key[:32]) {
		err = errors.New("its key names another document")
	}
	return kr, err
}

// keptReceipts reads the kept receipts (of one document's key prefix when
// doc is non-nil) in issue order, each parsed by its header. Every entry
// read is checked: its seal, its key, and its number (one of 1..Sequence,
// once). A listing of all checks that each number is there; one
// document's, read from its key prefix alone, that its entries are as many
// as its count (bucketReceiptCounts). A damaged, lost or renumbered entry
// fails the listing instead of shortening or reordering it.
func (a *Archive) keptReceipts(doc *Digest) ([]KeptReceipt, error) {
	var all []KeptReceipt
	err := a.bolt.View(func(tx *bolt.Tx) (err error) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer a.recoverPage(func() string { return "the kept receipts" }, &err)
		b := tx.Bucket(bucketReceipts)
		n := b.Sequence()
		seen := map[uint64]bool{}
		c := b.Cursor()
		k, v := c.First()
		var prefix []byte
		if doc != nil {
			prefix = doc[:]
			k, v = c.Seek(prefix)
		}
		for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			seq, data, err := openReceipt(k, v)
			if err != nil {
				return a.receiptDamage(k, err.Error())
			}
			if seq < 1 || seq > n || seen[seq] {
				return a.receiptDamage(k, fmt.Sprintf("its number %d is not one of 1..%d once", seq, n))
			}
			seen[seq] = true
			kr, err := parseKept(k, seq, data)
			if err != nil {
				return a.receiptDamage(k, err.Error())
			}
			all = append(all, kr)
		}
		if doc != nil {
			want, err := receiptCount(tx, prefix)
			if errors.Is(err, ErrCorrupt) { // the bucket is missing
				return fmt.Errorf("archive %s: %w", a.path, err)
			} else if err != nil {
				return a.receiptDamage(nil, err.Error())
			}
			if uint64(len(seen)) != want {
				return a.receiptDamage(nil, fmt.Sprintf("document %x… has %d counted but %d are there (lost entries)", prefix[:6], want, len(seen)))
			}
			return nil
		}
		if uint64(len(seen)) != n {
			return a.receiptDamage(nil, fmt.Sprintf("%d are numbered but %d are there (lost entries)", n, len(seen)))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Seq < all[j].Seq })
	return all, nil
}

// receiptDamage is the error of a damaged kept receipt (k, nil for the
// bucket as a whole).
func (a *Archive) receiptDamage(k []byte, what string) error {
	subject := "the kept receipts"
	if len(k) >= 38 {
		subject = fmt.Sprintf("kept receipt %x… of document %x…", k[32:38], k[:6])
	} else if k != nil {
		subject = fmt.Sprintf("kept receipt %x", k)
	}
	return fmt.Errorf("archive %s: %w: %s: %s; run `chronicle check`, or restore the archive from a copy", a.path, ErrCorrupt, subject, what)
}
