package db

import (
	"errors"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// OriginalInput is one original file of IngestDerived: a file given to
// ingest (Parent -1) or an original found inside another one (an
// attachment, an mbox message: Parent is its index, Part its place there,
// Tool what took it out).
type OriginalInput struct {
	Data        []byte
	Kind        string
	ContentType string
	Names       []string
	Parent      int
	Part        string
	Tool        Tool
}

// DerivedText is a text derived from originals[Original] (Part in it, by
// Tool), ingested as a document under Names.
type DerivedText struct {
	Original int
	Part     string
	Tool     Tool
	Text     []byte
	Names    []string
	// File is the path the original file was given as, for the text of
	// the file itself: kept as the document's source path (Resolve).
	File string
	// Chosen: names the user chose for the file (--name), given to the
	// file's own text and checked as IngestFile checks them.
	Chosen []string
}

// DerivedResult is what IngestDerived stored: the originals' digests, in
// order, and each text's ingest.
type DerivedResult struct {
	Originals []Digest
	Texts     []*IngestResult
	Tools     []Tool   // the tool of each text
	Names     []string // the name each text was ingested under first
}

// IngestDerived keeps originals byte for byte and ingests texts as
// documents, each linked to the original it came from by a derivation,
// all in one write transaction: nothing is written unless everything is.
// A text that is not a valid source (the grammar rejects it) returns its
// error and writes nothing.
func (a *Archive) IngestDerived(importedAt uint64, originals []OriginalInput, texts []DerivedText) (*DerivedResult, error) {
	set := &DerivedSet{Originals: originals, Texts: texts}
	if err := a.prepareDerived(set, importedAt, nil); err != nil {
		return nil, err
	}
	return a.ingestDerivedSet(set)
}

// ingestDerivedSet is IngestDerived of a set prepareDerived prepared.
func (a *Archive) ingestDerivedSet(set *DerivedSet) (*DerivedResult, error) {
	if a.bolt == nil { // released between files
		if err := a.reacquire(false); err != nil {
			return nil, err
		}
		defer a.Release()
	}
	var (
		res   *DerivedResult
		after []func()
	)
	err := a.update(func(tx *bolt.Tx) error {
		var err error
		res, after, err = a.ingestDerivedIn(tx, set)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, f := range after {
		f()
	}
	return res, nil
}

// prepareDerived checks set and prepares its texts (extraction, indexes,
// compression: the expensive part, which may fail), outside any write
// transaction; a batch does it on its preparing goroutines. known is as
// PrepareUnlessKnown's.
func (a *Archive) prepareDerived(set *DerivedSet, importedAt uint64, known map[Digest]bool) error {
	for i, o := range set.Originals {
		if o.Parent >= i || o.Parent < -1 {
			return fmt.Errorf("ingest: original %d names original %d as its parent", i, o.Parent)
		}
	}
	set.kept = make([]*keptOriginal, len(set.Originals))
	for i, o := range set.Originals {
		set.kept[i] = keepOriginal(o.Data)
	}
	set.prepared, set.importedAt = make([]*Prepared, len(set.Texts)), importedAt
	for i, t := range set.Texts {
		if t.Original < 0 || t.Original >= len(set.Originals) {
			return fmt.Errorf("ingest: text %d names original %d of %d", i, t.Original, len(set.Originals))
		}
		pp := a.PrepareUnlessKnown(t.Text, importedAt, known)
		if pp.err != nil {
			return fmt.Errorf("%s: %w", textLabel(set.Originals, t), pp.err)
		}
		set.prepared[i] = pp
	}
	return nil
}

// ingestDerivedIn is the part of IngestDerived that runs in the write
// transaction (set prepared by prepareDerived); after must be called once
// tx has committed.
func (a *Archive) ingestDerivedIn(tx *bolt.Tx, set *DerivedSet) (res *DerivedResult, after []func(), err error) {
	originals, texts, importedAt := set.Originals, set.Texts, set.importedAt
	res = &DerivedResult{Originals: make([]Digest, len(originals)), Texts: make([]*IngestResult, len(texts)),
		Tools: make([]Tool, len(texts)), Names: make([]string, len(texts))}
	for i, o := range originals {
		var kept *keptOriginal
		if set.kept != nil {
			kept = set.kept[i]
		} else { // not prepared: a rejected file's originals
			kept = keepOriginal(o.Data)
		}
		d, err := putOriginal(tx, kept, o.Kind, o.ContentType, o.Names, importedAt)
		if err != nil {
			return nil, nil, err
		}
		res.Originals[i] = d
		if o.Parent >= 0 {
			if err := putDerivation(tx, &Derivation{Output: d, OutputKind: "original", Input: res.Originals[o.Parent], Part: o.Part, Tool: o.Tool}); err != nil {
				return nil, nil, err
			}
		}
	}
	for i, t := range texts {
		var file *fileNames
		names := t.Names
		switch {
		case t.File != "":
			file = &fileNames{path: t.File, abs: AbsPath(t.File), chosen: t.Chosen}
			names = append(append([]string{t.File}, names...), t.Chosen...)
		case len(t.Chosen) > 0:
			file = &fileNames{chosen: t.Chosen}
			names = append(slices.Clone(names), t.Chosen...)
		}
		pp := set.prepared[i]
		r, committed, err := a.ingestIn(tx, a.lazy(pp.src, pp.importedAt, pp), names, file)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", textLabel(originals, t), err)
		}
		after = append(after, committed)
		res.Texts[i], res.Tools[i], res.Names[i] = r, t.Tool, names[0]
		if i == 0 {
			r.Derived = res
		}
		dv := &Derivation{Output: r.Doc.SHA256, OutputKind: "document", Input: res.Originals[t.Original], Part: t.Part, Tool: t.Tool}
		if err := putDerivation(tx, dv); err != nil {
			return nil, nil, err
		}
		// The DERIVE receipt: verify re-derives the text from the
		// original with the same tool and compares bytes.
		if err := putReceipt(tx, &Receipt{Kind: KindDerive, Document: r.Doc.SHA256, Store: r.Doc.StoreSHA256,
			Question: DeriveQuestion(dv), Result: r.Doc.SHA256}); err != nil {
			return nil, nil, err
		}
	}
	return res, after, nil
}

// textLabel names a derived text in an error: its original's first name
// and its part.
func textLabel(originals []OriginalInput, t DerivedText) string {
	name := "an original"
	if o := originals[t.Original]; len(o.Names) > 0 {
		name = o.Names[0]
	}
	if t.Part != "" {
		return name + " (" + t.Part + ")"
	}
	return name
}

// Original returns the record of original file d.
func (a *Archive) Original(d Digest) (*OriginalFile, error) {
	var rec *OriginalFile
	err := a.bolt.View(func(tx *bolt.Tx) (err error) {
		rec, err = originalIn(tx, d)
		return err
	})
	return rec, err
}

// OriginalBytes returns original file d's bytes, checked against its
// digest, and its record.
func (a *Archive) OriginalBytes(d Digest) ([]byte, *OriginalFile, error) {
	var (
		data []byte
		rec  *OriginalFile
	)
	err := a.bolt.View(func(tx *bolt.Tx) (err error) {
		if rec, err = originalIn(tx, d); err != nil {
			return err
		}
		data, err = originalBytes(tx, rec)
		return err
	})
	return data, rec, err
}

// DerivedFrom returns the derivations of output d (a document or an inner
// original): what it was derived from, nearest first, up to the file that
// was ingested. A document ingested as text has none.
func (a *Archive) DerivedFrom(d Digest) ([]Derivation, error) {
	var chain []Derivation
	err := a.bolt.View(func(tx *bolt.Tx) error {
		seen := map[Digest]bool{}
		for at := d; !seen[at]; {
			seen[at] = true
			dv, err := originOf(tx, at)
			if err != nil || dv == nil {
				return err
			}
			chain = append(chain, *dv)
			at = dv.Input
		}
		return nil
	})
	return chain, err
}

// Origin returns the derivation document d came from (the first, when
// two versions of a tool derived it), with its input's kind; nil for a
// text ingested as it is.
func (a *Archive) Origin(d Digest) (*Derivation, error) {
	var dv *Derivation
	err := a.bolt.View(func(tx *bolt.Tx) (err error) {
		dv, err = originOf(tx, d)
		return err
	})
	return dv, err
}

// HasOriginals reports whether the archive keeps any original file (one
// cursor step: a listing's footnote must not read the whole bucket).
func (a *Archive) HasOriginals() (bool, error) {
	has := false
	err := a.bolt.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketOrigFiles); b != nil {
			k, _ := b.Cursor().First()
			has = k != nil
		}
		return nil
	})
	return has, err
}

