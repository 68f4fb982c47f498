package pages

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
)

// ReceiptsPage is the number of receipts a page of /receipts lists.
const ReceiptsPage = 100

// maxOffset bounds /receipts' offset parameter.
const maxOffset = 1 << 30

// receiptView is one receipt of a listing: what it answers, its ID, the
// document it binds (or the number of documents of an archive-wide one),
// its verdict when the page verified it, and the link that verifies it
// alone.
type receiptView struct {
	Kind, Question, ID string
	Document, Label    string // one document's receipt: its SHA-256 and a name
	DocumentCount      int    // an archive-wide receipt: the documents it binds
	Verdict, Warning   string
	Verify             string // "/verify?receipt=…"; "" when the receipt is too long for a link
}

// receiptOf is the view of one listed receipt; labels names documents.
func receiptOf(it commands.ReceiptItem, labels func(db.Digest) string) receiptView {
	rv := receiptView{Verdict: it.Verdict, Warning: it.Warning}
	var enc []byte
	switch {
	case it.Archive != nil:
		r := it.Archive
		rv.Kind, rv.Question, rv.ID, enc = string(r.Kind), r.Question, r.ID().String(), r.Encode()
		rv.Document, rv.Label = r.Document.String(), labels(r.Document)
	case it.Set != nil:
		r := it.Set
		rv.Kind, rv.Question, rv.ID, enc = string(r.Kind), r.Question, r.ID().String(), r.Encode()
		rv.DocumentCount = int(min(r.Documents, math.MaxInt32))
	case it.Original != nil:
		o := it.Original
		rv.Kind, rv.Question, rv.ID, enc = "ORIGINAL", o.Name, o.ID().String(), o.Bytes
		rv.Document, rv.Label = o.Document.String(), labels(o.Document)
	}
	if len(enc) <= maxParam && engine.ValidText(enc) {
		rv.Verify = "/verify?" + url.Values{"receipt": {string(enc)}}.Encode()
	}
	return rv
}

type receiptsData struct {
	Receipts   []receiptView
	Doc, Label string // the document the page lists, "" for the archive's
	Verified   bool
	From       int // the 1-based number of the first receipt shown
	Next       string
	VerifyAll  string // this page again, verifying each receipt
	Invalid    int
}

// errPageFull stops a listing once a page is full.
var errPageFull = errors.New("page full")

// receipts lists the receipts the archive issued (`receipts [DOC]
// [--verify]`), a page at a time: all of them in issue order (documents'
// and archive-wide ones, then the original tool's), each page read alone
// (commands.ReceiptsPage), or one document's.
func (h *handler) receipts(w http.ResponseWriter, r *http.Request) {
	p := paramsOf(r)
	doc := p.text("doc")
	offset := p.number("offset", 1, maxOffset) - 1
	verify := p.flag("verify")
	if h.failed(w, p) {
		return
	}
	d := receiptsData{Verified: verify, From: offset + 1}
	if !h.archive(w, "receipts", func(a *db.Archive) error {
		in := commands.ReceiptsIn{Verify: verify}
		if doc != "" {
			found, err := a.Resolve(doc)
			if err != nil {
				return err
			}
			d.Doc, d.Label = found.SHA256.String(), found.Label()
			in.Document = &d.Doc
		}
		labels := labeler(a)
		add := func(it commands.ReceiptItem) error {
			rv := receiptOf(it, labels)
			if rv.Verdict != "" && rv.Verdict != "VALID" {
				d.Invalid++
			}
			d.Receipts = append(d.Receipts, rv)
			return nil
		}
		if in.Document == nil {
			// The archive's receipts, a page in issue order read alone.
			_, more, err := commands.ReceiptsPage(a, uint64(offset)+1, ReceiptsPage, verify, add)
			if more {
				d.Next = receiptsURL("", offset+ReceiptsPage, verify)
			}
			return err
		}
		// One document's receipts (its own key prefix), a page of them.
		seen := 0
		_, err := commands.Receipts(a, in, func(it commands.ReceiptItem) error {
			if seen++; seen <= offset {
				return nil
			}
			if len(d.Receipts) == ReceiptsPage {
				return errPageFull
			}
			return add(it)
		})
		if errors.Is(err, errPageFull) {
			d.Next = receiptsURL(d.Doc, offset+ReceiptsPage, verify)
			err = nil
		}
		return err
	}) {
		return
	}
	if !verify && len(d.Receipts) > 0 {
		d.VerifyAll = receiptsURL(d.Doc, offset, true)
	}
	title := "Receipts"
	if d.Label != "" {
		title = "Receipts of " + d.Label
	}
	h.render(w, "receipts", page{Title: title, Data: d})
}

// receiptsURL is the /receipts page that starts after offset receipts.
func receiptsURL(doc string, offset int, verify bool) string {
	q := url.Values{}
	if doc != "" {
		q.Set("doc", doc)
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset+1))
	}
	if verify {
		q.Set("verify", "1")
	}
	if len(q) == 0 {
		return "/receipts"
	}
	return "/receipts?" + q.Encode()
}

// labeler names documents by their SHA-256, reading each record once.
func labeler(a *db.Archive) func(db.Digest) string {
	names := map[db.Digest]string{}
	return func(sha db.Digest) string {
		if l, ok := names[sha]; ok {
			return l
		}
		l := sha.String()[:12]
		if d, err := a.Document(sha); err == nil {
			l = d.Label()
		}
		names[sha] = l
		return l
	}
}
