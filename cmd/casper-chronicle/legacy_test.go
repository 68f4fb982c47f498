package main

// Legacy compatibility (CONTRACT 1.2, 3.3, 4.2, 13; issue 5), end to end with
// the real binaries: casper-chronicle on V1 stores and receipts, the
// unpublished V1 literal variant, and `chronicle import` / `export` /
// `receipts --verify` / `migrate` on the original tool's files. The g9
// transcript itself is replayed in golden_test.go.

import (
	"crypto/sha256"
	le "encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/internal/testbin"
	"github.com/casper-chronicle/chronicle/original"

	"github.com/stretchr/testify/require"
)

// Fixture sources. legacyMixed holds a literal statement and prose besides
// the typed records: the V1 profile extracts only the two typed records,
// the V2 profile (and the unpublished V1 variant) also the literal.
const (
	legacyTyped = "@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n" +
		"@chronicle\tAlice\tPAID_TO\tBob\t40\tSAR\tT2\tASSERTED\tPOSITIVE\tCONFIRMED\n"
	legacyMixed = "Alice owns Book.\nSome prose about Bob and Alice\n" + legacyTyped
	// legacyArabic is an Arabic sentence of the V2 grammar (golden g3).
	legacyArabic = "أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.\n"
	// legacyTime is the imported_at of the V1 fixtures: not the test clock,
	// so that a rewritten store would show.
	legacyTime = 1600000000
	g9Dir      = goldenDir + "/g9_legacy_v1_store"
)

// legacyV1 is the store the original tool's first version wrote for src.
func legacyV1(t testing.TB, src string) []byte {
	t.Helper()
	s, err := original.V1Store([]byte(src), legacyTime)
	require.NoError(t, err)
	return s.Encode()
}

// legacyVariant is the unpublished V1 variant's store for src (literals and
// Arabic sentences extracted under the V1 magic).
func legacyVariant(t testing.TB, src string) []byte {
	t.Helper()
	s, err := original.LiteralVariantV1Store([]byte(src), legacyTime)
	require.NoError(t, err)
	return s.Encode()
}

// goldenFile reads a file of a golden case directory.
func goldenFile(t testing.TB, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return data
}

func sumHex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// h16 is the receipt file-name hash of a question (CONTRACT 1.1).
func h16(q string) string { return sumHex([]byte(q))[:16] }

// orig describes an original-tool receipt; text renders its seven lines.
type orig struct {
	version                 int
	kind                    string
	path, question          string
	store, document, result string // hex digests
}

func (r orig) text() string {
	return fmt.Sprintf("CASPER-CHRONICLE-INTEGRITY-RECEIPT-V%d\nkind:%s\nstore_path_hex:%s\nquestion_hex:%s\nstore_sha256:%s\ndocument_sha256:%s\nresult_sha256:%s\n",
		r.version, r.kind, hex.EncodeToString([]byte(r.path)), hex.EncodeToString([]byte(r.question)), r.store, r.document, r.result)
}

// origFor describes the receipt a correct run would write for the store
// bytes at path (result digests replayed with the engine).
func origFor(t testing.TB, version int, kind, path, question string, store []byte) orig {
	t.Helper()
	s, err := engine.Load(store)
	require.NoError(t, err)
	r := orig{version: version, kind: kind, path: path, question: question,
		store: sumHex(store), document: hex.EncodeToString(s.Document[:]), result: sumHex(store)}
	switch kind {
	case "QUERY":
		out, err := receipt.Canonical{}.Query(s, question)
		require.NoError(t, err)
		r.result = sumHex(out)
	case "FIND":
		out, err := receipt.Canonical{}.Find(s, question)
		require.NoError(t, err)
		r.result = sumHex(out)
	}
	return r
}

// flipHex changes the last hex digit of a digest.
func flipHex(h string) string {
	last := "0"
	if h[len(h)-1] == '0' {
		last = "1"
	}
	return h[:len(h)-1] + last
}

// requireVerify runs `verify` and checks the one-word verdict and its exit
// code (CONTRACT 1: VALID 0, INVALID 1, UNSUPPORTED 3).
func requireVerify(t testing.TB, dir, receiptPath, want string) {
	t.Helper()
	got := runIn(t, dir, "verify", receiptPath)
	codes := map[string]int{"VALID": 0, "INVALID": 1, "UNSUPPORTED": 3}
	require.Equal(t, want+"\n", got.stdout, "verify %s (stderr %s)", receiptPath, got.stderr)
	require.Equal(t, codes[want], got.code, "verify %s exit code", receiptPath)
}

// verdict runs `verify` and returns the printed word, checking that the
// exit code matches it.
func verdict(t testing.TB, dir, receiptPath string) string {
	t.Helper()
	got := runIn(t, dir, "verify", receiptPath)
	word := strings.TrimSuffix(got.stdout, "\n")
	codes := map[string]int{"VALID": 0, "INVALID": 1, "UNSUPPORTED": 3}
	want, ok := codes[word]
	require.True(t, ok, "verify %s printed %q", receiptPath, got.stdout)
	require.Equal(t, want, got.code, "verify %s exit code for %s", receiptPath, word)
	return word
}

// ---------------------------------------------------------------------------
// casper-chronicle on V1 stores

