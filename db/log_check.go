package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/casper-chronicle/chronicle/engine/archivelog"
	bolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// LogVerifier sets the public key check holds the log's signed checkpoint
// to (without one, check compares the checkpoint with the tree only).
func (a *Archive) LogVerifier(v note.Verifier) { a.verifier = v }

// logFacts is what the log's leaves say the archive holds.
type logFacts struct {
	docs      map[Digest]int64 // document leaf: the size
	names     map[Digest]map[string]bool
	receipts  map[uint64]Digest
	claims    map[string]Digest // namespace ‖ 0 ‖ runId → file digest
	originals map[[64]byte]bool // document ‖ receipt
	files     map[Digest]int64  // original file leaf: the size
	// derivations: output ‖ input ‖ record digest ‖ part of each
	// derivation leaf
	derivations map[string]bool
}

// checkLog recomputes the log from its leaves and compares it with the
// stored tree, the last checkpoint and what the archive holds: every
// document, name, original receipt, kept receipt and claims check must
// have its leaf, and every leaf must name something the archive still
// holds.
func (a *Archive) checkLog(tx *bolt.Tx, known map[Digest]*Document) []Problem {
	var problems []Problem
	add := func(format string, args ...any) {
		problems = append(problems, Problem{Detail: "log: " + fmt.Sprintf(format, args...)})
	}
	b := tx.Bucket(bucketLog)
	if b == nil {
		add("the log bucket is missing")
		return problems
	}
	n := int64(b.Sequence())
	var hashes []tlog.Hash
	reader := tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			if x >= int64(len(hashes)) {
				return nil, fmt.Errorf("hash %d not computed", x)
			}
			out[i] = hashes[x]
		}
		return out, nil
	})
	f := &logFacts{docs: map[Digest]int64{}, names: map[Digest]map[string]bool{}, receipts: map[uint64]Digest{},
		claims: map[string]Digest{}, originals: map[[64]byte]bool{}, files: map[Digest]int64{}, derivations: map[string]bool{}}
	located := 0 // leaves with a locator entry
	for i := range n {
		data := b.Get(logKey(logLeaf, uint64(i)))
		if data == nil {
			add("leaf %d of %d is missing (the log was truncated or damaged; run `chronicle log verify` against a saved checkpoint)", i, n)
			return problems
		}
		more, err := tlog.StoredHashes(i, data, reader)
		if err != nil {
			add("leaf %d: %v", i, err)
			return problems
		}
		hashes = append(hashes, more...)
		l, err := archivelog.ParseLeaf(data)
		if err != nil {
			add("leaf %d: %v", i, err)
			continue
		}
		var locator []byte
		switch l.Kind {
		case archivelog.KindDocument:
			if d := known[Digest(l.SHA256)]; d != nil {
				locator = docLocator(d.Seq)
			}
		case archivelog.KindReceipt:
			locator = receiptLocator(l.Number)
		case archivelog.KindClaims:
			locator = claimsLocator(l.SHA256)
		}
		if locator != nil {
			located++
			if v := b.Get(locatorKey(locator)); len(v) != 8 || binary.BigEndian.Uint64(v) != uint64(i) {
				add("leaf %d (%s) is not where its locator entry says (the log is not rebuilt from the archive: restore it from a copy)", i, l.Kind)
			}
		}
		f.note(l)
	}
	if k, _ := b.Cursor().Seek(logKey(logLeaf, uint64(n))); k != nil && k[0] == logLeaf {
		add("it holds leaves beyond its %d", n)
	}
	entries := 0
	cur := b.Cursor()
	for k, _ := cur.Seek([]byte{logSubject}); k != nil && k[0] == logSubject; k, _ = cur.Next() {
		entries++
	}
	if entries != located {
		add("it holds %d locator entries for %d leaves that have one", entries, located)
	}
	wrong := 0
	for i, h := range hashes {
		if !bytes.Equal(b.Get(logKey(logHash, uint64(i))), h[:]) {
			wrong++
		}
	}
	if wrong > 0 {
		add("%d stored tree hashes do not match its leaves", wrong)
	}
	problems = append(problems, f.compare(tx, known)...)

	signed := b.Get(keyLogCheckpoint)
	if signed == nil {
		return problems
	}
	c, err := checkpointText(signed)
	if err == nil && a.verifier != nil {
		c, err = archivelog.OpenSigned(signed, a.verifier)
	}
	switch {
	case err != nil:
		add("the signed checkpoint: %v", err)
	case c.Origin != string(b.Get(keyLogOrigin)):
		add("the signed checkpoint is of log %s, not of this archive's (%s)", c.Origin, b.Get(keyLogOrigin))
	case c.Size > n:
		add("the signed checkpoint has %d leaves, the log %d: leaves were removed", c.Size, n)
	default:
		if root, err := tlog.TreeHash(c.Size, reader); err != nil || root != c.Root {
			add("the signed checkpoint of %d leaves does not match the log's leaves: they were rewritten", c.Size)
		}
	}
	return problems
}

// note records what leaf l says the archive holds.
func (f *logFacts) note(l *archivelog.Leaf) {
	d := Digest(l.SHA256)
	switch l.Kind {
	case archivelog.KindDocument:
		f.docs[d] = l.Size
		f.name(d, l.Name)
	case archivelog.KindName:
		f.name(d, l.Name)
	case archivelog.KindOriginal:
		var k [64]byte
		copy(k[:32], d[:])
		copy(k[32:], l.Receipt[:])
		f.originals[k] = true
	case archivelog.KindReceipt:
		f.receipts[l.Number] = d
	case archivelog.KindClaims:
		f.claims[l.Namespace+"\x00"+l.RunID] = d
	case archivelog.KindFile:
		f.files[d] = l.Size
	case archivelog.KindDerivation:
		f.derivations[derivationFact(d, Digest(l.Input), Digest(l.Record), l.Part)] = true
	}
}