// OriginalFiles returns the records of every original file, in digest order.
func (a *Archive) OriginalFiles() ([]*OriginalFile, error) {
	var out []*OriginalFile
	err := a.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketOrigFiles)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, _ []byte) error {
			if len(k) != len(Digest{}) {
				return fmt.Errorf("%w: bucket %s holds a key of %d bytes", ErrCorrupt, bucketOrigFiles, len(k))
			}
			rec, err := originalIn(tx, Digest(k))
			if err != nil {
				return err
			}
			out = append(out, rec)
			return nil
		})
	})
	return out, err
}

// Derivations returns every derivation whose input is original d: the
// texts and inner originals derived from it.
func (a *Archive) Derivations(d Digest) ([]Derivation, error) {
	all, err := a.AllDerivations()
	return all[d], err
}

// AllDerivations returns every derivation, checked, by input.
func (a *Archive) AllDerivations() (map[Digest][]Derivation, error) {
	out := map[Digest][]Derivation{}
	err := a.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDerivations)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			dv, err := decodeDerivation(k, v)
			if err != nil {
				return err
			}
			out[dv.Input] = append(out[dv.Input], *dv)
			return nil
		})
	})
	return out, err
}

// checkOriginals checks every original file (record, chunks, digest) and
// every derivation (its seal, its input kept, its output kept as a
// document or an original), and reports each problem once.
func checkOriginals(tx *bolt.Tx, problem func(what string)) {
	if b := tx.Bucket(bucketOrigFiles); b != nil {
		_ = b.ForEach(func(k, _ []byte) error {
			rec, err := originalIn(tx, Digest(k))
			if err == nil {
				_, err = originalBytes(tx, rec)
			}
			if err != nil {
				problem(err.Error())
			}
			return nil
		})
	}
	b := tx.Bucket(bucketDerivations)
	if b == nil {
		return
	}
	_ = b.ForEach(func(k, v []byte) error {
		dv, err := decodeDerivation(k, v)
		if err != nil {
			problem(err.Error())
			return nil
		}
		if _, err := originalIn(tx, dv.Input); err != nil {
			problem(fmt.Sprintf("a derivation names original file %x, which the archive does not keep", dv.Input[:]))
		}
		switch dv.OutputKind {
		case "document":
			if tx.Bucket(bucketDocs).Get(dv.Output[:]) == nil {
				problem(fmt.Sprintf("a derivation names document %x, which the archive does not hold", dv.Output[:]))
			}
		case "original":
			if _, err := originalIn(tx, dv.Output); errors.Is(err, ErrNoOriginal) {
				problem(fmt.Sprintf("a derivation names original file %x, which the archive does not keep", dv.Output[:]))
			}
		default:
			problem(fmt.Sprintf("a derivation of %x has output kind %q", dv.Output[:], dv.OutputKind))
		}
		return nil
	})
}

// derivationsOf returns the checked derivations whose output is d.
func (a *Archive) derivationsOf(d Digest) ([]Derivation, error) {
	var out []Derivation
	err := a.bolt.View(func(tx *bolt.Tx) (err error) {
		out, err = derivationsOf(tx, d)
		return err
	})
	return out, err
}
