package repl

import (
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

func runQuery(x *invocation) error {
	return x.answerQuestion(commands.QueryIn{Document: x.p.args[0], Question: x.p.args[1]})
}

func runClaim(x *invocation) error {
	in, err := commands.ClaimIn{Document: x.p.args[0], Subject: x.p.args[1], Predicate: x.p.args[2], Object: x.p.args[3]}.Query()
	if err != nil {
		return inputError(err)
	}
	return x.answerQuestion(in)
}

// answerQuestion evaluates a settlement or claim question on one document,
// keeps its receipt in the archive and prints the result.
func (x *invocation) answerQuestion(in commands.QueryIn) error {
	if err := in.Check(); err != nil {
		return inputError(err)
	}
	ans, err := x.answerDocument(in.Document, db.KindQuery, in.Question)
	if err != nil {
		return err
	}
	asJSON := x.resultJSON()
	switch {
	case asJSON:
		x.printAnswerJSON(ans.JSON, ans.Receipt)
	case ans.Settlement != nil:
		x.renderSettlement(ans.Doc, ans.Settlement)
	default:
		x.renderClaim(ans.Doc, ans.Claim)
	}
	if !asJSON {
		if err := x.noteOrigin(ans.Doc); err != nil {
			return err
		}
	}
	x.showReceipt(ans.Receipt, ans.Doc, asJSON)
	return nil
}

// noteOrigin is originLine on the invocation's archive (open already).
func (x *invocation) noteOrigin(d *db.Document) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	return x.originLine(a, d)
}

// keep reports whether an answer keeps its receipt in the archive:
// --keep, or .keep on in the REPL. Otherwise answering writes nothing.
func (x *invocation) keep() bool { return x.p.has("keep") || x.env.Keep }

// answerDocument opens the archive (for writing only when the receipt is
// to be kept), resolves DOC and answers the question there (db.Answer: a
// settlement or claim question, or find terms); the receipt is kept with
// --keep and written with --receipt FILE (write-once).
func (x *invocation) answerDocument(docArg string, kind db.ReceiptKind, question string) (*db.DocAnswer, error) {
	if err := x.prepareKey(); err != nil {
		return nil, err
	}
	open := func() (*db.Archive, error) { return x.open(false) }
	if x.keep() {
		open = x.openExisting
	}
	a, err := open()
	if err != nil {
		return nil, err
	}
	d, err := a.Resolve(docArg)
	if err != nil {
		return nil, err
	}
	ans, err := a.Answer(d, kind, question)
	if err != nil {
		return nil, err
	}
	if x.keep() {
		if err := a.KeepReceipt(ans.Receipt); err != nil {
			return nil, err
		}
	}
	return ans, x.writeReceipt(ans.Receipt.Encode())
}

// writeReceipt writes a receipt to --receipt FILE and its signature to
// FILE.sig (write-once: an existing file is left alone when it holds the
// same bytes, else it is an error; writeSigned); nothing without
// --receipt or with --receipt -.
func (x *invocation) writeReceipt(data []byte) error {
	if path := x.p.value("receipt"); path != "" && path != "-" {
		return x.writeSigned(path, data)
	}
	return nil
}

// receiptNote says where a receipt went, for the readable view.
func (x *invocation) receiptNote(id db.Digest, listing string) string {
	file := x.p.value("receipt")
	switch {
	case x.keep() && file != "":
		return fmt.Sprintf("receipt %s kept and written to %s (`verify FILE` checks it)", id.Short(), sanitize(file))
	case x.keep():
		return fmt.Sprintf("receipt %s kept (`%s` lists it)", id.Short(), listing)
	case file != "":
		return fmt.Sprintf("receipt %s written to %s (`verify FILE` checks it; --keep also keeps it)", id.Short(), sanitize(file))
	}
	return fmt.Sprintf("receipt %s (--receipt FILE writes it, --keep keeps it in the archive)", id.Short())
}

// showSetReceipt ends a cross-archive result issued with --receipt or
// --keep: the whole receipt with --receipt -, else on the readable view a
// line saying where the receipt is.
func (x *invocation) showSetReceipt(rec *db.SetReceipt, asJSON bool) {
	switch {
	case x.inlineReceipt(): // in the JSON (printSetAnswerJSON, printSetAnswer)
	case x.p.value("receipt") == "-":
		x.out().Write(rec.Encode())
	case !asJSON:
		fmt.Fprintln(x.out(), x.receiptNote(rec.ID(), "receipts"))
	}
}

