package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Totals are the archive's running totals (schema 14): what `stats`
// prints, kept in the meta bucket and updated in the write transaction of
// every change that affects them (a new document, a kept receipt, an
// imported original receipt), so that reading them costs the same at any
// size. They are a derived cache: `check` recounts them and reports a
// difference as damage, and `reindex` recomputes them.
type Totals struct {
	Documents   int64 // document records
	Events      int64 // events of every document
	SourceBytes int64 // source bytes of every document
	StoredBytes int64 // compressed source chunks and event tables
	Receipts    int64 // kept document receipts (Receipts)
	SetReceipts int64 // kept cross-archive receipts (SetReceipts)
	Originals   int64 // original receipts imported with their stores (Originals)
}

// keyTotals holds the encoded Totals in the meta bucket.
var keyTotals = []byte("totals")

// totalsVersion is the first byte of the encoded totals.
const totalsVersion = 1

// totalsLen is the length of the encoded totals: the version byte, seven
// u64 BE counts and a seal of 8 bytes.
const totalsLen = 1 + 7*8 + 8

// errTotalsMissing: the archive keeps no totals (an upgrade could not
// count a damaged archive, or the entry was lost).
var errTotalsMissing = errors.New("its running totals are missing")

func (t *Totals) fields() []*int64 {
	return []*int64{&t.Documents, &t.Events, &t.SourceBytes, &t.StoredBytes, &t.Receipts, &t.SetReceipts, &t.Originals}
}

// add adds o to t.
func (t *Totals) add(o Totals) {
	of := o.fields()
	for i, f := range t.fields() {
		*f += *of[i]
	}
}

// encode is the meta entry of t: version ‖ counts ‖ the first 8 bytes of
// the SHA-256 of key ‖ version ‖ counts, so that a damaged entry reads as
// damage, not as other totals.
func (t *Totals) encode() []byte {
	v := make([]byte, 1, totalsLen)
	v[0] = totalsVersion
	for _, f := range t.fields() {
		v = binary.BigEndian.AppendUint64(v, uint64(*f))
	}
	h := sha256.New()
	h.Write(keyTotals)
	h.Write(v)
	return h.Sum(v)[:totalsLen]
}

// decodeTotals checks an entry's seal and returns its totals.
func decodeTotals(v []byte) (Totals, error) {
	var t Totals
	if v == nil {
		return t, errTotalsMissing
	}
	if len(v) != totalsLen || v[0] != totalsVersion {
		return t, fmt.Errorf("its running totals entry is %d bytes, not %d of version %d", len(v), totalsLen, totalsVersion)
	}
	h := sha256.New()
	h.Write(keyTotals)
	h.Write(v[:totalsLen-8])
	if !bytes.Equal(h.Sum(nil)[:8], v[totalsLen-8:]) {
		return t, errors.New("its running totals entry does not match its digest")
	}
	for i, f := range t.fields() {
		*f = int64(binary.BigEndian.Uint64(v[1+8*i:]))
	}
	return t, nil
}

// addTotals adds delta to the kept totals, in the caller's write
// transaction. Totals that are missing or damaged are left as they are:
// they are a cache, the write goes on, and `stats` and `check` report them
// until `reindex` recounts them.
func addTotals(tx *bolt.Tx, delta Totals) error {
	meta := tx.Bucket(bucketMeta)
	t, err := decodeTotals(meta.Get(keyTotals))
	if err != nil {
		return nil
	}
	t.add(delta)
	return meta.Put(keyTotals, t.encode())
}

// countDocument adds a new document to the totals (putDocument).
func countDocument(tx *bolt.Tx, d *Document) error {
	return addTotals(tx, Totals{Documents: 1, Events: int64(d.EventCount), SourceBytes: d.SourceSize, StoredBytes: d.StoredBytes})
}

// countReceipt adds a newly kept receipt (document or cross-archive, by
// its header) to the totals (putReceiptBytes).
func countReceipt(tx *bolt.Tx, data []byte) error {
	if IsSetReceipt(data) {
		return addTotals(tx, Totals{SetReceipts: 1})
	}
	return addTotals(tx, Totals{Receipts: 1})
}

