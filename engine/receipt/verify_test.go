package receipt

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// counting wraps canonical and counts the replays Verify asks for.
type counting struct{ calls int }

func (c *counting) Query(s *engine.Store, question string) ([]byte, error) {
	c.calls++
	return Canonical{}.Query(s, question)
}

func (c *counting) Find(s *engine.Store, terms string) ([]byte, error) {
	c.calls++
	return Canonical{}.Find(s, terms)
}

// Golden receipt file names used by the attacks.
const (
	ingestFile = "input.txt.chronicle.receipt"
	g0Query    = "input.txt.chronicle.query-e19a9a4818ac46d3.receipt"    // claim Alice owns Book
	g0Find     = "input.txt.chronicle.find-909cb81127c5e194.receipt"     // find Book
	g2Query    = "input.txt.chronicle.query-9635407d0b59b961.receipt"    // query "Alice Bob"
	g6Find     = "input.txt.chronicle.find-64989ccbf3efa9c8.receipt"     // find "alpha beta gamma"
	g9Find     = "input.txt.chronicle.find-3bc51062973c458d.receipt"     // V1 FIND
	g9Query    = "input.txt.chronicle.query-v2-9635407d0b59b961.receipt" // V2 QUERY on V1 store
	g9Legacy   = "legacy-query.receipt"                                  // V1 QUERY
)

// verifyInDir is the verify command on receipt bytes with the current
// directory at dir: parse, read the recorded store path (the bytes of
// goldenStore are replaced by store when store is not nil), verify.
// parseErr is non-nil when Parse rejected the receipt.
func verifyInDir(t testing.TB, dir string, data, store []byte, replay Replayer) (o Outcome, verr, parseErr error) {
	t.Helper()
	r, err := Parse(data)
	if err != nil {
		return Invalid, nil, err
	}
	storeBytes := store
	if storeBytes == nil || r.StorePath != goldenStore {
		storeBytes, err = os.ReadFile(filepath.Join(dir, r.StorePath))
		if err != nil {
			return Invalid, err, nil
		}
	}
	o, err = Verify(r, storeBytes, replay)
	return o, err, nil
}

func TestGoldenVerify(t *testing.T) {
	n := 0
	for _, c := range loadGoldenCases(t) {
		for _, name := range c.receiptNames() {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				r, err := Parse(c.receipts[name])
				require.NoError(t, err)
				want := Valid
				if c.name == "g9_legacy_v1_store" && name == g9Legacy {
					want = Unsupported
				}
				spy := &counting{}
				got, err := Verify(r, c.store, spy)
				require.NoError(t, err)
				require.Equal(t, want, got)
				wantCalls := 1
				if r.Kind == KindIngest || want == Unsupported {
					wantCalls = 0
				}
				require.Equal(t, wantCalls, spy.calls, "replays")
			})
			n++
		}
	}
	require.Equal(t, 42, n)
}

// TestGoldenTranscriptVerify replays every `verify` command of the golden
// transcripts and expects the recorded exit code.
func TestGoldenTranscriptVerify(t *testing.T) {
	n := 0
	for _, c := range loadGoldenCases(t) {
		for i, cmd := range loadTranscript(t, c.dir).Commands {
			if len(cmd.Argv) != 2 || cmd.Argv[0] != "verify" {
				continue
			}
			t.Run(c.name+"/"+cmd.Argv[1], func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join(c.dir, cmd.Argv[1]))
				require.NoError(t, err)
				o, verr, perr := verifyInDir(t, c.dir, data, nil, Canonical{})
				require.NoError(t, perr)
				require.NoError(t, verr)
				require.Equal(t, cmd.Exit, o.ExitCode(), "command %d", i)
				require.Equal(t, cmd.Stdout, o.String()+"\n")
			})
			n++
		}
	}
	require.Equal(t, 43, n)
}

