package db

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/casper-chronicle/chronicle/engine/archivelog"
	"sort"
	"time"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"

	bolt "go.etcd.io/bbolt"
)

// Claim checks (the claims checker of engine/claimcheck, against the
// archive).
//
// A check resolves every result line of a claims file against the archive
// (each resolved result issues its archive receipt), decides each claim
// line's row (claimcheck.Decide) and keeps the file, the document each
// result resolved to and the rows in the claims bucket under (namespace,
// runId), write-once: the same file again reuses the check, a different
// file under the same identity is refused. Keeping the resolutions lets a
// check be replayed exactly later, whatever names were added since.

// bucketClaims keeps claim checks (schema 8): EncodeIdentityField(ns) "/"
// EncodeIdentityField(runId) → SHA-256(key ‖ body) ‖ body, body the JSON
// of keptCheck.
var bucketClaims = []byte("claimchecks")

// Errors of claim checks.
var (
	// ErrCheckExists: another claims file is kept under the same
	// (namespace, runId).
	ErrCheckExists = errors.New("a different claims file is already kept under this namespace and runId")
	// ErrNoCheck: no check is kept under the (namespace, runId).
	ErrNoCheck = errors.New("no claim check is kept under this namespace and runId")
)

// ClaimCheck is a kept claim check.
type ClaimCheck struct {
	Namespace, RunID string
	FileSHA256       Digest
	File             []byte           // the claims file, exact bytes
	Resolved         map[int64]Digest // result ordinal → its document; absent: not resolved
	Rows             [][]byte         // canonical rows, in claim-line order
	CheckedAt        uint64           // Unix seconds of the first check
}

// Counts returns the number of rows per outcome.
func (c *ClaimCheck) Counts() map[string]int {
	out := map[string]int{claimrow.Supported: 0, claimrow.Contradicted: 0, claimrow.Unverified: 0}
	for _, r := range c.Rows {
		if v, err := claimrow.ReadRow(r); err == nil {
			out[v.Get("outcome").Str]++
		}
	}
	return out
}

// keptCheck is the stored form of a ClaimCheck.
type keptCheck struct {
	FileSHA256 Digest          `json:"file_sha256"`
	CheckedAt  uint64          `json:"checked_at"`
	File       []byte          `json:"file"`
	Resolved   []keptResolved  `json:"resolved"`
	Rows       json.RawMessage `json:"rows"` // a JSON string holding the JSON Lines
}

type keptResolved struct {
	Result   int64  `json:"result"`
	Document Digest `json:"document"`
}

// checkKey is the identity of a check inside the archive: injective, since
// the encoded fields contain no '/'.
func checkKey(namespace, runID string) []byte {
	return []byte(claimrow.EncodeIdentityField(namespace) + "/" + claimrow.EncodeIdentityField(runID))
}

func (c *ClaimCheck) encode() ([]byte, error) {
	k := keptCheck{FileSHA256: c.FileSHA256, CheckedAt: c.CheckedAt, File: c.File}
	for ord, d := range c.Resolved {
		k.Resolved = append(k.Resolved, keptResolved{ord, d})
	}
	sort.Slice(k.Resolved, func(i, j int) bool { return k.Resolved[i].Result < k.Resolved[j].Result })
	var rows []byte
	for _, r := range c.Rows {
		rows = append(append(rows, r...), '\n')
	}
	var err error
	if k.Rows, err = json.Marshal(string(rows)); err != nil {
		return nil, err
	}
	body, err := json.Marshal(k)
	if err != nil {
		return nil, err
	}
	return sealValue(checkKey(c.Namespace, c.RunID), body), nil
}

