package db_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine/claimcheck"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/internal/testarchive"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// claimsDir holds the claims files and the golden rows of the checker.
const claimsDir = "../testdata/claims"

// updateGolden rewrites the golden rows instead of comparing with them
// (CHRONICLE_UPDATE_GOLDEN=1 go test ./db -run Claims).
var updateGolden = os.Getenv("CHRONICLE_UPDATE_GOLDEN") == "1"

// sampleArchive is the archive of the two sample stories under their
// repository paths, imported at the golden time (testarchive.Samples),
// open.
func sampleArchive(t *testing.T) (*db.Archive, string) {
	t.Helper()
	path := testarchive.Samples(t)
	return openArchive(t, path), path
}

// rowsBytes joins rows as JSON Lines.
func rowsBytes(rows [][]byte) []byte {
	var out []byte
	for _, r := range rows {
		out = append(append(out, r...), '\n')
	}
	return out
}

// requireGolden compares got with the golden file, or rewrites it.
func requireGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if updateGolden {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	require.Equal(t, string(readFile(t, path)), string(got), "golden %s (CHRONICLE_UPDATE_GOLDEN=1 rewrites it)", path)
}

// outcomeOf reads a row's outcome and reason.
func outcomeOf(t *testing.T, row []byte) string {
	t.Helper()
	v, err := claimrow.ReadRow(row)
	require.NoError(t, err, "%s", row)
	return v.Get("outcome").Str + "/" + v.Get("reason").Str
}

// Every row of the outcome table on the sample stories, English and
// Arabic: each claim's expected outcome is written down here by hand, and
// the exact rows are golden.
func TestClaimsSamples(t *testing.T) {
	a, _ := sampleArchive(t)
	rep, err := a.CheckClaims(readFile(t, filepath.Join(claimsDir, "samples.claims.jsonl")))
	require.NoError(t, err)
	want := []string{
		"unverified/ineligible-noise",  // 1 noise
		"unverified/missing-check",     // 2 no declaredRule
		"unverified/malformed-check",   // 3 unknown rule
		"unverified/malformed-check",   // 4 find rule on a settlement query
		"unverified/malformed-check",   // 5 null value
		"unverified/malformed-check",   // 6 "unknown"
		"unverified/malformed-check",   // 7 an array
		"unverified/missing-result",    // 8 no declaredResult
		"unverified/missing-result",    // 9 unknown document
		"unverified/not-asserted",      // 10 open
		"unverified/not-asserted",      // 11 ruled-out (Arabic)
		"unverified/unresolved-result", // 12 UNKNOWN status
		"unverified/unresolved-result", // 13 no debt selected
		"unverified/unresolved-result", // 14 literal UNRESOLVED
		"supported/no-conflict",        // 15 status
		"supported/no-conflict",        // 16 settled, Arabic
		"supported/numeric-leniency",   // 17 "200/2" against "100/1"
		"supported/no-conflict",        // 18 currency, Arabic
		"supported/numeric-leniency",   // 19 40 against "40/1"
		"supported/no-conflict",        // 20 find lines, Arabic (سعودي contains سعود)
		"supported/numeric-leniency",   // 21 "3" against 3
		"contradicted/conflict",        // 22 settled "100/1": the pending 60 was not counted
		"contradicted/conflict",        // 23 status, Arabic
		"contradicted/conflict",        // 24 currency
		"contradicted/conflict",        // 25 find lines
		"contradicted/conflict",        // 26 a boolean against a status
		"supported/numeric-leniency",   // 27 "100.0" against "100/1"
	}
	require.Len(t, rep.Check.Rows, len(want))
	for i, row := range rep.Check.Rows {
		require.Equal(t, want[i], outcomeOf(t, row), "claim %d: %s", i+1, row)
	}
	requireGolden(t, filepath.Join(claimsDir, "golden", "samples.rows.jsonl"), rowsBytes(rep.Check.Rows))

	// The contradicted settled claim resolves to the exact evidence: the
	// English document, its question, and a kept receipt that verifies.
	row22, err := claimrow.ReadRow(rep.Check.Rows[21])
	require.NoError(t, err)
	scope := row22.Get("resolved").Get("scope")
	require.Equal(t, rep.Results[1].Doc.SHA256.String(), scope.Get("document").Str)
	require.Equal(t, "Did Alice repay Bob?", scope.Get("question").Str)
	require.Equal(t, rep.Results[1].Receipt.ID().String(), scope.Get("receipt").Str)
	require.Equal(t, `"40/1"`, string(claimrow.Canonical(row22.Get("resolved").Get("evidence").Get("value"))))
	kept, err := a.Receipts(&rep.Results[1].Doc.SHA256)
	require.NoError(t, err)
	require.True(t, containsReceipt(kept, rep.Results[1].Receipt.ID()), "the result's receipt is kept")
}

