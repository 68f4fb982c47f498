package db

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/casper-chronicle/chronicle/engine/archivelog"
	bolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// The archive's append-only log (schema 18; issue 29). Every change to
// what the archive holds appends one leaf (archivelog.Leaf) in the write
// transaction that makes it, so the log and the archive commit together
// or not at all; reindexing and upgrades append nothing. The tree over
// the leaves is RFC 6962's, kept as tlog's stored hashes, so that the root
// of any size and the proofs are read from O(log n) entries.
//
// Bucket `log`:
//
//	'l' ‖ index (u64 BE)            → the leaf's canonical bytes
//	'h' ‖ stored hash index (u64 BE) → a 32-byte tree hash (tlog.StoredHashIndex)
//	'x' ‖ locator                   → the index (u64 BE) of the leaf a proof starts from:
//	                                  'd' ‖ seq (u64 BE) a document's, 'r' ‖ number (u64 BE)
//	                                  a kept receipt's, 'c' ‖ SHA-256 of the file a claims check's
//	"origin"                        → the log's origin line
//	"checkpoint"                    → the last signed checkpoint (a C2SP signed note)
//
// The bucket's sequence is the number of leaves.
var bucketLog = []byte("log")

var (
	keyLogOrigin     = []byte("origin")
	keyLogCheckpoint = []byte("checkpoint")
)

// Key prefixes of the log bucket.
const (
	logLeaf    = 'l'
	logHash    = 'h'
	logSubject = 'x'
)

// ErrLogUnsigned: the log has leaves no signed checkpoint covers yet
// (written without the archive's key).
var ErrLogUnsigned = errors.New("the log has changes no signed checkpoint covers")

// ErrNotLogged: no leaf of the log names the document, receipt or claims
// check asked for.
var ErrNotLogged = errors.New("not in the archive's log")

func logKey(prefix byte, n uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefix}, n)
}

// Locators of the leaves a proof starts from. Documents and receipts are
// found by their sequence numbers, so their entries are appended in key
// order as the archive grows (entries keyed by digest land on random
// pages: a batch ingest rewrote a page for nearly every document).
func docLocator(seq uint64) []byte     { return binary.BigEndian.AppendUint64([]byte{'d'}, seq) }
func receiptLocator(num uint64) []byte { return binary.BigEndian.AppendUint64([]byte{'r'}, num) }
func claimsLocator(file Digest) []byte { return append([]byte{'c'}, file[:]...) }
func locatorKey(locator []byte) []byte { return append([]byte{logSubject}, locator...) }

// logBucket is the log bucket of tx; a missing one is damage.
func logBucket(tx *bolt.Tx) (*bolt.Bucket, error) {
	if b := tx.Bucket(bucketLog); b != nil {
		return b, nil
	}
	return nil, fmt.Errorf("%w: the log bucket is missing", ErrCorrupt)
}

// createLog creates the log bucket with a new origin: the archive's own
// name in checkpoints, random so that two archives' logs never claim
// each other's checkpoints.
func createLog(tx *bolt.Tx) (*bolt.Bucket, error) {
	b, err := tx.CreateBucket(bucketLog)
	if err != nil {
		return nil, err
	}
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	return b, b.Put(keyLogOrigin, []byte("chronicle.archive/"+hex.EncodeToString(id[:])))
}

// hashReader reads the stored tree hashes of b.
func hashReader(b *bolt.Bucket) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			v := b.Get(logKey(logHash, uint64(x)))
			if len(v) != tlog.HashSize {
				return nil, fmt.Errorf("%w: the log's tree hash %d is missing or malformed", ErrCorrupt, x)
			}
			copy(out[i][:], v)
		}
		return out, nil
	})
}

// leafEntries are the log entries of leaf n (data): the leaf, the tree
// hashes it completes (StoredHashes, reading earlier ones from r) and,
// when it has a locator, its locator entry.
func leafEntries(n uint64, l *archivelog.Leaf, locator []byte, r tlog.HashReader) ([]keyValue, []tlog.Hash, error) {
	data := l.Encode()
	hashes, err := tlog.StoredHashes(int64(n), data, r)
	if err != nil {
		return nil, nil, err
	}
	out := make([]keyValue, 0, len(hashes)+2)
	out = append(out, keyValue{logKey(logLeaf, n), data})
	first := uint64(tlog.StoredHashIndex(0, int64(n)))
	for i := range hashes {
		out = append(out, keyValue{logKey(logHash, first+uint64(i)), hashes[i][:]})
	}
	if locator != nil {
		out = append(out, keyValue{locatorKey(locator), binary.BigEndian.AppendUint64(nil, n)})
	}
	return out, hashes, nil
}

