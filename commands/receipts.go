package commands

import (
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// ReceiptsIn selects the receipts of `receipts [DOC] [--verify]`.
type ReceiptsIn struct {
	// Document: only the receipts of this document (a name or hash
	// prefix); nil lists every receipt, cross-archive ones too. A
	// pointer, since "" is a document argument too, that names none.
	Document *string
	Verify   bool // verify each receipt again
}

// The lines of `receipts --json`, one type per kind of receipt. The
// fields are in the order of their JSON names, as the CLI has always
// printed them.
type (
	// ArchiveReceiptLine is a receipt of one document.
	ArchiveReceiptLine struct {
		DocumentSHA256 string         `json:"document_sha256"`
		ID             string         `json:"id"`
		Kind           db.ReceiptKind `json:"kind"`
		Question       string         `json:"question"`
		Receipt        string         `json:"receipt"`
		Verdict        string         `json:"verdict,omitempty"`
		Warning        string         `json:"warning,omitempty"`
	}
	// SetReceiptLine is a receipt of a cross-archive find, entity or
	// settle; Limit is a find's alone.
	SetReceiptLine struct {
		Documents uint64         `json:"documents"`
		ID        string         `json:"id"`
		Kind      db.ReceiptKind `json:"kind"`
		Limit     *int           `json:"limit,omitempty"`
		Question  string         `json:"question"`
		Receipt   string         `json:"receipt"`
		SetSHA256 string         `json:"set_sha256"`
		Verdict   string         `json:"verdict,omitempty"`
	}
	// OriginalReceiptLine is a receipt of the original tool, imported
	// with its store.
	OriginalReceiptLine struct {
		DocumentSHA256 string `json:"document_sha256"`
		ID             string `json:"id"`
		Original       string `json:"original"`
		Receipt        string `json:"receipt"`
		Verdict        string `json:"verdict,omitempty"`
		Warning        string `json:"warning,omitempty"`
	}
)

// ReceiptItem is one receipt of the listing: exactly one of Archive, Set
// and Original, with its line; Verdict is "" without ReceiptsIn.Verify.
type ReceiptItem struct {
	Archive  *db.Receipt
	Set      *db.SetReceipt
	Original *db.Original
	Verdict  string
	Warning  string // beside a VALID verdict: the archive is damaged all the same (DamageBeside)
}

// Line is the item's `receipts --json` line.
func (it ReceiptItem) Line() any {
	switch {
	case it.Archive != nil:
		r := it.Archive
		return ArchiveReceiptLine{DocumentSHA256: r.Document.String(), ID: r.ID().String(), Kind: r.Kind,
			Question: r.Question, Receipt: string(r.Encode()), Verdict: it.Verdict, Warning: it.Warning}
	case it.Set != nil:
		r := it.Set
		j := SetReceiptLine{Documents: r.Documents, ID: r.ID().String(), Kind: r.Kind, Question: r.Question,
			Receipt: string(r.Encode()), SetSHA256: r.Set.String(), Verdict: it.Verdict}
		if r.Kind == db.KindArchiveFind {
			j.Limit = &r.Limit
		}
		return j
	default:
		o := it.Original
		return OriginalReceiptLine{DocumentSHA256: o.Document.String(), ID: o.ID().String(), Original: o.Name,
			Receipt: string(o.Bytes), Verdict: it.Verdict, Warning: it.Warning}
	}
}

// ReceiptsOut sums up a listing: how many receipts, how many of them
// verified INVALID or UNSUPPORTED, and how many VALID ones carry a
// damage warning (the first one's text).
type ReceiptsOut struct {
	Total, Invalid, Unsupported int
	Warned                      int
	FirstWarning                string
}

// Receipts lists the receipts the archive issued, calling each with each
// one as it is read (and verified, with in.Verify), so that a long
// listing prints as it goes: the receipts of documents, then (without
// in.Document) the cross-archive ones, then the original tool's.
func Receipts(a *db.Archive, in ReceiptsIn, each func(ReceiptItem) error) (*ReceiptsOut, error) {
	var doc *db.Digest
	if in.Document != nil {
		d, err := a.Resolve(*in.Document)
		if err != nil {
			return nil, err
		}
		doc = &d.SHA256
	}
	out := &ReceiptsOut{}
	c := newReceiptChecker(a, in.Verify, out)
	recs, err := a.Receipts(doc)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		verdict := c.verdict(func() (receipt.Outcome, error) { return a.Verify(r, receipt.Canonical{}) })
		if err := each(ReceiptItem{Archive: r, Verdict: verdict, Warning: c.warning(verdict, r.Document)}); err != nil {
			return nil, err
		}
	}
	var sets []*db.SetReceipt
	if doc == nil {
		if sets, err = a.SetReceipts(); err != nil {
			return nil, err
		}
	}
	for _, r := range sets {
		verdict := c.verdict(func() (receipt.Outcome, error) { return c.sets.Verify(r) })
		if err := each(ReceiptItem{Set: r, Verdict: verdict}); err != nil {
			return nil, err
		}
	}
	originals, err := a.Originals(doc)
	if err != nil {
		return nil, err
	}
	for _, o := range originals {
		verdict := c.verdict(func() (receipt.Outcome, error) { return a.VerifyOriginal(o.Bytes, receipt.Canonical{}) })
		if err := each(ReceiptItem{Original: o, Verdict: verdict, Warning: c.warning(verdict, o.Document)}); err != nil {
			return nil, err
		}
	}
	out.Total = len(recs) + len(sets) + len(originals)
	return out, nil
}

