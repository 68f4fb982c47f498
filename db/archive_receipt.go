package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"

	"github.com/casper-chronicle/chronicle/engine/canonjson"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"
	"github.com/casper-chronicle/chronicle/index"

	bolt "go.etcd.io/bbolt"
)

// Cross-archive receipts.
//
// A cross-archive find or entity answer is a function of the documents it
// ran over and of the question. The archive is append-only and numbers its
// documents in import order (Document.Seq, from 1, without gaps), so "the
// documents it ran over" is the prefix #1..#S of the archive, S being the
// highest sequence number when the question was answered. A SetReceipt binds
// S, a digest of that prefix (SetDigest), the question and the digest of the
// canonical result. Later imports do not change the prefix: the receipt
// still verifies, the question being replayed over documents #1..#S only.

// SetReceiptHeader starts every cross-archive receipt.
const SetReceiptHeader = "CHRONICLE-ARCHIVE-SET-RECEIPT-V1"

// Cross-archive receipt kinds.
const (
	// KindArchiveFind is `find TERMS [--limit N]` without --doc.
	KindArchiveFind ReceiptKind = "ARCHIVE-FIND"
	// KindEntity is `entity NAME`.
	KindEntity ReceiptKind = "ENTITY"
	// KindArchiveSettle is `settle QUESTION [--doc DOC]...` (db/settle.go):
	// documents #1..#S, or a chosen set listed by its document digests.
	KindArchiveSettle ReceiptKind = "ARCHIVE-SETTLE"
)

// MaxLimit is the largest find limit a receipt carries.
const MaxLimit = math.MaxInt32

// SetReceipt is a cross-archive receipt:
//
//	CHRONICLE-ARCHIVE-SET-RECEIPT-V1
//	kind:<ARCHIVE-FIND|ENTITY>
//	documents:<S: decimal, at least 1, no leading zeros>
//	set_sha256:<64 hex: SetDigest of documents #1..#S>
//	question_hex:<hex of the find terms, or of the entity name>
//	limit:<decimal: the find limit, 0 for no limit; always 0 for ENTITY>
//	result_sha256:<64 hex: SHA-256 of the canonical result>
//
// Lines end with LF, in exactly this order; the parser accepts only this
// canonical form (lowercase hex, no leading zeros). The canonical result
// is FindResult or EntityResult of the answer: the JSON Lines the commands
// print, without the "names" member, since names can change after the
// receipt was issued.
type SetReceipt struct {
	Kind      ReceiptKind
	Documents uint64 // S: the receipt binds documents #1..#S
	Set       Digest // SetDigest of documents #1..#S
	Question  string // find terms or entity name, exact bytes
	Limit     int    // ARCHIVE-FIND: at most Limit documents, 0 for all; ENTITY, ARCHIVE-SETTLE: 0
	Result    Digest
	// Chosen (ARCHIVE-SETTLE only) lists a chosen set's document digests
	// in import order; Documents is then their number and Set their
	// SetDigest. Nil for documents #1..#S. See settleReceiptLines.
	Chosen []Digest
}

// Encode renders the canonical receipt bytes.
func (r *SetReceipt) Encode() []byte {
	return fmt.Appendf(nil, "%s\nkind:%s\ndocuments:%d\n%sset_sha256:%s\nquestion_hex:%s\nlimit:%d\nresult_sha256:%s\n",
		SetReceiptHeader, r.Kind, r.Documents, chosenLines(r.Chosen), r.Set, hex.EncodeToString([]byte(r.Question)), r.Limit, r.Result)
}

// ID is the SHA-256 of the receipt bytes; `receipts` lists it.
func (r *SetReceipt) ID() Digest { return sha256.Sum256(r.Encode()) }

// IsSetReceipt reports whether data claims to be a cross-archive receipt.
func IsSetReceipt(data []byte) bool {
	return bytes.HasPrefix(data, []byte(SetReceiptHeader+"\n"))
}