// appendLeaf appends l to the log of tx, found by locator (nil: a leaf
// no proof starts from, a name or an original receipt).
func appendLeaf(tx *bolt.Tx, l *archivelog.Leaf, locator []byte) error {
	b, err := logBucket(tx)
	if err != nil {
		return err
	}
	n := b.Sequence()
	entries, _, err := leafEntries(n, l, locator, hashReader(b))
	if err != nil {
		return err
	}
	// Every key range of the log grows at its end (the claims locators
	// aside, which are few): pack its pages full, as bbolt's default
	// (half-full pages, for random inserts) doubled the log.
	b.FillPercent = 1.0
	for _, e := range entries {
		if err := b.Put(e.key, e.value); err != nil {
			return err
		}
	}
	return b.SetSequence(n + 1)
}

// logDocument appends the leaves of a document's names: a document
// stored in this transaction (fresh) gets its document leaf with the
// first name added (or none), every other added name a name leaf.
func logDocument(tx *bolt.Tx, d *Document, fresh bool, added []string) error {
	if fresh {
		name := ""
		if len(added) > 0 {
			name, added = added[0], added[1:]
		}
		if err := appendLeaf(tx, &archivelog.Leaf{Kind: archivelog.KindDocument, SHA256: d.SHA256, Size: d.SourceSize, Name: name}, docLocator(d.Seq)); err != nil {
			return err
		}
	}
	for _, n := range added {
		if err := appendLeaf(tx, &archivelog.Leaf{Kind: archivelog.KindName, SHA256: d.SHA256, Name: n}, nil); err != nil {
			return err
		}
	}
	return nil
}

// LogSigner sets the key that signs the log's checkpoints: each write
// transaction that appends to the log then keeps a checkpoint of the new
// tree, signed. Without one, writes append leaves unsigned (LogState says
// so; the next write with the key signs them all).
func (a *Archive) LogSigner(s note.Signer) { a.signer = s }

// SignLog keeps a signed checkpoint of the log as it is now, when the log
// has changes no signed checkpoint covers (an upgrade built it, or writes
// ran without the key). It needs the signer (LogSigner) and a write open.
func (a *Archive) SignLog() error {
	if a.signer == nil {
		return fmt.Errorf("%w: no key to sign with", ErrLogUnsigned)
	}
	return a.update(func(*bolt.Tx) error { return nil })
}

// signLog keeps a signed checkpoint of the log of tx when it grew and a
// signer is set.
func (a *Archive) signLog(tx *bolt.Tx) error {
	if a.signer == nil {
		return nil
	}
	b := tx.Bucket(bucketLog)
	if b == nil {
		return nil
	}
	size := int64(b.Sequence())
	if old := b.Get(keyLogCheckpoint); old != nil {
		if c, err := checkpointText(old); err == nil && c.Size == size {
			return nil
		}
	}
	c, err := treeCheckpoint(b, size)
	if err != nil {
		return err
	}
	signed, err := c.Sign(a.signer)
	if err != nil {
		return fmt.Errorf("signing the log's checkpoint: %w", err)
	}
	return b.Put(keyLogCheckpoint, signed)
}

// checkpointText reads the stored signed checkpoint's text without
// checking its signature (the reader checks it with the key it trusts).
func checkpointText(signed []byte) (*archivelog.Checkpoint, error) {
	c, err := archivelog.Unverified(signed)
	if err != nil {
		return nil, fmt.Errorf("%w: the stored checkpoint: %v", ErrCorrupt, err)
	}
	return c, nil
}

// treeCheckpoint is the checkpoint of the first size leaves of the log b.
func treeCheckpoint(b *bolt.Bucket, size int64) (*archivelog.Checkpoint, error) {
	root, err := tlog.TreeHash(size, hashReader(b))
	if err != nil {
		return nil, err
	}
	return &archivelog.Checkpoint{Origin: string(b.Get(keyLogOrigin)), Size: size, Root: root}, nil
}

// LogState is the log as the archive holds it.
type LogState struct {
	Tree *archivelog.Checkpoint // the current tree, computed from the stored hashes
	// Signed is the last signed checkpoint kept (nil before any write with
	// a key); it covers the current tree when its size is Tree.Size.
	Signed []byte
}

// Log reads the log's current tree and its last signed checkpoint.
func (a *Archive) Log() (*LogState, error) {
	var st LogState
	err := a.bolt.View(func(tx *bolt.Tx) error {
		b, err := logBucket(tx)
		if err != nil {
			return err
		}
		if st.Tree, err = treeCheckpoint(b, int64(b.Sequence())); err != nil {
			return err
		}
		if v := b.Get(keyLogCheckpoint); v != nil {
			st.Signed = bytes.Clone(v)
		}
		return nil
	})
	return &st, err
}

