package original

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"

	"github.com/stretchr/testify/require"
)

const goldenDir = "../testdata/golden"

const (
	typedLines = "@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n" +
		"@chronicle\tAlice\tPAID_TO\tBob\t40\tSAR\tT2\tASSERTED\tPOSITIVE\tCONFIRMED\n"
	literalLine  = "Alice owns Book.\n"
	arabicLine   = "أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.\n"
	legacyTime   = 1600000000
	goldenTime   = 1750000000
	g9           = "g9_legacy_v1_store"
	legacyQuery  = "legacy-query.receipt"
	storeOfInput = "input.txt.chronicle"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

func openArchive(t testing.TB) (*db.Archive, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "archive.db")
	a, err := db.Open(path, db.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	return a, path
}

// archiveState is everything an import may change, for before/after
// comparisons.
type archiveState struct {
	Docs      []db.Document
	Originals []db.Original
	Receipts  []string
}

func stateOf(t testing.TB, a *db.Archive) archiveState {
	t.Helper()
	var st archiveState
	docs, err := a.Docs()
	require.NoError(t, err)
	for _, d := range docs {
		st.Docs = append(st.Docs, *d)
	}
	origs, err := a.Originals(nil)
	require.NoError(t, err)
	for _, o := range origs {
		st.Originals = append(st.Originals, *o)
	}
	recs, err := a.Receipts(nil)
	require.NoError(t, err)
	for _, r := range recs {
		st.Receipts = append(st.Receipts, string(r.Encode()))
	}
	return st
}

// receiptText renders an original-tool receipt.
func receiptText(version int, kind, path, question string, store, doc, result []byte) []byte {
	h := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	return fmt.Appendf(nil, "CASPER-CHRONICLE-INTEGRITY-RECEIPT-V%d\nkind:%s\nstore_path_hex:%x\nquestion_hex:%x\nstore_sha256:%s\ndocument_sha256:%s\nresult_sha256:%s\n",
		version, kind, path, question, h(store), h(doc), h(result))
}

// TestV1StoreIsTheTypedOnlyExtraction: V1Store writes the V1 magic and only
// the typed records, loads with the V1 replay, and reproduces the real V1
// store of golden g9 byte for byte. LiteralVariantV1Store differs from it
// exactly when the V2 grammars extract more than the typed records, and
// such a store never loads.
func TestV1StoreIsTheTypedOnlyExtraction(t *testing.T) {
	for _, tc := range []struct {
		name        string
		src         string
		typed       int
		variantLoad bool // the variant equals the V1 store (nothing but typed records)
	}{
		{"typed records only", typedLines, 2, true},
		{"typed records with CRLF", strings.ReplaceAll(typedLines, "\n", "\r\n"), 2, true},
		{"typed records and prose", "Some prose about Bob\n" + typedLines + "more prose\n", 2, true},
		{"literal line and typed records", literalLine + typedLines, 2, false},
		{"literal line only", literalLine, 0, false},
		{"Arabic sentence and typed records", arabicLine + typedLines, 2, false},
		{"empty source", "", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v1, err := V1Store([]byte(tc.src), legacyTime)
			require.NoError(t, err)
			require.Equal(t, 1, v1.Version)
			require.Equal(t, uint64(legacyTime), v1.ImportedAt)
			require.Len(t, v1.Events, tc.typed)
			for _, e := range v1.Events {
				require.True(t, strings.HasPrefix(tc.src[e.ByteStart:e.ByteEnd], "@chronicle\t"), "V1 extracts typed records only")
			}
			enc := v1.Encode()
			require.Equal(t, engine.MagicV1, enc[:16])
			loaded, err := engine.Load(enc)
			require.NoError(t, err)
			require.Equal(t, 1, loaded.Version)
			require.Equal(t, enc, loaded.Encode())

			variant, err := LiteralVariantV1Store([]byte(tc.src), legacyTime)
			require.NoError(t, err)
			require.Equal(t, 1, variant.Version)
			_, err = engine.Load(variant.Encode())
			if tc.variantLoad {
				require.NoError(t, err)
				require.Equal(t, enc, variant.Encode(), "without other events the variant is the V1 store")
				return
			}
			require.ErrorIs(t, err, engine.ErrReplay)
			require.Greater(t, len(variant.Events), len(v1.Events))
		})
	}

	// The V1 profile reproduces the original tool's V1 store.
	dir := filepath.Join(goldenDir, g9)
	want := readFile(t, filepath.Join(dir, storeOfInput))
	got, err := V1Store(readFile(t, filepath.Join(dir, "input.txt")), binary.LittleEndian.Uint64(want[56:64]))
	require.NoError(t, err)
	require.Equal(t, want, got.Encode())

	// A typed-record error is an error in V1 too.
	_, err = V1Store([]byte("@chronicle\tAlice\tPAID_TO\tBob\n"), legacyTime)
	require.Error(t, err)
	_, err = LiteralVariantV1Store([]byte("@chronicle\tAlice\tPAID_TO\tBob\n"), legacyTime)
	require.Error(t, err)
}