// Verify with a nil replayer must not need it where no replay happens.
func TestVerifyNilReplayer(t *testing.T) {
	g0 := goldenCaseByPrefix(t, "g0")
	g9 := goldenCaseByPrefix(t, "g9")
	for _, tt := range []struct {
		c    goldenCase
		file string
		want Outcome
	}{
		{g0, ingestFile, Valid},
		{g9, ingestFile, Valid},
		{g9, g9Legacy, Unsupported},
	} {
		r, err := Parse(tt.c.receipts[tt.file])
		require.NoError(t, err)
		o, err := Verify(r, tt.c.store, nil)
		require.NoError(t, err)
		require.Equal(t, tt.want, o, "%s/%s", tt.c.name, tt.file)
	}
}

// Helpers for the attack table.

func flipHexDigit(d string) string {
	c := byte('0')
	if d[0] == '0' {
		c = '1'
	}
	return string(c) + d[1:]
}

func flipByte(b []byte, off int) []byte {
	out := append([]byte{}, b...)
	out[off] ^= 0x01
	return out
}

func sourceSize(store []byte) int { return int(binary.LittleEndian.Uint64(store[48:56])) }

func docHex(t testing.TB, store []byte) string {
	t.Helper()
	s, err := engine.Load(store)
	require.NoError(t, err)
	return hex.EncodeToString(s.Document[:])
}

// replayHex is the lowercase result digest of a canonical replay.
func replayHex(t testing.TB, store []byte, kind Kind, question string) string {
	t.Helper()
	s, err := engine.Load(store)
	require.NoError(t, err)
	var out []byte
	if kind == KindFind {
		out, err = find.Find(s, question)
	} else {
		out, err = settle.Query(s, question)
	}
	require.NoError(t, err)
	return sha256Hex(out)
}

type editFunc func(t testing.TB, rec, store []byte) []byte

func set(key, value string) editFunc {
	return func(t testing.TB, rec, _ []byte) []byte { return setValue(t, rec, key, value) }
}

func header(h string) editFunc {
	return func(t testing.TB, rec, _ []byte) []byte {
		return editLine(t, rec, 0, func(string) string { return h })
	}
}

func flip(key string) editFunc {
	return func(t testing.TB, rec, _ []byte) []byte {
		return setValue(t, rec, key, flipHexDigit(getValue(t, rec, key)))
	}
}

func upper(key string) editFunc {
	return func(t testing.TB, rec, _ []byte) []byte {
		v := getValue(t, rec, key)
		require.NotEqual(t, v, strings.ToUpper(v), "digest has letters")
		return setValue(t, rec, key, strings.ToUpper(v))
	}
}

// rehashStore makes store_sha256 match the store the verifier will read.
func rehashStore(t testing.TB, rec, store []byte) []byte {
	return setValue(t, rec, "store_sha256", sha256Hex(store))
}

// rehashDoc makes document_sha256 match that store's document.
func rehashDoc(t testing.TB, rec, store []byte) []byte {
	return setValue(t, rec, "document_sha256", docHex(t, store))
}

// rehashIngestResult makes an INGEST result_sha256 match the store.
func rehashIngestResult(t testing.TB, rec, store []byte) []byte {
	return setValue(t, rec, "result_sha256", sha256Hex(store))
}

// rehashReplay makes a QUERY/FIND result_sha256 match the canonical replay
// of its (possibly edited) question on the store.
func rehashReplay(t testing.TB, rec, store []byte) []byte {
	r, err := Parse(rec)
	require.NoError(t, err)
	return setValue(t, rec, "result_sha256", replayHex(t, store, r.Kind, r.Question))
}

func chain(fs ...editFunc) editFunc {
	return func(t testing.TB, rec, store []byte) []byte {
		for _, f := range fs {
			rec = f(t, rec, store)
		}
		return rec
	}
}

func crlf(t testing.TB, rec, _ []byte) []byte {
	return []byte(strings.ReplaceAll(string(rec), "\n", "\r\n"))
}

func reorder(order ...int) editFunc {
	return func(t testing.TB, rec, _ []byte) []byte {
		lines := splitLines(t, rec)
		out := make([]string, len(order))
		for i, k := range order {
			out[i] = lines[k]
		}
		return joinLines(out)
	}
}

type storeFunc func(t testing.TB, store []byte) []byte

func flipAt(off func(store []byte) int) storeFunc {
	return func(t testing.TB, store []byte) []byte { return flipByte(store, off(store)) }
}