// decodeCheck reads a kept check and checks it against its key: the digest
// over key and body, the file's digest, and the identity its header names.
func decodeCheck(key, value []byte) (*ClaimCheck, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("claim check %q: %w: %s", key, ErrCorrupt, fmt.Sprintf(format, args...))
	}
	if len(value) < sha256.Size {
		return nil, bad("short record")
	}
	body, ok := unseal(key, value)
	if !ok {
		return nil, bad("record digest mismatch")
	}
	var k keptCheck
	if err := json.Unmarshal(body, &k); err != nil {
		return nil, bad("%v", err)
	}
	if Digest(sha256.Sum256(k.File)) != k.FileSHA256 {
		return nil, bad("the claims file does not match its digest")
	}
	f, err := claimcheck.ParseFile(k.File)
	if err != nil {
		return nil, bad("the kept claims file no longer parses: %v", err)
	}
	if !bytes.Equal(checkKey(f.Namespace, f.RunID), key) {
		return nil, bad("kept under another identity than its header's")
	}
	var rows string
	if err := json.Unmarshal(k.Rows, &rows); err != nil {
		return nil, bad("%v", err)
	}
	c := &ClaimCheck{Namespace: f.Namespace, RunID: f.RunID, FileSHA256: k.FileSHA256, File: k.File,
		Resolved: map[int64]Digest{}, CheckedAt: k.CheckedAt}
	for _, r := range k.Resolved {
		c.Resolved[r.Result] = r.Document
	}
	c.Rows = claimcheck.Lines([]byte(rows))
	if len(c.Rows) != len(f.Claims) {
		return nil, bad("%d rows for %d claims", len(c.Rows), len(f.Claims))
	}
	return c, nil
}

// ClaimResult is one result line of a check, as the archive answered it.
type ClaimResult struct {
	Line       *claimcheck.ResultLine
	Doc        *Document // nil when the document was not resolved
	Unresolved error     // why Doc is nil
	Receipt    *Receipt
	Answer     *claimcheck.Answer
	Settlement *settle.Settlement // the result: one of these three
	Claim      *settle.Claim
	Find       *find.Result
}

// ClaimReport is a check with everything it was decided from.
type ClaimReport struct {
	Check   *ClaimCheck
	File    *claimcheck.File
	Results map[int64]*ClaimResult
	Rows    []*claimrow.Row // one per claim line, in order; Check.Rows are their bytes
	Reused  bool            // the same file was checked before: nothing new was kept
}

// CheckClaims checks a claims file against the archive and keeps the check
// (engine/claimcheck/README.md §5). A refused file (claimcheck.ErrFile) or an identity already
// kept for another file (ErrCheckExists) changes nothing.
func (a *Archive) CheckClaims(data []byte) (*ClaimReport, error) {
	return a.CheckClaimsWith(data, ClaimOptions{})
}

// ClaimOptions tune CheckClaimsWith.
type ClaimOptions struct {
	// Progress is told before each result line is answered: i from 0 of
	// n, and the document the line names.
	Progress func(i, n int, document string)
}