// TestLegacyV1StoreLoadsOnlyAsTypedOnlyReplay: a V1-magic store is accepted
// exactly when its event table equals the V1 typed-only extraction of its
// source (CONTRACT 3.3 point 8, CONTRACT 13); every other table is rejected by
// query and find with exit 1 and no file written.
func TestLegacyV1StoreLoadsOnlyAsTypedOnlyReplay(t *testing.T) {
	build := func(t *testing.T, src string, edit func(s *engine.Store)) []byte {
		s, err := original.V1Store([]byte(src), legacyTime)
		require.NoError(t, err)
		require.Len(t, s.Events, strings.Count(src, "@chronicle\t"), "V1 extracts the typed records only")
		edit(s)
		return s.Encode()
	}
	keep := func(*engine.Store) {}
	for _, tc := range []struct {
		name   string
		store  func(t *testing.T) []byte
		loaded bool
	}{
		{"V1 typed-only extraction of a mixed source", func(t *testing.T) []byte { return build(t, legacyMixed, keep) }, true},
		{"V1 typed-only extraction of a typed source", func(t *testing.T) []byte { return build(t, legacyTyped, keep) }, true},
		{"V1 store with imported_at 0", func(t *testing.T) []byte {
			return build(t, legacyMixed, func(s *engine.Store) { s.ImportedAt = 0 })
		}, true},
		{"V1 store of a source without typed records (no events)", func(t *testing.T) []byte {
			return build(t, "Alice owns Book.\nprose\n", keep)
		}, true},
		{"the real V1 store of golden g9", func(t *testing.T) []byte { return goldenFile(t, g9Dir, "input.txt.chronicle") }, true},

		{"unpublished literal variant (V2 table, V1 magic)", func(t *testing.T) []byte { return legacyVariant(t, legacyMixed) }, false},
		{"variant with an Arabic sentence", func(t *testing.T) []byte { return legacyVariant(t, legacyArabic+legacyTyped) }, false},
		{"typed records missing the last one", func(t *testing.T) []byte {
			return build(t, legacyMixed, func(s *engine.Store) { s.Events = s.Events[:1] })
		}, false},
		{"typed records swapped", func(t *testing.T) []byte {
			return build(t, legacyMixed, func(s *engine.Store) { s.Events[0], s.Events[1] = s.Events[1], s.Events[0] })
		}, false},
		{"typed record with an edited object", func(t *testing.T) []byte {
			return build(t, legacyMixed, func(s *engine.Store) { s.Events[1].Object = "Carl" })
		}, false},
		{"typed record with an edited amount", func(t *testing.T) []byte {
			return build(t, legacyMixed, func(s *engine.Store) { s.Events[1].Amount = engine.Rational{Num: 100, Den: 1} })
		}, false},
		{"typed-only table under the V2 magic", func(t *testing.T) []byte {
			return build(t, legacyMixed, func(s *engine.Store) { s.Version = 2 })
		}, false},
		{"V1 store with a trailing byte", func(t *testing.T) []byte { return append(build(t, legacyMixed, keep), 0) }, false},
		{"V1 store with an edited source byte", func(t *testing.T) []byte {
			b := build(t, legacyMixed, keep)
			b[engine.HeaderSize] = 'a' // "alice owns Book." — digest no longer matches
			return b
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			store := tc.store(t)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "s.chronicle"), store, 0o644))
			before := snapshot(t, dir)
			for _, args := range [][]string{
				{"find", "s.chronicle", "Alice"},
				{"query", "s.chronicle", "Alice Bob"},
				{"claim", "s.chronicle", "Alice", "owns", "Book"},
			} {
				got := runIn(t, dir, args...)
				if tc.loaded {
					require.Equal(t, 0, got.code, "%q: %s", args, got.stderr)
					continue
				}
				require.Equal(t, 1, got.code, "%q must reject the store", args)
				require.Empty(t, got.stdout)
				require.Equal(t, before, snapshot(t, dir), "%q wrote or changed a file", args)
			}
		})
	}
}

// TestLegacyV1ReingestReusesStore: ingesting the source of a valid V1 store
// reuses it untouched (its V1 magic and imported_at survive a different
// clock) and writes, or keeps, a V1 INGEST receipt; repeating is
// idempotent. A changed source or a different receipt at the receipt path
// fails with every file kept.
func TestLegacyV1ReingestReusesStore(t *testing.T) {
	g9Store := goldenFile(t, g9Dir, "input.txt.chronicle")
	g9Input := string(goldenFile(t, g9Dir, "input.txt"))
	g9Receipt := string(goldenFile(t, g9Dir, "input.txt.chronicle.receipt"))
	mixedStore := legacyV1(t, legacyMixed)
	mixedReceipt := origFor(t, 1, "INGEST", "input.txt.chronicle", "", mixedStore).text()

	for _, tc := range []struct {
		name        string
		files       map[string]string
		code        int
		wantReceipt string // "" when the command must fail
	}{
		{"built V1 store, no receipt yet",
			map[string]string{"input.txt": legacyMixed, "input.txt.chronicle": string(mixedStore)}, 0, mixedReceipt},
		{"built V1 store with its V1 receipt",
			map[string]string{"input.txt": legacyMixed, "input.txt.chronicle": string(mixedStore), "input.txt.chronicle.receipt": mixedReceipt}, 0, mixedReceipt},
		{"g9 V1 store, no receipt yet",
			map[string]string{"input.txt": g9Input, "input.txt.chronicle": string(g9Store)}, 0, g9Receipt},
		{"g9 V1 store with the original V1 receipt",
			map[string]string{"input.txt": g9Input, "input.txt.chronicle": string(g9Store), "input.txt.chronicle.receipt": g9Receipt}, 0, g9Receipt},
		{"source changed since the V1 store",
			map[string]string{"input.txt": legacyMixed + "more\n", "input.txt.chronicle": string(mixedStore)}, 1, ""},
		{"a V2 receipt occupies the receipt path",
			map[string]string{"input.txt": legacyMixed, "input.txt.chronicle": string(mixedStore),
				"input.txt.chronicle.receipt": strings.Replace(mixedReceipt, "RECEIPT-V1", "RECEIPT-V2", 1)}, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			before := snapshot(t, dir)
			for range 2 { // the second run must be an identical no-op
				got := runEnv(t, dir, []string{"SOURCE_DATE_EPOCH=1999999999"}, "ingest", "input.txt")
				require.Equal(t, tc.code, got.code, got.stderr)
				if tc.code != 0 {
					require.Empty(t, got.stdout)
					require.Equal(t, before, snapshot(t, dir), "a failed ingest changed files")
					continue
				}
				require.Equal(t, "store=input.txt.chronicle\nreceipt=input.txt.chronicle.receipt\n", got.stdout)
				after := snapshot(t, dir)
				require.Len(t, after, 3)
				require.Equal(t, before["input.txt.chronicle"], after["input.txt.chronicle"], "the V1 store must be reused untouched")
				require.Equal(t, tc.wantReceipt, string(after["input.txt.chronicle.receipt"]))
				require.True(t, strings.HasPrefix(tc.wantReceipt, "CASPER-CHRONICLE-INTEGRITY-RECEIPT-V1\nkind:INGEST\n"))
			}
			if tc.code == 0 {
				requireVerify(t, dir, "input.txt.chronicle.receipt", "VALID")
			}
		})
	}
}

