package repl

import (
	"errors"
	"fmt"
	"github.com/casper-chronicle/chronicle/engine/archivelog"
	"io/fs"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/sign"
)

// runReceipts lists the receipts the archive issued, optionally verifying
// each one again (commands.Receipts), one line each as they come.
func runReceipts(x *invocation) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	in := commands.ReceiptsIn{Verify: x.p.has("verify")}
	if len(x.p.args) == 1 {
		in.Document = &x.p.args[0]
	}
	labels := map[db.Digest]string{}
	// A document that is gone keeps its short digest as label; one whose
	// record is damaged fails the listing (after it, so the error is last).
	var labelErr error
	labelOf := func(doc db.Digest) string {
		if _, ok := labels[doc]; !ok {
			labels[doc] = doc.Short()
			if d, err := a.Document(doc); err == nil {
				labels[doc] = d.Label()
			} else if errors.Is(err, db.ErrCorrupt) && labelErr == nil {
				labelErr = err
			}
		}
		return labels[doc]
	}
	out, err := commands.Receipts(a, in, func(it commands.ReceiptItem) error {
		if x.askedJSON() {
			printJSONLine(x.out(), it.Line())
			return nil
		}
		var line string
		switch {
		case it.Archive != nil:
			r := it.Archive
			line = fmt.Sprintf("%s  %-6s  %s", r.ID().Short(), r.Kind, sanitize(labelOf(r.Document)))
			if r.Question != "" {
				line += "  " + sanitize(r.Question)
			}
		case it.Set != nil:
			fmt.Fprintln(x.out(), setReceiptLine(it.Set, it.Verdict))
			return nil
		default:
			o := it.Original
			line = fmt.Sprintf("%s  %-6s  %s  original %s", o.ID().Short(), originalKind(o.Bytes), sanitize(labelOf(o.Document)), sanitize(o.Name))
		}
		if it.Verdict != "" {
			line = it.Verdict + "  " + line
		}
		fmt.Fprintln(x.out(), line)
		return nil
	})
	if err != nil {
		return err
	}
	if labelErr != nil {
		return labelErr
	}
	if out.Total == 0 && !(x.askedJSON()) {
		fmt.Fprintln(x.out(), "(no receipts)")
	}
	// Exit like verify: 1 when any receipt is INVALID, else 3 when any is
	// UNSUPPORTED.
	if out.Invalid > 0 {
		return withStatus(ExitFailure, kindInvalid, fmt.Errorf("%d of %d receipts are INVALID", out.Invalid, out.Total))
	}
	if out.Unsupported > 0 {
		return withStatus(ExitUnsupported, kindUnsupported,
			fmt.Errorf("%d of %d receipts are UNSUPPORTED (V1 QUERY receipts: integrity checked, historical result not recomputed)", out.Unsupported, out.Total))
	}
	// Only beside an exit 0: a failure's one line comes alone (the JSON
	// lines carry their warnings either way).
	if !x.askedJSON() && out.Warned == 1 {
		fmt.Fprintf(x.env.Stderr, "%schronicle receipts: %s\n", x.env.where(), out.FirstWarning)
	} else if !x.askedJSON() && out.Warned > 1 {
		fmt.Fprintf(x.env.Stderr, "%schronicle receipts: warning: %d receipts are VALID from their documents' bytes, but archive %s is damaged (the first: %s); run `chronicle check`\n",
			x.env.where(), out.Warned, a.Path(), firstDamage(out.FirstWarning))
	}
	return nil
}

// setReceiptLine is the listing line of a cross-archive receipt:
// `ID  KIND  documents #1..#S  QUESTION`, then `limit N` for a find with
// a limit, after the verdict with --verify.
func setReceiptLine(r *db.SetReceipt, verdict string) string {
	docs := fmt.Sprintf("documents #1..#%d", r.Documents)
	if len(r.Chosen) > 0 { // a settle over chosen documents binds them, not a prefix
		var short []string
		for _, d := range r.Chosen {
			short = append(short, d.Short())
		}
		docs = "documents " + strings.Join(short, ",")
	}
	line := fmt.Sprintf("%s  %s  %s  %s", r.ID().Short(), r.Kind, docs, sanitize(r.Question))
	if r.Kind == db.KindArchiveFind && r.Limit > 0 {
		line += fmt.Sprintf("  limit %d", r.Limit)
	}
	if verdict != "" {
		line = verdict + "  " + line
	}
	return line
}

