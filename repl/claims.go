package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"
	"github.com/casper-chronicle/chronicle/engine/sign"
)

// claimsRuns run the subcommands of `claims` (commands.ClaimsVerbs).
var claimsRuns = map[string]func(x *invocation, args []string) error{
	"check":  runClaimsCheck,
	"read":   runClaimsRead,
	"verify": runClaimsVerify,
	"list":   runClaimsList,
}

// runClaims dispatches `claims VERB ...`.
func runClaims(x *invocation) error {
	verb, args := x.p.args[0], x.p.args[1:]
	for _, v := range commands.ClaimsVerbs {
		if v.Name != verb {
			continue
		}
		if len(args) != v.NArgs {
			return usageErrorf("usage: %s", strings.TrimSpace("claims "+v.Name+" "+v.Args))
		}
		if x.p.has("out") && v.Name != "check" {
			return usageErrorf("--out belongs to `claims check`")
		}
		return claimsRuns[v.Name](x, args)
	}
	names := x.cmd.spec.VerbNames()
	return usageErrorf("unknown claims command %q (%s)%s", verb, commands.OneOf(names), didYouMean(verb, names, strconv.Quote))
}

// readInput reads a whole input file, or stdin for "-", up to limit bytes.
func (x *invocation) readInput(path string, limit int64) ([]byte, error) {
	if path != "-" {
		data, err := fileio.ReadLimited(path, limit)
		return data, fileErr(path, err)
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("stdin: %w (more than %d bytes)", fileio.ErrTooLarge, limit)
	}
	return data, nil
}

func runClaimsCheck(x *invocation, args []string) error {
	data, err := x.readInput(args[0], claimcheck.MaxFileBytes)
	if err != nil {
		return err
	}
	in := commands.ClaimsCheckIn{Claims: data}
	// Refuse a bad file before the archive is touched (or created).
	if err := in.Check(); err != nil {
		return fmt.Errorf("%s: %w", sanitize(args[0]), err)
	}
	if err := x.prepareKey(); err != nil {
		return err
	}
	a, err := x.openExisting()
	if err != nil {
		return err
	}
	bar := newProgress(x.env, 0)
	out, err := commands.ClaimsCheck(a, in, db.ClaimOptions{Progress: func(i, n int, doc string) {
		bar.total = n
		bar.step(i, "result on "+sanitize(doc))
	}})
	bar.clear()
	if err != nil {
		return fmt.Errorf("%s: %w", sanitize(args[0]), err)
	}
	rep, rows := out.Report, out.Rows()
	if out := x.p.value("out"); out != "" {
		if err := x.writeSigned(out, rows); err != nil {
			if c := (*fileio.CollisionError)(nil); errors.As(err, &c) {
				return fmt.Errorf("%s already exists with other content; nothing was overwritten", sanitize(c.Path))
			}
			return err
		}
	}
	if x.resultJSON() {
		x.out().Write(rows)
		return nil
	}
	x.renderClaimReport(rep)
	return nil
}