// TestLegacyV1QueryAndFindReceipts: queries (and claims) on a V1 store use
// the current rules and write a V2 receipt named .query-v2-<h16>.receipt;
// find writes a V1 FIND receipt; both verify VALID and repeating them is an
// identical no-op.
func TestLegacyV1QueryAndFindReceipts(t *testing.T) {
	for _, tc := range []struct {
		name, question, terms string
		store                 []byte
	}{
		{"built V1 store", "Alice Bob", "Alice Bob", legacyV1(t, legacyMixed)},
		{"g9 V1 store", "Alice Bob", "Alice", goldenFile(t, g9Dir, "input.txt.chronicle")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			const store = "legacy.txt.chronicle"
			require.NoError(t, os.WriteFile(filepath.Join(dir, store), tc.store, 0o644))
			claim := "@claim\tAlice\towns\tBook"
			for _, step := range []struct {
				args    []string
				kind    string
				version int
				q       string
				file    string
			}{
				{[]string{"query", store, tc.question}, "QUERY", 2, tc.question, store + ".query-v2-" + h16(tc.question) + ".receipt"},
				{[]string{"claim", store, "Alice", "owns", "Book"}, "QUERY", 2, claim, store + ".query-v2-" + h16(claim) + ".receipt"},
				{[]string{"find", store, tc.terms}, "FIND", 1, tc.terms, store + ".find-" + h16(tc.terms) + ".receipt"},
			} {
				for range 2 {
					got := runIn(t, dir, step.args...)
					require.Equal(t, 0, got.code, "%q: %s", step.args, got.stderr)
					lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
					require.Len(t, lines, 2, got.stdout)
					require.Equal(t, "receipt="+step.file, lines[1])
					want := origFor(t, step.version, step.kind, store, step.q, tc.store)
					require.Equal(t, want.result, sumHex([]byte(lines[0])), "the printed JSON is the receipted result")
					data, err := os.ReadFile(filepath.Join(dir, step.file))
					require.NoError(t, err)
					require.Equal(t, want.text(), string(data))
				}
				requireVerify(t, dir, step.file, "VALID")
			}
			files := snapshot(t, dir)
			require.Len(t, files, 4)
			for name := range files {
				require.NotContains(t, name, ".query-"+h16(tc.question), "no V2-store query receipt name on a V1 store")
			}
			require.Equal(t, tc.store, files[store], "queries never change the store")
		})
	}
}

