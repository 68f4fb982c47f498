package db

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/casper-chronicle/chronicle/engine/settle"
	"github.com/casper-chronicle/chronicle/index"

	bolt "go.etcd.io/bbolt"
)

// Settlement across documents.
//
// A settlement question over several documents is the reasoner of CONTRACT 9,
// unchanged (settle.EvaluateSequence), over one event sequence: the chosen
// documents in import order (their sequence numbers), each document's
// events in source order. By default the documents are the archive's
// #1..#S, S being its highest sequence number when the question is asked;
// a chosen set is a list of documents.
//
// The reasoner only looks at events whose subject is a borrower the
// question can select or whose object is a lender it can select
// (settle.Candidates): debts, their contradictions, payments, duplicates
// (all with the borrower as subject), and intermediary links and their
// contradictions (with the lender as object). So the sequence is gathered
// from the entity index: the events naming each candidate borrower as
// subject and each candidate lender as object, re-derived from the spans
// the index keeps and re-hashed (Entity), merged in import then source
// order. The cost follows the events that name the pair, never the size of
// the archive; no document is decompressed.

// CrossSettlement is the answer to a settlement question across documents.
type CrossSettlement struct {
	Result *settle.Settlement // its JSON is the canonical result (CONTRACT 5.1, each evidence naming its document)
	// Docs are the documents the answer cites (those of its evidence), in
	// import order.
	Docs []*Document
	// Chosen is the chosen set in import order; nil for documents #1..#UpTo.
	Chosen []*Document
	UpTo   uint64 // without a chosen set: the answer ran over documents #1..#UpTo
}

// Doc returns the document of an evidence (by its Document digest), nil
// when it is not one of Docs.
func (c *CrossSettlement) Doc(digest [32]byte) *Document {
	for _, d := range c.Docs {
		if d.SHA256 == digest {
			return d
		}
	}
	return nil
}

// Participants are the documents that hold evidence of the answer, in
// import order.
func (c *CrossSettlement) Participants() []*Document { return c.Docs }

// ErrNoDocuments: a chosen set is empty.
var ErrNoDocuments = errors.New("no documents chosen")

// Settle answers a settlement question across documents: over documents
// #1..#S (S being the archive's highest sequence number now) when chosen is
// empty, else over the chosen documents (repeats count once) in import
// order. It reads nothing but the entity index and writes nothing.
func (a *Archive) Settle(question string, chosen []*Document) (*CrossSettlement, error) {
	if len(chosen) > 0 {
		return a.settleChosen(question, chosen)
	}
	var upTo uint64
	if err := a.bolt.View(func(tx *bolt.Tx) error { upTo = maxSeq(tx); return nil }); err != nil {
		return nil, err
	}
	return a.SettleUpTo(question, upTo)
}

// SettleUpTo is Settle over documents #1..#upTo: the answer the archive
// gave when it held upTo documents.
func (a *Archive) SettleUpTo(question string, upTo uint64) (*CrossSettlement, error) {
	c, err := a.settleOver(question, func(seq uint64) bool { return seq <= upTo })
	if err != nil {
		return nil, err
	}
	c.UpTo = upTo
	return c, nil
}

func (a *Archive) settleChosen(question string, chosen []*Document) (*CrossSettlement, error) {
	set := importOrder(chosen)
	bySeq := make(map[uint64]bool, len(set))
	for _, d := range set {
		bySeq[d.Seq] = true
	}
	c, err := a.settleOver(question, func(seq uint64) bool { return bySeq[seq] })
	if err != nil {
		return nil, err
	}
	c.Chosen = set
	return c, nil
}

// importOrder returns the documents sorted by sequence number, each once.
func importOrder(docs []*Document) []*Document {
	set := slices.Clone(docs)
	slices.SortFunc(set, func(x, y *Document) int { return cmp.Compare(x.Seq, y.Seq) })
	return slices.CompactFunc(set, func(x, y *Document) bool { return x.Seq == y.Seq })
}

