package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/testbin"

	"github.com/stretchr/testify/require"
)

// samplesWS is a workspace whose archive holds the sample stories under
// their repository paths, with the repository's claims files beside them.
func samplesWS(t *testing.T) *ws {
	t.Helper()
	w := newWS(t)
	for _, name := range []string{"testdata/samples/ahmed-khalid-ar.txt", "testdata/samples/alice-bob-en.txt",
		"testdata/claims/agent-answer.jsonl", "testdata/claims/samples.claims.jsonl"} {
		data, err := os.ReadFile(filepath.Join("../..", name))
		require.NoError(t, err)
		w.write(name, string(data))
	}
	w.ok("ingest", "testdata/samples")
	return w
}

func goldenRows(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../testdata/claims/golden", name))
	require.NoError(t, err)
	return string(data)
}

// claims check prints the golden rows off a terminal, writes them with
// --out (write-once), and reuses the kept check for the same file.
func TestClaimsCheckCLI(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	want := goldenRows(t, "agent-answer.rows.jsonl")
	require.Equal(t, want, w.ok("claims", "check", "testdata/claims/agent-answer.jsonl", "--out", "rows.jsonl"))
	require.Equal(t, want, string(w.read("rows.jsonl")))
	// Again: reused, same bytes, and --out accepts the identical file.
	require.Equal(t, want, w.ok("claims", "check", "testdata/claims/agent-answer.jsonl", "--out", "rows.jsonl"))
	// --out never overwrites a different file.
	w.write("other.jsonl", "x\n")
	r := w.run("claims", "check", "testdata/claims/agent-answer.jsonl", "--out", "other.jsonl")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stderr, "other.jsonl already exists with other content; nothing was overwritten")
	require.Equal(t, "x\n", string(w.read("other.jsonl")))

	text := w.ok("claims", "check", "testdata/claims/agent-answer.jsonl", "--text")
	lines := strings.Split(text, "\n")
	require.Regexp(t, `^CLAIM +OUTCOME +REASON +CLAIMED +ARCHIVE$`, lines[0])
	require.Contains(t, text, "2      contradicted  conflict           \"100/1\"               \"40/1\"\n"+
		"       chronicle.settlement.settled of result 1 (Did Alice repay Bob?) on testdata/samples/alice-bob-en.txt\n"+
		"       testdata/samples/alice-bob-en.txt:2  @chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	require.Contains(t, text, "     + testdata/samples/alice-bob-en.txt:5  @chronicle\tAlice\tPAID_TO\tSaud\t40\tSAR\tT3\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	require.Contains(t, text, "     + testdata/samples/ahmed-khalid-ar.txt:6  أكد سعود استلام مبلغ 40 ريال سعودي من أحمد في اليوم الثاني.\n")
	require.Contains(t, text, "8 claims: 4 supported, 1 contradicted, 3 unverified\n")
	require.Contains(t, text, "check support-agent/2026-12-01-alice was kept before from the same file")

	// The contradicted claim's receipt is kept and verifies.
	id := regexp.MustCompile(`receipt ([0-9a-f]{12}) kept`).FindStringSubmatch(text)
	require.NotNil(t, id, text)
	receipts := w.ok("receipts", "testdata/samples/alice-bob-en.txt", "--verify")
	require.Contains(t, receipts, "VALID  "+id[1]+"  QUERY   testdata/samples/alice-bob-en.txt  Did Alice repay Bob?")

	list := w.ok("claims", "list", "--text")
	require.Regexp(t, `(?m)^support-agent +2026-12-01-alice +8 +4 +1 +3 +[0-9a-f]{12}  2025-06-15T15:06:40Z$`, list)
	require.Regexp(t, `^\{"checked":"2025-06-15T15:06:40Z","claims":8,"contradicted":1,"file_sha256":"[0-9a-f]{64}",`+
		`"namespace":"support-agent","runId":"2026-12-01-alice","supported":4,"unverified":3\}\n$`, w.ok("claims", "list", "--json"))
}