// TestReceiptsBeside lists exactly the receipt names the original tool
// writes for a store, sorted, with glob metacharacters in the store name
// taken literally.
func TestReceiptsBeside(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store string
		files []string
		want  []string
	}{
		{"none", "s.chronicle", []string{"s.chronicle", "other.chronicle.receipt"}, nil},
		{"every kind", "s.chronicle", []string{
			"s.chronicle", "s.chronicle.receipt", "s.chronicle.query-0123456789abcdef.receipt",
			"s.chronicle.query-v2-0123456789abcdef.receipt", "s.chronicle.find-fedcba9876543210.receipt",
			"s.chronicle.query-legacy.receipt",
		}, []string{
			"s.chronicle.find-fedcba9876543210.receipt", "s.chronicle.query-0123456789abcdef.receipt",
			"s.chronicle.query-legacy.receipt", "s.chronicle.query-v2-0123456789abcdef.receipt", "s.chronicle.receipt",
		}},
		{"look-alikes are left out", "s.chronicle", []string{
			"s.chronicle", "s.chronicle.receipt.bak", "s.chronicle.other.receipt", "s.chronicle.querything.receipt",
			"s.chronicle.find.receipt", "xs.chronicle.receipt", "s.chronicle.query-a.receipt.tmp", "S.chronicle.receipt",
		}, nil},
		{"another store's receipts", "s.chronicle", []string{
			"s.chronicle", "s2.chronicle", "s2.chronicle.receipt", "s.chronicle2.receipt",
		}, nil},
		{"glob characters in the name", "we[ir]d*?.chronicle", []string{
			"we[ir]d*?.chronicle", "we[ir]d*?.chronicle.receipt", "weid*?.chronicle.receipt", "weirdXY.chronicle.receipt",
			"wedd12.chronicle.find-1.receipt",
		}, []string{"we[ir]d*?.chronicle.receipt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				writeFile(t, filepath.Join(dir, f), []byte("x"))
			}
			got, err := ReceiptsBeside(filepath.Join(dir, tc.store))
			require.NoError(t, err)
			var want []string
			for _, w := range tc.want {
				want = append(want, filepath.Join(dir, w))
			}
			require.Equal(t, want, got)
		})
	}
}

