package repl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// runReceipts lists the receipts the archive issued, optionally verifying
// each one again.
func runReceipts(x *ctx) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	var doc *db.Digest
	if len(x.p.args) == 1 {
		d, err := a.Resolve(x.p.args[0])
		if err != nil {
			return err
		}
		doc = &d.SHA256
	}
	recs, err := a.Receipts(doc)
	if err != nil {
		return err
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
	invalid, unsupported := 0, 0
	// verdictOf re-verifies with --verify and counts the outcomes.
	verdictOf := func(verify func() (receipt.Outcome, error)) string {
		if !x.p.has("verify") {
			return ""
		}
		outcome, _ := verify()
		switch outcome {
		case receipt.Invalid:
			invalid++
		case receipt.Unsupported:
			unsupported++
		}
		return outcome.String()
	}
	// A VALID receipt of a document the archive can no longer reach by
	// its names or indexes (damageBeside): each such receipt's JSON says
	// so, the listing ends with one line on stderr.
	warnings := map[db.Digest]string{}
	warned, firstWarning := 0, ""
	warningOf := func(verdict string, doc db.Digest) string {
		if verdict != receipt.Valid.String() {
			return ""
		}
		w, ok := warnings[doc]
		if !ok {
			w = x.damageBeside(doc)
			warnings[doc] = w
		}
		if w != "" {
			if warned++; firstWarning == "" {
				firstWarning = w
			}
		}
		return w
	}
	for _, r := range recs {
		verdict := verdictOf(func() (receipt.Outcome, error) { return a.Verify(r, receipt.Canonical{}) })
		warning := warningOf(verdict, r.Document)
		if x.machine() {
			j := map[string]any{"id": r.ID().String(), "kind": r.Kind, "document_sha256": r.Document.String(),
				"question": r.Question, "receipt": string(r.Encode())}
			if verdict != "" {
				j["verdict"] = verdict
			}
			if warning != "" {
				j["warning"] = warning
			}
			printJSONLine(x.out(), j)
			continue
		}
		line := fmt.Sprintf("%s  %-6s  %s", r.ID().Short(), r.Kind, sanitize(labelOf(r.Document)))
		if r.Question != "" {
			line += "  " + sanitize(r.Question)
		}
		if verdict != "" {
			line = verdict + "  " + line
		}
		fmt.Fprintln(x.out(), line)
	}
	var sets []*db.SetReceipt
	if doc == nil {
		if sets, err = a.SetReceipts(); err != nil {
			return err
		}
	}
	sv := a.NewSetVerifier() // checks each bound document once for all receipts
	for _, r := range sets {
		verdict := verdictOf(func() (receipt.Outcome, error) { return sv.Verify(r) })
		if x.machine() {
			j := map[string]any{"id": r.ID().String(), "kind": r.Kind, "documents": r.Documents, "set_sha256": r.Set.String(),
				"question": r.Question, "receipt": string(r.Encode())}
			if r.Kind == db.KindArchiveFind {
				j["limit"] = r.Limit
			}
			if verdict != "" {
				j["verdict"] = verdict
			}
			printJSONLine(x.out(), j)
			continue
		}
		fmt.Fprintln(x.out(), setReceiptLine(r, verdict))
	}
	originals, err := a.Originals(doc)
	if err != nil {
		return err
	}
	for _, o := range originals {
		verdict := verdictOf(func() (receipt.Outcome, error) { return a.VerifyOriginal(o.Bytes, receipt.Canonical{}) })
		warning := warningOf(verdict, o.Document)
		if x.machine() {
			j := map[string]any{"id": o.ID().String(), "original": o.Name, "document_sha256": o.Document.String(), "receipt": string(o.Bytes)}
			if verdict != "" {
				j["verdict"] = verdict
			}
			if warning != "" {
				j["warning"] = warning
			}
			printJSONLine(x.out(), j)
			continue
		}
		line := fmt.Sprintf("%s  %-6s  %s  original %s", o.ID().Short(), originalKind(o.Bytes), sanitize(labelOf(o.Document)), sanitize(o.Name))
		if verdict != "" {
			line = verdict + "  " + line
		}
		fmt.Fprintln(x.out(), line)
	}
	if labelErr != nil {
		return labelErr
	}
	total := len(recs) + len(sets) + len(originals)
	if total == 0 && !(x.machine()) {
		fmt.Fprintln(x.out(), "(no receipts)")
	}
	// Exit like verify: 1 when any receipt is INVALID, else 3 when any is
	// UNSUPPORTED.
	if invalid > 0 {
		return withStatus(ExitFailure, kindInvalid, fmt.Errorf("%d of %d receipts are INVALID", invalid, total))
	}
	if unsupported > 0 {
		return withStatus(ExitUnsupported, kindUnsupported,
			fmt.Errorf("%d of %d receipts are UNSUPPORTED (V1 QUERY receipts: integrity checked, historical result not recomputed)", unsupported, total))
	}
	// Only beside an exit 0: a failure's one line comes alone (the JSON
	// lines carry their warnings either way).
	if !x.machine() && warned == 1 {
		fmt.Fprintf(x.env.Stderr, "%schronicle receipts: %s\n", x.env.where(), firstWarning)
	} else if !x.machine() && warned > 1 {
		fmt.Fprintf(x.env.Stderr, "%schronicle receipts: warning: %d receipts are VALID from their documents' bytes, but archive %s is damaged (the first: %s); run `chronicle check`\n",
			x.env.where(), warned, a.Path(), firstDamage(firstWarning))
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
func answerSet[H any](x *ctx, what, question string,
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
func printSetAnswer[H any](x *ctx, hits []H, rec *db.SetReceipt,
	hitJSON func(h *H, names bool) []byte, none func(), render func(h *H)) {
	asJSON := x.json()
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
// .chronicle file it names, and prints the word.
func runVerify(x *ctx) error {
	path := x.p.args[0]
	data, err := fileio.ReadLimited(path, db.MaxReceiptSize)
	var outcome receipt.Outcome
	var why error
	warning := ""
	if err != nil {
		outcome, why = receipt.Invalid, fileErr(path, err)
	} else {
		v := commands.Verify(func() (*db.Archive, error) { return x.open(false) }, commands.VerifyIn{Receipt: string(data), File: path})
		outcome, why, warning = v.Outcome, v.Why, v.Warning
	}
	var notRegular *fileio.NotRegularError
	said := why != nil // the readable view says why only when there is a reason
	switch {
	case errors.As(why, &notRegular) && notRegular.Path == path: // it names the path
	case isFileError(why): // fileErr named the path
	case why != nil:
		why = fmt.Errorf("%s: %w", path, why)
	case outcome != receipt.Valid:
		why = fmt.Errorf("%s: %s", path, outcome)
	}
	if x.machine() {
		j := commands.Verdict{File: path, Verdict: outcome.String(), Warning: warning}
		if why != nil {
			j.Problem = why.Error()
		}
		printJSONLine(x.out(), j)
	} else {
		fmt.Fprintln(x.out(), outcome)
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

// damageBeside is commands.DamageBeside on the command's archive ("" when
// it cannot be opened).
func (x *ctx) damageBeside(doc db.Digest) string {
	a, err := x.open(false)
	if err != nil {
		return ""
	}
	return commands.DamageBeside(a, doc)
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

// runExport writes DIR/<base>.chronicle, byte-identical to the original
// tool's store for the same source and import time, and a V2 (or V1)
// INGEST receipt whose store path is that file name as formed from DIR.
func runExport(x *ctx) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	d, err := a.Resolve(x.p.args[0])
	if err != nil {
		return err
	}
	storeBytes, s, err := a.Rebuild(d)
	if err != nil {
		return err
	}
	dir := x.p.args[1]
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%s is %s, not a directory; nothing was written", dir, fileio.Kind(st.Mode()))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Base(d.Label())
	storePath := dir + "/" + base + ".chronicle"
	if strings.HasSuffix(dir, "/") || strings.HasSuffix(dir, string(os.PathSeparator)) { // C:\out\ on Windows
		storePath = dir + base + ".chronicle"
	}
	if !engine.ValidTextString(storePath) || len(storePath) > receipt.MaxPathLen {
		return fmt.Errorf("store path %q cannot be recorded in a receipt (UTF-8, at most %d bytes)", storePath, receipt.MaxPathLen)
	}
	rec, err := receipt.New(receipt.KindIngest, storePath, "", storeBytes, s.Version, s.Document, nil)
	if err != nil {
		return err
	}
	receiptPath := storePath + ".receipt"
	// Both files or neither: anything but a regular file in the way of
	// either (a directory, a FIFO) is refused before anything is written,
	// and a store this export created is removed when its receipt cannot
	// be written. The files follow the umask, as the original tool's do.
	for _, p := range []string{storePath, receiptPath} {
		if err := fileio.CheckTarget(p); err != nil {
			return fmt.Errorf("%w; nothing was written", err)
		}
	}
	created := true
	if err := fileio.CreateShared(storePath, storeBytes); err != nil {
		if !errors.Is(err, os.ErrExist) {
			return err
		}
		created = false
		existing, rerr := fileio.ReadLimited(storePath, int64(len(storeBytes)))
		if errors.Is(rerr, fileio.ErrNotRegular) {
			return fmt.Errorf("%w; nothing was written", rerr)
		}
		if rerr != nil || string(existing) != string(storeBytes) {
			err := fmt.Errorf("%s already exists with other content; nothing was overwritten", storePath)
			return withObject(withStatus(ExitFailure, kindExists, err), "file", storePath)
		}
	}
	if err := fileio.WriteOnceShared(receiptPath, rec.Encode()); err != nil {
		if created {
			os.Remove(storePath)
			return fmt.Errorf("%w; the store %s was not kept either", err, storePath)
		}
		return err
	}
	if x.machine() {
		printJSONLine(x.out(), map[string]any{"document_sha256": d.SHA256.String(), "store": storePath, "receipt": receiptPath,
			"store_version": s.Version, "created": created})
		return nil
	}
	fmt.Fprintf(x.out(), "store=%s\nreceipt=%s\n", storePath, receiptPath)
	return nil
}

// runCheck re-reads everything; exit 1 with one line per problem.
func runCheck(x *ctx) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	// Writers commit between the documents of a long check; Ctrl-C (in the
	// REPL) stops it before the next document.
	bar := newProgress(x.env, 0)
	problems, err := a.CheckWith(x.context(), db.CheckOptions{Share: true,
		Progress: func(i, n int, d *db.Document) { bar.total = n; bar.step(i, sanitize(d.Label())) }})
	bar.clear()
	for _, p := range problems {
		if x.machine() {
			j := map[string]any{"problem": p.Detail}
			if p.Doc != "" {
				j["document"] = p.Doc
			}
			printJSONLine(x.out(), j)
			continue
		}
		fmt.Fprintln(x.out(), sanitize(p.String()))
	}
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return withStatus(ExitFailure, kindProblemsFound, fmt.Errorf("%s found in %s", plural(len(problems), "problem"), a.Path()))
	}
	docs, _ := a.Docs()
	if x.machine() {
		printJSONLine(x.out(), map[string]any{"ok": true, "documents": len(docs), "archive": a.Path()})
		return nil
	}
	fmt.Fprintf(x.out(), "ok: %d documents checked in %s\n", len(docs), a.Path())
	return nil
}

// originalKind reads the kind line of an original receipt for listings.
func originalKind(b []byte) string {
	if r, err := receipt.Parse(b); err == nil {
		return string(r.Kind)
	}
	return "?"
}