// TestLegacyVerifyOutcomes: V1 INGEST and FIND receipts verify normally; a
// V1 QUERY receipt is UNSUPPORTED (exit 3) only once its structure, store
// digest, store load with replay, document digest and version pass — any
// failure there is INVALID (exit 1). A V1 receipt on a V2 store is INVALID;
// a V2 receipt is accepted on a V1 store.
func TestLegacyVerifyOutcomes(t *testing.T) {
	v1 := legacyV1(t, legacyMixed)
	v2, err := engine.NewStore([]byte(legacyMixed), 1750000000)
	require.NoError(t, err)
	v2Bytes := v2.Encode()
	tampered, err := original.V1Store([]byte(legacyMixed), legacyTime)
	require.NoError(t, err)
	tampered.Events[0].Subject = "Alicia"
	tamperedBytes := tampered.Encode()
	variant := legacyVariant(t, legacyMixed)
	g9Store := goldenFile(t, g9Dir, "input.txt.chronicle")
	files := map[string]string{
		"v1.chronicle":        string(v1),
		"v2.chronicle":        string(v2Bytes),
		"tampered.chronicle":  string(tamperedBytes),
		"variant.chronicle":   string(variant),
		"input.txt.chronicle": string(g9Store),
	}

	// A historical V1 QUERY receipt: correct digests, a result the current
	// rules would not give.
	hist := origFor(t, 1, "QUERY", "v1.chronicle", "Alice Bob", v1)
	hist.result = sumHex([]byte(`{"status":"HISTORICAL"}`))
	q := func(edit func(r *orig)) string { r := hist; edit(&r); return r.text() }
	onStore := func(path string, data []byte) func(r *orig) {
		return func(r *orig) {
			r.path, r.store = path, sumHex(data)
		}
	}
	current := origFor(t, 2, "QUERY", "v1.chronicle", "Alice Bob", v1)
	ingest := origFor(t, 1, "INGEST", "v1.chronicle", "", v1)
	find := origFor(t, 1, "FIND", "v1.chronicle", "Alice", v1)
	lines := strings.Split(strings.TrimSuffix(hist.text(), "\n"), "\n")

	for _, tc := range []struct {
		name, receipt, want string
	}{
		// V1 QUERY receipts that pass every check: UNSUPPORTED.
		{"historical V1 QUERY receipt", hist.text(), "UNSUPPORTED"},
		{"golden legacy-query.receipt", string(goldenFile(t, g9Dir, "legacy-query.receipt")), "UNSUPPORTED"},
		{"V1 QUERY with the current result digest", q(func(r *orig) { r.result = current.result }), "UNSUPPORTED"},
		{"V1 QUERY whose question no longer parses", q(func(r *orig) { r.question = "@claim\tAlice" }), "UNSUPPORTED"},
		{"V1 QUERY with CRLF lines", strings.ReplaceAll(hist.text(), "\n", "\r\n"), "UNSUPPORTED"},
		{"V1 QUERY with keys in another order", strings.Join([]string{lines[0], lines[6], lines[4], lines[2], lines[1], lines[5], lines[3]}, "\n") + "\n", "UNSUPPORTED"},
		{"V1 QUERY with upper-case path and question hex", strings.Join([]string{lines[0], lines[1], "store_path_hex:" + strings.ToUpper(lines[2][len("store_path_hex:"):]), "question_hex:" + strings.ToUpper(lines[3][len("question_hex:"):]), lines[4], lines[5], lines[6]}, "\n") + "\n", "UNSUPPORTED"},

		// ... and any failure before the version check: INVALID.
		{"V1 QUERY with a wrong store digest", q(func(r *orig) { r.store = flipHex(r.store) }), "INVALID"},
		{"V1 QUERY with an upper-case store digest", q(func(r *orig) { r.store = strings.ToUpper(r.store) }), "INVALID"},
		{"V1 QUERY with a wrong document digest", q(func(r *orig) { r.document = flipHex(r.document) }), "INVALID"},
		{"V1 QUERY on a tampered V1 store (digest of the tampered bytes)", q(onStore("tampered.chronicle", tamperedBytes)), "INVALID"},
		{"V1 QUERY on a literal-variant store", q(onStore("variant.chronicle", variant)), "INVALID"},
		{"V1 QUERY naming a missing store", q(func(r *orig) { r.path = "gone.chronicle" }), "INVALID"},
		{"V1 QUERY on a V2 store", q(func(r *orig) {
			onStore("v2.chronicle", v2Bytes)(r)
		}), "INVALID"},
		{"V1 QUERY without the final LF", strings.TrimSuffix(hist.text(), "\n"), "INVALID"},
		{"V1 QUERY with a blank line", hist.text() + "\n", "INVALID"},
		{"V1 QUERY with an unknown key", hist.text() + "note:x\n", "INVALID"},
		{"V1 QUERY with a repeated key", hist.text() + lines[3] + "\n", "INVALID"},
		{"V1 QUERY without result_sha256", strings.Join(lines[:6], "\n") + "\n", "INVALID"},
		{"V1 QUERY with kind in lower case", strings.Replace(hist.text(), "kind:QUERY", "kind:query", 1), "INVALID"},
		{"V1 QUERY with odd-length question hex", strings.Replace(hist.text(), lines[3], lines[3]+"4", 1), "INVALID"},
		{"V1 QUERY with a 63-digit document digest", strings.Replace(hist.text(), lines[5], lines[5][:len(lines[5])-1], 1), "INVALID"},
		{"V1 QUERY with a V3 header", strings.Replace(hist.text(), "RECEIPT-V1", "RECEIPT-V3", 1), "INVALID"},
		{"V1 QUERY with a NUL byte", strings.Replace(hist.text(), "kind:QUERY", "kind:QUERY\x00", 1), "INVALID"},
		{"V1 QUERY with an empty store path", q(func(r *orig) { r.path = "" }), "INVALID"},

		// V1 INGEST and FIND receipts are re-verified normally.
		{"V1 INGEST receipt", ingest.text(), "VALID"},
		{"V1 FIND receipt", find.text(), "VALID"},
		{"V1 INGEST receipt of g9", string(goldenFile(t, g9Dir, "input.txt.chronicle.receipt")), "VALID"},
		{"V1 FIND receipt of g9", string(goldenFile(t, g9Dir, "input.txt.chronicle.find-3bc51062973c458d.receipt")), "VALID"},
		{"V1 FIND receipt with a wrong result", func() string { r := find; r.result = flipHex(r.result); return r.text() }(), "INVALID"},
		{"V1 INGEST receipt with a wrong result", func() string { r := ingest; r.result = flipHex(r.result); return r.text() }(), "INVALID"},
		{"V1 FIND receipt on a tampered V1 store", func() string { r := find; onStore("tampered.chronicle", tamperedBytes)(&r); return r.text() }(), "INVALID"},
		{"V2 FIND receipt on a V1 store", func() string { r := find; r.version = 2; return r.text() }(), "VALID"},
		{"V2 QUERY receipt on a V1 store", current.text(), "VALID"},

		// A V1 receipt is only acceptable for a V1 store.
		{"V1 INGEST receipt on a V2 store", func() string { r := origFor(t, 1, "INGEST", "v2.chronicle", "", v2Bytes); return r.text() }(), "INVALID"},
		{"V1 FIND receipt on a V2 store", func() string { r := origFor(t, 1, "FIND", "v2.chronicle", "Alice", v2Bytes); return r.text() }(), "INVALID"},
		{"V2 INGEST receipt on the V2 store", origFor(t, 2, "INGEST", "v2.chronicle", "", v2Bytes).text(), "VALID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, files)
			writeFiles(t, dir, map[string]string{"case.receipt": tc.receipt})
			before := snapshot(t, dir)
			requireVerify(t, dir, "case.receipt", tc.want)
			require.Equal(t, before, snapshot(t, dir), "verify never writes")
		})
	}
}

// ---------------------------------------------------------------------------
// The unpublished V1 literal variant