// goldenLayout copies a golden case's store and receipts into dir with their
// original names (g9's historical legacy-query.receipt as
// input.txt.chronicle.query-legacy.receipt, so that import finds it), and
// returns the receipt names.
func goldenLayout(t testing.TB, caseDir, dir string) []string {
	t.Helper()
	writeFile(t, filepath.Join(dir, storeOfInput), readFile(t, filepath.Join(caseDir, storeOfInput)))
	names, err := filepath.Glob(filepath.Join(caseDir, storeOfInput+"*.receipt"))
	require.NoError(t, err)
	var out []string
	for _, n := range names {
		writeFile(t, filepath.Join(dir, filepath.Base(n)), readFile(t, n))
		out = append(out, filepath.Base(n))
	}
	if filepath.Base(caseDir) == g9 {
		name := storeOfInput + ".query-legacy.receipt"
		writeFile(t, filepath.Join(dir, name), readFile(t, filepath.Join(caseDir, legacyQuery)))
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// TestImportFileGoldenStores imports every golden store with its receipts:
// the archive keeps version, magic and import time (Rebuild gives the same
// bytes), keeps every receipt, and verifies each with the outcome it gets on
// disk beside its store; importing again reports Present.
func TestImportFileGoldenStores(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join(goldenDir, "g[0-9]_*"))
	require.NoError(t, err)
	require.Len(t, cases, 10)
	a, _ := openArchive(t)
	root := t.TempDir()
	total := 0
	for _, caseDir := range cases {
		caseDir, err := filepath.Abs(caseDir)
		require.NoError(t, err)
		name := filepath.Base(caseDir)
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			require.NoError(t, os.Mkdir(dir, 0o755))
			receipts := goldenLayout(t, caseDir, dir)
			storePath := filepath.Join(dir, storeOfInput)
			storeBytes := readFile(t, storePath)

			rep, err := ImportFile(a, storePath)
			require.NoError(t, err)
			require.False(t, rep.Result.Present)
			require.False(t, rep.Result.Conflict)
			require.Equal(t, len(receipts), rep.Result.Receipts)
			require.Len(t, rep.Receipts, len(receipts))
			for i, r := range receipts {
				require.Equal(t, filepath.Join(dir, r), rep.Receipts[i])
			}
			require.Equal(t, []string{filepath.Join(dir, "input.txt")}, rep.Result.Added)

			d := rep.Result.Doc
			require.Equal(t, int(storeBytes[14]-'0'), d.Version)
			require.Equal(t, binary.LittleEndian.Uint64(storeBytes[56:64]), d.ImportedAt)
			rebuilt, s, err := a.Rebuild(d)
			require.NoError(t, err)
			require.Equal(t, storeBytes, rebuilt, "the archive must give back the same store bytes")
			require.Equal(t, d.Version, s.Version)

			origs, err := a.Originals(&d.SHA256)
			require.NoError(t, err)
			require.Len(t, origs, len(receipts))
			t.Chdir(dir) // receipts name "input.txt.chronicle"
			for _, o := range origs {
				require.Equal(t, d.SHA256, o.Document)
				require.Equal(t, readFile(t, o.Name), o.Bytes)
				onDisk, _ := fileio.VerifyReceiptFile(filepath.Base(o.Name), receipt.Canonical{})
				inArchive, _ := a.VerifyOriginal(o.Bytes, receipt.Canonical{})
				want := receipt.Valid
				if strings.HasSuffix(o.Name, ".query-legacy.receipt") {
					want = receipt.Unsupported
				}
				require.Equal(t, want, onDisk, "on disk: %s", o.Name)
				require.Equal(t, onDisk, inArchive, "archive and disk disagree on %s", o.Name)
			}
			total += len(receipts)

			// Again: present, nothing new.
			again, err := ImportFile(a, storePath)
			require.NoError(t, err)
			require.True(t, again.Result.Present)
			require.False(t, again.Result.Conflict)
			require.Zero(t, again.Result.Receipts)
			require.Equal(t, len(receipts), again.Result.Unchanged)
			require.Empty(t, again.Result.Added)
		})
	}
	all, err := a.Originals(nil)
	require.NoError(t, err)
	require.Len(t, all, total)
	for i := 1; i < len(all); i++ {
		require.Less(t, all[i-1].Seq, all[i].Seq, "originals list in import order")
	}
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
}