// showReceipt ends a result: the whole receipt with --receipt -, else on
// the readable view a line saying where the receipt is.
func (x *invocation) showReceipt(rec *db.Receipt, d *db.Document, asJSON bool) {
	switch {
	case x.inlineReceipt(): // in the JSON line (printAnswerJSON)
	case x.p.value("receipt") == "-":
		x.out().Write(rec.Encode())
	case !asJSON:
		fmt.Fprintln(x.out(), x.receiptNote(rec.ID(), "receipts "+sanitize(d.Label())))
	}
}

func (x *invocation) renderSettlement(d *db.Document, r *settle.Settlement) {
	x.renderSettlementHead(r)
	x.renderEvidence(d, r.Evidence, true)
}

// renderSettlementHead prints a settlement's status line (status, debt,
// settled amount) and the notes that explain it, for query and settle.
func (x *invocation) renderSettlementHead(r *settle.Settlement) {
	w := x.out()
	fmt.Fprintf(w, "%s", r.Status)
	if r.Debt != nil {
		fmt.Fprintf(w, "  debt %s %s (borrower %s, lender %s)", r.Debt.Amount, sanitize(r.Debt.Currency),
			sanitize(r.Debt.Borrower), sanitize(r.Debt.Lender))
	} else {
		fmt.Fprint(w, "  no single debt selected")
	}
	fmt.Fprintf(w, "  settled %s\n", r.Settled)
	var notes []string
	for _, n := range []struct {
		on   bool
		text string
	}{{r.Ambiguous, "several different debts match"}, {r.Contradicted, "a record is contradicted"},
		{r.Overflow, "the sum overflowed; later payments were not examined"},
		{r.Duplicate, "a payment repeats an earlier one"}, {r.Related, "a payment is pending, unconfirmed or in another currency"}} {
		if n.on {
			notes = append(notes, n.text)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "note: %s\n", strings.Join(notes, "; "))
	}
	if r.Debt == nil && !r.Ambiguous {
		x.renderNoDebtHint(r.Question)
	}
}

// renderNoDebtHint says why a settlement question selected no debt: a
// question that fits no question frame could select none in any
// document, so the accepted frames (settle.Frames) and the exact selector
// are listed; one that fits names no stored borrower and lender. The
// JSON view is the canonical result alone, without it.
func (x *invocation) renderNoDebtHint(question string) {
	w := x.out()
	if pairs := settle.FramePairs(question); len(pairs) > 0 {
		// Name what the question was read as: a misspelt or lower-case
		// name is then plain to see.
		var read []string
		for _, p := range pairs[:min(3, len(pairs))] {
			read = append(read, fmt.Sprintf("borrower %q, lender %q", sanitize(p[0]), sanitize(p[1])))
		}
		more := ""
		if len(pairs) > 3 {
			more = fmt.Sprintf(" (and %d more readings)", len(pairs)-3)
		}
		fmt.Fprintf(w, "note: read as %s%s; no stored debt is between them (names are exact: `entities` lists them)\n", strings.Join(read, "; or "), more)
		return
	}
	fmt.Fprintln(w, "note: no question frame fits; ask one of (B borrower, L lender, as stored):")
	for _, f := range settle.Frames() {
		fmt.Fprintf(w, "  %s\n", f)
	}
	fmt.Fprintln(w, "  @settlement<TAB>B<TAB>L  (any stored names; in a shell: $'@settlement\\tB\\tL')")
}

func (x *invocation) renderClaim(d *db.Document, r *settle.Claim) {
	fmt.Fprintf(x.out(), "%s  %s %s %s\n", r.Status, sanitize(r.Subject), sanitize(r.Predicate), sanitize(r.Object))
	x.renderEvidence(d, r.Evidence, false)
}

// renderEvidence prints each span as `name:line  text`; counted payments
// are marked with "+".
func (x *invocation) renderEvidence(d *db.Document, evidence []settle.Evidence, marks bool) {
	if len(evidence) == 0 {
		fmt.Fprintln(x.out(), "(no evidence)")
		return
	}
	for _, e := range evidence {
		mark := " "
		if marks && e.Counted {
			mark = "+"
		}
		fmt.Fprintf(x.out(), "%s %s:%d  %s\n", mark, sanitize(d.Label()), e.Event.LineStart, sanitize(e.Text))
	}
}