// answerSet answers a cross-archive question (find without --doc, entity).
// With --receipt or --keep it answers with issue, which issues the
// receipt, keeps it with --keep (opening the archive for writing) and
// writes it to the --receipt file; what names the question in the error
// for one too long ("the terms are"). Otherwise it answers read-only with
// answer and the receipt is nil.
func answerSet[H any](x *invocation, what, question string,
	issue func(*db.Archive) ([]H, *db.SetReceipt, error), answer func(*db.Archive) ([]H, error)) ([]H, *db.SetReceipt, error) {
	if !x.p.has("receipt") && !x.keep() {
		a, err := x.open(false)
		if err != nil {
			return nil, nil, err
		}
		hits, err := answer(a)
		return hits, nil, err
	}
	if err := db.CheckQuestionSize(what, question); err != nil {
		return nil, nil, err
	}
	if err := x.prepareKey(); err != nil {
		return nil, nil, err
	}
	open := func() (*db.Archive, error) { return x.open(false) }
	if x.keep() {
		open = x.openExisting
	}
	a, err := open()
	if err != nil {
		return nil, nil, err
	}
	hits, rec, err := issue(a)
	if err != nil {
		return nil, nil, err
	}
	if x.keep() {
		if err := a.KeepSetReceipt(rec); err != nil {
			return nil, nil, err
		}
	}
	if err := x.writeReceipt(rec.Encode()); err != nil {
		return nil, nil, err
	}
	return hits, rec, nil
}

// printSetAnswer prints a cross-archive answer: one hitJSON line per hit
// (with names) on the JSON view; else none when there is no hit, or render
// for each hit; then, when a receipt was issued, showSetReceipt.
func printSetAnswer[H any](x *invocation, hits []H, rec *db.SetReceipt,
	hitJSON func(h *H, names bool) []byte, none func(), render func(h *H)) {
	asJSON := x.resultJSON()
	switch {
	case asJSON:
		for i := range hits {
			fmt.Fprintf(x.out(), "%s\n", hitJSON(&hits[i], true))
		}
	case len(hits) == 0:
		none()
	default:
		for i := range hits {
			render(&hits[i])
		}
	}
	switch {
	case rec != nil && x.inlineReceipt():
		x.printReceiptLine(rec.ID(), rec.Encode())
	case rec != nil:
		x.showSetReceipt(rec, asJSON)
	}
}

// runVerify checks an archive receipt (of one document, or cross-archive)
// against the archive, or an original V1/V2 receipt against the
// .chronicle file it names, and prints the word. A signature beside the
// file (FILE.sig) is checked first; the readable view says who signed
// after the word, or that an archive receipt is unsigned. An original
// receipt without a signature prints the word alone, as
// casper-chronicle verify does (its golden stdout is the contract).
func runVerify(x *invocation) error {
	path := x.p.args[0]
	sigPath := path + sign.Suffix
	data, err := fileio.ReadLimited(path, max(db.MaxReceiptSize, archivelog.MaxBundleSize))
	if err == nil && archivelog.IsBundle(data) {
		return x.verifyBundle(path, data)
	}
	if err == nil && len(data) > db.MaxReceiptSize {
		err = fmt.Errorf("%w (more than %d bytes)", fileio.ErrTooLarge, db.MaxReceiptSize)
	}
	var outcome receipt.Outcome
	var why error
	warning, signer, signed := "", "", false
	// own: a receipt of Chronicle's own format, always signed when a
	// file is written (the word alone would hide a missing signature)
	own := db.IsArchiveReceipt(data) || db.IsSetReceipt(data)
	if err == nil {
		in := commands.VerifyIn{Receipt: string(data), File: path}
		in.Signature, err = readSignature(sigPath)
		signed = in.Signature.Signed
		if err == nil {
			v := commands.Verify(func() (*db.Archive, error) { return x.open(false) }, in)
			outcome, why, warning, signer = v.Outcome, v.Why, v.Warning, v.Signer
		}
	} else {
		err = fileErr(path, err)
	}
	if err != nil {
		outcome, why = receipt.Invalid, err
	}
	var notRegular *fileio.NotRegularError
	said := why != nil // the readable view says why only when there is a reason
	switch {
	case errors.As(why, &notRegular): // it names the path
	case isFileError(why): // fileErr named the path
	case errors.Is(why, commands.ErrSignature):
		why = fmt.Errorf("%s: %w", sigPath, why)
	case why != nil:
		why = fmt.Errorf("%s: %w", path, why)
	case outcome != receipt.Valid:
		why = fmt.Errorf("%s: %s", path, outcome)
	}
	if x.askedJSON() {
		j := commands.Verdict{File: path, Signer: signer, Verdict: outcome.String(), Warning: warning}
		if why != nil {
			j.Problem = why.Error()
		}
		printJSONLine(x.out(), j)
	} else {
		fmt.Fprintln(x.out(), outcome)
		if signed || own {
			x.signatureLine(signer, signed, false, sigPath)
		}
		if said {
			fmt.Fprintf(x.env.Stderr, "%schronicle verify: %v\n", x.env.where(), why)
		}
		if warning != "" {
			fmt.Fprintf(x.env.Stderr, "%schronicle verify: %s\n", x.env.where(), warning)
		}
	}
	if outcome == receipt.Valid {
		return nil
	}
	kind := verdictKind(outcome)
	if isFileError(why) {
		// the verdict stays INVALID (exit 1), but the file was missing
		// or unreadable rather than a receipt that does not check
		_, kind = classify(why)
	}
	return quietStatus(outcome.ExitCode(), kind, withObject(why, "file", path))
}