// renderClaimReport is the readable view of a check: one block per claim.
func (x *invocation) renderClaimReport(rep *db.ClaimReport) {
	w := x.out()
	fmt.Fprintf(w, "%-5s  %-12s  %-17s  %-20s  %s\n", "CLAIM", "OUTCOME", "REASON", "CLAIMED", "ARCHIVE")
	counts := map[string]int{}
	shown := map[int64]int64{} // result ordinal → the claim that showed its evidence
	for i, row := range rep.Rows {
		c := rep.File.Claims[i]
		counts[row.Outcome]++
		archive := "-"
		if row.Resolved != nil {
			archive = string(claimrow.Canonical(row.Resolved.Value))
		}
		fmt.Fprintf(w, "%-5d  %-12s  %-17s  %-20s  %s\n", c.Ordinal, row.Outcome, row.Reason,
			sanitize(clipText(string(claimrow.Canonical(c.DeclaredValue)), 20)), sanitize(clipText(archive, 30)))
		res := rep.Results[c.DeclaredResult]
		if res == nil || res.Doc == nil {
			continue
		}
		switch row.Reason {
		case claimrow.NoConflict, claimrow.NumericLeniency, claimrow.Conflict, claimrow.UnresolvedResult, claimrow.EvidenceConflict:
		default:
			continue
		}
		fmt.Fprintf(w, "       %s of result %d (%s) on %s\n", row.DeclaredRule, c.DeclaredResult,
			sanitize(clipText(res.Line.Question, 40)), sanitize(res.Doc.Label()))
		// A contradiction always shows its evidence: it is what the user
		// came to trace.
		if first, ok := shown[c.DeclaredResult]; ok && row.Outcome != claimrow.Contradicted {
			fmt.Fprintf(w, "       evidence as for claim %d\n", first)
		} else {
			if !ok {
				shown[c.DeclaredResult] = c.Ordinal
			}
			x.renderResultEvidence(res, c.DeclaredRule)
			if row.Resolved != nil {
				fmt.Fprintf(w, "       receipt %s kept (`receipts %s --verify` re-checks it)\n", res.Receipt.ID().Short(), sanitize(res.Doc.Label()))
			}
		}
	}
	id := sanitize(rep.File.Namespace) + "/" + sanitize(rep.File.RunID)
	fmt.Fprintf(w, "%s: %d supported, %d contradicted, %d unverified\n", plural(len(rep.Rows), "claim"),
		counts[claimrow.Supported], counts[claimrow.Contradicted], counts[claimrow.Unverified])
	if rep.Reused {
		fmt.Fprintf(w, "check %s was kept before from the same file; its rows are unchanged\n", id)
	} else {
		fmt.Fprintf(w, "check %s kept (`claims list`; `claims verify ROWS` recomputes the rows)\n", id)
	}
}

// renderResultEvidence prints the evidence a result decided on as
// `name:line  text` (`+` marks a counted payment): for the debt and its
// currency the debt records only, else every evidence span or listed line.
func (x *invocation) renderResultEvidence(res *db.ClaimResult, rule string) {
	label := sanitize(res.Doc.Label())
	switch {
	case res.Settlement != nil || res.Claim != nil:
		var evidence []settle.Evidence
		if res.Settlement != nil {
			evidence = res.Settlement.Evidence
		} else {
			evidence = res.Claim.Evidence
		}
		if len(evidence) == 0 {
			fmt.Fprintln(x.out(), "       (no evidence)")
		}
		for _, e := range evidence {
			if (rule == claimcheck.RuleDebt || rule == claimcheck.RuleCurrency) && e.Event.Predicate != engine.PredBorrowedFrom {
				continue
			}
			mark := " "
			if e.Counted {
				mark = "+"
			}
			fmt.Fprintf(x.out(), "     %s %s:%d  %s\n", mark, label, e.Event.LineStart, sanitize(e.Text))
		}
	case res.Find != nil:
		for _, m := range res.Find.Matches {
			fmt.Fprintf(x.out(), "       %s:%d  %s\n", label, m.Line, sanitize(m.Text))
		}
		if len(res.Find.Matches) < res.Find.TotalMatchingLines {
			fmt.Fprintf(x.out(), "       (best %d of %d lines shown)\n", len(res.Find.Matches), res.Find.TotalMatchingLines)
		}
	}
}

// clipText shortens s to at most n characters for a table cell.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// signatureLine is the readable view's line after a verdict on a file:
// who signed it, or that it is unsigned (nothing for stdin, which has no
// signature beside it).
func (x *invocation) signatureLine(signer string, signed, stdin bool, sigPath string) {
	switch {
	case signer != "":
		fmt.Fprintf(x.out(), "signed by %s (%s)\n", signer, sanitize(sigPath))
	case !signed && !stdin:
		fmt.Fprintf(x.out(), "unsigned (no %s)\n", sanitize(sigPath))
	}
}