// settleOver gathers the sequence of the documents keep admits, runs the
// reasoner over it and reads the records of the documents it cites.
func (a *Archive) settleOver(question string, keep func(seq uint64) bool) (*CrossSettlement, error) {
	seq, seqOf, err := a.gatherSequence(question, keep)
	if err != nil {
		return nil, err
	}
	res, err := settle.EvaluateSequence(seq, question)
	if err != nil {
		return nil, err
	}
	cited := map[uint64]Digest{}
	for _, e := range res.Evidence {
		cited[seqOf[e.Document]] = e.Document
	}
	docs, err := a.docsBySeq(cited)
	if err != nil {
		return nil, err
	}
	return &CrossSettlement{Result: res, Docs: docs}, nil
}

// gatherSequence returns the events of the admitted documents that name a
// candidate borrower of the question as subject or a candidate lender as
// object, in import then source order, and the sequence number of each
// of their documents.
func (a *Archive) gatherSequence(question string, keep func(seq uint64) bool) ([]settle.SequenceEvent, map[Digest]uint64, error) {
	roles := map[string]index.Role{} // the role of each name, 0 for both
	var names []string
	for _, p := range settle.Candidates(question) {
		for _, c := range []struct {
			name string
			role index.Role
		}{{p.Borrower, index.RoleSubject}, {p.Lender, index.RoleObject}} {
			r, seen := roles[c.name]
			switch {
			case !seen:
				names = append(names, c.name)
				roles[c.name] = c.role
			case r != c.role:
				roles[c.name] = 0
			}
		}
	}
	type key struct {
		seq   uint64
		event int
	}
	picked := map[key]*EntityHit{}
	for _, n := range names {
		hits, err := a.entity(entityQuery{name: n, role: roles[n]})
		if err != nil {
			return nil, nil, err
		}
		for i := range hits {
			if h := &hits[i]; keep(h.Seq) {
				picked[key{h.Seq, h.Index}] = h
			}
		}
	}
	keys := make([]key, 0, len(picked))
	for k := range picked {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y key) int {
		return cmp.Or(cmp.Compare(x.seq, y.seq), cmp.Compare(x.event, y.event))
	})
	seq := make([]settle.SequenceEvent, len(keys))
	seqOf := map[Digest]uint64{}
	for i, k := range keys {
		h := picked[k]
		seq[i] = settle.SequenceEvent{Document: h.Document, Index: h.Index, Event: h.Event, Text: string(h.Text)}
		seqOf[h.Document] = k.seq
	}
	return seq, seqOf, nil
}

// AttachDocs reads into each hit's Doc the record of its document (for
// hits of EntityEvents), which must be the document the hit names.
func (a *Archive) AttachDocs(hits []EntityHit) error {
	want := map[uint64]Digest{}
	for _, h := range hits {
		want[h.Seq] = h.Document
	}
	docs, err := a.docsBySeq(want)
	if err != nil {
		return err
	}
	bySeq := make(map[uint64]*Document, len(docs))
	for _, d := range docs {
		bySeq[d.Seq] = d
	}
	for i := range hits {
		h := &hits[i]
		if d := bySeq[h.Seq]; d.SHA256 != h.Document {
			return misnamed(d, h.Document)
		}
		h.Doc = bySeq[h.Seq]
	}
	return a.attachOrigins(hits)
}

// attachOrigins sets the From of each hit whose document was derived
// from an original file.
func (a *Archive) attachOrigins(hits []EntityHit) error {
	return a.bolt.View(func(tx *bolt.Tx) error {
		seen := map[Digest]*Derivation{}
		for i := range hits {
			h := &hits[i]
			from, ok := seen[h.Document]
			if !ok {
				var err error
				if from, err = originOf(tx, h.Document); err != nil {
					return err
				}
				seen[h.Document] = from
			}
			h.From = from
		}
		return nil
	})
}

// docsBySeq reads the records of the documents numbered in want, each of
// which must be the document its digest names, in import order.
func (a *Archive) docsBySeq(want map[uint64]Digest) ([]*Document, error) {
	seqs := slices.Sorted(maps.Keys(want))
	docs := make([]*Document, 0, len(seqs))
	err := a.bolt.View(func(tx *bolt.Tx) error {
		for _, s := range seqs {
			d, err := docBySeq(tx, s)
			if err != nil {
				return err
			}
			if d.SHA256 != want[s] {
				return misnamed(d, want[s])
			}
			docs = append(docs, d)
		}
		return nil
	})
	return docs, err
}