// TestImportFileRejects: a store that fails any check of CONTRACT 3.3 (or that
// cannot be read with its receipts) is rejected with the reason and the
// archive stays exactly as it was.
func TestImportFileRejects(t *testing.T) {
	variant, err := LiteralVariantV1Store([]byte(literalLine+typedLines), legacyTime)
	require.NoError(t, err)
	v1, err := V1Store([]byte(literalLine+typedLines), legacyTime)
	require.NoError(t, err)
	v1Bytes := v1.Encode()
	v2Magic := *v1
	v2Magic.Version = 2
	edited := append([]byte{}, v1Bytes...)
	edited[engine.HeaderSize] = 'a'
	for _, tc := range []struct {
		name   string
		file   string
		data   []byte
		beside map[string][]byte
		want   error
	}{
		{"not a .chronicle file", "s.txt", v1Bytes, nil, ErrNotStoreFile},
		{"missing file", "missing.chronicle", nil, nil, os.ErrNotExist},
		{"unpublished literal variant", "s.chronicle", variant.Encode(), map[string][]byte{
			".receipt": receiptText(1, "INGEST", "s.chronicle", "", variant.Encode(), []byte(literalLine+typedLines), variant.Encode()),
		}, engine.ErrReplay},
		{"typed-only table under the V2 magic", "s.chronicle", v2Magic.Encode(), nil, engine.ErrReplay},
		{"edited source", "s.chronicle", edited, nil, engine.ErrDigest},
		{"truncated store", "s.chronicle", v1Bytes[:len(v1Bytes)-1], nil, engine.ErrMalformed},
		{"trailing byte", "s.chronicle", append(append([]byte{}, v1Bytes...), 0), nil, engine.ErrMalformed},
		{"not a store", "s.chronicle", []byte("CASPER-CHRON-V3\x00" + strings.Repeat("\x00", 60)), nil, engine.ErrNotStore},
		{"empty file", "s.chronicle", []byte{}, nil, engine.ErrNotStore},
		{"oversized receipt beside a valid store", "s.chronicle", v1Bytes, map[string][]byte{
			".query-big.receipt": bytes.Repeat([]byte("x"), 7*4128+1),
		}, fileio.ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, dbPath := openArchive(t)
			_, err := a.Ingest([]byte("prose\n"+typedLines), goldenTime, "other.txt")
			require.NoError(t, err)
			before := stateOf(t, a)
			fileBefore := readFile(t, dbPath)

			dir := t.TempDir()
			path := filepath.Join(dir, tc.file)
			if tc.data != nil {
				writeFile(t, path, tc.data)
			}
			for suffix, data := range tc.beside {
				writeFile(t, path+suffix, data)
			}
			rep, err := ImportFile(a, path)
			require.ErrorIs(t, err, tc.want)
			require.Nil(t, rep)
			require.Contains(t, err.Error(), path, "the reason names the file")
			require.Equal(t, before, stateOf(t, a))
			require.Equal(t, fileBefore, readFile(t, dbPath), "a rejected import must not write the archive")
		})
	}
}

// TestImportFileConflict: a store whose document the archive already holds
// with another store (V1 against V2, either way round, or another import
// time) is reported as a conflict; the archive keeps its store, and no name
// or receipt changes — not even a name that points at another document.
func TestImportFileConflict(t *testing.T) {
	src := []byte(literalLine + typedLines)
	v1, err := V1Store(src, legacyTime)
	require.NoError(t, err)
	v2, err := engine.NewStore(src, goldenTime)
	require.NoError(t, err)
	v2Later, err := engine.NewStore(src, goldenTime+1)
	require.NoError(t, err)
	for _, tc := range []struct {
		name          string
		first, second *engine.Store
		ingestFirst   bool
	}{
		{"V1 store of a document ingested as V2", v2, v1, true},
		{"V1 store of a document imported as V2", v2, v1, false},
		{"V2 store of a document imported as V1", v1, v2, false},
		{"V2 store with another import time", v2, v2Later, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := openArchive(t)
			dir := t.TempDir()
			if tc.ingestFirst {
				_, err := a.Ingest(src, goldenTime, "story.txt")
				require.NoError(t, err)
			} else {
				first := filepath.Join(dir, "story.txt.chronicle")
				writeFile(t, first, tc.first.Encode())
				_, err := ImportFile(a, first)
				require.NoError(t, err)
			}
			// old/story.txt names another document; the conflicting import
			// must not take it away.
			other, err := a.Ingest([]byte("unrelated prose\n"), goldenTime, filepath.Join(dir, "old", "story.txt"))
			require.NoError(t, err)
			before := stateOf(t, a)

			require.NoError(t, os.Mkdir(filepath.Join(dir, "old"), 0o755))
			path := filepath.Join(dir, "old", "story.txt.chronicle")
			second := tc.second.Encode()
			writeFile(t, path, second)
			writeFile(t, path+".receipt", receiptText(tc.second.Version, "INGEST", path, "", second, src, second))
			rep, err := ImportFile(a, path)
			require.NoError(t, err)
			require.True(t, rep.Result.Conflict)
			require.False(t, rep.Result.Present)
			require.Zero(t, rep.Result.Receipts)
			require.Empty(t, rep.Result.Added)
			require.Empty(t, rep.Result.Moved)
			require.Len(t, rep.Receipts, 1, "the report still lists the receipts left out")
			require.Equal(t, tc.first.Version, rep.Result.Doc.Version)
			require.Equal(t, before, stateOf(t, a), "a conflict changes nothing")

			d, err := a.Resolve(path[:len(path)-len(StoreSuffix)])
			require.NoError(t, err)
			require.Equal(t, other.Doc.SHA256, d.SHA256, "the name still points at the other document")
			kept, err := a.Document(tc.first.Document)
			require.NoError(t, err)
			rebuilt, _, err := a.Rebuild(kept)
			require.NoError(t, err)
			require.Equal(t, tc.first.Encode(), rebuilt)
		})
	}
}