// readRows reads a rows file (or stdin) as JSON Lines.
func (x *invocation) readRows(path string) ([][]byte, error) {
	data, err := x.readInput(path, claimcheck.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return claimcheck.Lines(data), nil
}

func runClaimsRead(x *invocation, args []string) error {
	lines, err := x.readRows(args[0])
	if err != nil {
		return err
	}
	bad, _ := commands.ClaimsRead(lines, func(r commands.RowRead) error {
		switch {
		case x.askedJSON():
			printJSONLine(x.out(), r)
		case !r.OK:
			fmt.Fprintf(x.out(), "line %d: invalid: %s\n", r.Line, sanitize(r.Problem))
		default:
			fmt.Fprintf(x.out(), "line %d: ok\n", r.Line)
		}
		return nil
	})
	if bad > 0 {
		return quietStatus(ExitFailure, kindInvalid, withObject(fmt.Errorf("%d of %d rows are invalid", bad, len(lines)), "file", args[0]))
	}
	return nil
}

func runClaimsVerify(x *invocation, args []string) error {
	data, err := x.readInput(args[0], claimcheck.MaxFileBytes)
	if err != nil {
		return err
	}
	// A rows file written by `claims check --out` is signed beside it
	// (ROWS.sig); a signature that does not verify makes the file
	// INVALID before any row is recomputed, as `verify` does a receipt.
	signer, signed := "", false
	sigPath := args[0] + sign.Suffix
	if args[0] != "-" {
		sig, err := readSignature(sigPath)
		if err == nil {
			signed = sig.Signed
			signer, err = sig.Check(data)
		}
		if err != nil {
			if x.askedJSON() {
				printJSONLine(x.out(), commands.RowsVerified{Verdict: receipt.Invalid.String()})
			} else {
				fmt.Fprintln(x.out(), receipt.Invalid)
			}
			if errors.Is(err, commands.ErrSignature) {
				err = fmt.Errorf("%s: %w", sanitize(sigPath), err)
			}
			return withStatus(ExitFailure, kindInvalid, withObject(err, "file", args[0]))
		}
	}
	lines := claimcheck.Lines(data)
	in := commands.ClaimsVerifyIn{Rows: lines}
	if err := in.Check(); err != nil {
		return fmt.Errorf("%s %w", sanitize(args[0]), err)
	}
	a, err := x.open(false)
	if err != nil {
		return err
	}
	out, err := commands.ClaimsVerify(a, in)
	if err != nil {
		return err
	}
	asJSON := x.askedJSON()
	for _, v := range out.Rows {
		switch {
		case asJSON:
			printJSONLine(x.out(), v)
		case v.Problem != "" && v.ClaimID != "":
			fmt.Fprintf(x.out(), "INVALID  line %d  %s: %s\n", v.Line, sanitize(v.ClaimID), sanitize(v.Problem))
		case v.Problem != "":
			fmt.Fprintf(x.out(), "INVALID  line %d: %s\n", v.Line, sanitize(v.Problem))
		}
	}
	bad, rows := out.Verdict.Invalid, out.Verdict.Rows
	out.Verdict.Signer = signer
	switch {
	case asJSON:
		printJSONLine(x.out(), out.Verdict)
	case bad > 0:
		fmt.Fprintf(x.out(), "INVALID (%d of %d rows)\n", bad, rows)
	default:
		fmt.Fprintln(x.out(), "VALID")
	}
	if !asJSON {
		x.signatureLine(signer, signed, args[0] == "-", sigPath)
	}
	if bad > 0 {
		return quietStatus(ExitFailure, kindInvalid, withObject(fmt.Errorf("INVALID (%d of %d rows)", bad, rows), "file", args[0]))
	}
	return nil
}

func runClaimsList(x *invocation, _ []string) error {
	a, err := x.open(false)
	if err != nil {
		return err
	}
	checks, err := commands.ClaimsList(a)
	if err != nil {
		return err
	}
	asJSON := x.askedJSON()
	if !asJSON {
		if len(checks) == 0 {
			fmt.Fprintln(x.out(), "no claim checks kept (`claims check FILE` makes one)")
			return nil
		}
		fmt.Fprintf(x.out(), "%-20s  %-16s  %6s  %9s  %12s  %10s  %-12s  %s\n",
			"NAMESPACE", "RUNID", "CLAIMS", "SUPPORTED", "CONTRADICTED", "UNVERIFIED", "FILE", "CHECKED")
	}
	for _, c := range checks {
		if asJSON {
			printJSONLine(x.out(), c)
			continue
		}
		fmt.Fprintf(x.out(), "%-20s  %-16s  %6d  %9d  %12d  %10d  %-12s  %s\n", sanitize(clipText(c.Namespace, 20)),
			sanitize(clipText(c.RunID, 16)), c.Claims, c.Supported, c.Contradicted, c.Unverified,
			c.Check.FileSHA256.Short(), c.Checked)
	}
	return nil
}