func otherStore(prefix string) storeFunc {
	return func(t testing.TB, _ []byte) []byte { return goldenCaseByPrefix(t, prefix).store }
}

// relabel writes magic version digit d (CONTRACT 3.1: byte 14 of the magic).
func relabel(d byte) storeFunc {
	return func(t testing.TB, store []byte) []byte {
		out := append([]byte{}, store...)
		out[14] = d
		return out
	}
}

var (
	atSource     = func(s []byte) int { return engine.HeaderSize }
	atImportedAt = func(s []byte) int { return 56 }
	atEventCount = func(s []byte) int { return 64 }
	atFirstEvent = func(s []byte) int { return engine.HeaderSize + sourceSize(s) }
	atLastByte   = func(s []byte) int { return len(s) - 1 }
	atDocDigest  = func(s []byte) int { return 16 }
)

// TestVerifyAttacks: each tampered receipt or store gives exactly the CONTRACT
// 4.1/4.2 outcome: a Parse error, or a Verify verdict with its reason.
func TestVerifyAttacks(t *testing.T) {
	tests := []struct {
		name     string
		golden   string // golden case prefix
		file     string
		store    storeFunc // edits the bytes at the store path
		receipt  editFunc  // edits the receipt (sees the edited store)
		parseErr bool
		want     Outcome
		wantErr  error // errors.Is on the INVALID reason; nil = any
		replayed bool  // the replayer must be called exactly once
	}{
		// Untouched and harmless variations.
		{name: "untouched query", golden: "g0", file: g0Query, want: Valid, replayed: true},
		{name: "CRLF line endings", golden: "g0", file: g0Query, receipt: crlf, want: Valid, replayed: true},
		{name: "CRLF ingest", golden: "g9", file: ingestFile, receipt: crlf, want: Valid},
		{name: "CRLF legacy query", golden: "g9", file: g9Legacy, receipt: crlf, want: Unsupported},
		{name: "mixed CRLF", golden: "g0", file: g0Find, receipt: func(t testing.TB, rec, _ []byte) []byte {
			return editLine(t, editLine(t, rec, 2, func(s string) string { return s + "\r" }), 5, func(s string) string { return s + "\r" })
		}, want: Valid, replayed: true},
		{name: "lines reordered", golden: "g0", file: g0Query, receipt: reorder(0, 6, 4, 2, 5, 1, 3), want: Valid, replayed: true},
		{name: "lines reversed, ingest", golden: "g0", file: ingestFile, receipt: reorder(0, 6, 5, 4, 3, 2, 1), want: Valid},
		{name: "upper-case store_path_hex", golden: "g0", file: g0Query, receipt: set("store_path_hex", strings.ToUpper(hexOf(goldenStore))), want: Valid, replayed: true},
		{name: "upper-case question_hex", golden: "g0", file: g0Query, receipt: set("question_hex", strings.ToUpper(hexOf("@claim\tAlice\towns\tBook"))), want: Valid, replayed: true},
		{name: "upper-case question_hex, Arabic find", golden: "g3", file: "input.txt.chronicle.find-5b7ad135df91a27c.receipt",
			receipt: set("question_hex", strings.ToUpper(hexOf("سعود الحوالة"))), want: Valid, replayed: true},

		// Header version.
		{name: "V1 header on V2 store, ingest", golden: "g0", file: ingestFile, receipt: header(HeaderV1), want: Invalid, wantErr: ErrVersion},
		{name: "V1 header on V2 store, find", golden: "g0", file: g0Find, receipt: header(HeaderV1), want: Invalid, wantErr: ErrVersion},
		{name: "V1 header on V2 store, query is INVALID not UNSUPPORTED", golden: "g2", file: g2Query, receipt: header(HeaderV1), want: Invalid, wantErr: ErrVersion},
		{name: "V2 header on V1 store, ingest", golden: "g9", file: ingestFile, receipt: header(HeaderV2), want: Valid},
		{name: "V2 header on V1 store, find", golden: "g9", file: g9Find, receipt: header(HeaderV2), want: Valid, replayed: true},
		{name: "V1 header on V1 store, query", golden: "g9", file: g9Query, receipt: header(HeaderV1), want: Unsupported},
		{name: "V3 header", golden: "g0", file: ingestFile, receipt: header("CASPER-CHRONICLE-INTEGRITY-RECEIPT-V3"), parseErr: true},

		// Kind.
		{name: "kind INGEST → QUERY", golden: "g0", file: ingestFile, receipt: set("kind", "QUERY"), want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "kind INGEST → FIND (empty terms fail)", golden: "g0", file: ingestFile, receipt: set("kind", "FIND"), want: Invalid, wantErr: find.ErrTerms, replayed: true},
		{name: "kind QUERY → FIND", golden: "g0", file: g0Query, receipt: set("kind", "FIND"), want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "kind FIND → QUERY", golden: "g0", file: g0Find, receipt: set("kind", "QUERY"), want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "kind FIND → INGEST", golden: "g0", file: g0Find, receipt: set("kind", "INGEST"), parseErr: true},
		{name: "kind QUERY → INGEST", golden: "g0", file: g0Query, receipt: set("kind", "INGEST"), parseErr: true},
		{name: "kind V1 FIND → QUERY is UNSUPPORTED", golden: "g9", file: g9Find, receipt: set("kind", "QUERY"), want: Unsupported},
		{name: "kind lower case", golden: "g0", file: g0Find, receipt: set("kind", "find"), parseErr: true},
		{name: "kind of 16 bytes", golden: "g0", file: g0Find, receipt: set("kind", "FINDFINDFINDFIND"), parseErr: true},

		// Store path.
		{name: "path to a missing file", golden: "g0", file: g0Query, receipt: set("store_path_hex", hexOf("missing.chronicle")), want: Invalid, wantErr: fs.ErrNotExist},
		{name: "path to the source file", golden: "g0", file: g0Query, receipt: set("store_path_hex", hexOf("input.txt")), want: Invalid, wantErr: ErrStoreDigest},
		{name: "path spelled differently, same file", golden: "g0", file: g0Query, receipt: set("store_path_hex", hexOf("./input.txt.chronicle")), want: Valid, replayed: true},
		{name: "empty path", golden: "g0", file: g0Query, receipt: set("store_path_hex", ""), parseErr: true},
		{name: "path odd-length hex", golden: "g0", file: g0Query, receipt: set("store_path_hex", "696"), parseErr: true},
		{name: "path non-hex", golden: "g0", file: g0Query, receipt: set("store_path_hex", "69xx"), parseErr: true},
		{name: "path invalid UTF-8", golden: "g0", file: g0Query, receipt: set("store_path_hex", "69fe"), parseErr: true},
		{name: "path with NUL", golden: "g0", file: g0Query, receipt: set("store_path_hex", hexOf(goldenStore)+"00"), parseErr: true},
		{name: "path of 2048 bytes", golden: "g0", file: g0Query, receipt: set("store_path_hex", hexOf(strings.Repeat("a", 2048))), parseErr: true},

		// Question.
		{name: "question changed", golden: "g2", file: g2Query, receipt: set("question_hex", hexOf("Bob Alice")), want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "find terms changed", golden: "g0", file: g0Find, receipt: set("question_hex", hexOf("Boo")), want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "question removed", golden: "g0", file: g0Query, receipt: set("question_hex", ""), want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "INGEST with a question", golden: "g0", file: ingestFile, receipt: set("question_hex", "41"), parseErr: true},
		{name: "question odd-length hex", golden: "g0", file: g0Find, receipt: set("question_hex", "426f6f6"), parseErr: true},
		{name: "question non-hex", golden: "g0", file: g0Find, receipt: set("question_hex", "426f6f6G"), parseErr: true},
		{name: "question invalid UTF-8", golden: "g0", file: g0Find, receipt: set("question_hex", "426fc0"), parseErr: true},
		{name: "question with NUL", golden: "g0", file: g0Find, receipt: set("question_hex", "426f006b"), parseErr: true},

		// Digests.
		{name: "store_sha256 altered", golden: "g0", file: g0Query, receipt: flip("store_sha256"), want: Invalid, wantErr: ErrStoreDigest},
		{name: "document_sha256 altered", golden: "g0", file: g0Query, receipt: flip("document_sha256"), want: Invalid, wantErr: ErrDocumentDigest},
		{name: "result_sha256 altered", golden: "g0", file: g0Query, receipt: flip("result_sha256"), want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "ingest result_sha256 altered", golden: "g0", file: ingestFile, receipt: flip("result_sha256"), want: Invalid, wantErr: ErrResultDigest},
		{name: "find result rewritten", golden: "g6", file: g6Find, receipt: set("result_sha256", sha256Hex([]byte("{}"))), want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "result_sha256 = store_sha256 on a query", golden: "g0", file: g0Query, receipt: func(t testing.TB, rec, store []byte) []byte {
			return setValue(t, rec, "result_sha256", sha256Hex(store))
		}, want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "upper-case store_sha256", golden: "g0", file: g0Find, receipt: upper("store_sha256"), want: Invalid, wantErr: ErrStoreDigest},
		{name: "upper-case document_sha256", golden: "g0", file: g0Find, receipt: upper("document_sha256"), want: Invalid, wantErr: ErrDocumentDigest},
		{name: "upper-case result_sha256", golden: "g0", file: g0Find, receipt: upper("result_sha256"), want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "upper-case ingest result_sha256", golden: "g0", file: ingestFile, receipt: upper("result_sha256"), want: Invalid, wantErr: ErrResultDigest},
		{name: "digest of 63 chars", golden: "g0", file: g0Find, receipt: set("result_sha256", strings.Repeat("a", 63)), parseErr: true},
		{name: "digest of 65 chars", golden: "g0", file: g0Find, receipt: set("store_sha256", strings.Repeat("a", 65)), parseErr: true},

		// Legacy V1 QUERY: UNSUPPORTED only after the store checks pass.
		{name: "legacy query untouched", golden: "g9", file: g9Legacy, want: Unsupported},
		{name: "legacy query, wrong store digest", golden: "g9", file: g9Legacy, receipt: flip("store_sha256"), want: Invalid, wantErr: ErrStoreDigest},
		{name: "legacy query, upper-case store digest", golden: "g9", file: g9Legacy, receipt: upper("store_sha256"), want: Invalid, wantErr: ErrStoreDigest},
		{name: "legacy query, wrong document digest", golden: "g9", file: g9Legacy, receipt: flip("document_sha256"), want: Invalid, wantErr: ErrDocumentDigest},
		{name: "legacy query, changed store", golden: "g9", file: g9Legacy, store: flipAt(atLastByte), want: Invalid, wantErr: ErrStoreDigest},
		{name: "legacy query, result never compared", golden: "g9", file: g9Legacy, receipt: flip("result_sha256"), want: Unsupported},
		{name: "legacy query, malformed claim never replayed", golden: "g9", file: g9Legacy, receipt: set("question_hex", hexOf("@claim\tA")), want: Unsupported},
		{name: "legacy query, store relabelled V2", golden: "g9", file: g9Legacy, store: relabel('2'), receipt: rehashStore, want: Invalid, wantErr: ErrVersion},

		// Changed store.
		{name: "store source byte flipped", golden: "g0", file: g0Query, store: flipAt(atSource), want: Invalid, wantErr: ErrStoreDigest},
		{name: "store last byte flipped", golden: "g1", file: ingestFile, store: flipAt(atLastByte), want: Invalid, wantErr: ErrStoreDigest},
		{name: "store truncated", golden: "g0", file: g0Find, store: func(t testing.TB, s []byte) []byte { return s[:len(s)-1] }, want: Invalid, wantErr: ErrStoreDigest},
		{name: "store extended", golden: "g0", file: g0Find, store: func(t testing.TB, s []byte) []byte { return append(append([]byte{}, s...), 0) }, want: Invalid, wantErr: ErrStoreDigest},
		{name: "store empty", golden: "g0", file: ingestFile, store: func(t testing.TB, s []byte) []byte { return []byte{} }, want: Invalid, wantErr: ErrStoreDigest},
		{name: "store source flipped, digest re-hashed", golden: "g0", file: g0Query, store: flipAt(atSource), receipt: rehashStore, want: Invalid, wantErr: engine.ErrDigest},
		{name: "store header digest flipped, re-hashed", golden: "g0", file: g0Query, store: flipAt(atDocDigest), receipt: rehashStore, want: Invalid, wantErr: engine.ErrDigest},
		{name: "store event flipped, re-hashed", golden: "g1", file: ingestFile, store: flipAt(atFirstEvent), receipt: chain(rehashStore, rehashIngestResult), want: Invalid, wantErr: engine.ErrReplay},
		{name: "store event count changed, re-hashed", golden: "g0", file: g0Find, store: flipAt(atEventCount), receipt: rehashStore, want: Invalid},
		{name: "store magic broken, re-hashed", golden: "g0", file: ingestFile, store: flipAt(func([]byte) int { return 0 }), receipt: chain(rehashStore, rehashIngestResult), want: Invalid, wantErr: engine.ErrNotStore},
		{name: "V2 store relabelled V1, re-hashed", golden: "g0", file: ingestFile, store: relabel('1'), receipt: chain(rehashStore, rehashIngestResult, header(HeaderV1)), want: Invalid, wantErr: engine.ErrReplay},
		{name: "V1 store relabelled V2, V1 ingest receipt", golden: "g9", file: ingestFile, store: relabel('2'), receipt: chain(rehashStore, rehashIngestResult), want: Invalid, wantErr: ErrVersion},
		{name: "V1 store relabelled V2, V2 ingest receipt", golden: "g9", file: ingestFile, store: relabel('2'), receipt: chain(rehashStore, rehashIngestResult, header(HeaderV2)), want: Valid},
		{name: "imported_at changed, query re-hashed", golden: "g0", file: g0Query, store: flipAt(atImportedAt), receipt: rehashStore, want: Valid, replayed: true},
		{name: "imported_at changed, ingest store re-hashed only", golden: "g0", file: ingestFile, store: flipAt(atImportedAt), receipt: rehashStore, want: Invalid, wantErr: ErrResultDigest},
		{name: "imported_at changed, ingest fully re-hashed", golden: "g0", file: ingestFile, store: flipAt(atImportedAt), receipt: chain(rehashStore, rehashIngestResult), want: Valid},

		// Store replaced by another valid store.
		{name: "other store", golden: "g0", file: g0Find, store: otherStore("g1"), want: Invalid, wantErr: ErrStoreDigest},
		{name: "other store, store digest re-hashed", golden: "g0", file: g0Find, store: otherStore("g1"), receipt: rehashStore, want: Invalid, wantErr: ErrDocumentDigest},
		{name: "other store, store and document re-hashed", golden: "g0", file: g0Find, store: otherStore("g1"), receipt: chain(rehashStore, rehashDoc), want: Invalid, wantErr: ErrResultDigest, replayed: true},
		{name: "other store, ingest store and document re-hashed", golden: "g0", file: ingestFile, store: otherStore("g5"), receipt: chain(rehashStore, rehashDoc), want: Invalid, wantErr: ErrResultDigest},
		{name: "other store, V1 store for a V2 query", golden: "g2", file: g2Query, store: otherStore("g9"), want: Invalid, wantErr: ErrStoreDigest},
		{name: "other store, fully re-hashed", golden: "g0", file: g0Find, store: otherStore("g1"), receipt: chain(rehashStore, rehashDoc, rehashReplay), want: Valid, replayed: true},

		// Consistently re-hashed receipts for new questions: integrity, not truth.
		{name: "new find terms, re-hashed", golden: "g0", file: g0Find, receipt: chain(set("question_hex", hexOf("Alice")), rehashReplay), want: Valid, replayed: true},
		{name: "empty query question, re-hashed", golden: "g0", file: g0Query, receipt: chain(set("question_hex", ""), rehashReplay), want: Valid, replayed: true},

		// Replay errors.
		{name: "find terms only separators", golden: "g6", file: g6Find, receipt: set("question_hex", hexOf(" .,;:?! ")), want: Invalid, wantErr: find.ErrTerms, replayed: true},
		{name: "find terms only separators, ingest-like digest", golden: "g6", file: g6Find, receipt: chain(set("question_hex", hexOf(" ")), rehashIngestResult), want: Invalid, wantErr: find.ErrTerms, replayed: true},
		{name: "find empty terms", golden: "g6", file: g6Find, receipt: set("question_hex", ""), want: Invalid, wantErr: find.ErrTerms, replayed: true},
		{name: "find 17 terms", golden: "g6", file: g6Find, receipt: set("question_hex", hexOf(strings.Repeat("a ", 17))), want: Invalid, wantErr: find.ErrTerms, replayed: true},
		{name: "find terms of 1025 bytes", golden: "g6", file: g6Find, receipt: set("question_hex", hexOf(strings.Repeat("a", 1025))), want: Invalid, wantErr: find.ErrTerms, replayed: true},
		{name: "claim with two fields", golden: "g0", file: g0Query, receipt: set("question_hex", hexOf("@claim\tAlice\towns")), want: Invalid, wantErr: settle.ErrClaimSyntax, replayed: true},
		{name: "claim with an empty object", golden: "g0", file: g0Query, receipt: set("question_hex", hexOf("@claim\tAlice\towns\t")), want: Invalid, wantErr: settle.ErrClaimSyntax, replayed: true},
		{name: "claim with a field of 128 bytes", golden: "g0", file: g0Query, receipt: set("question_hex", hexOf("@claim\tAlice\towns\t"+strings.Repeat("B", 128))), want: Invalid, wantErr: settle.ErrClaimSyntax, replayed: true},

		// Order of the checks: the first failing step decides.
		{name: "store and document digests both wrong", golden: "g0", file: g0Query, receipt: chain(flip("store_sha256"), flip("document_sha256")), want: Invalid, wantErr: ErrStoreDigest},
		{name: "unloadable store before document digest", golden: "g0", file: g0Query, store: flipAt(atSource), receipt: chain(rehashStore, flip("document_sha256")), want: Invalid, wantErr: engine.ErrDigest},
		{name: "document digest before version", golden: "g0", file: ingestFile, receipt: chain(header(HeaderV1), flip("document_sha256")), want: Invalid, wantErr: ErrDocumentDigest},
		{name: "version before result", golden: "g0", file: g0Find, receipt: chain(header(HeaderV1), flip("result_sha256")), want: Invalid, wantErr: ErrVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := goldenCaseByPrefix(t, tt.golden)
			rec, ok := c.receipts[tt.file]
			require.True(t, ok, "%s has %s", c.name, tt.file)
			store := c.store
			if tt.store != nil {
				store = tt.store(t, append([]byte{}, c.store...))
			}
			if tt.receipt != nil {
				rec = tt.receipt(t, append([]byte{}, rec...), store)
			}
			spy := &counting{}
			o, verr, perr := verifyInDir(t, c.dir, rec, store, spy)
			if tt.parseErr {
				require.ErrorIs(t, perr, ErrMalformed)
				return
			}
			require.NoError(t, perr, "the receipt must parse")
			require.Equal(t, tt.want, o, "outcome (reason: %v)", verr)
			if tt.want == Invalid {
				require.Error(t, verr, "an INVALID verdict has a reason")
				if tt.wantErr != nil {
					require.ErrorIs(t, verr, tt.wantErr)
				}
			} else {
				require.NoError(t, verr)
			}
			wantCalls := 0
			if tt.replayed {
				wantCalls = 1
			}
			require.Equal(t, wantCalls, spy.calls, "replays")
		})
	}
}