// ExtendsCheckpoint proves that the log today extends the tree of old (a
// checkpoint read and verified by the caller): old's origin is the log's,
// and the RFC 6962 consistency proof from old's size to today's leads from
// old's root to today's. It returns today's tree.
func (a *Archive) ExtendsCheckpoint(old *archivelog.Checkpoint) (*archivelog.Checkpoint, error) {
	var now *archivelog.Checkpoint
	err := a.bolt.View(func(tx *bolt.Tx) error {
		b, err := logBucket(tx)
		if err != nil {
			return err
		}
		size := int64(b.Sequence())
		if now, err = treeCheckpoint(b, size); err != nil {
			return err
		}
		if old.Origin != now.Origin {
			return fmt.Errorf("%w: the checkpoint is of log %s, this archive's log is %s", ErrLogMismatch, old.Origin, now.Origin)
		}
		if old.Size > size {
			return fmt.Errorf("%w: the checkpoint has %d leaves, the log today %d: leaves were removed", ErrLogMismatch, old.Size, size)
		}
		proof, err := tlog.ProveTree(size, old.Size, hashReader(b))
		if err != nil {
			return err
		}
		if err := tlog.CheckTree(proof, size, now.Root, old.Size, old.Root); err != nil {
			return fmt.Errorf("%w: the log today (%d leaves) does not extend the checkpoint's tree of %d leaves: leaves were removed or rewritten", ErrLogMismatch, size, old.Size)
		}
		return nil
	})
	return now, err
}

// ErrLogMismatch: the log does not extend a checkpoint it should.
var ErrLogMismatch = errors.New("the archive's log does not extend the checkpoint")

// ProveDocument is the proof bundle of d's document leaf, against the
// last signed checkpoint, which must cover it.
func (a *Archive) ProveDocument(d *Document) (*archivelog.Bundle, error) {
	return a.prove(func(*bolt.Tx) ([]byte, [32]byte, error) { return docLocator(d.Seq), d.SHA256, nil }, "document "+d.Label())
}

// ProveKept is the proof bundle of the kept receipt whose bytes are data,
// or else of the kept claims check whose claims file they are.
func (a *Archive) ProveKept(data []byte) (*archivelog.Bundle, error) {
	sum := Digest(sha256.Sum256(data))
	return a.prove(func(tx *bolt.Tx) ([]byte, [32]byte, error) {
		var owner Digest
		switch {
		case IsArchiveReceipt(data):
			r, err := ParseReceipt(data)
			if err != nil {
				return nil, sum, err
			}
			owner = r.Document
		case IsSetReceipt(data):
			r, err := ParseSetReceipt(data)
			if err != nil {
				return nil, sum, err
			}
			last, err := setReceiptOwner(tx, r)
			if err != nil {
				return nil, sum, fmt.Errorf("%w: %v", ErrNotLogged, err)
			}
			owner = last.SHA256
		default:
			return claimsLocator(sum), sum, nil
		}
		key := append(append(make([]byte, 0, 64), owner[:]...), sum[:]...)
		v := tx.Bucket(bucketReceipts).Get(key)
		if v == nil {
			return nil, sum, fmt.Errorf("the receipt %s is not kept in the archive: %w", sum.Short(), ErrNotLogged)
		}
		num, _, err := openReceipt(key, v)
		if err != nil {
			return nil, sum, fmt.Errorf("%w: kept receipt %s: %v", ErrCorrupt, sum.Short(), err)
		}
		return receiptLocator(num), sum, nil
	}, "file "+sum.Short())
}

// prove writes the proof bundle of the leaf locate finds (it must name
// subject), against the last signed checkpoint, which must cover it.
func (a *Archive) prove(locate func(tx *bolt.Tx) ([]byte, [32]byte, error), what string) (*archivelog.Bundle, error) {
	var bundle *archivelog.Bundle
	err := a.bolt.View(func(tx *bolt.Tx) error {
		b, err := logBucket(tx)
		if err != nil {
			return err
		}
		locator, subject, err := locate(tx)
		if err != nil {
			return err
		}
		v := b.Get(locatorKey(locator))
		if v == nil {
			return fmt.Errorf("%s: %w", what, ErrNotLogged)
		}
		if len(v) != 8 {
			return fmt.Errorf("%w: the log's entry of %s is malformed", ErrCorrupt, what)
		}
		n := binary.BigEndian.Uint64(v)
		signed := b.Get(keyLogCheckpoint)
		if signed == nil {
			return fmt.Errorf("%w (no signed checkpoint yet)", ErrLogUnsigned)
		}
		c, err := checkpointText(signed)
		if err != nil {
			return err
		}
		if int64(n) >= c.Size {
			return fmt.Errorf("%w (leaf %d, the signed checkpoint has %d)", ErrLogUnsigned, n, c.Size)
		}
		leaf := b.Get(logKey(logLeaf, n))
		if l, err := archivelog.ParseLeaf(leaf); err != nil || l.SHA256 != subject {
			return fmt.Errorf("%w: log leaf %d is not the leaf of %s", ErrCorrupt, n, what)
		}
		proof, err := tlog.ProveRecord(c.Size, int64(n), hashReader(b))
		if err != nil {
			return err
		}
		bundle = &archivelog.Bundle{Index: int64(n), Leaf: bytes.Clone(leaf), Proof: proof, Checkpoint: bytes.Clone(signed)}
		return nil
	})
	return bundle, err
}
