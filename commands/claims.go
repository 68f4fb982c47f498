package commands

import (
	"errors"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
)

// `claims check`, `claims read`, `claims verify` and `claims list`. The
// front-end reads the files (a path, or stdin for the CLI); these take
// their bytes.

// ClaimsCheckIn is a claims file to check: `claims check FILE`.
type ClaimsCheckIn struct {
	Claims []byte // the file's bytes, at most claimcheck.MaxFileBytes
}

// Check refuses a bad file before the archive is touched (or created).
func (in ClaimsCheckIn) Check() error {
	_, err := claimcheck.ParseFile(in.Claims)
	return err
}

// ClaimsCheckOut is a kept check: the report and the rows, one canonical
// JSON row per claim line (the `claims check --json` lines).
type ClaimsCheckOut struct {
	Report *db.ClaimReport
}

// Rows are the rows as a rows file: one per line.
func (o *ClaimsCheckOut) Rows() []byte {
	var rows []byte
	for _, r := range o.Report.Check.Rows {
		rows = append(append(rows, r...), '\n')
	}
	return rows
}

// ClaimsCheck checks the claims against the archive and keeps the check
// (db.Archive.CheckClaimsWith; opts shows progress).
func ClaimsCheck(a *db.Archive, in ClaimsCheckIn, opts db.ClaimOptions) (*ClaimsCheckOut, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	rep, err := a.CheckClaimsWith(in.Claims, opts)
	if err != nil {
		return nil, err
	}
	return &ClaimsCheckOut{Report: rep}, nil
}

// RowRead is one line of a rows file read by the strict row reader: its
// JSON is a `claims read --json` line.
type RowRead struct {
	Line    int    `json:"line"`
	OK      bool   `json:"ok"`
	Problem string `json:"problem,omitempty"`
}

// ClaimsRead reads every line of a rows file with the strict row reader
// (claimrow.ReadRow), no archive needed, and calls each with each line's
// outcome; it returns how many lines are not rows.
func ClaimsRead(lines [][]byte, each func(RowRead) error) (bad int, err error) {
	for i, line := range lines {
		r := RowRead{Line: i + 1, OK: true}
		if _, err := claimrow.ReadRow(line); err != nil {
			bad++
			r.OK, r.Problem = false, err.Error()
		}
		if err := each(r); err != nil {
			return bad, err
		}
	}
	return bad, nil
}

// ErrNoRows is the error of a rows file to verify that holds no line.
var ErrNoRows = errors.New("holds no rows")

// ClaimsVerifyIn is a rows file to verify, split into its lines
// (claimcheck.Lines): `claims verify ROWS`.
type ClaimsVerifyIn struct {
	Rows [][]byte
}

// Check refuses a file without rows before the archive is opened.
func (in ClaimsVerifyIn) Check() error {
	if len(in.Rows) == 0 {
		return ErrNoRows
	}
	return nil
}

// RowVerified is one row recomputed: its JSON is a `claims verify
// --json` line. ClaimID is "" for a line that is not a row.
type RowVerified struct {
	ClaimID string `json:"claimId"`
	Line    int    `json:"line"`
	Problem string `json:"problem,omitempty"`
	Verdict string `json:"verdict"`
}

// RowsVerified is the verdict on a rows file: its JSON is the last
// `claims verify --json` line. Signer is the fingerprint of the key that
// signed the rows file (ROWS.sig), absent when it is unsigned.
type RowsVerified struct {
	Invalid int    `json:"invalid"`
	Rows    int    `json:"rows"`
	Signer  string `json:"signer,omitempty"`
	Verdict string `json:"verdict"`
}

// ClaimsVerifyOut is every row's verdict and the file's.
type ClaimsVerifyOut struct {
	Rows    []RowVerified
	Verdict RowsVerified
}

// ClaimsVerify recomputes every row from the archive
// (db.Archive.VerifyRows): VALID, or INVALID with why.
func ClaimsVerify(a *db.Archive, in ClaimsVerifyIn) (*ClaimsVerifyOut, error) {
	if err := in.Check(); err != nil {
		return nil, err
	}
	verdicts, err := a.VerifyRows(in.Rows)
	if err != nil {
		return nil, err
	}
	out := &ClaimsVerifyOut{Verdict: RowsVerified{Rows: len(verdicts), Verdict: "VALID"}}
	for _, v := range verdicts {
		r := RowVerified{ClaimID: v.ClaimID, Line: v.Line, Verdict: "VALID"}
		if v.Problem != "" {
			r.Verdict, r.Problem = "INVALID", v.Problem
			out.Verdict.Invalid++
			out.Verdict.Verdict = "INVALID"
		}
		out.Rows = append(out.Rows, r)
	}
	return out, nil
}

// ClaimCheckLine is one kept check: its JSON is a `claims list --json`
// line (fields in the order of their names).
type ClaimCheckLine struct {
	Checked      string `json:"checked"`
	Claims       int    `json:"claims"`
	Contradicted int    `json:"contradicted"`
	FileSHA256   string `json:"file_sha256"`
	Namespace    string `json:"namespace"`
	RunID        string `json:"runId"`
	Supported    int    `json:"supported"`
	Unverified   int    `json:"unverified"`
	// Check is the kept check itself, for a readable view.
	Check *db.ClaimCheck `json:"-"`
}

// ClaimsList lists the checks kept in the archive with their counts per
// outcome.
func ClaimsList(a *db.Archive) ([]ClaimCheckLine, error) {
	checks, err := a.ClaimChecks()
	if err != nil {
		return nil, err
	}
	out := make([]ClaimCheckLine, len(checks))
	for i, c := range checks {
		n := c.Counts()
		out[i] = ClaimCheckLine{Checked: RFC3339(time.Unix(int64(c.CheckedAt), 0)), Claims: len(c.Rows),
			Contradicted: n[claimrow.Contradicted], FileSHA256: c.FileSHA256.String(), Namespace: c.Namespace, RunID: c.RunID,
			Supported: n[claimrow.Supported], Unverified: n[claimrow.Unverified], Check: c}
	}
	return out, nil
}