// CheckClaimsWith is CheckClaims with options.
func (a *Archive) CheckClaimsWith(data []byte, opts ClaimOptions) (*ClaimReport, error) {
	f, err := claimcheck.ParseFile(data)
	if err != nil {
		return nil, err
	}
	kept, err := a.ClaimCheck(f.Namespace, f.RunID)
	switch {
	case err == nil && kept.FileSHA256 == f.SHA256:
		rep, err := a.ReplayCheck(kept)
		if err != nil {
			return nil, err
		}
		rep.Reused = true
		return rep, nil
	case err == nil:
		return nil, fmt.Errorf("namespace %q, runId %q: %w (file %s, checked %s); give this file a new runId",
			f.Namespace, f.RunID, ErrCheckExists, kept.FileSHA256.Short(), formatUnix(kept.CheckedAt))
	case !errors.Is(err, ErrNoCheck):
		return nil, err
	}
	resolved := map[int64]Digest{}
	for _, r := range f.Results {
		d, err := a.Resolve(r.Document)
		switch {
		case err == nil:
			resolved[r.Ordinal] = d.SHA256
		case errors.Is(err, ErrUnknownDoc) || errors.Is(err, ErrAmbiguousDoc):
		default:
			return nil, fmt.Errorf("line %d: document %q: %w", r.Line, r.Document, err)
		}
	}
	now, err := ImportTime()
	if err != nil {
		return nil, err
	}
	check := &ClaimCheck{Namespace: f.Namespace, RunID: f.RunID, FileSHA256: f.SHA256, File: data, Resolved: resolved, CheckedAt: now}
	rep, err := a.decide(check, f, opts.Progress)
	if err != nil {
		return nil, err
	}
	value, err := check.encode()
	if err != nil {
		return nil, err
	}
	key := checkKey(f.Namespace, f.RunID)
	err = a.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketClaims)
		if b.Get(key) != nil {
			return fmt.Errorf("namespace %q, runId %q: %w (kept while this check ran)", f.Namespace, f.RunID, ErrCheckExists)
		}
		for _, ord := range sortedOrdinals(rep.Results) {
			if rec := rep.Results[ord].Receipt; rec != nil {
				if err := putReceipt(tx, rec); err != nil {
					return err
				}
			}
		}
		if err := b.Put(key, value); err != nil {
			return err
		}
		return appendLeaf(tx, &archivelog.Leaf{Kind: archivelog.KindClaims, Namespace: f.Namespace, RunID: f.RunID, SHA256: f.SHA256}, claimsLocator(f.SHA256))
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func sortedOrdinals(m map[int64]*ClaimResult) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ReplayCheck decides a kept check again from its kept file and
// resolutions against the archive as it is now, and requires the same row
// bytes: the check is reproducible and undamaged.
func (a *Archive) ReplayCheck(kept *ClaimCheck) (*ClaimReport, error) {
	f, err := claimcheck.ParseFile(kept.File)
	if err != nil {
		return nil, fmt.Errorf("claim check %q/%q: %w: %v", kept.Namespace, kept.RunID, ErrCorrupt, err)
	}
	replay := *kept
	rep, err := a.decide(&replay, f, nil)
	if err != nil {
		return nil, err
	}
	for i := range kept.Rows {
		if !bytes.Equal(kept.Rows[i], replay.Rows[i]) {
			return nil, fmt.Errorf("claim check %q/%q: %w: row %d (claim line %d) no longer replays to the kept bytes",
				kept.Namespace, kept.RunID, ErrCorrupt, i+1, f.Claims[i].Line)
		}
	}
	rep.Check = kept
	return rep, nil
}

// decide answers each result line whose document check.Resolved names and
// decides every claim's row into check.Rows; progress (when set) is told
// before each result line.
func (a *Archive) decide(check *ClaimCheck, f *claimcheck.File, progress func(i, n int, document string)) (*ClaimReport, error) {
	rep := &ClaimReport{Check: check, File: f, Results: map[int64]*ClaimResult{}}
	answers := map[int64]*claimcheck.Answer{}
	stores := &storeCache{a: a, whole: map[Digest]*engine.Store{}, evidence: map[Digest]*engine.Store{}}
	for i, line := range f.Results {
		if progress != nil {
			progress(i, len(f.Results), line.Document)
		}
		res := &ClaimResult{Line: line}
		rep.Results[line.Ordinal] = res
		doc, ok := check.Resolved[line.Ordinal]
		if !ok {
			_, res.Unresolved = a.Resolve(line.Document)
			if res.Unresolved == nil {
				res.Unresolved = fmt.Errorf("%q did not name one document when the check was made", line.Document)
			}
			continue
		}
		if err := a.answer(res, doc, stores); err != nil {
			return nil, fmt.Errorf("line %d: %w", line.Line, err)
		}
		answers[line.Ordinal] = res.Answer
	}
	check.Rows = nil
	for _, c := range f.Claims {
		row, err := claimcheck.Decide(f, c, answers)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", c.Line, err)
		}
		b, err := row.JSON()
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", c.Line, err)
		}
		rep.Rows = append(rep.Rows, row)
		check.Rows = append(check.Rows, b)
	}
	return rep, nil
}