// receiptChecker verifies the receipts of a listing (when asked) and
// counts the outcomes into out.
type receiptChecker struct {
	a        *db.Archive
	verify   bool
	out      *ReceiptsOut
	warnings map[db.Digest]string // the damage warning of each document, looked up once
	sets     *db.SetVerifier      // checks each bound document once for all set receipts
}

func newReceiptChecker(a *db.Archive, verify bool, out *ReceiptsOut) *receiptChecker {
	return &receiptChecker{a: a, verify: verify, out: out, warnings: map[db.Digest]string{}, sets: a.NewSetVerifier()}
}

// verdict runs verify when the listing verifies ("" when it does not).
func (c *receiptChecker) verdict(verify func() (receipt.Outcome, error)) string {
	if !c.verify {
		return ""
	}
	outcome, _ := verify()
	switch outcome {
	case receipt.Invalid:
		c.out.Invalid++
	case receipt.Unsupported:
		c.out.Unsupported++
	}
	return outcome.String()
}

// warning is the damage warning beside a VALID verdict of a receipt of
// doc (DamageBeside).
func (c *receiptChecker) warning(verdict string, doc db.Digest) string {
	if verdict != receipt.Valid.String() {
		return ""
	}
	w, ok := c.warnings[doc]
	if !ok {
		w = DamageBeside(c.a, doc)
		c.warnings[doc] = w
	}
	if w != "" {
		if c.out.Warned++; c.out.FirstWarning == "" {
			c.out.FirstWarning = w
		}
	}
	return w
}

// ReceiptsPage lists at most limit of the archive's numbered receipts
// (documents' and cross-archive ones) in issue order from number from,
// reading only those (db.Archive.ReceiptsFrom), verified when verify is
// set, and reports whether more follow. The original tool's receipts,
// imported with their stores and not numbered, follow on the last page,
// as they follow the others in Receipts.
func ReceiptsPage(a *db.Archive, from uint64, limit int, verify bool, each func(ReceiptItem) error) (*ReceiptsOut, bool, error) {
	kept, more, err := a.ReceiptsFrom(from, limit)
	if err != nil {
		return nil, false, err
	}
	out := &ReceiptsOut{Total: len(kept)}
	c := newReceiptChecker(a, verify, out)
	for _, k := range kept {
		it := ReceiptItem{Archive: k.Doc, Set: k.Set}
		if k.Doc != nil {
			it.Verdict = c.verdict(func() (receipt.Outcome, error) { return a.Verify(k.Doc, receipt.Canonical{}) })
			it.Warning = c.warning(it.Verdict, k.Doc.Document)
		} else {
			it.Verdict = c.verdict(func() (receipt.Outcome, error) { return c.sets.Verify(k.Set) })
		}
		if err := each(it); err != nil {
			return out, more, err
		}
	}
	if more {
		return out, more, nil
	}
	originals, err := a.Originals(nil)
	if err != nil {
		return out, more, err
	}
	out.Total += len(originals)
	for _, o := range originals {
		it := ReceiptItem{Original: o}
		it.Verdict = c.verdict(func() (receipt.Outcome, error) { return a.VerifyOriginal(o.Bytes, receipt.Canonical{}) })
		it.Warning = c.warning(it.Verdict, o.Document)
		if err := each(it); err != nil {
			return out, more, err
		}
	}
	return out, more, nil
}