func containsReceipt(recs []*db.Receipt, id db.Digest) bool {
	for _, r := range recs {
		if r.ID() == id {
			return true
		}
	}
	return false
}

// The agent answer of the README and the make run tour.
func TestClaimsAgentAnswer(t *testing.T) {
	a, _ := sampleArchive(t)
	rep, err := a.CheckClaims(readFile(t, filepath.Join(claimsDir, "agent-answer.jsonl")))
	require.NoError(t, err)
	var got []string
	for _, r := range rep.Check.Rows {
		got = append(got, outcomeOf(t, r))
	}
	require.Equal(t, []string{"supported/no-conflict", "contradicted/conflict", "supported/numeric-leniency",
		"supported/numeric-leniency", "supported/no-conflict", "unverified/unresolved-result",
		"unverified/not-asserted", "unverified/ineligible-noise"}, got)
	requireGolden(t, filepath.Join(claimsDir, "golden", "agent-answer.rows.jsonl"), rowsBytes(rep.Check.Rows))
}

// goldenAnswer is the part of the original tool's result JSON the rules
// read, decoded independently of the checker.
type goldenAnswer struct {
	Status string `json:"status"`
	Debt   *struct {
		Num      int64  `json:"num"`
		Den      int64  `json:"den"`
		Currency string `json:"currency"`
	} `json:"debt"`
	Settled *struct {
		Num int64 `json:"num"`
		Den int64 `json:"den"`
	} `json:"settled"`
	TotalMatchingLines *int64 `json:"total_matching_lines"`
}

// goldenClaim is one claim made on a golden result with the outcome the
// original's own output implies.
type goldenClaim struct {
	rule  string
	value any
	want  string
}

// claimsForGolden derives, from the original tool's output for one result,
// claims that are right, wrong and leniently spelled, each with the outcome
// the outcome table gives it (engine/claimcheck/README.md §3.2).
func claimsForGolden(t *testing.T, cmd goldenCmd) []goldenClaim {
	t.Helper()
	var g goldenAnswer
	require.NoError(t, json.Unmarshal([]byte(cmd.Want), &g))
	S := "chronicle.settlement."
	switch {
	case g.TotalMatchingLines != nil:
		n := *g.TotalMatchingLines
		return []goldenClaim{{"chronicle.find.lines", n, "supported/no-conflict"},
			{"chronicle.find.lines", fmt.Sprint(n), "supported/numeric-leniency"},
			{"chronicle.find.lines", n + 1, "contradicted/conflict"}}
	case strings.HasPrefix(cmd.Question, "@claim\t"):
		want := "supported/no-conflict"
		if g.Status == "UNRESOLVED" {
			want = "unverified/unresolved-result"
		}
		return []goldenClaim{{"chronicle.claim.status", "EXACT_STATED", want}}
	}
	if g.Status == "UNKNOWN" || g.Debt == nil {
		return []goldenClaim{{S + "status", g.Status, "unverified/unresolved-result"},
			{S + "settled", "0/1", "unverified/unresolved-result"}}
	}
	settled := fmt.Sprintf("%d/%d", g.Settled.Num, g.Settled.Den)
	out := []goldenClaim{{S + "status", g.Status, "supported/no-conflict"},
		{S + "status", "SUPPORTED-ISH", "contradicted/conflict"}}
	valueRules := []goldenClaim{
		{S + "settled", settled, "supported/no-conflict"},
		{S + "settled", fmt.Sprintf("%d/%d", 2*g.Settled.Num, 2*g.Settled.Den), "supported/numeric-leniency"},
		{S + "settled", fmt.Sprintf("%d/%d", g.Settled.Num+1, g.Settled.Den), "contradicted/conflict"},
		{S + "debt", fmt.Sprintf("%d/%d", g.Debt.Num, g.Debt.Den), "supported/no-conflict"},
		{S + "debt", fmt.Sprintf("%d/%d", 3*g.Debt.Num, 3*g.Debt.Den), "supported/numeric-leniency"},
		{S + "currency", g.Debt.Currency, "supported/no-conflict"},
		{S + "currency", g.Debt.Currency + "X", "contradicted/conflict"},
	}
	for _, c := range valueRules {
		if g.Status == "CONFLICT" {
			c.want = "unverified/evidence-conflict"
		}
		out = append(out, c)
	}
	return out
}