// storeCache loads each document once per check, however many result
// lines ask about it: whole for find, its evidence spans for questions.
type storeCache struct {
	a               *Archive
	whole, evidence map[Digest]*engine.Store
}

// loader returns the cached loader of whole stores or of evidence spans.
func (c *storeCache) loader(whole bool) func(*Document) (*engine.Store, error) {
	m, load := c.evidence, c.a.LoadEvidence
	if whole {
		m, load = c.whole, c.a.Load
	}
	return func(d *Document) (*engine.Store, error) {
		if s, ok := m[d.SHA256]; ok {
			return s, nil
		}
		s, err := load(d)
		if err == nil {
			m[d.SHA256] = s
		}
		return s, err
	}
}

// answer evaluates one result line on its document, exactly as query and
// find --doc do (answerOn), and issues its archive receipt (kept by the
// caller).
func (a *Archive) answer(res *ClaimResult, doc Digest, stores *storeCache) error {
	d, err := a.Document(doc)
	if err != nil {
		return err
	}
	res.Doc = d
	kind := KindQuery
	if res.Line.Kind == claimcheck.FindResult {
		kind = KindFind
	}
	ans, err := answerOn(d, kind, res.Line.Question, stores.loader(kind == KindFind))
	if err != nil {
		return err
	}
	res.Settlement, res.Claim, res.Find, res.Receipt = ans.Settlement, ans.Claim, ans.Find, ans.Receipt
	switch {
	case ans.Find != nil:
		res.Answer = claimcheck.FindAnswer(ans.Find)
	case ans.Settlement != nil:
		res.Answer = claimcheck.SettlementAnswer(ans.Settlement)
	default:
		res.Answer = claimcheck.ClaimAnswer(ans.Claim)
	}
	res.Answer.Document = d.SHA256.String()
	res.Answer.Receipt = res.Receipt.ID().String()
	return nil
}

// ClaimCheck returns the check kept under (namespace, runID), or ErrNoCheck.
func (a *Archive) ClaimCheck(namespace, runID string) (*ClaimCheck, error) {
	var c *ClaimCheck
	key := checkKey(namespace, runID)
	err := a.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketClaims)
		v := b.Get(key)
		if v == nil {
			return fmt.Errorf("namespace %q, runId %q: %w", namespace, runID, ErrNoCheck)
		}
		var err error
		c, err = decodeCheck(key, v)
		return err
	})
	return c, err
}

// ClaimChecks lists the kept checks by identity.
func (a *Archive) ClaimChecks() ([]*ClaimCheck, error) {
	var out []*ClaimCheck
	err := a.bolt.View(func(tx *bolt.Tx) error {
		var prev []byte
		return tx.Bucket(bucketClaims).ForEach(func(k, v []byte) error {
			// A damaged branch page can walk one leaf twice: the keys
			// would then go back, and a check be listed twice.
			if prev != nil && bytes.Compare(prev, k) >= 0 {
				return fmt.Errorf("archive %s: %w: the kept claim checks are out of order (damaged pages; run `chronicle check`)", a.path, ErrCorrupt)
			}
			prev = k
			c, err := decodeCheck(k, v)
			if err != nil {
				return err
			}
			out = append(out, c)
			return nil
		})
	})
	return out, err
}

// RowVerdict is what VerifyRows found for one line of a rows file.
type RowVerdict struct {
	Line    int
	ClaimID string // "" when the line is not a row
	Problem string // "" when the row is VALID
}