// A refused claims file: exit 1, `FILE: line N: field: reason`, and
// nothing created or written.
func TestClaimsCheckRefusedCLI(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("bad.jsonl", `{"chronicle-claims":1,"namespace":"n","runId":"r"}`+"\n"+`{"claim":1,"standing":"maybe"}`+"\n")
	r := w.run("claims", "check", "bad.jsonl", "--out", "rows.jsonl")
	require.Equal(t, 1, r.code, "%s", r)
	require.Equal(t, "chronicle claims: bad.jsonl: line 2: standing: \"maybe\" is not fact, open, ruled-out or noise\n", r.stderr)
	require.NoFileExists(t, w.db, "a refused file creates no archive")
	require.NoFileExists(t, filepath.Join(w.dir, "rows.jsonl"))

	// An archive that does not exist is not created by a valid file either.
	w.write("ok.jsonl", `{"chronicle-claims":1,"namespace":"n","runId":"r"}`+"\n")
	r = w.run("claims", "check", "ok.jsonl")
	require.Equal(t, 10, r.code, "%s", r)
	require.Contains(t, r.stderr, "no archive")
	require.NoFileExists(t, w.db)

	// Usage errors are exit 2.
	for _, args := range [][]string{{"claims"}, {"claims", "frobnicate"}, {"claims", "read"}, {"claims", "list", "x"},
		{"claims", "read", "rows", "--out", "x"}} {
		r := w.run(args...)
		require.Equal(t, 2, r.code, "%q: %s", args, r)
	}
}

// claims read: the reader on any rows file, no archive needed.
func TestClaimsReadCLI(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	good := strings.SplitN(goldenRows(t, "samples.rows.jsonl"), "\n", 3)
	w.write("rows.jsonl", good[0]+"\n"+good[1]+"\n")
	require.Equal(t, "line 1: ok\nline 2: ok\n", w.ok("claims", "read", "rows.jsonl"))
	require.NoFileExists(t, w.db)

	w.write("mixed.jsonl", good[0]+"\n"+`{"kind":"claim-verification","kind":1}`+"\n"+
		strings.Replace(good[0], `"reason":"ineligible-noise"`, `"reason":"missing-result"`, 1)+"\n")
	r := w.run("claims", "read", "mixed.jsonl")
	require.Equal(t, 1, r.code, "%s", r)
	require.Equal(t, "line 1: ok\n"+
		"line 2: invalid: byte 29: duplicate key \"kind\"\n"+
		"line 3: invalid: a noise claim is unverified only as ineligible-noise, not missing-result\n", r.stdout)
	r = w.run("claims", "read", "missing.jsonl")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "missing.jsonl")
}

// claims verify: VALID for the rows as written, INVALID naming each row
// that no longer matches the archive's recomputation.
func TestClaimsVerifyCLI(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	w.ok("claims", "check", "testdata/claims/samples.claims.jsonl", "--out", "rows.jsonl")
	require.Equal(t, w.verifyText("rows.jsonl", "VALID"), w.ok("claims", "verify", "rows.jsonl"))

	rows := string(w.read("rows.jsonl"))
	lines := strings.Split(strings.TrimSuffix(rows, "\n"), "\n")
	// Claim 22 (contradicted, "100/1" against "40/1") rewritten as if the
	// archive had agreed: the reader accepts it, verify does not.
	forged := strings.Replace(strings.Replace(lines[21], `"outcome":"contradicted","reason":"conflict"`, `"outcome":"supported","reason":"no-conflict"`, 1),
		`"stratum":"asserted","subject":{"id":"debt/Alice/Bob","kind":"entity"},"value":"40/1"`,
		`"stratum":"asserted","subject":{"id":"debt/Alice/Bob","kind":"entity"},"value":"100/1"`, 1)
	require.NotEqual(t, lines[21], forged)
	w.write("forged.jsonl", lines[20]+"\n"+forged+"\n")
	require.Equal(t, "line 1: ok\nline 2: ok\n", w.ok("claims", "read", "forged.jsonl"))
	r := w.run("claims", "verify", "forged.jsonl")
	require.Equal(t, 1, r.code, "%s", r)
	require.Equal(t, "INVALID  line 2  claim-verification/tests/samples/22: outcome: the row says \"supported\", the archive gives \"contradicted\"\n"+
		"INVALID (1 of 2 rows)\nunsigned (no forged.jsonl.sig)\n", r.stdout)
	out := w.ok("claims", "verify", "rows.jsonl", "--json")
	require.True(t, strings.HasSuffix(out, `{"invalid":0,"rows":27,"signer":"`+testbin.TestKeyFingerprint+`","verdict":"VALID"}`+"\n"), out)
}

// Each refused claims file of testdata: exit 1 and the documented line.
func TestClaimsRefusedFilesCLI(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	files, err := filepath.Glob("../../testdata/claims/refused/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		want, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".err")
		require.NoError(t, err)
		w.write("in.jsonl", string(data))
		r := w.run("claims", "check", "in.jsonl")
		require.Equal(t, 1, r.code, "%s: %s", f, r)
		require.Equal(t, "chronicle claims: in.jsonl: "+string(want), r.stderr, f)
		require.Empty(t, r.stdout, f)
	}
	require.Equal(t, "no claim checks kept (`claims check FILE` makes one)\n", w.ok("claims", "list", "--text"))
}