// Every golden input of the original tool: each transcript question is a
// result, and claims on it are decided as the original's own JSON says
// they should be. The claims file and the rows are golden.
func TestClaimsGoldenInputs(t *testing.T) {
	cases := loadGolden(t)
	a := openArchive(t, newPath(t))
	ingestGolden(t, a, cases, goldenTime)
	var file bytes.Buffer
	line := func(v any) {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		file.Write(append(b, '\n'))
	}
	line(map[string]any{"chronicle-claims": 1, "namespace": "tests", "runId": "golden-inputs"})
	var want []string
	result, claim := 0, 0
	for _, c := range cases {
		for _, cmd := range c.Cmds {
			result++
			key := "query"
			if cmd.Kind == db.KindFind {
				key = "find"
			}
			line(map[string]any{"result": result, "document": c.DocName(), key: cmd.Question})
			for _, gc := range claimsForGolden(t, cmd) {
				claim++
				line(map[string]any{"claim": claim, "standing": "fact", "iteration": 0, "declaredOn": "answer",
					"declaredResult": result, "declaredRule": gc.rule, "declaredValue": gc.value})
				want = append(want, gc.want)
			}
		}
	}
	requireGolden(t, filepath.Join(claimsDir, "golden", "golden-inputs.claims.jsonl"), file.Bytes())
	rep, err := a.CheckClaims(file.Bytes())
	require.NoError(t, err)
	seen := map[string]bool{}
	for i, row := range rep.Check.Rows {
		got := outcomeOf(t, row)
		require.Equal(t, want[i], got, "claim %d: %s", i+1, row)
		seen[got] = true
	}
	for _, o := range []string{"supported/no-conflict", "supported/numeric-leniency", "contradicted/conflict",
		"unverified/evidence-conflict", "unverified/unresolved-result"} {
		require.True(t, seen[o], "the golden inputs exercise %s", o)
	}
	requireGolden(t, filepath.Join(claimsDir, "golden", "golden-inputs.rows.jsonl"), rowsBytes(rep.Check.Rows))
}

// The same archive contents and the same claims file give the same bytes,
// in a fresh archive and again in the same one (where the check is reused
// and nothing new is kept).
func TestClaimsDeterministicAndReused(t *testing.T) {
	data := readFile(t, filepath.Join(claimsDir, "samples.claims.jsonl"))
	a1, path := sampleArchive(t)
	first, err := a1.CheckClaims(data)
	require.NoError(t, err)
	require.False(t, first.Reused)
	a2, _ := sampleArchive(t)
	second, err := a2.CheckClaims(data)
	require.NoError(t, err)
	require.Equal(t, rowsBytes(first.Check.Rows), rowsBytes(second.Check.Rows))

	before := sha256.Sum256(readFile(t, path))
	again, err := a1.CheckClaims(data)
	require.NoError(t, err)
	require.True(t, again.Reused)
	require.Equal(t, rowsBytes(first.Check.Rows), rowsBytes(again.Check.Rows))
	require.Equal(t, before, sha256.Sum256(readFile(t, path)), "a reused check writes nothing")

	checks, err := a1.ClaimChecks()
	require.NoError(t, err)
	require.Len(t, checks, 1)
	require.Equal(t, map[string]int{"supported": 8, "contradicted": 5, "unverified": 14}, checks[0].Counts())
}

