package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/klauspost/compress/s2"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestDocResolution: DOC is a name or a unique hash prefix of at least 8
// hex digits; anything else is a one-line error.
func TestDocResolution(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	want := g1Answer(t)
	other := "f" + g1Prefix[1:8] // same length, different first digit
	require.NotEqual(t, g1Prefix[:8], other)
	for _, tc := range []struct {
		name, doc string
		code      int
		err       string // stderr pattern when code != 0
	}{
		{"name", "input.txt", 0, ""},
		{"full hash", g1Prefix, 0, ""},
		{"8 hex digits", g1Prefix[:8], 0, ""},
		{"9 hex digits (odd)", g1Prefix[:9], 0, ""},
		{"12 hex digits", g1Prefix[:12], 0, ""},
		{"uppercase prefix", strings.ToUpper(g1Prefix[:10]), 0, ""},
		{"unknown name", "nosuch.txt", 1, `"nosuch\.txt": no such document \(give a document name or at least 8 hex digits`},
		{"7 hex digits", g1Prefix[:7], 1, `"` + g1Prefix[:7] + `": no such document \(give a document name or at least 8 hex digits`},
		{"unknown prefix", other, 1, `"` + other + `": no such document \(no name or hash prefix matches`},
		{"too long", g1Prefix + "0", 1, `no such document`},
		{"not hex", "input.tx", 1, `no such document`},
		{"empty", "", 1, `"": no such document`},
		{"path spelled differently", "./input.txt", 0, ""}, // the same file (names_test.go)
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.run("query", tc.doc, g1Q, "--json")
			if tc.code == 0 {
				require.Equal(t, 0, r.code, "%s", r)
				require.Equal(t, want, r.stdout)
				return
			}
			requireOneLineError(t, asText(t, r), tc.code, "query", tc.err, "`docs` lists them")
			for _, argv := range [][]string{
				{"show", tc.doc}, {"claim", tc.doc, "a", "b", "c"}, {"find", "--doc", tc.doc, "x"},
				{"export", tc.doc, "out"}, {"receipts", tc.doc},
			} {
				requireOneLineError(t, w.run(argv...), tc.code, argv[0], tc.err)
			}
		})
	}
	require.NoDirExists(t, w.dir+"/out", "a failed export wrote nothing")
}