// TestVerifyEveryDigestOfEveryGoldenReceipt alters each digest of each
// golden receipt, and the store each receipt names.
func TestVerifyEveryDigestOfEveryGoldenReceipt(t *testing.T) {
	reasons := map[string]error{
		"store_sha256":    ErrStoreDigest,
		"document_sha256": ErrDocumentDigest,
		"result_sha256":   ErrResultDigest,
	}
	for _, c := range loadGoldenCases(t) {
		for _, name := range c.receiptNames() {
			legacy := name == g9Legacy
			for key, reason := range reasons {
				t.Run(c.name+"/"+name+"/"+key, func(t *testing.T) {
					r, err := Parse(flip(key)(t, c.receipts[name], c.store))
					require.NoError(t, err)
					o, err := Verify(r, c.store, Canonical{})
					if legacy && key == "result_sha256" {
						require.NoError(t, err)
						require.Equal(t, Unsupported, o, "a V1 QUERY result is never compared")
						return
					}
					require.Equal(t, Invalid, o)
					require.ErrorIs(t, err, reason)
				})
			}
			t.Run(c.name+"/"+name+"/store flipped", func(t *testing.T) {
				r, err := Parse(c.receipts[name])
				require.NoError(t, err)
				for _, off := range []int{0, 20, engine.HeaderSize, len(c.store) - 1} {
					o, err := Verify(r, flipByte(c.store, off), Canonical{})
					require.Equal(t, Invalid, o)
					require.ErrorIs(t, err, ErrStoreDigest, "offset %d", off)
				}
			})
		}
	}
}

