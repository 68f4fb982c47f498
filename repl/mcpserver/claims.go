package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
	"github.com/casper-chronicle/chronicle/engine/claimrow"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CheckIn is the claim lines of an answer.
type CheckIn struct {
	Claims []string `json:"claims"` // described by checkIn
}

// CheckRow is one claim's row, with its outcome for quick reading.
type CheckRow struct {
	ClaimID        string `json:"claimId"`
	DeclaredResult string `json:"declaredResult,omitempty" jsonschema:"the result the claim rests on"`
	Outcome        string `json:"outcome"` // described by checkOut
	Reason         string `json:"reason"`  // described by checkOut
	Row            string `json:"row" jsonschema:"the claim-verification row, canonical JSON"`
}

// CheckOut is a kept claim check.
type CheckOut struct {
	Namespace    string     `json:"namespace"`
	RunID        string     `json:"runId"`
	Rows         []CheckRow `json:"rows"`
	Supported    int        `json:"supported"`
	Contradicted int        `json:"contradicted"`
	Unverified   int        `json:"unverified"`
	Reused       bool       `json:"reused" jsonschema:"the same check was kept before; its rows are unchanged"`
	NextRunID    string     `json:"nextRunId" jsonschema:"the runId of the results returned from now on"`
}

// missingDoc is the document of the result line of a claim on a result the
// session never returned: 64 hex digits that name no document, so the row
// is unverified / missing-result (engine/claimcheck/README.md §3.2, row 4).
const missingDoc = "0000000000000000000000000000000000000000000000000000000000000000"

// claimsFile writes the claims file of the session's run with the given
// claim lines: the header, a result line per claimable result the claims
// name (and a line naming no document for every other result they name),
// then the claim lines, with result IDs in declaredResult replaced by
// their ordinals.
func claimsFile(ns, runID string, results []issuedResult, claims []string) ([]byte, int, error) {
	header := claimrow.ObjectValue(
		claimrow.Member{Key: "chronicle-claims", Value: claimrow.IntValue(claimcheck.Version)},
		claimrow.Member{Key: "namespace", Value: claimrow.StringValue(ns)},
		claimrow.Member{Key: "runId", Value: claimrow.StringValue(runID)})
	var lines [][]byte
	used := map[int64]bool{}
	var foreign []int // claims naming a result ID of another session or run
	parsed := make([]claimrow.Value, len(claims))
	for i, c := range claims {
		if strings.ContainsAny(c, "\n") {
			return nil, 0, fmt.Errorf("claim %d: a claim line holds no line feed", i+1)
		}
		v, err := claimrow.ParseLine([]byte(c), claimcheck.LineBytes)
		if err != nil {
			return nil, 0, fmt.Errorf("claim %d: %w", i+1, err)
		}
		if v.Kind != claimrow.Object {
			return nil, 0, fmt.Errorf("claim %d: a claim line is a JSON object", i+1)
		}
		if v.Has("result") || v.Has("chronicle-claims") {
			return nil, 0, fmt.Errorf("claim %d: give claim lines only; the results are those this session returned", i+1)
		}
		dr := v.Get("declaredResult")
		switch dr.Kind {
		case claimrow.String:
			id, err := claimrow.ReadResultIdentity(dr)
			if err != nil {
				return nil, 0, fmt.Errorf("claim %d: declaredResult: %v", i+1, err)
			}
			if id.Namespace == ns && id.RunID == runID {
				setMember(&v, "declaredResult", claimrow.IntValue(id.Ordinal))
				used[id.Ordinal] = true
			} else {
				foreign = append(foreign, i)
			}
		case claimrow.Int:
			used[dr.Int] = true
		}
		parsed[i] = v
	}
	// A fresh ordinal, beyond every result of the run, for each claim on a
	// result of another session.
	next := int64(len(results))
	for o := range used {
		next = max(next, o)
	}
	for _, i := range foreign {
		next++
		setMember(&parsed[i], "declaredResult", claimrow.IntValue(next))
		used[next] = true
	}
	for o := int64(1); o <= next; o++ {
		if !used[o] {
			continue
		}
		doc, key, q := missingDoc, "query", "(a result this session never returned)"
		if o <= int64(len(results)) && results[o-1].Document != "" {
			k := results[o-1]
			doc, q = k.Document, k.Query
			if k.IsFind {
				key, q = "find", k.Find
			}
		}
		lines = append(lines, claimrow.Canonical(claimrow.ObjectValue(
			claimrow.Member{Key: "result", Value: claimrow.IntValue(o)},
			claimrow.Member{Key: "document", Value: claimrow.StringValue(doc)},
			claimrow.Member{Key: key, Value: claimrow.StringValue(q)})))
	}
	var b []byte
	b = append(append(b, claimrow.Canonical(header)...), '\n')
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	for _, v := range parsed {
		b = append(append(b, claimrow.Canonical(v)...), '\n')
	}
	return b, 2 + len(lines), nil
}