// TestVerifyOriginalAgreesWithDisk: original receipts imported beside V1 and
// V2 stores get the same outcome from the archive as from verify on disk,
// for every rule of CONTRACT 4.2 that can be reached beside the right store.
func TestVerifyOriginalAgreesWithDisk(t *testing.T) {
	src := []byte(literalLine + "prose\n" + typedLines)
	v1, err := V1Store(src, legacyTime)
	require.NoError(t, err)
	v1Bytes := v1.Encode()
	v2, err := engine.NewStore(src, goldenTime)
	require.NoError(t, err)
	v2Bytes := v2.Encode()
	other, err := engine.NewStore([]byte("Carol owns Pen.\n"), goldenTime)
	require.NoError(t, err)
	otherBytes := other.Encode()
	answer := func(s *engine.Store, kind, q string) []byte {
		var out []byte
		var err error
		if kind == "FIND" {
			out, err = receipt.Canonical{}.Find(s, q)
		} else {
			out, err = receipt.Canonical{}.Query(s, q)
		}
		require.NoError(t, err)
		return out
	}
	const claim = "@claim\tAlice\towns\tBook"
	type rc struct {
		name string
		data []byte
		want receipt.Outcome
	}
	for _, tc := range []struct {
		store    string
		s        *engine.Store
		bytes    []byte
		receipts []rc
	}{
		{"v1.chronicle", v1, v1Bytes, []rc{
			{"V1 INGEST", receiptText(1, "INGEST", "v1.chronicle", "", v1Bytes, src, v1Bytes), receipt.Valid},
			{"V1 FIND", receiptText(1, "FIND", "v1.chronicle", "Alice", v1Bytes, src, answer(v1, "FIND", "Alice")), receipt.Valid},
			{"V2 QUERY", receiptText(2, "QUERY", "v1.chronicle", "Alice Bob", v1Bytes, src, answer(v1, "QUERY", "Alice Bob")), receipt.Valid},
			{"V2 FIND", receiptText(2, "FIND", "v1.chronicle", "Alice", v1Bytes, src, answer(v1, "FIND", "Alice")), receipt.Valid},
			{"V1 QUERY historical", receiptText(1, "QUERY", "v1.chronicle", "Alice Bob", v1Bytes, src, []byte("old")), receipt.Unsupported},
			{"V1 QUERY malformed question", receiptText(1, "QUERY", "v1.chronicle", "@claim\tx", v1Bytes, src, []byte("old")), receipt.Unsupported},
			{"V1 QUERY wrong document", receiptText(1, "QUERY", "v1.chronicle", "Alice Bob", v1Bytes, []byte("other"), []byte("old")), receipt.Invalid},
			{"V1 QUERY wrong store", receiptText(1, "QUERY", "v1.chronicle", "Alice Bob", otherBytes, src, []byte("old")), receipt.Invalid},
			{"V1 QUERY CRLF", bytes.ReplaceAll(receiptText(1, "QUERY", "v1.chronicle", "Alice Bob", v1Bytes, src, []byte("old")), []byte("\n"), []byte("\r\n")), receipt.Unsupported},
			{"V1 FIND wrong result", receiptText(1, "FIND", "v1.chronicle", "Alice", v1Bytes, src, []byte("old")), receipt.Invalid},
			{"V1 QUERY no final LF", bytes.TrimSuffix(receiptText(1, "QUERY", "v1.chronicle", "Alice Bob", v1Bytes, src, []byte("old")), []byte("\n")), receipt.Invalid},
			{"V1 INGEST with a question", receiptText(1, "INGEST", "v1.chronicle", "x", v1Bytes, src, v1Bytes), receipt.Invalid},
		}},
		{"v2.chronicle", v2, v2Bytes, []rc{
			{"V2 INGEST", receiptText(2, "INGEST", "v2.chronicle", "", v2Bytes, src, v2Bytes), receipt.Valid},
			{"V2 claim", receiptText(2, "QUERY", "v2.chronicle", claim, v2Bytes, src, answer(v2, "QUERY", claim)), receipt.Valid},
			{"V1 INGEST on V2", receiptText(1, "INGEST", "v2.chronicle", "", v2Bytes, src, v2Bytes), receipt.Invalid},
			{"V1 FIND on V2", receiptText(1, "FIND", "v2.chronicle", "Alice", v2Bytes, src, answer(v2, "FIND", "Alice")), receipt.Invalid},
			{"V1 QUERY on V2", receiptText(1, "QUERY", "v2.chronicle", "Alice Bob", v2Bytes, src, []byte("old")), receipt.Invalid},
			{"V2 QUERY wrong result", receiptText(2, "QUERY", "v2.chronicle", claim, v2Bytes, src, []byte("old")), receipt.Invalid},
			{"V2 FIND all separators", receiptText(2, "FIND", "v2.chronicle", " ,.", v2Bytes, src, []byte("old")), receipt.Invalid},
		}},
	} {
		t.Run(tc.store, func(t *testing.T) {
			a, _ := openArchive(t)
			dir := t.TempDir()
			t.Chdir(dir)
			writeFile(t, tc.store, tc.bytes)
			byName := map[string]rc{}
			for i, r := range tc.receipts {
				name := fmt.Sprintf("%s.query-%02d.receipt", tc.store, i)
				writeFile(t, name, r.data)
				byName[name] = r
			}
			rep, err := ImportFile(a, tc.store)
			require.NoError(t, err)
			require.Equal(t, len(tc.receipts), rep.Result.Receipts)
			origs, err := a.Originals(nil)
			require.NoError(t, err)
			require.Len(t, origs, len(tc.receipts))
			for _, o := range origs {
				r := byName[o.Name]
				onDisk, diskErr := fileio.VerifyReceiptFile(o.Name, receipt.Canonical{})
				inArchive, archiveErr := a.VerifyOriginal(o.Bytes, receipt.Canonical{})
				require.Equal(t, r.want, onDisk, "%s on disk: %v", r.name, diskErr)
				require.Equal(t, r.want, inArchive, "%s in the archive: %v", r.name, archiveErr)
				if r.want == receipt.Invalid {
					require.Error(t, archiveErr, r.name)
				} else {
					require.NoError(t, archiveErr, r.name)
				}
			}
		})
	}

	// A receipt of a store the archive does not hold is INVALID with the
	// reason.
	a, _ := openArchive(t)
	out, err := a.VerifyOriginal(receiptText(2, "INGEST", "v2.chronicle", "", v2Bytes, src, v2Bytes), receipt.Canonical{})
	require.Equal(t, receipt.Invalid, out)
	require.Error(t, err)
	require.Contains(t, err.Error(), "no store in the archive")
	out, err = a.VerifyOriginal([]byte("not a receipt\n"), receipt.Canonical{})
	require.Equal(t, receipt.Invalid, out)
	require.True(t, errors.Is(err, receipt.ErrMalformed), "%v", err)
}