// Refused files, and a different file under a kept identity, change
// nothing in the archive.
func TestClaimsRefusedLeaveArchiveUnchanged(t *testing.T) {
	a, path := sampleArchive(t)
	_, err := a.CheckClaims(readFile(t, filepath.Join(claimsDir, "agent-answer.jsonl")))
	require.NoError(t, err)
	header := `{"chronicle-claims":1,"namespace":"tests","runId":"refused"}` + "\n"
	result := `{"result":1,"document":"testdata/samples/alice-bob-en.txt","query":"Did Alice repay Bob?"}` + "\n"
	claim := func(extra string) string {
		return `{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.status","declaredValue":"PARTIAL"` + extra + "}\n"
	}
	cases := []struct {
		name, file string
		want       string
		is         error
	}{
		{"bad JSON", header + result + "{\"claim\":1,\n", "line 3:", claimcheck.ErrFile},
		{"unknown key", header + result + claim(`,"confidence":1`), "line 3: confidence: unknown key", claimcheck.ErrFile},
		{"missing key", header + result + `{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredValue":1}` + "\n" + `{"claim":2,"standing":"fact","declaredOn":"answer","declaredValue":1}` + "\n", "line 4: iteration: missing", claimcheck.ErrFile},
		{"wrong type", header + result + strings.Replace(claim(""), `"iteration":0`, `"iteration":"0"`, 1), "line 3: iteration:", claimcheck.ErrFile},
		{"duplicate ordinal", header + result + result, "line 3: result: ordinal 1 repeats line 2", claimcheck.ErrFile},
		{"declaredResult names no result", header + strings.Replace(claim(""), `"declaredResult":1`, `"declaredResult":2`, 1) + result, "line 2: declaredResult: no result line has ordinal 2", claimcheck.ErrFile},
		{"another file under a kept identity", strings.Replace(string(readFile(t, filepath.Join(claimsDir, "agent-answer.jsonl"))), `"declaredValue":"100/1"`, `"declaredValue":"60/1"`, 1),
			"already kept", db.ErrCheckExists},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := sha256.Sum256(readFile(t, path))
			_, err := a.CheckClaims([]byte(tc.file))
			require.Error(t, err)
			require.ErrorIs(t, err, tc.is)
			require.Contains(t, err.Error(), tc.want)
			require.Equal(t, before, sha256.Sum256(readFile(t, path)), "the archive file is unchanged")
		})
	}
	checks, err := a.ClaimChecks()
	require.NoError(t, err)
	require.Len(t, checks, 1)
}

// Identities are injective inside the archive too: namespaces and runIds
// that would collide if joined naively are kept apart.
func TestClaimsIdentityKeysInjective(t *testing.T) {
	a, _ := sampleArchive(t)
	pairs := [][2]string{{"a/b", "c"}, {"a", "b/c"}, {"_", "x"}, {"%5F", "x"}, {"%2F", "x"}, {"/", "x"}, {"a%2Fb", "c"}, {"سعود", "x/y"}}
	for _, p := range pairs {
		header, err := json.Marshal(map[string]any{"chronicle-claims": 1, "namespace": p[0], "runId": p[1]})
		require.NoError(t, err)
		file := string(header) + "\n" + `{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredValue":1}` + "\n"
		rep, err := a.CheckClaims([]byte(file))
		require.NoError(t, err, "%q", p)
		require.False(t, rep.Reused, "%q must not reuse another identity's check", p)
		id, err := claimrow.ReadClaimIdentity(claimrow.StringValue(mustRow(t, rep.Check.Rows[0]).Get("claimId").Str))
		require.NoError(t, err)
		require.Equal(t, [2]string{id.Namespace, id.RunID}, p)
	}
	checks, err := a.ClaimChecks()
	require.NoError(t, err)
	require.Len(t, checks, len(pairs))
	var rows [][]byte
	for _, p := range pairs {
		c, err := a.ClaimCheck(p[0], p[1])
		require.NoError(t, err)
		require.Equal(t, p, [2]string{c.Namespace, c.RunID})
		rows = append(rows, c.Rows...)
	}
	requireSeedGolden(t, "identities.rows.jsonl", rows)
}

func mustRow(t *testing.T, b []byte) claimrow.Value {
	t.Helper()
	v, err := claimrow.ReadRow(b)
	require.NoError(t, err)
	return v
}

