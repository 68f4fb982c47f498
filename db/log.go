package db

import (
	"bytes"
	"crypto/rand"
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
//	'x' ‖ kind ‖ subject (32) ‖ index (u64 BE) → empty: the leaves of a document, receipt or claims file
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

// subjectKind is the byte of a leaf kind in a subject key.
func subjectKind(kind string) byte {
	switch kind {
	case archivelog.KindReceipt:
		return 'r'
	case archivelog.KindClaims:
		return 'c'
	}
	return 'd' // document, name, original: the document's
}

func subjectKey(kind byte, subject [32]byte, n uint64) []byte {
	k := append(make([]byte, 0, 42), logSubject, kind)
	k = append(k, subject[:]...)
	return binary.BigEndian.AppendUint64(k, n)
}

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

// appendLeaf appends l to the log of tx.
func appendLeaf(tx *bolt.Tx, l *archivelog.Leaf) error {
	b, err := logBucket(tx)
	if err != nil {
		return err
	}
	n := b.Sequence()
	data := l.Encode()
	hashes, err := tlog.StoredHashes(int64(n), data, hashReader(b))
	if err != nil {
		return err
	}
	// Appends go at the end of each key range: pack pages full.
	b.FillPercent = 1.0
	if err := b.Put(logKey(logLeaf, n), data); err != nil {
		return err
	}
	first := uint64(tlog.StoredHashIndex(0, int64(n)))
	for i, h := range hashes {
		if err := b.Put(logKey(logHash, first+uint64(i)), h[:]); err != nil {
			return err
		}
	}
	if err := b.Put(subjectKey(subjectKind(l.Kind), l.SHA256, n), nil); err != nil {
		return err
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
		if err := appendLeaf(tx, &archivelog.Leaf{Kind: archivelog.KindDocument, SHA256: d.SHA256, Size: d.SourceSize, Name: name}); err != nil {
			return err
		}
	}
	for _, n := range added {
		if err := appendLeaf(tx, &archivelog.Leaf{Kind: archivelog.KindName, SHA256: d.SHA256, Name: n}); err != nil {
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

// checkpointText reads a stored signed checkpoint's text without checking
// its signature (the reader checks it with the key it trusts).
func checkpointText(signed []byte) (*archivelog.Checkpoint, error) {
	i := bytes.Index(signed, []byte("\n\n"))
	if i < 0 {
		return nil, fmt.Errorf("%w: the stored checkpoint is not a signed note", ErrCorrupt)
	}
	return archivelog.ParseCheckpoint(string(signed[:i+1]))
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

// Prove writes the proof bundle of the first leaf naming subject (a
// document's digest for kind document, a kept receipt's SHA-256 for
// receipt, a claims file's for claims), against the last signed
// checkpoint, which must cover it.
func (a *Archive) Prove(kind string, subject Digest) (*archivelog.Bundle, error) {
	var bundle *archivelog.Bundle
	err := a.bolt.View(func(tx *bolt.Tx) error {
		b, err := logBucket(tx)
		if err != nil {
			return err
		}
		prefix := subjectKey(subjectKind(kind), subject, 0)[:34]
		k, _ := b.Cursor().Seek(prefix)
		if !bytes.HasPrefix(k, prefix) || len(k) != 42 {
			return fmt.Errorf("%s %s: %w", kind, subject, ErrNotLogged)
		}
		n := binary.BigEndian.Uint64(k[34:])
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
		if leaf == nil {
			return fmt.Errorf("%w: log leaf %d is missing", ErrCorrupt, n)
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