// setMember replaces the value of key in object v.
func setMember(v *claimrow.Value, key string, val claimrow.Value) {
	members := append([]claimrow.Member(nil), v.Members...)
	for i := range members {
		if members[i].Key == key {
			members[i].Value = val
		}
	}
	v.Members = members
}

func (s *Server) checkClaims(_ context.Context, req *mcp.CallToolRequest, in CheckIn) (*mcp.CallToolResult, CheckOut, error) {
	fail := func(err error) (*mcp.CallToolResult, CheckOut, error) {
		return nil, CheckOut{}, toolError("claims check", err)
	}
	if len(in.Claims) == 0 {
		return fail(usageError("give at least one claim line"))
	}
	total := 0
	for _, c := range in.Claims {
		total += len(c) + 1
	}
	if total > claimcheck.MaxFileBytes {
		return fail(fmt.Errorf("the claims are %d bytes; a claims file is at most %d", total, claimcheck.MaxFileBytes))
	}
	st := s.session(req.Session)
	s.mu.Lock()
	ns, runID := st.namespace, st.runID()
	results := append([]issuedResult(nil), st.results...)
	s.mu.Unlock()
	data, firstClaim, err := claimsFile(ns, runID, results, in.Claims)
	if err != nil {
		return fail(err)
	}
	// Refuse a bad file before the archive is opened for writing.
	if _, err := claimcheck.ParseFile(data); err != nil {
		return fail(claimLineError(err, firstClaim))
	}
	var out CheckOut
	err = s.guard("claims check", true, func(a *db.Archive) error {
		rep, err := a.CheckClaims(data)
		if err != nil {
			return err
		}
		out = CheckOut{Namespace: ns, RunID: runID, Rows: []CheckRow{}, Reused: rep.Reused}
		for i, row := range rep.Rows {
			r := CheckRow{Outcome: row.Outcome, Reason: row.Reason, Row: string(rep.Check.Rows[i]),
				ClaimID: claimID(ns, runID, rep.File.Claims[i].Ordinal)}
			if o := rep.File.Claims[i].DeclaredResult; o != 0 {
				r.DeclaredResult, _ = claimrow.ResultID(claimrow.Identity{Namespace: ns, RunID: runID, Ordinal: o})
			}
			switch row.Outcome {
			case claimrow.Supported:
				out.Supported++
			case claimrow.Contradicted:
				out.Contradicted++
			default:
				out.Unverified++
			}
			out.Rows = append(out.Rows, r)
		}
		return nil
	})
	if err != nil {
		return nil, CheckOut{}, err
	}
	// The check ends the run: its identity now names this file.
	s.mu.Lock()
	if st.runID() == runID {
		st.run++
		st.results = nil
	}
	out.NextRunID = st.runID()
	s.mu.Unlock()
	summary := fmt.Sprintf("%s: %d supported, %d contradicted, %d unverified (check %s/%s kept)",
		plural(len(out.Rows), "claim"), out.Supported, out.Contradicted, out.Unverified, ns, runID)
	return result(summary, out), out, nil
}

func claimID(ns, runID string, ordinal int64) string {
	id, _ := claimrow.ClaimID(claimrow.Identity{Namespace: ns, RunID: runID, Ordinal: ordinal})
	return id
}

// claimLineError words a refusal of the generated file by the claim it is
// about: claim lines start at line firstClaim of the file.
func claimLineError(err error, firstClaim int) error {
	var fe *claimcheck.FileError
	if !errors.As(err, &fe) || fe.Line < firstClaim {
		return err
	}
	return fmt.Errorf("claim %d: %s: %s", fe.Line-firstClaim+1, fe.Field, fe.Reason)
}