// A check remembers what each result resolved to: a document ingested
// afterwards under the unknown name does not change its rows, and the rows
// still verify.
func TestClaimsResolutionsKept(t *testing.T) {
	a, _ := sampleArchive(t)
	file := `{"chronicle-claims":1,"namespace":"tests","runId":"late"}` + "\n" +
		`{"result":1,"document":"late.txt","query":"Did Alice repay Bob?"}` + "\n" +
		`{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.status","declaredValue":"PARTIAL"}` + "\n"
	rep, err := a.CheckClaims([]byte(file))
	require.NoError(t, err)
	require.Equal(t, "unverified/missing-result", outcomeOf(t, rep.Check.Rows[0]))
	_, err = a.Ingest(readFile(t, "../testdata/samples/alice-bob-en.txt"), goldenTime, "late.txt")
	require.NoError(t, err)
	again, err := a.CheckClaims([]byte(file))
	require.NoError(t, err)
	require.True(t, again.Reused)
	require.Equal(t, rep.Check.Rows, again.Check.Rows)
	verdicts, err := a.VerifyRows(rep.Check.Rows)
	require.NoError(t, err)
	require.Equal(t, "", verdicts[0].Problem)
	requireSeedGolden(t, "late-document.rows.jsonl", rep.Check.Rows)
}

// editRow rewrites one row's JSON with fn and returns canonical bytes.
func editRow(t *testing.T, row []byte, fn func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(row))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&m))
	fn(m)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	v, err := claimrow.ParseLine(b, claimrow.RowBytes)
	require.NoError(t, err)
	return claimrow.Canonical(v)
}

// claims verify: the written rows are VALID; a row edited so that the
// reader still accepts it, a row of an identity never checked, a claim the
// check does not have, and a row whose receipt was lost are INVALID, each
// with the reason.
func TestClaimsVerifyRows(t *testing.T) {
	a, path := sampleArchive(t)
	rep, err := a.CheckClaims(readFile(t, filepath.Join(claimsDir, "samples.claims.jsonl")))
	require.NoError(t, err)
	verdicts, err := a.VerifyRows(rep.Check.Rows)
	require.NoError(t, err)
	for _, v := range verdicts {
		require.Empty(t, v.Problem, "line %d", v.Line)
	}

	contradicted := rep.Check.Rows[21]
	flipped := editRow(t, contradicted, func(m map[string]any) {
		m["outcome"], m["reason"] = "supported", "no-conflict"
		m["resolved"].(map[string]any)["evidence"].(map[string]any)["value"] = "100/1"
	})
	otherRun := editRow(t, rep.Check.Rows[0], func(m map[string]any) {
		m["claimId"] = "claim-verification/tests/never-checked/1"
	})
	noClaim := editRow(t, rep.Check.Rows[0], func(m map[string]any) {
		m["claimId"] = "claim-verification/tests/samples/99"
	})
	value := editRow(t, rep.Check.Rows[14], func(m map[string]any) {
		m["iteration"] = json.Number("7")
	})
	// The forged rows are well-formed: the reader (and the seed's, through
	// the golden file) accept them; only the recomputation tells them apart.
	requireSeedGolden(t, "forged.rows.jsonl", [][]byte{flipped, otherRun, noClaim, value})
	lines := [][]byte{contradicted, flipped, otherRun, noClaim, value, []byte(`{"kind":"claim-verification"}`)}
	verdicts, err = a.VerifyRows(lines)
	require.NoError(t, err)
	require.Empty(t, verdicts[0].Problem)
	require.Contains(t, verdicts[1].Problem, "outcome: the row says \"supported\", the archive gives \"contradicted\"")
	require.Contains(t, verdicts[2].Problem, db.ErrNoCheck.Error())
	require.Contains(t, verdicts[3].Problem, "has no claim 99")
	require.Contains(t, verdicts[4].Problem, "iteration differs")
	require.Contains(t, verdicts[5].Problem, "not a valid row")

	// Lose the receipt of the settlement result: the rows that rest on it
	// can no longer be re-checked from exact evidence, and the document's
	// kept receipts, fewer than their count, read as damaged.
	require.NoError(t, a.Close())
	id := rep.Results[1].Receipt.ID()
	doc := rep.Results[1].Doc.SHA256
	editBolt(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("receipts")).Delete(append(append([]byte{}, doc[:]...), id[:]...))
	})
	a = openArchive(t, path)
	verdicts, err = a.VerifyRows([][]byte{contradicted, rep.Check.Rows[0]})
	require.NoError(t, err)
	require.Contains(t, verdicts[0].Problem, "has 5 counted but 4 are there (lost entries)")
	require.Contains(t, verdicts[0].Problem, "chronicle check")
	require.Empty(t, verdicts[1].Problem, "an unverified row rests on no receipt")
}