// SettleResult is the canonical result a settle receipt binds: the
// settlement's JSON (CONTRACT 5.1), the line `settle --json` prints.
func SettleResult(c *CrossSettlement) []byte { return c.Result.JSON() }

// IssueSettle answers Settle and issues its ARCHIVE-SETTLE receipt without
// keeping it (reading never writes): over documents #1..#S it binds S and
// their SetDigest; over a chosen set, the set's document digests in import
// order and their SetDigest.
func (a *Archive) IssueSettle(question string, chosen []*Document) (*CrossSettlement, *SetReceipt, error) {
	if err := checkSetQuestion(question, 0); err != nil {
		return nil, nil, err
	}
	if len(chosen) > 0 {
		c, err := a.settleChosen(question, chosen)
		if err != nil {
			return nil, nil, err
		}
		r := &SetReceipt{Kind: KindArchiveSettle, Documents: uint64(len(c.Chosen)), Set: SetDigest(c.Chosen),
			Question: question, Result: sha256.Sum256(SettleResult(c))}
		for _, d := range c.Chosen {
			r.Chosen = append(r.Chosen, d.SHA256)
		}
		if n := len(r.Encode()); n > MaxReceiptSize {
			return nil, nil, fmt.Errorf("%w: a receipt for %d chosen documents is %d bytes, at most %d are read back; settle over all documents instead",
				ErrReceipt, len(c.Chosen), n, MaxReceiptSize)
		}
		return c, r, nil
	}
	upTo, set, err := a.currentSet()
	if err != nil {
		return nil, nil, err
	}
	c, err := a.SettleUpTo(question, upTo)
	if err != nil {
		return nil, nil, err
	}
	r := &SetReceipt{Kind: KindArchiveSettle, Documents: upTo, Set: set, Question: question,
		Result: sha256.Sum256(SettleResult(c))}
	return c, r, nil
}

// SettleWithReceipt is IssueSettle, then keeps the receipt in the archive.
func (a *Archive) SettleWithReceipt(question string, chosen []*Document) (*CrossSettlement, *SetReceipt, error) {
	c, r, err := a.IssueSettle(question, chosen)
	if err == nil {
		err = a.KeepSetReceipt(r)
	}
	if err != nil {
		return nil, nil, err
	}
	return c, r, nil
}

// chosenDocs returns the documents a chosen-set receipt names, in its
// order; a missing one is ErrReceiptSetMissing.
func chosenDocs(tx *bolt.Tx, digests []Digest) ([]*Document, error) {
	docs := make([]*Document, 0, len(digests))
	for _, dg := range digests {
		raw := tx.Bucket(bucketDocs).Get(dg[:])
		if raw == nil {
			return nil, fmt.Errorf("%w: document %s", ErrReceiptSetMissing, dg)
		}
		d, err := decodeDocument(dg[:], raw)
		if err != nil {
			return nil, err
		}
		if err := checkSeqOf(tx, d); err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// replaySettle re-runs a settle receipt's question over its bound
// documents (docs: #1..#S, or the chosen set) and returns the canonical
// result.
func (a *Archive) replaySettle(r *SetReceipt, docs []*Document) ([]byte, error) {
	var c *CrossSettlement
	var err error
	if len(r.Chosen) > 0 {
		c, err = a.settleChosen(r.Question, docs)
	} else {
		c, err = a.SettleUpTo(r.Question, r.Documents)
	}
	if err != nil {
		return nil, err
	}
	return SettleResult(c), nil
}

// misnamed is the error of an entity index entry naming document other
// where d's sequence number is.
func misnamed(d *Document, other Digest) error {
	return fmt.Errorf("document %s (%s): %w: the entity index names document %s as #%d (run `chronicle check`, then `chronicle reindex`)", d.Label(), d.SHA256, ErrCorrupt, other, d.Seq)
}
