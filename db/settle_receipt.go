package db

import (
	"bytes"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// ARCHIVE-SETTLE receipts (see SetReceipt). Over documents #1..#S the
// receipt has the seven lines of every cross-archive receipt, with limit
// 0. Over a chosen set it binds the set's documents themselves: after the
// documents line come N lines `document_sha256:<64 hex>`, the chosen
// documents' digests in import order (N = documents), and set_sha256 is
// the SetDigest of those N documents (document and store digests), so
// that the receipt stays VALID whatever is imported later:
//
//	CHRONICLE-ARCHIVE-SET-RECEIPT-V1
//	kind:ARCHIVE-SETTLE
//	documents:2
//	document_sha256:<first chosen document>
//	document_sha256:<second chosen document>
//	set_sha256:<SetDigest of the two>
//	question_hex:…
//	limit:0
//	result_sha256:<SHA-256 of the settlement's JSON>

const chosenPrefix = "document_sha256:"

// chosenLines renders a chosen set's document lines.
func chosenLines(chosen []Digest) string {
	var b strings.Builder
	for _, d := range chosen {
		b.WriteString(chosenPrefix)
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// cutChosenLines removes the document lines of a chosen-set receipt (from
// line 4 on) and decodes them; data without them is returned as it is,
// with nil.
func cutChosenLines(data []byte) ([]byte, []Digest, error) {
	if len(data) > MaxReceiptSize {
		return data, nil, nil // receiptFields refuses it
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) < 4 || !bytes.HasPrefix(lines[3], []byte(chosenPrefix)) {
		return data, nil, nil
	}
	var chosen []Digest
	i := 3
	for ; i < len(lines) && bytes.HasPrefix(lines[i], []byte(chosenPrefix)); i++ {
		v, ok := bytes.CutSuffix(lines[i][len(chosenPrefix):], []byte("\n"))
		var d Digest
		if !ok || d.UnmarshalText(v) != nil {
			return nil, nil, fmt.Errorf("%w: line %d: %q is not 64 lowercase hex digits", ErrReceipt, i+1, v)
		}
		chosen = append(chosen, d)
	}
	rest := bytes.Join(append(lines[:3:3], lines[i:]...), nil)
	return rest, chosen, nil
}

// checkSettleReceipt checks what is particular to ARCHIVE-SETTLE: limit 0,
// and a chosen set of exactly `documents` distinct digests; no other kind
// lists documents.
func checkSettleReceipt(r *SetReceipt) error {
	if r.Kind != KindArchiveSettle {
		if r.Chosen != nil {
			return fmt.Errorf("%w: only an ARCHIVE-SETTLE receipt lists documents", ErrReceipt)
		}
		return nil
	}
	if r.Limit != 0 {
		return fmt.Errorf("%w: an ARCHIVE-SETTLE receipt carries limit 0", ErrReceipt)
	}
	if r.Chosen != nil && uint64(len(r.Chosen)) != r.Documents {
		return fmt.Errorf("%w: documents:%d but %d document lines", ErrReceipt, r.Documents, len(r.Chosen))
	}
	seen := map[Digest]bool{}
	for _, d := range r.Chosen {
		if seen[d] {
			return fmt.Errorf("%w: document %s is listed twice", ErrReceipt, d)
		}
		seen[d] = true
	}
	return nil
}

// setReceiptOwner is the document a cross-archive receipt is kept under:
// #S, or the last document of a chosen set.
func setReceiptOwner(tx *bolt.Tx, r *SetReceipt) (*Document, error) {
	if len(r.Chosen) == 0 {
		return docBySeq(tx, r.Documents)
	}
	docs, err := chosenDocs(tx, r.Chosen[len(r.Chosen)-1:])
	if err != nil {
		return nil, err
	}
	return docs[0], nil
}

// chosenSet returns a chosen-set receipt's documents, which must be in
// import order.
func chosenSet(tx *bolt.Tx, chosen []Digest) ([]*Document, error) {
	docs, err := chosenDocs(tx, chosen)
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(docs); i++ {
		if docs[i].Seq <= docs[i-1].Seq {
			return nil, fmt.Errorf("%w: the chosen documents are not in import order (#%d before #%d)", ErrReceipt, docs[i-1].Seq, docs[i].Seq)
		}
	}
	return docs, nil
}