func (f *logFacts) name(d Digest, name string) {
	if f.names[d] == nil {
		f.names[d] = map[string]bool{}
	}
	f.names[d][name] = true
}

// compare holds what the archive holds to the leaves, both ways.
func (f *logFacts) compare(tx *bolt.Tx, known map[Digest]*Document) []Problem {
	var problems []Problem
	for sha, d := range known {
		size, ok := f.docs[sha]
		switch {
		case !ok:
			problems = append(problems, Problem{Doc: d.Label(), Detail: "log: the document has no leaf in the log"})
			continue
		case size != d.SourceSize:
			problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("log: the document's leaf says %d bytes, its record %d", size, d.SourceSize)})
		}
		for _, n := range d.Names {
			if !f.names[sha][n] {
				problems = append(problems, Problem{Doc: d.Label(), Detail: fmt.Sprintf("log: the name %q has no leaf in the log", n)})
			}
		}
	}
	for sha := range f.docs {
		if known[sha] == nil {
			problems = append(problems, Problem{Detail: fmt.Sprintf("log: document %s is in the log but not in the archive: it was removed", sha)})
		}
	}
	if w, err := walkReceipts(tx); err == nil {
		// An entry that does not open is reported by the receipts' own
		// check; its number is unknown, so no leaf is called removed.
		damaged := tx.Bucket(bucketReceipts).Stats().KeyN != len(w.order)
		held := map[uint64]bool{}
		for _, e := range w.order {
			num := binary.BigEndian.Uint64(e.key)
			held[num] = true
			if got, ok := f.receipts[num]; !ok || got != Digest(e.value[32:64]) {
				problems = append(problems, Problem{Detail: fmt.Sprintf("log: kept receipt #%d has no leaf with its digest in the log", num)})
			}
		}
		for num := range f.receipts {
			if !held[num] && !damaged {
				problems = append(problems, Problem{Detail: fmt.Sprintf("log: receipt #%d is in the log but not kept: it was removed", num)})
			}
		}
	}
	held := map[string]bool{}
	damaged := false
	tx.Bucket(bucketClaims).ForEach(func(k, v []byte) error {
		c, err := decodeCheck(k, v)
		if err != nil {
			damaged = true // the claims check reports it
			return nil
		}
		key := c.Namespace + "\x00" + c.RunID
		held[key] = true
		if got, ok := f.claims[key]; !ok || got != c.FileSHA256 {
			problems = append(problems, Problem{Detail: fmt.Sprintf("log: claims check %q/%q has no leaf with its file's digest in the log", c.Namespace, c.RunID)})
		}
		return nil
	})
	for key := range f.claims {
		if !held[key] && !damaged {
			problems = append(problems, Problem{Detail: fmt.Sprintf("log: claims check %q is in the log but not kept: it was removed", key)})
		}
	}
	problems = append(problems, f.compareOriginals(tx)...)
	tx.Bucket(bucketOriginals).ForEach(func(k, _ []byte) error {
		if len(k) == 64 && !f.originals[[64]byte(k)] {
			problems = append(problems, Problem{Detail: fmt.Sprintf("log: original receipt %x of document %x has no leaf in the log", k[32:], k[:32])})
		}
		return nil
	})
	return problems
}

// compareOriginals holds the original files and derivations to their
// leaves, both ways.
func (f *logFacts) compareOriginals(tx *bolt.Tx) []Problem {
	var problems []Problem
	add := func(format string, args ...any) {
		problems = append(problems, Problem{Detail: "log: " + fmt.Sprintf(format, args...)})
	}
	held := map[Digest]bool{}
	if b := tx.Bucket(bucketOrigFiles); b != nil {
		b.ForEach(func(k, _ []byte) error {
			rec, err := originalIn(tx, Digest(k))
			if err != nil {
				return nil // checkOriginals reports it
			}
			held[rec.SHA256] = true
			if size, ok := f.files[rec.SHA256]; !ok || size != rec.Size {
				add("original file %s has no leaf with its size in the log", rec.SHA256)
			}
			return nil
		})
	}
	for d := range f.files {
		if !held[d] && tx.Bucket(bucketOrigFiles).Get(d[:]) == nil {
			add("original file %s is in the log but not kept: it was removed", d)
		}
	}
	kept := map[string]bool{}
	if b := tx.Bucket(bucketDerivations); b != nil {
		b.ForEach(func(k, v []byte) error {
			body, ok := unseal(k, v)
			if !ok || len(k) < 72 {
				return nil // checkOriginals reports it
			}
			fact := derivationFact(Digest(k[:32]), Digest(k[32:64]), sha256.Sum256(body), string(k[72:]))
			kept[fact] = true
			if !f.derivations[fact] {
				add("the derivation of %x from %x has no leaf with its record's digest in the log", k[:32], k[32:64])
			}
			return nil
		})
	}
	for fact := range f.derivations {
		if !kept[fact] {
			add("the derivation of %x from %x is in the log but not kept: it was removed", fact[:32], fact[32:64])
		}
	}
	return problems
}

// derivationFact is what a derivation leaf states: output ‖ input ‖ the
// record's digest ‖ part.
func derivationFact(out, in, record Digest, part string) string {
	return string(out[:]) + string(in[:]) + string(record[:]) + part
}