// keptAgentCheck checks the sample agent answer in a sample archive and
// closes it: the archive path, the claims file, the report and the key of
// the kept check.
func keptAgentCheck(t *testing.T) (string, []byte, *db.ClaimReport, []byte) {
	t.Helper()
	a, path := sampleArchive(t)
	data := readFile(t, filepath.Join(claimsDir, "agent-answer.jsonl"))
	rep, err := a.CheckClaims(data)
	require.NoError(t, err)
	require.NoError(t, a.Close())
	return path, data, rep, []byte("support-agent/2026-12-01-alice")
}

// A damaged kept check is reported, never replayed or replaced.
func TestClaimsKeptCheckDamage(t *testing.T) {
	path, data, rep, key := keptAgentCheck(t)
	var original []byte
	editBolt(t, path, func(tx *bolt.Tx) error {
		original = append([]byte{}, tx.Bucket([]byte("claimchecks")).Get(key)...)
		return nil
	})
	require.NotEmpty(t, original)
	for _, at := range []int{0, 40, len(original) / 2, len(original) - 2} {
		damaged := append([]byte{}, original...)
		damaged[at] ^= 0x01
		editBolt(t, path, func(tx *bolt.Tx) error { return tx.Bucket([]byte("claimchecks")).Put(key, damaged) })
		a := openArchive(t, path)
		_, err := a.CheckClaims(data)
		require.ErrorIs(t, err, db.ErrCorrupt, "byte %d", at)
		verdicts, err := a.VerifyRows(rep.Check.Rows[:1])
		if err == nil {
			require.NotEmpty(t, verdicts[0].Problem, "byte %d", at)
		} else {
			require.ErrorIs(t, err, db.ErrCorrupt)
		}
		_, err = a.ClaimChecks()
		require.ErrorIs(t, err, db.ErrCorrupt)
		require.NoError(t, a.Close())
	}
}

// check reads and replays every kept claim check.
func TestClaimsCheckedByCheck(t *testing.T) {
	a, path := sampleArchive(t)
	_, err := a.CheckClaims(readFile(t, filepath.Join(claimsDir, "agent-answer.jsonl")))
	require.NoError(t, err)
	require.Empty(t, problemsOf(t, a))
	require.NoError(t, a.Close())
	key := []byte("support-agent/2026-12-01-alice")
	editBolt(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("claimchecks"))
		v := append([]byte{}, b.Get(key)...)
		v[len(v)-3] ^= 0x20
		return b.Put(key, v)
	})
	a = openArchive(t, path)
	problems := problemsOf(t, a)
	require.Len(t, problems, 1)
	require.Contains(t, problems[0].String(), `claim check "support-agent/2026-12-01-alice"`)
	require.Contains(t, problems[0].String(), "record digest mismatch")
}

// A kept check re-sealed with a valid digest but rows that its file and
// resolutions do not give is caught by the replay: reuse, verify and check
// all refuse it.
func TestClaimsKeptRowsMustReplay(t *testing.T) {
	path, data, rep, key := keptAgentCheck(t)
	editBolt(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("claimchecks"))
		body := b.Get(key)[sha256.Size:]
		var rec map[string]any
		require.NoError(t, json.Unmarshal(body, &rec))
		rows := rec["rows"].(string)
		forged := strings.Replace(rows, `"outcome":"contradicted"`, `"outcome":"supported"`, 1)
		require.NotEqual(t, rows, forged)
		rec["rows"] = forged
		newBody, err := json.Marshal(rec)
		require.NoError(t, err)
		sum := sha256.Sum256(append(append([]byte{}, key...), newBody...))
		return b.Put(key, append(sum[:], newBody...))
	})
	a := openArchive(t, path)
	_, err := a.CheckClaims(data)
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.Contains(t, err.Error(), "row 2 (claim line 7) no longer replays to the kept bytes")
	_, err = a.VerifyRows(rep.Check.Rows)
	require.ErrorIs(t, err, db.ErrCorrupt)
	problems := problemsOf(t, a)
	require.Len(t, problems, 1)
	require.Contains(t, problems[0].String(), "no longer replays")
}