// TestLiteralVariantRejectedEverywhere: stores of the unpublished V1 variant
// fail the V1 replay. ingest of their source beside them, claim, query and
// find exit 1 with every file byte-identical; receipts naming them are
// INVALID (never UNSUPPORTED); ingesting a copy of the source under a new
// name recovers a V2 store with the literal event.
func TestLiteralVariantRejectedEverywhere(t *testing.T) {
	for _, tc := range []struct {
		name, src string
	}{
		{"literal line and typed record", "Alice owns Book.\n" + strings.SplitAfter(legacyTyped, "\n")[0]},
		{"literal line only", "Alice owns Book.\n"},
		{"literal, prose, Arabic sentence and typed records", legacyMixed + legacyArabic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			variant := legacyVariant(t, tc.src)
			require.NotEqual(t, legacyV1(t, tc.src), variant, "the variant's table must differ from the V1 extraction")
			_, err := engine.Load(variant)
			require.ErrorIs(t, err, engine.ErrReplay)
			const store = "story.txt.chronicle"
			claimQ := "@claim\tAlice\towns\tBook"
			// The receipts the variant would have written beside its store.
			writeFiles(t, dir, map[string]string{
				"story.txt":        tc.src,
				store:              string(variant),
				store + ".receipt": orig{1, "INGEST", store, "", sumHex(variant), sumHex([]byte(tc.src)), sumHex(variant)}.text(),
				store + ".query-" + h16(claimQ) + ".receipt": orig{1, "QUERY", store, claimQ, sumHex(variant), sumHex([]byte(tc.src)), sumHex([]byte("{}"))}.text(),
				store + ".find-" + h16("Alice") + ".receipt": orig{1, "FIND", store, "Alice", sumHex(variant), sumHex([]byte(tc.src)), sumHex([]byte("{}"))}.text(),
				"v2-query.receipt":                           orig{2, "QUERY", store, claimQ, sumHex(variant), sumHex([]byte(tc.src)), sumHex([]byte("{}"))}.text(),
			})
			before := snapshot(t, dir)
			for _, args := range [][]string{
				{"ingest", "story.txt"},
				{"claim", store, "Alice", "owns", "Book"},
				{"query", store, "Alice Bob"},
				{"query", store, claimQ},
				{"find", store, "Alice"},
			} {
				got := runIn(t, dir, args...)
				require.Equal(t, 1, got.code, "%q", args)
				require.Empty(t, got.stdout, "%q", args)
				require.Equal(t, before, snapshot(t, dir), "%q changed files", args)
			}
			for _, r := range []string{store + ".receipt", store + ".query-" + h16(claimQ) + ".receipt", store + ".find-" + h16("Alice") + ".receipt", "v2-query.receipt"} {
				requireVerify(t, dir, r, "INVALID")
			}
			require.Equal(t, before, snapshot(t, dir))

			// Recovery: the same bytes under a new name give a V2 store.
			require.NoError(t, os.WriteFile(filepath.Join(dir, "story-copy.txt"), []byte(tc.src), 0o644))
			got := runIn(t, dir, "ingest", "story-copy.txt")
			require.Equal(t, 0, got.code, got.stderr)
			require.Equal(t, "store=story-copy.txt.chronicle\nreceipt=story-copy.txt.chronicle.receipt\n", got.stdout)
			recovered, err := os.ReadFile(filepath.Join(dir, "story-copy.txt.chronicle"))
			require.NoError(t, err)
			require.Equal(t, engine.MagicV2, recovered[:16])
			s, err := engine.Load(recovered)
			require.NoError(t, err)
			require.Equal(t, 2, s.Version)
			require.NotEmpty(t, s.Events)
			require.Equal(t, "Alice", s.Events[0].Subject)
			require.Equal(t, "LITERAL", s.Events[0].Modality, "the literal event is extracted again")
			want, err := engine.NewStore([]byte(tc.src), 1750000000)
			require.NoError(t, err)
			require.Equal(t, want.Encode(), recovered)
			require.Equal(t, recovered[engine.HeaderSize+len(tc.src):], variant[engine.HeaderSize+len(tc.src):],
				"the recovered event table is the variant's table")
			requireVerify(t, dir, "story-copy.txt.chronicle.receipt", "VALID")
			got = runIn(t, dir, "claim", "story-copy.txt.chronicle", "Alice", "owns", "Book")
			require.Equal(t, 0, got.code, got.stderr)
			require.Contains(t, got.stdout, `"status":"EXACT_STATED"`)
			after := snapshot(t, dir)
			for name, data := range before {
				require.Equal(t, data, after[name], "recovery changed %s", name)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// The archive command on the original tool's files

var archiveBuild testbin.Once

// chronicleBinary builds the archive command once, next to binary.
func chronicleBinary(t testing.TB) string {
	t.Helper()
	bin, err := archiveBuild.Build(filepath.Dir(binary), "chronicle")
	require.NoError(t, err)
	return bin
}

// runArchive runs `chronicle --db DB ARGS...` in dir with the golden clock.
func runArchive(t testing.TB, dir, dbPath string, args ...string) result {
	t.Helper()
	cmd := exec.Command(chronicleBinary(t), append([]string{"--db", dbPath}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(testbin.Environ("CHRONICLE_DB", "SOURCE_DATE_EPOCH"), "SOURCE_DATE_EPOCH=1750000000")
	return runCmd(t, cmd)
}

// archiveOK runs chronicle and requires exit 0.
func archiveOK(t testing.TB, dir, dbPath string, args ...string) string {
	t.Helper()
	got := runArchive(t, dir, dbPath, args...)
	require.Equal(t, 0, got.code, "chronicle %q: %s", args, got.stderr)
	return got.stdout
}

// originalVerdicts lists `chronicle receipts --verify --json` and returns the
// verdict of every original receipt by the file it was imported from.
func originalVerdicts(t testing.TB, dir, dbPath string) map[string]string {
	t.Helper()
	got := runArchive(t, dir, dbPath, "receipts", "--verify", "--json")
	out := map[string]string{}
	invalid, unsupported := 0, 0
	for _, line := range strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n") {
		if line == "" {
			continue
		}
		var j struct {
			Original string `json:"original"`
			Verdict  string `json:"verdict"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &j), line)
		switch j.Verdict {
		case "INVALID":
			invalid++
		case "UNSUPPORTED":
			unsupported++
		}
		if j.Original != "" {
			out[j.Original] = j.Verdict
		}
	}
	switch {
	case invalid > 0:
		require.Equal(t, 1, got.code, "receipts --verify exits 1 when a receipt is INVALID")
		require.Contains(t, got.stderr, fmt.Sprintf("%d of ", invalid))
	case unsupported > 0:
		require.Equal(t, 3, got.code, "receipts --verify exits 3 when receipts are UNSUPPORTED and none INVALID")
		require.Contains(t, got.stderr, fmt.Sprintf("%d of ", unsupported))
	default:
		require.Equal(t, 0, got.code, got.stderr)
	}
	return out
}

// goldenCaseDirs lists the golden case directories, g0..g9.
func goldenCaseDirs(t testing.TB) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(goldenDir, "g[0-9]_*"))
	require.NoError(t, err)
	require.Len(t, dirs, 10)
	sort.Strings(dirs)
	return dirs
}

// TestImportEveryGoldenStore imports every golden store (g0..g9) with the
// receipts beside it under distinct names, then: export gives back the same
// store bytes; every imported receipt verifies from the archive with the
// outcome it gets on disk beside its store (VALID, the g9 legacy query
// UNSUPPORTED, edited receipts INVALID); re-importing reports "present".
func TestImportEveryGoldenStore(t *testing.T) {
	root := t.TempDir()
	flat := filepath.Join(root, "flat") // gN.txt.chronicle and its receipts
	require.NoError(t, os.Mkdir(flat, 0o755))
	dbPath := filepath.Join(root, "archive.db")

	// Receipts edited before the import, placed beside the store both on disk
	// (original names) and in the flat folder: suffix → edit of a golden
	// receipt file, and the outcome expected in both places.
	type edit struct {
		from, suffix string
		change       func(string) string
		want         string
	}
	replaceLine := func(key string, f func(string) string) func(string) string {
		return func(s string) string {
			ls := strings.Split(s, "\n")
			for i, l := range ls {
				if strings.HasPrefix(l, key+":") {
					ls[i] = key + ":" + f(strings.TrimPrefix(l, key+":"))
				}
			}
			return strings.Join(ls, "\n")
		}
	}
	edits := map[string][]edit{
		"g0": {{"input.txt.chronicle.receipt", ".query-edited-document.receipt", replaceLine("document_sha256", flipHex), "INVALID"}},
		"g1": {{"input.txt.chronicle.query-9c1ee64bc40a82d0.receipt", ".query-edited-result.receipt", replaceLine("result_sha256", flipHex), "INVALID"}},
		"g2": {{"input.txt.chronicle.find-0556a68eeaa63129.receipt", ".find-crlf.receipt", func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }, "VALID"}},
		"g5": {{"input.txt.chronicle.receipt", ".query-truncated.receipt", func(s string) string { return s[:len(s)-1] }, "INVALID"}},
		"g6": {{"input.txt.chronicle.find-0c62f876ef1dea83.receipt", ".find-edited-terms.receipt",
			replaceLine("question_hex", func(string) string { return hex.EncodeToString([]byte("zzz")) }), "INVALID"}},
		"g9": {
			{"legacy-query.receipt", ".query-legacy.receipt", func(s string) string { return s }, "UNSUPPORTED"},
			{"legacy-query.receipt", ".query-legacy-edited-store.receipt", replaceLine("store_sha256", flipHex), "INVALID"},
			{"input.txt.chronicle.find-3bc51062973c458d.receipt", ".find-relabelled-v2.receipt",
				func(s string) string { return strings.Replace(s, "RECEIPT-V1", "RECEIPT-V2", 1) }, "VALID"},
			{"input.txt.chronicle.receipt", ".query-edited-kind.receipt",
				func(s string) string { return strings.Replace(s, "kind:INGEST", "kind:FIND", 1) }, "INVALID"},
		},
	}

	disk := map[string]string{}   // flat receipt name → outcome on disk
	stores := map[string][]byte{} // gN → golden store bytes
	receipts := map[string]int{}  // gN → receipt files beside it
	var storeArgs []string
	for _, caseDir := range goldenCaseDirs(t) {
		g := filepath.Base(caseDir)[:2]
		storeName := g + ".txt.chronicle"
		storeArgs = append(storeArgs, storeName)
		stores[g] = goldenFile(t, caseDir, "input.txt.chronicle")
		onDisk := filepath.Join(root, g) // the original layout, where receipts verify
		require.NoError(t, os.Mkdir(onDisk, 0o755))
		place := func(origName string, data []byte) {
			require.NoError(t, os.WriteFile(filepath.Join(onDisk, origName), data, 0o644))
			flatName := storeName + strings.TrimPrefix(origName, "input.txt.chronicle")
			require.NoError(t, os.WriteFile(filepath.Join(flat, flatName), data, 0o644))
		}
		place("input.txt.chronicle", stores[g])
		names, err := filepath.Glob(filepath.Join(caseDir, "input.txt.chronicle*.receipt"))
		require.NoError(t, err)
		require.NotEmpty(t, names)
		var expect = map[string]string{}
		for _, n := range names {
			place(filepath.Base(n), goldenFile(t, caseDir, filepath.Base(n)))
			expect[filepath.Base(n)] = "VALID"
		}
		for _, e := range edits[g] {
			origName := "input.txt.chronicle" + e.suffix
			place(origName, []byte(e.change(string(goldenFile(t, caseDir, e.from)))))
			expect[origName] = e.want
		}
		receipts[g] = len(expect)
		for origName, want := range expect {
			got := verdict(t, onDisk, origName)
			require.Equal(t, want, got, "on disk: %s/%s", g, origName)
			disk[storeName+strings.TrimPrefix(origName, "input.txt.chronicle")] = got
		}
	}
	require.Equal(t, "UNSUPPORTED", disk["g9.txt.chronicle.query-legacy.receipt"])
	flatBefore := snapshot(t, flat)

	// Import everything.
	out := archiveOK(t, flat, dbPath, append([]string{"import"}, storeArgs...)...)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, len(storeArgs), out)
	for i, name := range storeArgs {
		g := name[:2]
		s, err := engine.Load(stores[g])
		require.NoError(t, err)
		require.Regexp(t, fmt.Sprintf(`^imported  %s  %s  V%d store, %d events, %d receipts$`,
			regexpQuote(name), hex.EncodeToString(s.Document[:])[:12], s.Version, len(s.Events), receipts[g]), lines[i])
	}
	require.Equal(t, flatBefore, snapshot(t, flat), "import never touches the files it reads")

	// Same outcome from the archive as on disk, for every receipt.
	require.Equal(t, disk, originalVerdicts(t, flat, dbPath))

	// Version, magic and import time are kept.
	type docLine struct {
		Doc        string   `json:"document_sha256"`
		ImportedAt uint64   `json:"imported_at"`
		Version    int      `json:"store_version"`
		Names      []string `json:"names"`
	}
	var docs []docLine
	for _, l := range strings.Split(strings.TrimSuffix(archiveOK(t, flat, dbPath, "docs", "--json"), "\n"), "\n") {
		var one docLine
		require.NoError(t, json.Unmarshal([]byte(l), &one))
		docs = append(docs, one)
	}
	require.Len(t, docs, 10)
	for _, d := range docs {
		require.Len(t, d.Names, 1)
		g := d.Names[0][:2]
		require.Equal(t, g+".txt", d.Names[0])
		require.Equal(t, le.LittleEndian.Uint64(stores[g][56:64]), d.ImportedAt, g)
		require.Equal(t, int(stores[g][14]-'0'), d.Version, g)
	}

	// Export gives back the identical store files, with an INGEST receipt
	// of the store's version that verifies on disk.
	for _, name := range storeArgs {
		g := name[:2]
		got := archiveOK(t, flat, dbPath, "export", g+".txt", "out")
		require.Equal(t, "store=out/"+name+"\nreceipt=out/"+name+".receipt\nsignature=out/"+name+".receipt.sig\n", got)
		exported, err := os.ReadFile(filepath.Join(flat, "out", name))
		require.NoError(t, err)
		require.Equal(t, stores[g], exported, "export of %s", name)
		rec, err := os.ReadFile(filepath.Join(flat, "out", name+".receipt"))
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(rec), fmt.Sprintf("CASPER-CHRONICLE-INTEGRITY-RECEIPT-V%c\nkind:INGEST\n", stores[g][14])))
		requireVerify(t, flat, "out/"+name+".receipt", "VALID")
	}

	// Importing again changes nothing and says so.
	docsBefore := archiveOK(t, flat, dbPath, "docs", "--json")
	out = archiveOK(t, flat, dbPath, append([]string{"import"}, storeArgs...)...)
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, len(storeArgs))
	for i, name := range storeArgs {
		require.Regexp(t, fmt.Sprintf(`^present   %s  [0-9a-f]{12}  already in the archive; 0 new receipts \(%d already kept\)$`,
			regexpQuote(name), receipts[name[:2]]), lines[i])
	}
	require.Equal(t, docsBefore, archiveOK(t, flat, dbPath, "docs", "--json"))
	require.Equal(t, disk, originalVerdicts(t, flat, dbPath))
}

func regexpQuote(s string) string {
	return strings.NewReplacer(".", `\.`, "(", `\(`, ")", `\)`).Replace(s)
}

// TestImportConflictChangesNothing: a store whose document is already in
// the archive with another store (V1 against V2, either way round) is
// reported as a conflict; names, documents, receipts and the exported store
// stay exactly as they were.
func TestImportConflictChangesNothing(t *testing.T) {
	g9Input := goldenFile(t, g9Dir, "input.txt")
	g9Store := goldenFile(t, g9Dir, "input.txt.chronicle")
	v2Store, err := engine.NewStore(g9Input, 1750000000)
	require.NoError(t, err)
	for _, tc := range []struct {
		name           string
		first, second  []byte // store kept by the archive, store imported later
		ingestFirst    bool   // add the first with `chronicle ingest` of the source
		keptV, secondV int
	}{
		{"V1 store of a document ingested as V2", v2Store.Encode(), g9Store, true, 2, 1},
		{"V1 store of a document imported as V2", v2Store.Encode(), g9Store, false, 2, 1},
		{"V2 store of a document imported as V1", g9Store, v2Store.Encode(), false, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			dbPath := filepath.Join(dir, "a.db")
			require.NoError(t, os.Mkdir(filepath.Join(dir, "old"), 0o755))
			if tc.ingestFirst {
				writeFiles(t, dir, map[string]string{"input.txt": string(g9Input)})
				archiveOK(t, dir, dbPath, "ingest", "input.txt")
			} else {
				writeFiles(t, dir, map[string]string{"input.txt.chronicle": string(tc.first)})
				out := archiveOK(t, dir, dbPath, "import", "input.txt.chronicle")
				require.True(t, strings.HasPrefix(out, "imported  input.txt.chronicle  "), out)
			}
			// The later store, with receipts beside it, under another name.
			writeFiles(t, filepath.Join(dir, "old"), map[string]string{
				"story.txt.chronicle":         string(tc.second),
				"story.txt.chronicle.receipt": orig{tc.secondV, "INGEST", "story.txt.chronicle", "", sumHex(tc.second), sumHex(g9Input), sumHex(tc.second)}.text(),
				"story.txt.chronicle.query-v2-" + h16("Alice Bob") + ".receipt": origFor(t, 2, "QUERY", "story.txt.chronicle", "Alice Bob", tc.second).text(),
			})
			docs := archiveOK(t, dir, dbPath, "docs", "--json")
			recs := archiveOK(t, dir, dbPath, "receipts", "--json")

			out := archiveOK(t, dir, dbPath, "import", "old/story.txt.chronicle")
			require.Regexp(t, fmt.Sprintf(`^conflict  old/story\.txt\.chronicle  9149b99beb1d  the document is already in the archive with another store \(V%d, imported [0-9TZ:-]+\); kept that one, 2 receipts not imported\n$`, tc.keptV), out)
			require.Equal(t, docs, archiveOK(t, dir, dbPath, "docs", "--json"), "a conflict must not add names or documents")
			require.Equal(t, recs, archiveOK(t, dir, dbPath, "receipts", "--json"), "a conflict must not import receipts")
			require.NotContains(t, docs, "old/story.txt")
			archiveOK(t, dir, dbPath, "export", "9149b99beb1d", "out")
			exported, err := os.ReadFile(filepath.Join(dir, "out", "input.txt.chronicle"))
			require.NoError(t, err)
			require.Equal(t, tc.first, exported, "the archive keeps the store it had")
		})
	}
}

// TestImportLiteralVariantRejected: `chronicle import` of an unpublished V1
// variant store fails with the replay reason and leaves the archive exactly
// as it was (file bytes, documents, receipts); in a batch the valid stores
// still land.
func TestImportLiteralVariantRejected(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "a.db")
	src := "Alice owns Book.\n" + legacyTyped
	variant := legacyVariant(t, src)
	writeFiles(t, dir, map[string]string{
		"other.txt":                   legacyMixed,
		"story.txt.chronicle":         string(variant),
		"story.txt.chronicle.receipt": orig{1, "INGEST", "story.txt.chronicle", "", sumHex(variant), sumHex([]byte(src)), sumHex(variant)}.text(),
		"good.txt.chronicle":          string(legacyV1(t, legacyTyped)),
	})
	archiveOK(t, dir, dbPath, "ingest", "other.txt")
	docs := archiveOK(t, dir, dbPath, "docs", "--json")
	recs := archiveOK(t, dir, dbPath, "receipts", "--json")
	dbBefore, err := os.ReadFile(dbPath)
	require.NoError(t, err)
	filesBefore := snapshot(t, dir)

	got := runArchive(t, dir, dbPath, "import", "story.txt.chronicle")
	require.Equal(t, 1, got.code)
	require.Regexp(t, `^rejected  story\.txt\.chronicle: event table differs from canonical replay at byte \d+: store holds 3 events, the V1 replay extracts 2\n$`, got.stdout)
	require.Equal(t, "chronicle import: 1 of 1 stores rejected\n", got.stderr)
	dbAfter, err := os.ReadFile(dbPath)
	require.NoError(t, err)
	require.Equal(t, dbBefore, dbAfter, "a rejected import must leave the archive file byte-identical")
	require.Equal(t, docs, archiveOK(t, dir, dbPath, "docs", "--json"))
	require.Equal(t, recs, archiveOK(t, dir, dbPath, "receipts", "--json"))
	require.Equal(t, filesBefore, snapshot(t, dir))

	// A batch: the valid V1 store is imported, the variant is rejected.
	got = runArchive(t, dir, dbPath, "import", "good.txt.chronicle", "story.txt.chronicle")
	require.Equal(t, 1, got.code)
	lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
	require.Len(t, lines, 2)
	require.Regexp(t, `^imported  good\.txt\.chronicle  [0-9a-f]{12}  V1 store, 2 events, 0 receipts$`, lines[0])
	require.True(t, strings.HasPrefix(lines[1], "rejected  story.txt.chronicle: event table differs from canonical replay"), lines[1])
	docsAfter := archiveOK(t, dir, dbPath, "docs", "--json")
	require.Equal(t, 2, strings.Count(docsAfter, "\n"))
	require.NotContains(t, docsAfter, `"story.txt"`)
	require.Empty(t, originalVerdicts(t, dir, dbPath), "no receipt of the rejected store is kept")
}

// ---------------------------------------------------------------------------
// Archive schema upgrades through the command

// schema1Copy copies the archive written by schema 1 into dir.
func schema1Copy(t testing.TB, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile("../../testdata/archives/schema1.db")
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// TestArchiveSchemaUpgradeCommands: `chronicle migrate` upgrades a schema-1
// archive and lists the steps, then has nothing to do; a read-only command
// on a schema-1 copy works and upgrades it; the upgraded archive lists the
// same documents and receipts as a fresh archive of the same inputs.
func TestArchiveSchemaUpgradeCommands(t *testing.T) {
	dir := t.TempDir()
	schema1Copy(t, dir, "s1.db")
	want := fmt.Sprintf("s1.db: upgraded schema 1 to %d\n", db.SchemaVersion)
	for _, u := range db.Upgrades {
		want += fmt.Sprintf("  %d→%d  %s\n", u.From, u.From+1, u.Summary)
	}
	require.Equal(t, want, archiveOK(t, dir, "s1.db", "migrate"))
	require.Equal(t, fmt.Sprintf("s1.db: schema %d, nothing to do\n", db.SchemaVersion), archiveOK(t, dir, "s1.db", "migrate"))

	// A read-only command on another copy upgrades it as it reads.
	schema1Copy(t, dir, "s2.db")
	docs := archiveOK(t, dir, "s2.db", "docs", "--json")
	require.Equal(t, 9, strings.Count(docs, "\n"))
	require.Equal(t, fmt.Sprintf("s2.db: schema %d, nothing to do\n", db.SchemaVersion), archiveOK(t, dir, "s2.db", "migrate"))
	require.Equal(t, docs, archiveOK(t, dir, "s1.db", "docs", "--json"))

	// Identical results: a fresh archive of the golden inputs g0..g8, asked
	// the same query and find as schema1.db, lists the same documents and
	// receipts, and every receipt verifies.
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	fresh := filepath.Join(dir, "fresh.db")
	var inputs []string
	for _, c := range goldenCaseDirs(t)[:9] {
		inputs = append(inputs, "testdata/golden/"+filepath.Base(c)+"/input.txt")
	}
	archiveOK(t, repo, fresh, append([]string{"ingest"}, inputs...)...)
	archiveOK(t, repo, fresh, "query", "testdata/golden/g3_arabic_prose_fixture/input.txt", "هل سدد أحمد دين خالد؟", "--keep")
	archiveOK(t, repo, fresh, "find", "--doc", "testdata/golden/g1_english_intermediary/input.txt", "Alice Saud", "--keep")
	require.Equal(t, archiveOK(t, dir, fresh, "docs", "--json"), docs)
	require.Equal(t, archiveOK(t, dir, fresh, "receipts", "--json"), archiveOK(t, dir, "s2.db", "receipts", "--json"))
	verified := archiveOK(t, dir, "s2.db", "receipts", "--verify")
	require.Equal(t, 11, strings.Count(verified, "VALID  "), verified)
	require.NotContains(t, verified, "INVALID")
}