// ParseSetReceipt reads a cross-archive receipt strictly: the seven lines
// in order, LF endings, lowercase hex, canonical decimals, nothing else.
// Errors wrap ErrReceipt.
func ParseSetReceipt(data []byte) (*SetReceipt, error) {
	original := data
	data, chosen, err := cutChosenLines(data) // ARCHIVE-SETTLE over a chosen set
	if err != nil {
		return nil, err
	}
	vals, err := receiptFields(data, SetReceiptHeader, "kind:", "documents:", "set_sha256:", "question_hex:", "limit:", "result_sha256:")
	if err != nil {
		return nil, err
	}
	r := &SetReceipt{Kind: ReceiptKind(vals[1]), Chosen: chosen}
	switch r.Kind {
	case KindArchiveFind, KindEntity, KindArchiveSettle:
	default:
		return nil, fmt.Errorf("%w: line 2: kind %.20q is not ARCHIVE-FIND, ENTITY or ARCHIVE-SETTLE", ErrReceipt, vals[1])
	}
	n, err := strconv.ParseUint(vals[2], 10, 64)
	if err != nil || n == 0 {
		return nil, fmt.Errorf("%w: line 3: documents %.24q is not a count of at least 1", ErrReceipt, vals[2])
	}
	r.Documents = n
	if r.Question, err = decodeFields(vals, map[int]*Digest{3: &r.Set, 6: &r.Result}, 4); err != nil {
		return nil, err
	}
	limit, err := strconv.ParseUint(vals[5], 10, 31)
	if err != nil {
		return nil, fmt.Errorf("%w: line 6: limit %.24q is not a count of at most %d", ErrReceipt, vals[5], MaxLimit)
	}
	r.Limit = int(limit)
	if r.Kind == KindEntity && r.Limit != 0 {
		return nil, fmt.Errorf("%w: an ENTITY receipt carries limit 0", ErrReceipt)
	}
	if err := checkSettleReceipt(r); err != nil {
		return nil, err
	}
	// Only the canonical spelling is accepted.
	if !bytes.Equal(r.Encode(), original) {
		return nil, fmt.Errorf("%w: not in canonical form (lowercase hex, decimals without leading zeros, exact layout)", ErrReceipt)
	}
	return r, nil
}

// SetDigest is the digest a cross-archive receipt binds its documents by:
// the SHA-256 of, for each document #1..#S in import order, its document
// SHA-256 followed by its store SHA-256 (64 bytes per document, no
// separators).
func SetDigest(docs []*Document) Digest {
	h := sha256.New()
	for _, d := range docs {
		h.Write(d.SHA256[:])
		h.Write(d.StoreSHA256[:])
	}
	return Digest(h.Sum(nil))
}

// Reasons a cross-archive receipt is refused or INVALID.
var (
	// ErrEmptyArchive: there is no document for a receipt to bind.
	ErrEmptyArchive = errors.New("the archive holds no documents: a cross-archive receipt binds at least one (ingest documents first)")
	// ErrReceiptSet: documents #1..#S are not the receipt's.
	ErrReceiptSet = errors.New("the archive's documents differ from the receipt's set_sha256")
	// ErrReceiptSetMissing: the archive lacks one of documents #1..#S.
	ErrReceiptSetMissing = errors.New("a document the receipt binds is missing from the archive")
)