// TestVerifyReceiptLineEdits applies the structural attacks of CONTRACT 4.1 to
// every line of a V2 FIND receipt end to end (parse + verify).
func TestVerifyReceiptLineEdits(t *testing.T) {
	c := goldenCaseByPrefix(t, "g0")
	base := c.receipts[g0Find]
	lines := splitLines(t, base)
	for i := range lines {
		edits := map[string]func(string) string{
			"trailing space":  func(s string) string { return s + " " },
			"leading space":   func(s string) string { return " " + s },
			"two CRs":         func(s string) string { return s + "\r\r" },
			"NUL appended":    func(s string) string { return s + "\x00" },
			"emptied":         func(string) string { return "" },
			"made overlong":   func(s string) string { return s + strings.Repeat("0", 4128-len(s)) },
			"key upper-cased": func(s string) string { k, v, _ := strings.Cut(s, ":"); return strings.ToUpper(k) + ":" + v },
		}
		for name, edit := range edits {
			if i == 0 && name == "key upper-cased" {
				continue // the header has no key and is already upper case
			}
			t.Run(lines[i][:min(len(lines[i]), 14)]+"/"+name, func(t *testing.T) {
				_, err := Parse(editLine(t, base, i, edit))
				require.ErrorIs(t, err, ErrMalformed)
			})
		}
		t.Run(lines[i][:min(len(lines[i]), 14)]+"/CRLF", func(t *testing.T) {
			o, verr, perr := verifyInDir(t, c.dir, editLine(t, base, i, func(s string) string { return s + "\r" }), nil, Canonical{})
			require.NoError(t, perr)
			require.NoError(t, verr)
			require.Equal(t, Valid, o)
		})
	}
	// Deleting any line or appending a copy of any line is malformed.
	for i := range lines {
		rest := append(append([]string{}, lines[:i]...), lines[i+1:]...)
		_, err := Parse(joinLines(rest))
		require.ErrorIs(t, err, ErrMalformed, "line %d removed", i+1)
		_, err = Parse(joinLines(append(append([]string{}, lines...), lines[i])))
		require.ErrorIs(t, err, ErrMalformed, "line %d repeated", i+1)
	}
}

// TestVerifyKeyOrderFree verifies every order of the key lines of a golden
// QUERY receipt: all VALID.
func TestVerifyKeyOrderFree(t *testing.T) {
	c := goldenCaseByPrefix(t, "g2")
	lines := splitLines(t, c.receipts[g2Query])
	n := 0
	permute(lines[1:], 0, func(p []string) {
		r, err := Parse(joinLines(append([]string{lines[0]}, p...)))
		require.NoError(t, err)
		o, err := Verify(r, c.store, Canonical{})
		require.NoError(t, err)
		require.Equal(t, Valid, o)
		n++
	})
	require.Equal(t, 720, n)
}

// TestVerifyReasonsAreSentinels: INVALID reasons are distinguishable.
func TestVerifyReasonsAreSentinels(t *testing.T) {
	all := []error{ErrStoreDigest, ErrDocumentDigest, ErrVersion, ErrResultDigest}
	for i, a := range all {
		for j, b := range all {
			require.Equal(t, i == j, errors.Is(a, b))
		}
		require.NotErrorIs(t, a, ErrMalformed)
	}
}