// VerifyRows checks each line of a rows file: the reader's rules, then the
// row recomputed from the kept check it names (its result re-answered from
// the kept document, its receipt kept and VALID, the same bytes as
// canonical JSON).
func (a *Archive) VerifyRows(lines [][]byte) ([]RowVerdict, error) {
	type replayed struct {
		rep *ClaimReport
		err error
	}
	reports := map[string]*replayed{}
	verified := map[Digest]string{} // receipt ID → problem ("" VALID)
	out := make([]RowVerdict, len(lines))
	for i, line := range lines {
		v := &out[i]
		v.Line = i + 1
		row, err := claimrow.ReadRow(line)
		if err != nil {
			v.Problem = "not a valid row: " + err.Error()
			continue
		}
		id, _ := claimrow.ReadClaimIdentity(row.Get("claimId"))
		v.ClaimID = row.Get("claimId").Str
		key := string(checkKey(id.Namespace, id.RunID))
		r := reports[key]
		if r == nil {
			r = &replayed{}
			kept, err := a.ClaimCheck(id.Namespace, id.RunID)
			if err == nil {
				r.rep, err = a.ReplayCheck(kept)
			}
			if err != nil && !errors.Is(err, ErrNoCheck) {
				return nil, err
			}
			r.err = err
			reports[key] = r
		}
		if r.err != nil {
			v.Problem = r.err.Error()
			continue
		}
		v.Problem = a.verifyRow(row, id, r.rep, verified)
	}
	return out, nil
}

// verifyRow compares one row with its recomputation.
func (a *Archive) verifyRow(row claimrow.Value, id claimrow.Identity, rep *ClaimReport, verified map[Digest]string) string {
	idx := -1
	for i, c := range rep.File.Claims {
		if c.Ordinal == id.Ordinal {
			idx = i
		}
	}
	if idx < 0 {
		return fmt.Sprintf("the kept check has no claim %d", id.Ordinal)
	}
	want, err := claimrow.ReadRow(rep.Check.Rows[idx])
	if err != nil {
		return err.Error()
	}
	for _, field := range []string{"outcome", "reason", "resolved", "declaredResult", "declaredRule", "declaredValue",
		"declaredOn", "standing", "iteration", "turn", "checker", "kind"} {
		got, exp := row.Get(field), want.Get(field)
		if !bytes.Equal(claimrow.Canonical(got), claimrow.Canonical(exp)) || got.Kind != exp.Kind {
			if field == "outcome" || field == "reason" {
				return fmt.Sprintf("%s: the row says %s, the archive gives %s", field, claimrow.Canonical(got), claimrow.Canonical(exp))
			}
			return fmt.Sprintf("%s differs from the archive's recomputation", field)
		}
	}
	if !bytes.Equal(claimrow.Canonical(row), rep.Check.Rows[idx]) {
		return "differs from the archive's recomputation"
	}
	if rep.Rows[idx].Resolved == nil {
		return ""
	}
	res := rep.Results[rep.File.Claims[idx].DeclaredResult]
	rid := res.Receipt.ID()
	if p, ok := verified[rid]; ok {
		return p
	}
	p := a.receiptProblem(res.Receipt)
	verified[rid] = p
	return p
}

// receiptProblem: "" when the receipt is kept in the archive and VALID.
func (a *Archive) receiptProblem(r *Receipt) string {
	kept, err := a.Receipts(&r.Document)
	if err != nil {
		return err.Error()
	}
	found := false
	for _, k := range kept {
		found = found || k.ID() == r.ID()
	}
	if !found {
		return fmt.Sprintf("receipt %s is not kept in the archive", r.ID().Short())
	}
	outcome, err := a.Verify(r, receipt.Canonical{})
	if outcome != receipt.Valid {
		return fmt.Sprintf("receipt %s is %s: %v", r.ID().Short(), outcome, err)
	}
	return ""
}

// formatUnix renders Unix seconds as RFC 3339 in UTC.
func formatUnix(s uint64) string { return time.Unix(int64(s), 0).UTC().Format(time.RFC3339) }
