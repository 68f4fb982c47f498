package claimcheck

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// FuzzParseFile: ParseFile never panics; a refusal is a FileError on a
// line of the file; an accepted file has unique ordinals and declared
// results that exist, and Decide gives every claim a row the saved-row
// reader accepts, with no answers (only rules 1 to 4 can apply) and with
// answers made up to fit each result line.
func FuzzParseFile(f *testing.F) {
	for _, seed := range []string{
		exampleFile,
		header + "\n",
		header + "\n" + claimWith("", "") + "\n" + result1,
		header + "\n" + `{"result":1,"document":"D","find":"a/b _ %"}` + "\n" +
			`{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.find.lines","declaredValue":"3"}` + "\n",
		header + "\n" + `{"result":1,"document":"D","query":"@claim\tA\tB\tC"}` + "\n" +
			`{"claim":1,"standing":"open","iteration":0,"declaredOn":{"toolCallId":"c"},"declaredResult":1,"declaredRule":"chronicle.claim.status","declaredValue":null}` + "\n",
		header + "\r\n",
		header + "\n" + `{"result":1,"result":1}` + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ParseFile(data)
		if err != nil {
			if file != nil {
				t.Fatalf("a refusal returned a file")
			}
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrFile) {
				t.Fatalf("refusal %v is not a FileError", err)
			}
			if n := max(1, len(Lines(data))); fe.Line < 1 || fe.Line > n {
				t.Fatalf("refusal %q names line %d of %d", err, fe.Line, n)
			}
			return
		}
		if file.SHA256 != sha256.Sum256(data) {
			t.Fatalf("SHA256 is not the file's")
		}
		if got := len(file.Results) + len(file.Claims) + 1; got != len(Lines(data)) {
			t.Fatalf("%d lines read, the file has %d", got, len(Lines(data)))
		}
		var results, claims []int64
		for _, r := range file.Results {
			if r.Ordinal < 1 || slices.Contains(results, r.Ordinal) {
				t.Fatalf("result ordinal %d is not unique or < 1", r.Ordinal)
			}
			if r.Kind < SettlementResult || r.Kind > FindResult || r.Question == "" || r.Document == "" {
				t.Fatalf("result %d: kind %d, question %q, document %q", r.Ordinal, r.Kind, r.Question, r.Document)
			}
			if (r.Kind == LiteralResult) != settle.IsClaim(r.Question) {
				t.Fatalf("result %d: kind %s for question %q", r.Ordinal, r.Kind, r.Question)
			}
			results = append(results, r.Ordinal)
		}
		for _, c := range file.Claims {
			if c.Ordinal < 1 || slices.Contains(claims, c.Ordinal) {
				t.Fatalf("claim ordinal %d is not unique or < 1", c.Ordinal)
			}
			claims = append(claims, c.Ordinal)
			if c.DeclaredResult != 0 && file.Result(c.DeclaredResult) == nil {
				t.Fatalf("claim %d: declaredResult %d names no result line", c.Ordinal, c.DeclaredResult)
			}
			if !slices.Contains(claimrow.StandingValues, c.Standing) || c.Iteration < 0 || c.Turn < 0 {
				t.Fatalf("claim %d: standing %q, iteration %d, turn %d", c.Ordinal, c.Standing, c.Iteration, c.Turn)
			}
		}
		unanswered := []string{claimrow.IneligibleNoise, claimrow.MissingCheck, claimrow.MalformedCheck, claimrow.MissingResult}
		made := madeUpAnswers(file)
		for _, c := range file.Claims {
			for _, answers := range []map[int64]*Answer{nil, {}, made} {
				row, err := Decide(file, c, answers)
				if err != nil {
					t.Fatalf("claim %d: Decide: %v", c.Ordinal, err)
				}
				b, err := row.JSON()
				if err != nil {
					t.Fatalf("claim %d: row: %v", c.Ordinal, err)
				}
				if _, err := claimrow.ReadRow(b); err != nil {
					t.Fatalf("claim %d: the row %s fails the reader: %v", c.Ordinal, b, err)
				}
				if len(answers) == 0 && (row.Outcome != claimrow.Unverified || !slices.Contains(unanswered, row.Reason)) {
					t.Fatalf("claim %d without answers: %s / %s", c.Ordinal, row.Outcome, row.Reason)
				}
			}
		}
	})
}

// madeUpAnswers answers every result line with a found answer of its kind
// whose names and values come from the line itself, so that the long and
// odd questions of the fuzzer reach the compared rows.
func madeUpAnswers(f *File) map[int64]*Answer {
	out := map[int64]*Answer{}
	for i, r := range f.Results {
		var a *Answer
		switch r.Kind {
		case SettlementResult:
			status := []settle.Status{settle.Supported, settle.Partial, settle.Conflict, settle.Unknown}[i%4]
			a = SettlementAnswer(&settle.Settlement{Question: r.Question, Status: status,
				Debt:    &settle.Debt{Amount: engine.Rational{Num: int64(i) + 1, Den: 2}, Currency: r.Question, Borrower: r.Question, Lender: r.Document},
				Settled: engine.Rational{Num: int64(i), Den: 3}})
		case LiteralResult:
			s, p, o, _ := settle.ParseClaim(r.Question)
			a = ClaimAnswer(&settle.Claim{Question: r.Question, Status: []settle.Status{settle.ExactStated, settle.Unresolved}[i%2],
				Subject: s, Predicate: p, Object: o})
		case FindResult:
			a = &Answer{Found: true, Kind: FindResult, Question: r.Question, Lines: int64(len(r.Question) % 5)}
		}
		a.Document, a.Receipt = docHex, receiptHex
		if i%2 == 1 {
			a.Document, a.Receipt = r.Document, r.Question // whatever the caller passes
		}
		out[r.Ordinal] = a
	}
	return out
}

// TestFuzzCorpus: the committed seeds are what their names say, so the
// corpus keeps covering both accepted and refused files.
func TestFuzzCorpus(t *testing.T) {
	paths, err := filepath.Glob("testdata/fuzz/FuzzParseFile/*")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 10)
	refused := 0
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		body, ok := strings.CutPrefix(string(raw), "go test fuzz v1\n[]byte(")
		require.True(t, ok, p)
		body, ok = strings.CutSuffix(body, ")\n")
		require.True(t, ok, p)
		data, err := strconv.Unquote(body)
		require.NoError(t, err, p)
		_, err = ParseFile([]byte(data))
		if strings.HasPrefix(filepath.Base(p), "refused-") {
			refused++
			require.ErrorIs(t, err, ErrFile, p)
		} else {
			require.NoError(t, err, p)
		}
	}
	require.GreaterOrEqual(t, refused, 5)
	raw, err := os.ReadFile("testdata/fuzz/FuzzParseFile/claims-example")
	require.NoError(t, err)
	require.Equal(t, "go test fuzz v1\n[]byte("+strconv.Quote(exampleFile)+")\n", string(raw))
}