// recountTotals counts the totals from every record: document records
// (each checked against its digest), kept receipts (each against its
// seal) and original receipts. An unreadable record is an error.
func recountTotals(tx *bolt.Tx) (Totals, error) {
	var t Totals
	if err := tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		d, err := decodeDocument(k, v)
		if err != nil {
			return err
		}
		t.add(Totals{Documents: 1, Events: int64(d.EventCount), SourceBytes: d.SourceSize, StoredBytes: d.StoredBytes})
		return nil
	}); err != nil {
		return t, err
	}
	if err := tx.Bucket(bucketReceipts).ForEach(func(k, v []byte) error {
		_, data, err := openReceipt(k, v)
		if err != nil {
			return fmt.Errorf("kept receipt %x: %w: %v", k, ErrCorrupt, err)
		}
		if IsSetReceipt(data) {
			t.SetReceipts++
		} else {
			t.Receipts++
		}
		return nil
	}); err != nil {
		return t, err
	}
	t.Originals = int64(tx.Bucket(bucketOriginals).Stats().KeyN)
	return t, nil
}

// resetTotals keeps the totals recounted from the records (the schema-14
// upgrade, reindex). When a record cannot be read the totals are removed
// instead: `stats` and `check` then say so, and a `reindex` once the
// archive is restored counts them again.
func resetTotals(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	t, err := recountTotals(tx)
	if err != nil {
		return meta.Delete(keyTotals)
	}
	return meta.Put(keyTotals, t.encode())
}

// readTotals reads the kept totals and checks them against what bbolt
// keeps for free: the number of documents issued and the number of kept
// receipts (both numbered without gaps). Missing, damaged or inconsistent
// totals are ErrCorrupt.
func (a *Archive) readTotals(tx *bolt.Tx) (Totals, error) {
	damaged := func(what string) error {
		return fmt.Errorf("archive %s: %w: %s (run `chronicle check`; `chronicle reindex` recounts them)", a.path, ErrCorrupt, what)
	}
	t, err := decodeTotals(tx.Bucket(bucketMeta).Get(keyTotals))
	if err != nil {
		return t, damaged(err.Error())
	}
	if n := maxSeq(tx); uint64(t.Documents) != n {
		return t, damaged(fmt.Sprintf("its running totals count %d documents where %d were issued", t.Documents, n))
	}
	if n := tx.Bucket(bucketReceipts).Sequence(); uint64(t.Receipts+t.SetReceipts) != n {
		return t, damaged(fmt.Sprintf("its running totals count %d kept receipts where %d are numbered", t.Receipts+t.SetReceipts, n))
	}
	return t, nil
}

// Totals returns the archive's running totals without reading any
// document record: constant time at any size. A missing, damaged or
// inconsistent totals entry is ErrCorrupt.
func (a *Archive) Totals() (Totals, error) {
	var t Totals
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		t, err = a.readTotals(tx)
		return err
	})
	return t, err
}

// CountTotals recounts the totals from every record (what check compares
// the kept totals with).
func (a *Archive) CountTotals() (Totals, error) {
	var t Totals
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		t, err = recountTotals(tx)
		return err
	})
	return t, err
}

// checkTotals compares the kept totals with a recount, in one snapshot;
// "" when they agree or when the records cannot be recounted (check
// reports those records itself).
func (a *Archive) checkTotals() string {
	problem := ""
	_ = a.bolt.View(func(tx *bolt.Tx) error {
		want, err := recountTotals(tx)
		if err != nil {
			return nil
		}
		got, err := decodeTotals(tx.Bucket(bucketMeta).Get(keyTotals))
		switch {
		case err != nil:
			problem = err.Error()
		case got != want:
			problem = fmt.Sprintf("its running totals differ from a recount (kept %s; counted %s)", got.String(), want.String())
		}
		if problem != "" {
			problem = fmt.Sprintf("archive %s: %s (`stats` reads them; `chronicle reindex` recounts them)", a.path, problem)
		}
		return nil
	})
	return problem
}

// String lists the totals as key=value pairs.
func (t Totals) String() string {
	return fmt.Sprintf("documents=%d events=%d source_bytes=%d stored_bytes=%d receipts=%d set_receipts=%d original_receipts=%d",
		t.Documents, t.Events, t.SourceBytes, t.StoredBytes, t.Receipts, t.SetReceipts, t.Originals)
}