// runFind searches for TERMS. Several arguments are one query, joined
// with single spaces as settle joins the words of its question, so
// `find Saud Alice` is `find "Saud Alice"`: the same result and receipt.
func runFind(x *invocation) error {
	in := commands.FindIn{Terms: strings.Join(x.p.args, " "), Document: x.p.value("doc")}
	if x.p.has("doc") {
		return x.findInDocument(in)
	}
	return x.findInArchive(in)
}

func (x *invocation) findInDocument(in commands.FindIn) error {
	if _, _, err := in.Check(true, false); err != nil {
		return inputError(err)
	}
	docArg, terms := in.Document, in.Terms
	ans, err := x.answerDocument(docArg, db.KindFind, terms)
	if err != nil {
		return err
	}
	asJSON := x.resultJSON()
	if asJSON {
		x.printAnswerJSON(ans.JSON, ans.Receipt)
	} else {
		x.renderFind(ans.Doc, ans.Find, nil)
		if err := x.noteOrigin(ans.Doc); err != nil {
			return err
		}
	}
	x.showReceipt(ans.Receipt, ans.Doc, asJSON)
	return nil
}

// renderFind prints a document's find result; from, when set, is the
// original an archive-wide hit's document was derived from (a search of
// one document names it after the result).
func (x *invocation) renderFind(d *db.Document, res *find.Result, from *db.Derivation) {
	fmt.Fprintf(x.out(), "%s  %s in %s", res.Status, plural(res.TotalMatchingLines, "matching line"), sanitize(d.Label()))
	if from != nil {
		fmt.Fprintf(x.out(), " (%s)", originNote(from))
	}
	if len(res.Matches) < res.TotalMatchingLines {
		fmt.Fprintf(x.out(), " (best %d shown)", len(res.Matches))
	}
	fmt.Fprintln(x.out())
	terms, _ := find.Terms(res.Query)
	for _, m := range res.Matches {
		text := sanitize(m.Text)
		if x.env.colour() {
			text = markTerms(text, terms)
		}
		fmt.Fprintf(x.out(), "  %s:%d  [%d]  %s\n", sanitize(d.Label()), m.Line, m.MatchedTerms, text)
	}
}

// markTerms shows every occurrence of the terms in bold reverse video (on a
// terminal); overlapping occurrences merge into one mark.
func markTerms(text string, terms []string) string {
	covered := make([]bool, len(text))
	for _, t := range terms {
		if t == "" {
			continue
		}
		for i := 0; ; {
			j := strings.Index(text[i:], t)
			if j < 0 {
				break
			}
			for k := i + j; k < i+j+len(t); k++ {
				covered[k] = true
			}
			i += j + 1
		}
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if covered[i] && (i == 0 || !covered[i-1]) {
			b.WriteString("\x1b[1;7m")
		}
		b.WriteByte(text[i])
		if covered[i] && (i+1 == len(text) || !covered[i+1]) {
			b.WriteString("\x1b[0m")
		}
	}
	return b.String()
}

// findInArchive searches every document through the term index; see
// db.Archive.Find for the ranking. --receipt or --keep issue a receipt
// that binds the documents the search ran over (db.SetReceipt); it is
// kept in the archive with --keep only.
func (x *invocation) findInArchive(in commands.FindIn) error {
	if err := db.CheckText("TERMS is", in.Terms); err != nil {
		return inputError(err) // said before a wrong --limit, as it always was
	}
	limit, err := x.p.intValue("limit", db.DefaultFindLimit)
	if err != nil {
		return err
	}
	in.Limit = limit
	if _, _, err := in.Check(false, x.p.has("receipt") || x.keep()); err != nil {
		return inputError(err)
	}
	hits, rec, err := answerSet(x, "the terms are", in.Terms,
		func(a *db.Archive) ([]db.FindHit, *db.SetReceipt, error) {
			out, err := commands.Find(a, in, true)
			if err != nil {
				return nil, nil, err
			}
			return out.Hits, out.Receipt, nil
		},
		func(a *db.Archive) ([]db.FindHit, error) {
			out, err := commands.Find(a, in, false)
			if err != nil {
				return nil, err
			}
			return out.Hits, nil
		})
	if err != nil {
		return err
	}
	printSetAnswer(x, hits, rec, db.FindHitJSON,
		func() { fmt.Fprintln(x.out(), "NO_MATCH") },
		func(h *db.FindHit) { x.renderFind(h.Doc, h.Result, h.From) })
	return nil
}