// refusedFiles are the claims files of testdata/claims/refused, one per
// rule of the claims file (engine/claimcheck/README.md §2), each with the exact refusal in the .err beside it.
func refusedFiles(t *testing.T) map[string][2]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(claimsDir, "refused", "*.jsonl"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 20)
	out := map[string][2]string{}
	for _, f := range files {
		want := strings.TrimSuffix(string(readFile(t, strings.TrimSuffix(f, ".jsonl")+".err")), "\n")
		out[filepath.Base(f)] = [2]string{string(readFile(t, f)), want}
	}
	return out
}

// Every refused claims file of testdata leaves an archive that already
// keeps a check exactly as it was, with the documented line.
func TestClaimsRefusedFiles(t *testing.T) {
	a, path := sampleArchive(t)
	_, err := a.CheckClaims(readFile(t, filepath.Join(claimsDir, "agent-answer.jsonl")))
	require.NoError(t, err)
	for name, tc := range refusedFiles(t) {
		t.Run(name, func(t *testing.T) {
			before := sha256.Sum256(readFile(t, path))
			_, err := a.CheckClaims([]byte(tc[0]))
			require.ErrorIs(t, err, claimcheck.ErrFile)
			require.Equal(t, tc[1], err.Error())
			require.Equal(t, before, sha256.Sum256(readFile(t, path)), "the archive file is unchanged")
		})
	}
}

// requireSeedGolden holds rows the reader must accept to a golden file of
// testdata/claims/golden. The Go reader accepts each here; the seed's own
// JavaScript reader judges them there, with every other golden rows file,
// in engine/claimrow's TestSeedAgreesOnFiles (the one place that runs the
// seed), so this package needs neither node nor the seed.
func requireSeedGolden(t *testing.T, name string, rows [][]byte) {
	t.Helper()
	for i, r := range rows {
		_, err := claimrow.ReadRow(r)
		require.NoError(t, err, "%s row %d", name, i+1)
	}
	requireGolden(t, filepath.Join(claimsDir, "golden", name), rowsBytes(rows))
}

// A declaredValue of 4,097 to 8,192 bytes of canonical JSON is inside
// VALUE_BYTES (the seed's scope bound): the checker takes the claim, writes
// its row, and the row reads back, replays and is accepted by the seed's
// reader (through the golden file); one byte more is refused before anything is kept.
func TestClaimsDeclaredValueUpToScopeBytes(t *testing.T) {
	header := `{"chronicle-claims":1,"namespace":"tests","runId":"value-bytes"}` + "\n" +
		`{"result":1,"document":"testdata/samples/alice-bob-en.txt","query":"Did Alice repay Bob?"}` + "\n"
	claim := func(canonicalBytes int) string {
		// a JSON string of n-2 letters is n bytes of canonical JSON
		return `{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,` +
			`"declaredRule":"chronicle.settlement.status","declaredValue":"` + strings.Repeat("v", canonicalBytes-2) + `"}` + "\n"
	}
	var rows [][]byte
	for _, n := range []int{4097, 6000, claimrow.ValueBytes} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			a, _ := sampleArchive(t)
			rep, err := a.CheckClaims([]byte(header + claim(n)))
			require.NoError(t, err)
			require.Len(t, rep.Check.Rows, 1)
			require.Equal(t, "contradicted/conflict", outcomeOf(t, rep.Check.Rows[0]))
			row, err := claimrow.ReadRow(rep.Check.Rows[0])
			require.NoError(t, err)
			require.Len(t, claimrow.Canonical(row.Get("declaredValue")), n)
			verdicts, err := a.VerifyRows(rep.Check.Rows)
			require.NoError(t, err)
			require.Len(t, verdicts, 1)
			require.Empty(t, verdicts[0].Problem)
			rows = append(rows, rep.Check.Rows...)
		})
	}
	if len(rows) == 3 { // all three ran (not a -run of one of them)
		requireSeedGolden(t, "value-bytes.rows.jsonl", rows)
	}
	t.Run("one byte more", func(t *testing.T) {
		a, path := sampleArchive(t)
		require.NoError(t, a.Close())
		before := readFile(t, path)
		a = openArchive(t, path)
		_, err := a.CheckClaims([]byte(header + claim(claimrow.ValueBytes+1)))
		require.ErrorContains(t, err, "declaredValue: 8193 bytes as canonical JSON, at most 8192")
		require.NoError(t, a.Close())
		require.Equal(t, before, readFile(t, path), "a refused claims file changes nothing")
	})
}