// firstDamage is what damageBeside's warning says is damaged.
func firstDamage(warning string) string {
	_, rest, _ := strings.Cut(warning, " is damaged (")
	return strings.TrimSuffix(rest, "); run `chronicle check`")
}

// verdictKind is the JSON error kind of a verdict other than VALID.
func verdictKind(o receipt.Outcome) string {
	if o == receipt.Unsupported {
		return kindUnsupported
	}
	return kindInvalid
}

// runExport writes the document's store and its INGEST receipt
// (commands.Export) and says where.
func runExport(x *invocation) error {
	if x.p.has("original") {
		return runExportOriginal(x)
	}
	// The receipt is signed like every receipt file (its signature is
	// for whoever checks it with ssh-keygen; casper-chronicle ignores it):
	// the key is loaded before anything is written.
	if err := x.prepareKey(); err != nil {
		return err
	}
	a, err := x.open(false)
	if err != nil {
		return err
	}
	out, err := commands.Export(a, commands.ExportIn{Document: x.p.args[0], Dir: x.p.args[1],
		Sign: func(data []byte) ([]byte, error) { return sign.Sign(x.key.Private, data) }})
	var ae *commands.ArgError
	switch {
	case errors.Is(err, commands.ErrOtherContent) && errors.As(err, &ae):
		return withObject(withStatus(ExitFailure, kindExists, ae.Err), ae.Object, ae.Value)
	case err != nil:
		return err
	}
	if x.askedJSON() {
		printJSONLine(x.out(), out)
		return nil
	}
	fmt.Fprintf(x.out(), "store=%s\nreceipt=%s\nsignature=%s\n", out.Store, out.Receipt, out.Signature)
	return nil
}

// runExportOriginal writes the original file a document was derived from
// (export --original DOC DIR): "original=PATH" and its digest, or the JSON
// object.
func runExportOriginal(x *invocation) error {
	if x.p.has("key") {
		return usageErrorf("--key signs a receipt, and --original writes none")
	}
	a, err := x.open(false)
	if err != nil {
		return err
	}
	out, err := commands.ExportOriginal(a, x.p.args[0], x.p.args[1])
	var ae *commands.ArgError
	switch {
	case errors.As(err, &ae) && errors.Is(err, commands.ErrOtherContent):
		return withObject(withStatus(ExitFailure, kindExists, ae.Err), ae.Object, ae.Value)
	case errors.As(err, &ae):
		return withObject(withStatus(ExitFailure, kindFailure, ae.Err), ae.Object, ae.Value)
	case err != nil:
		return err
	}
	if x.askedJSON() {
		printJSONLine(x.out(), out)
		return nil
	}
	fmt.Fprintf(x.out(), "original=%s\nsha256=%s\nkind=%s\n", out.Original, out.OriginalSHA256, out.Kind)
	return nil
}

// runCheck re-reads everything; exit 1 with one line per problem.
func runCheck(x *invocation) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	// The log's signed checkpoint is held to the key's public half, when
	// there is a key.
	if err := x.loadLogKey(false); err != nil {
		return err
	}
	if err := x.attachLogKey(a, false); err != nil {
		return err
	}
	// Writers commit between the documents of a long check; Ctrl-C (in the
	// REPL) stops it before the next document.
	bar := newProgress(x.env, 0)
	opts := db.CheckOptions{Share: true,
		Progress: func(i, n int, d *db.Document) { bar.total = n; bar.step(i, sanitize(d.Label())) }}
	out, problems, err := commands.Check(x.context(), a, opts, func(p db.Problem) error {
		bar.clear() // once the check is done; clearing again does nothing
		if x.askedJSON() {
			printJSONLine(x.out(), commands.ProblemOf(p))
			return nil
		}
		fmt.Fprintln(x.out(), sanitize(p.String()))
		return nil
	})
	bar.clear()
	if err != nil {
		return err
	}
	if problems > 0 {
		return withStatus(ExitFailure, kindProblemsFound, fmt.Errorf("%s found in %s", plural(problems, "problem"), a.Path()))
	}
	if x.askedJSON() {
		printJSONLine(x.out(), out)
		return nil
	}
	fmt.Fprintf(x.out(), "ok: %d documents checked in %s\n", out.Documents, out.Archive)
	return nil
}

// originalKind reads the kind line of an original receipt for listings.
func originalKind(b []byte) string {
	if r, err := receipt.Parse(b); err == nil {
		return string(r.Kind)
	}
	return "?"
}

// readSignature reads the detached signature beside a receipt or rows
// file (sigPath: FILE.sig, as ssh-keygen -Y sign names it): none when
// there is no such file, the error of reading it when it cannot be read
// (a directory or a FIFO there, a file too large to be a signature).
func readSignature(sigPath string) (commands.Detached, error) {
	sig, err := fileio.ReadLimited(sigPath, sign.MaxSignature)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return commands.Detached{}, nil
	case err != nil:
		return commands.Detached{}, fileErr(sigPath, err)
	}
	return commands.Detached{Signed: true, Text: string(sig)}, nil
}