// TestShowStatsCheck: show prints exactly the numbered lines asked for;
// stats counts; check passes on a clean archive.
func TestShowStatsCheck(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	src := lines(string(w.read("input.txt")))
	require.Len(t, src, 7)
	numbered := func(from, to int) string {
		var b strings.Builder
		for n := from; n <= to; n++ {
			fmt.Fprintf(&b, "%6d  %s\n", n, src[n-1])
		}
		return b.String()
	}
	for _, tc := range []struct {
		rng      string
		from, to int
	}{
		{"2-3", 2, 3}, {"3", 3, 3}, {"6-", 6, 7}, {"1-7", 1, 7}, {"5-99", 5, 7},
	} {
		t.Run("show "+tc.rng, func(t *testing.T) {
			require.Equal(t, numbered(tc.from, tc.to), w.ok("show", "input.txt", tc.rng))
		})
	}
	require.Equal(t, numbered(1, 7), w.ok("show", "input.txt"))
	require.Equal(t, "     2  @chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n     3  Unrelated narrative line.\n",
		w.ok("show", "input.txt", "2-3"))
	requireOneLineError(t, w.run("show", "input.txt", "99"), 1, "show", `input\.txt has [0-9]+ lines, no line 99`)
	for _, bad := range []string{"0", "3-2", "x", "-3", "2-x"} {
		requireOneLineError(t, w.run("show", "input.txt", "--", bad), 2, "show", `line range`)
	}

	var shown []struct {
		Line      int    `json:"line"`
		ByteStart int    `json:"byte_start"`
		ByteEnd   int    `json:"byte_end"`
		Text      string `json:"text"`
	}
	for _, line := range lines(w.ok("show", "--json", "input.txt", "2-3")) {
		var l struct {
			Line      int    `json:"line"`
			ByteStart int    `json:"byte_start"`
			ByteEnd   int    `json:"byte_end"`
			Text      string `json:"text"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &l))
		shown = append(shown, l)
	}
	require.Len(t, shown, 2)
	require.Equal(t, 2, shown[0].Line)
	require.Equal(t, src[1], shown[0].Text)
	require.Equal(t, len(src[0])+1, shown[0].ByteStart)
	require.Equal(t, src[2], shown[1].Text)

	var stats struct {
		Archive       string `json:"archive"`
		SchemaVersion int    `json:"schema_version"`
		Documents     int    `json:"documents"`
		Events        int    `json:"events"`
		Receipts      int    `json:"receipts"`
		SourceBytes   int64  `json:"source_bytes"`
		StoredBytes   int64  `json:"stored_bytes"`
		FileBytes     int64  `json:"file_bytes"`
	}
	require.NoError(t, json.Unmarshal([]byte(w.ok("stats", "--json")), &stats))
	require.Equal(t, w.db, stats.Archive)
	require.Equal(t, db.SchemaVersion, stats.SchemaVersion)
	require.Equal(t, 1, stats.Documents)
	require.Equal(t, 5, stats.Events)
	require.Equal(t, 1, stats.Receipts)
	require.EqualValues(t, len(w.read("input.txt")), stats.SourceBytes)
	require.Positive(t, stats.StoredBytes)
	require.Positive(t, stats.FileBytes)
	text := w.ok("stats")
	require.Regexp(t, `(?m)^documents +1$`, text)
	require.Regexp(t, `(?m)^events +5$`, text)
	require.Regexp(t, `(?m)^stored_ratio +\d+\.\d{3} `, text)

	require.Equal(t, "ok: 1 documents checked in "+w.db+"\n", w.ok("check"))
}

// TestCorruption: a damaged stored document is reported by check naming
// the document, and no answer about it is ever printed; receipts about it
// become INVALID; other documents still answer.
func TestCorruption(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		bucket string
		damage func(t *testing.T, old []byte) []byte
	}{
		{"chunk garbage", "chunks", func(*testing.T, []byte) []byte { return []byte("garbage, not a compressed frame") }},
		{"chunk with other bytes", "chunks", func(t *testing.T, old []byte) []byte {
			// A well-formed frame of the same length: only the hash tells.
			src, err := s2.Decode(nil, old)
			require.NoError(t, err)
			src = bytes.Replace(src, []byte("PAID_TO\tSaud\t40"), []byte("PAID_TO\tSaud\t90"), 1)
			return s2.EncodeBetter(nil, src)
		}},
		{"event table garbage", "events", func(*testing.T, []byte) []byte { return []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := g1WS(t)
			w.copyGolden("g0_minimal_literal", "input.txt", "g0.txt")
			w.ok("ingest", "g0.txt")
			w.ok("query", "input.txt", g1Q, "--receipt", "q.receipt")
			g0Claim := w.ok("claim", "g0.txt", "Alice", "owns", "Book")

			corrupt(t, w.db, tc.bucket, g1Prefix, tc.damage)

			r := w.run("check")
			require.Equal(t, 1, r.code, "%s", r)
			problems := lines(r.stdout)
			require.NotEmpty(t, problems)
			for _, p := range problems {
				require.True(t, strings.HasPrefix(p, "input.txt: document input.txt ("+g1Prefix+"): archive corruption: "), p)
			}
			require.NotContains(t, r.stdout, "g0.txt")
			found := fmt.Sprintf("%d problems", len(problems))
			if len(problems) == 1 {
				found = "1 problem"
			}
			require.Equal(t, fmt.Sprintf("chronicle check: %s found in %s\n", found, w.db), r.stderr)

			for _, argv := range [][]string{
				{"query", "input.txt", g1Q},
				{"query", "input.txt", g1Q, "--text"},
				{"claim", "input.txt", "Alice", "owns", "Book"},
				{"find", "--doc", "input.txt", "Alice"},
				{"show", "input.txt", "1"},
				{"export", "input.txt", "out"},
				{"find", "Alice"}, // across the archive: the damaged document is a candidate
			} {
				r := w.run(argv...)
				requireOneLineError(t, r, 1, argv[0], regexp.QuoteMeta("document input.txt ("+g1Prefix+"): archive corruption"))
			}
			require.NoDirExists(t, w.dir+"/out/input.txt.chronicle")

			r = w.run("verify", "q.receipt")
			require.Equal(t, 1, r.code, "%s", r)
			require.Equal(t, w.verifyText("q.receipt", "INVALID"), r.stdout)
			require.Contains(t, r.stderr, "archive corruption")

			r = w.run("receipts", "--verify", "input.txt")
			require.Equal(t, 1, r.code, "%s", r)
			for _, line := range lines(r.stdout) {
				require.True(t, strings.HasPrefix(line, "INVALID  "), line)
			}

			// The other document is untouched.
			require.Equal(t, g0Claim, w.ok("claim", "g0.txt", "Alice", "owns", "Book"))
			r = w.run("receipts", "--verify", "g0.txt")
			require.Equal(t, 0, r.code, "%s", r)
		})
	}
}

// corrupt replaces every value of bucket whose key starts with the document
// digest docHex, in the closed archive file.
func corrupt(t *testing.T, path, bucket, docHex string, damage func(*testing.T, []byte) []byte) {
	t.Helper()
	doc, err := hex.DecodeString(docHex)
	require.NoError(t, err)
	b, err := bolt.Open(path, 0o644, nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, b.Close()) }()
	require.NoError(t, b.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte(bucket))
		require.NotNil(t, bk, bucket)
		changed := map[string][]byte{}
		c := bk.Cursor()
		for k, v := c.Seek(doc); k != nil && bytes.HasPrefix(k, doc); k, v = c.Next() {
			changed[string(k)] = damage(t, bytes.Clone(v))
		}
		require.NotEmpty(t, changed, "no %s entry for %s", bucket, docHex)
		for k, v := range changed {
			if err := bk.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	}))
}