// prefixDocs returns documents #1..#upTo in import order. A missing one is
// ErrReceiptSetMissing.
func prefixDocs(tx *bolt.Tx, upTo uint64) ([]*Document, error) {
	if n := maxSeq(tx); upTo > n {
		return nil, fmt.Errorf("%w: it binds documents #1..#%d, the archive holds %d", ErrReceiptSetMissing, upTo, n)
	}
	docs := make([]*Document, 0, upTo)
	for seq := uint64(1); seq <= upTo; seq++ {
		if tx.Bucket(bucketSeqs).Get(seqKey(seq)) == nil {
			return nil, fmt.Errorf("%w: document #%d has no sequence entry", ErrReceiptSetMissing, seq)
		}
		d, err := docBySeq(tx, seq)
		if err != nil {
			return nil, err
		}
		if d.Seq != seq {
			return nil, fmt.Errorf("document #%d: %w: its sequence entry points at document %s, numbered #%d", seq, ErrCorrupt, d.SHA256, d.Seq)
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// currentSet returns the archive's highest sequence number S and the
// SetDigest of documents #1..#S.
func (a *Archive) currentSet() (uint64, Digest, error) {
	var upTo uint64
	var set Digest
	err := a.bolt.View(func(tx *bolt.Tx) error {
		upTo = maxSeq(tx)
		if upTo == 0 {
			return ErrEmptyArchive
		}
		docs, err := prefixDocs(tx, upTo)
		if err != nil {
			return err
		}
		set = SetDigest(docs)
		return nil
	})
	return upTo, set, err
}

// EntityUpTo is Entity over documents #1..#upTo: the answer the archive
// gave when it held upTo documents.
func (a *Archive) EntityUpTo(name string, upTo uint64) ([]EntityHit, error) {
	if upTo == 0 {
		return nil, nil
	}
	return a.entity(entityQuery{name: name, upTo: upTo, docs: true})
}

// FindHitJSON renders one cross-archive find hit as the command prints it,
// {"document_sha256":…,"names":[…],"result":R}, or without the "names"
// member when names is false (the canonical form a receipt binds).
func FindHitJSON(h *FindHit, names bool) []byte {
	var j canonjson.Buf
	openHit(&j, h.Doc.SHA256, h.Doc, names)
	if names {
		appendOrigin(&j, h.From)
	}
	j.Key("result", false)
	j.Raw(string(h.Result.JSON()))
	j.Raw("}")
	return j.Bytes()
}

// FindResult is the canonical result of a cross-archive find that a
// receipt binds: FindHitJSON without names, one line (LF-terminated) per
// hit in rank order; no bytes when nothing matches.
func FindResult(hits []FindHit) []byte {
	return resultLines(hits, FindHitJSON)
}

// EntityHitJSON renders one entity hit as `entity NAME` prints it
// (document_sha256, names, role, predicate, other, amount, currency, time,
// modality, polarity, status and the CONTRACT 5.1 evidence object), or without
// the "names" member when names is false (the canonical form a receipt
// binds, which needs no record: h.Doc may be nil).
func EntityHitJSON(h *EntityHit, names bool) []byte {
	e := &h.Event
	var j canonjson.Buf
	openHit(&j, h.Document, h.Doc, names)
	if names {
		appendOrigin(&j, h.From)
	}
	j.Key("role", false)
	j.Str(h.Role.String())
	j.Key("predicate", false)
	j.Str(e.Predicate)
	other := e.Object
	if h.Role == index.RoleObject {
		other = e.Subject
	}
	j.Key("other", false)
	j.Str(other)
	j.Key("amount", false)
	if e.AmountPresent {
		j.Fraction(e.Amount.Num, e.Amount.Den)
	} else {
		j.Raw("null")
	}
	for _, f := range []struct{ k, v string }{{"currency", e.Currency}, {"time", e.Time}, {"modality", e.Modality}, {"polarity", e.Polarity}, {"status", e.Status}} {
		j.Key(f.k, false)
		j.Str(f.v)
	}
	j.Key("evidence", false)
	settle.AppendEvidence(&j, h.Document, e, string(h.Text))
	j.Raw("}")
	return j.Bytes()
}

// EntityResult is the canonical result of an entity lookup that a receipt
// binds: EntityHitJSON without names, one line (LF-terminated) per event
// in import then source order; no bytes when no event names the entity.
func EntityResult(hits []EntityHit) []byte {
	return resultLines(hits, EntityHitJSON)
}

// openHit starts a hit object of a cross-archive answer:
// {"document_sha256":sha, then "names":[…] of d when names is set (d is
// read only then).
func openHit(j *canonjson.Buf, sha Digest, d *Document, names bool) {
	j.Raw("{")
	j.Key("document_sha256", true)
	j.Digest(sha)
	if names {
		j.Key("names", false)
		appendNames(j, d.Names)
	}
}

// resultLines is the canonical result a cross-archive receipt binds: the
// hit objects without names, one line (LF-terminated) each, in order; no
// bytes when there is no hit.
func resultLines[H any](hits []H, hitJSON func(h *H, names bool) []byte) []byte {
	var out []byte
	for i := range hits {
		out = append(append(out, hitJSON(&hits[i], false)...), '\n')
	}
	return out
}

func appendNames(j *canonjson.Buf, names []string) {
	j.Raw("[")
	for i, n := range names {
		if i > 0 {
			j.Raw(",")
		}
		j.Str(n)
	}
	j.Raw("]")
}

// FindWithReceipt is IssueFind, then keeps the receipt in the archive.
func (a *Archive) FindWithReceipt(q *find.Query, limit int) ([]FindHit, *SetReceipt, error) {
	hits, r, err := a.IssueFind(q, limit)
	if err == nil {
		err = a.KeepSetReceipt(r)
	}
	if err != nil {
		return nil, nil, err
	}
	return hits, r, nil
}

// IssueFind answers a cross-archive find (see FindWithStats) over
// documents #1..#S, S being the archive's document count now, and issues
// its ARCHIVE-FIND receipt without keeping it (reading never writes).
// limit <= 0 keeps every document.
func (a *Archive) IssueFind(q *find.Query, limit int) ([]FindHit, *SetReceipt, error) {
	if limit < 0 {
		limit = 0
	}
	if err := checkSetQuestion(q.Text(), limit); err != nil {
		return nil, nil, err
	}
	upTo, set, err := a.currentSet()
	if err != nil {
		return nil, nil, err
	}
	hits, _, err := a.FindUpTo(q, limit, upTo)
	if err != nil {
		return nil, nil, err
	}
	r := &SetReceipt{Kind: KindArchiveFind, Documents: upTo, Set: set, Question: q.Text(), Limit: limit,
		Result: sha256.Sum256(FindResult(hits))}
	return hits, r, nil
}

// EntityWithReceipt is IssueEntity, then keeps the receipt in the archive.
func (a *Archive) EntityWithReceipt(name string) ([]EntityHit, *SetReceipt, error) {
	hits, r, err := a.IssueEntity(name)
	if err == nil {
		err = a.KeepSetReceipt(r)
	}
	if err != nil {
		return nil, nil, err
	}
	return hits, r, nil
}

// IssueEntity answers Entity(name) over documents #1..#S, S being the
// archive's document count now, and issues its ENTITY receipt without
// keeping it.
func (a *Archive) IssueEntity(name string) ([]EntityHit, *SetReceipt, error) {
	if err := checkSetQuestion(name, 0); err != nil {
		return nil, nil, err
	}
	upTo, set, err := a.currentSet()
	if err != nil {
		return nil, nil, err
	}
	hits, err := a.EntityUpTo(name, upTo)
	if err != nil {
		return nil, nil, err
	}
	r := &SetReceipt{Kind: KindEntity, Documents: upTo, Set: set, Question: name, Result: sha256.Sum256(EntityResult(hits))}
	return hits, r, nil
}

func checkSetQuestion(question string, limit int) error {
	if len(question) > MaxQuestion {
		return fmt.Errorf("%w: the question is %d bytes, at most %d are kept", ErrReceipt, len(question), MaxQuestion)
	}
	if limit > MaxLimit {
		return fmt.Errorf("%w: the limit %d is above %d", ErrReceipt, limit, MaxLimit)
	}
	return nil
}

// KeepSetReceipt stores a cross-archive receipt. It is kept under the key
// of document #S (the last document it binds) followed by its ID, so the
// document receipts of #S (Receipts) and `check` see it belong to a
// present document; Receipts does not list it, SetReceipts does.
func (a *Archive) KeepSetReceipt(r *SetReceipt) error {
	if len(r.Question) > MaxQuestion {
		return fmt.Errorf("%w: the question is %d bytes, at most %d are kept", ErrReceipt, len(r.Question), MaxQuestion)
	}
	data := r.Encode()
	if _, err := ParseSetReceipt(data); err != nil {
		return err
	}
	id := r.ID()
	return a.update(func(tx *bolt.Tx) error {
		last, err := setReceiptOwner(tx, r)
		if err != nil {
			return fmt.Errorf("%w: document #%d: %v", ErrReceiptSetMissing, r.Documents, err)
		}
		return putReceiptBytes(tx, append(append(make([]byte, 0, 64), last.SHA256[:]...), id[:]...), data)
	})
}

// SetReceipts lists the kept cross-archive receipts in issue order. A
// stored receipt that no longer parses is reported as corruption.
func (a *Archive) SetReceipts() ([]*SetReceipt, error) {
	kept, err := a.keptReceipts(nil)
	out := []*SetReceipt{}
	for _, k := range kept {
		if k.Set != nil {
			out = append(out, k.Set)
		}
	}
	return out, err
}

// VerifySet checks a cross-archive receipt against the archive; see
// SetVerifier.Verify.
func (a *Archive) VerifySet(r *SetReceipt) (receipt.Outcome, error) {
	return a.NewSetVerifier().Verify(r)
}

// SetVerifier verifies cross-archive receipts against one archive, reading
// each bound document's stored bytes once however many receipts bind it.
type SetVerifier struct {
	a       *Archive
	checked map[Digest]error // Rebuild's outcome per document
}

// NewSetVerifier returns a verifier for a's cross-archive receipts.
func (a *Archive) NewSetVerifier() *SetVerifier {
	return &SetVerifier{a: a, checked: map[Digest]error{}}
}

// Verify checks a cross-archive receipt: documents #1..#S must all be
// present and hash, by SetDigest of their records, to the receipt's
// set_sha256; each one's stored bytes must rebuild to its store digest (as
// in Verify); and replaying the question over documents #1..#S alone
// (FindUpTo or EntityUpTo) must give a canonical result with the receipt's
// result_sha256. Documents imported after #S play no part. The error says
// why a receipt is INVALID, in one line.
func (v *SetVerifier) Verify(r *SetReceipt) (receipt.Outcome, error) {
	var docs []*Document
	err := v.a.bolt.View(func(tx *bolt.Tx) error {
		var err error
		if r.Chosen != nil {
			docs, err = chosenSet(tx, r.Chosen)
			return err
		}
		docs, err = prefixDocs(tx, r.Documents)
		return err
	})
	if err != nil {
		return receipt.Invalid, err
	}
	if SetDigest(docs) != r.Set {
		if r.Chosen != nil {
			return receipt.Invalid, fmt.Errorf("%w (the %d chosen documents)", ErrReceiptSet, len(r.Chosen))
		}
		return receipt.Invalid, fmt.Errorf("%w (documents #1..#%d)", ErrReceiptSet, r.Documents)
	}
	if err := v.checkStored(docs); err != nil {
		return receipt.Invalid, err
	}
	var result []byte
	switch r.Kind {
	case KindArchiveFind:
		q, err := find.NewQuery(r.Question)
		if err != nil {
			return receipt.Invalid, fmt.Errorf("the receipt's terms: %w", err)
		}
		hits, _, err := v.a.FindUpTo(q, r.Limit, r.Documents)
		if err != nil {
			return receipt.Invalid, err
		}
		result = FindResult(hits)
	case KindEntity:
		// The canonical result names no document: the entity index alone
		// replays it.
		var hits []EntityHit
		if r.Documents > 0 {
			hits, err = v.a.entity(entityQuery{name: r.Question, upTo: r.Documents})
		}
		if err != nil {
			return receipt.Invalid, err
		}
		result = EntityResult(hits)
	case KindArchiveSettle:
		if result, err = v.a.replaySettle(r, docs); err != nil {
			return receipt.Invalid, err
		}
	default:
		return receipt.Invalid, fmt.Errorf("%w: kind %.20q is not ARCHIVE-FIND, ENTITY or ARCHIVE-SETTLE", ErrReceipt, r.Kind)
	}
	if Digest(sha256.Sum256(result)) != r.Result {
		return receipt.Invalid, ErrReceiptResult
	}
	return receipt.Valid, nil
}

// checkStored rebuilds the documents not checked yet (in parallel) and
// returns the first failure in import order.
func (v *SetVerifier) checkStored(docs []*Document) error {
	var todo []*Document
	for _, d := range docs {
		if _, ok := v.checked[d.SHA256]; !ok {
			todo = append(todo, d)
		}
	}
	errs := make([]error, len(todo))
	v.a.parallel(len(todo), func(next func() int) {
		for j := next(); j >= 0; j = next() {
			errs[j] = v.a.rebuildGuarded(todo[j])
		}
	})
	for j, d := range todo {
		v.checked[d.SHA256] = errs[j]
	}
	for _, d := range docs {
		if err := v.checked[d.SHA256]; err != nil {
			return err
		}
	}
	return nil
}

// rebuildGuarded is Rebuild on a worker goroutine: a panic from a damaged
// bbolt page becomes an error naming the document.
func (a *Archive) rebuildGuarded(d *Document) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer a.recoverPage(func() string { return fmt.Sprintf("document %s (%s)", d.Label(), d.SHA256) }, &err)
	_, _, err = a.Rebuild(d)
	return err
}

// appendOrigin adds, after a hit's names, the original file its document
// was derived from, when it was: "derived_from":{"original_sha256":…,
// "part":…,"tool":{"name":…,"version":…}}. Printed answers only: a
// receipt binds the hits without names and without it.
func appendOrigin(j *canonjson.Buf, from *Derivation) {
	if from == nil {
		return
	}
	j.Key("derived_from", false)
	j.Raw("{")
	j.Key("original_sha256", true)
	j.Digest(from.Input)
	j.Key("part", false)
	j.Str(from.Part)
	j.Key("tool", false)
	j.Raw("{")
	j.Key("name", true)
	j.Str(from.Tool.Name)
	j.Key("version", false)
	j.Str(from.Tool.Version)
	j.Raw("}}")
}
