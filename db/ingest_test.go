package db_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"

	"github.com/stretchr/testify/require"
)

// A rejected document leaves the archive file byte for byte as it was and
// reports the *engine.ExtractError that names the line at fault.
func TestIngestRejectedLeavesArchiveUnchanged(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		line     int   // line the error names (0: the whole source)
		sentinel error // the rule broken
	}{
		{"typed record with 8 fields", "Alice owns Book.\n@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\n", 2, engine.ErrTypedRecord},
		{"typed record with 10 fields", "@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED\tX\n", 1, engine.ErrTypedRecord},
		{"typed record with a bad predicate", "x\ny\n@chronicle\tA\tOWES\tB\t1\tSAR\tT\tASSERTED\tPOSITIVE\tCONFIRMED\n", 3, engine.ErrTypedRecord},
		{"marker without TAB", "Alice owns Book.\n@chronicle A PAID_TO B\n", 2, engine.ErrMarker},
		{"invalid UTF-8", "Alice owns Book.\nBob owns \xff.\n", 2, engine.ErrInvalidText},
		{"truncated UTF-8 at the end", "Alice owns Book.\n\xd8", 2, engine.ErrInvalidText},
		{"NUL byte", "Alice owns Book.\nfine\nBob\x00 owns Pen.\n", 3, engine.ErrInvalidText},
		{"token of 128 bytes", "Alice owns " + strings.Repeat("b", 128) + ".\n", 1, engine.ErrFieldTooLong},
		{"span too long", "x\nAlice" + strings.Repeat(" ", engine.MaxSpanLen) + "owns Book.\n", 2, engine.ErrSpanTooLong},
		{"too many events", strings.Repeat("Alice owns Book.\n", engine.MaxEvents+1), engine.MaxEvents + 1, engine.ErrTooManyEvents},
		{"source too large", strings.Repeat("-", engine.MaxSourceSize+1), 0, engine.ErrSourceTooLarge},
	}
	good := loadGolden(t)[1]
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := newPath(t)
			a := openArchive(t, path)
			_, err := a.Ingest(good.Input, goldenTime, good.DocName())
			require.NoError(t, err)
			require.NoError(t, a.Close())
			before := readFile(t, path)

			a = openArchive(t, path)
			res, err := a.Ingest([]byte(tc.src), goldenTime, "bad.txt")
			require.Error(t, err)
			require.Nil(t, res)
			var xe *engine.ExtractError
			require.ErrorAs(t, err, &xe)
			require.ErrorIs(t, err, tc.sentinel)
			if tc.line == 0 {
				require.Contains(t, []int{0, 1}, xe.Line, "%v", err)
			} else {
				require.Equal(t, tc.line, xe.Line, "%v", err)
				require.Contains(t, err.Error(), fmt.Sprintf("line %d", tc.line))
			}
			_, err = a.Resolve("bad.txt")
			require.ErrorIs(t, err, db.ErrUnknownDoc)
			docs, err := a.Docs()
			require.NoError(t, err)
			require.Len(t, docs, 1)
			require.NoError(t, a.Close())
			require.Equal(t, before, readFile(t, path), "the archive file changed")
		})
	}
}

// Names that cannot be kept are refused after the document was prepared:
// the write transaction rolls back and the archive is unchanged.
func TestIngestBadNameLeavesArchiveUnchanged(t *testing.T) {
	tests := []struct{ name, docName string }{
		{"invalid UTF-8", "bad\xffname"},
		{"NUL", "bad\x00name"},
		{"too long", strings.Repeat("n", 4097)},
	}
	g := loadGolden(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := newPath(t)
			a := openArchive(t, path)
			_, err := a.Ingest(g[0].Input, goldenTime, g[0].DocName())
			require.NoError(t, err)
			require.NoError(t, a.Close())
			before := readFile(t, path)

			a = openArchive(t, path)
			// A new document with a bad second name, and a known one.
			_, err = a.Ingest(g[1].Input, goldenTime, "ok.txt", tc.docName)
			require.Error(t, err)
			_, err = a.Ingest(g[0].Input, goldenTime, tc.docName)
			require.Error(t, err)
			docs, err := a.Docs()
			require.NoError(t, err)
			require.Len(t, docs, 1)
			require.Equal(t, []string{g[0].DocName()}, docs[0].Names)
			_, err = a.Resolve("ok.txt")
			require.ErrorIs(t, err, db.ErrUnknownDoc)
			require.NoError(t, a.Close())
			require.Equal(t, before, readFile(t, path), "the archive file changed")
		})
	}
}

// In a batch good/bad/good the good documents land and the bad one leaves
// no trace, not even a consumed sequence number.
func TestIngestGoodBadGood(t *testing.T) {
	g := loadGolden(t)
	a := openArchive(t, newPath(t))
	r1, err := a.Ingest(g[0].Input, goldenTime, "one.txt")
	require.NoError(t, err)
	_, err = a.Ingest([]byte("@chronicle\tonly\tthree\n"), goldenTime, "bad.txt")
	var xe *engine.ExtractError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, 1, xe.Line)
	r3, err := a.Ingest(g[2].Input, goldenTime, "three.txt")
	require.NoError(t, err)

	docs, err := a.Docs()
	require.NoError(t, err)
	require.Equal(t, []*db.Document{r1.Doc, r3.Doc}, docs)
	require.Equal(t, uint64(1), docs[0].Seq)
	require.Equal(t, uint64(2), docs[1].Seq)
	for i, c := range []goldenCase{g[0], g[2]} {
		storeBytes, _, err := a.Rebuild(docs[i])
		require.NoError(t, err)
		require.Equal(t, c.Store, storeBytes)
	}
	recs, err := a.Receipts(nil)
	require.NoError(t, err)
	require.Equal(t, []*db.Receipt{r1.Receipt, r3.Receipt}, recs)
	require.Empty(t, problemsOf(t, a))
}

func TestIngestNames(t *testing.T) {
	g := loadGolden(t)
	a := openArchive(t, newPath(t))
	d0, d1 := g[0].Digest(), g[1].Digest()

	res, err := a.Ingest(g[0].Input, goldenTime, "a.txt")
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, res.Added)

	// A second path for the same bytes adds a name; the first stays first.
	res, err = a.Ingest(g[0].Input, goldenTime+1, "dir/b.txt")
	require.NoError(t, err)
	require.True(t, res.Reused)
	require.Equal(t, []string{"dir/b.txt"}, res.Added)
	require.Nil(t, res.Moved)
	require.Equal(t, []string{"a.txt", "dir/b.txt"}, res.Doc.Names)
	require.Equal(t, "a.txt", res.Doc.Label())
	require.Equal(t, uint64(goldenTime), res.Doc.ImportedAt)

	// Known names, empty names and repeats add nothing.
	res, err = a.Ingest(g[0].Input, goldenTime, "a.txt", "", "dir/b.txt", "c.txt", "c.txt")
	require.NoError(t, err)
	require.Equal(t, []string{"c.txt"}, res.Added)
	require.Equal(t, []string{"a.txt", "dir/b.txt", "c.txt"}, res.Doc.Names)

	// No name at all: the document is reachable by hash only.
	res, err = a.Ingest(g[2].Input, goldenTime)
	require.NoError(t, err)
	require.Empty(t, res.Added)
	require.Empty(t, res.Doc.Names)
	require.Equal(t, res.Doc.SHA256.Short(), res.Doc.Label())
	got, err := a.Resolve(res.Doc.SHA256.String())
	require.NoError(t, err)
	require.Equal(t, res.Doc, got)

	// A name re-used for different bytes moves; the old document stays.
	res, err = a.Ingest(g[1].Input, goldenTime, "dir/b.txt", "d.txt")
	require.NoError(t, err)
	require.False(t, res.Reused)
	require.Equal(t, []string{"dir/b.txt", "d.txt"}, res.Added)
	require.Equal(t, map[string]db.Digest{"dir/b.txt": d0}, res.Moved)
	require.Equal(t, []string{"dir/b.txt", "d.txt"}, res.Doc.Names)

	moved, err := a.Resolve("dir/b.txt")
	require.NoError(t, err)
	require.Equal(t, d1, moved.SHA256)
	old, err := a.Resolve(d0.String())
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt", "c.txt"}, old.Names)
	old2, err := a.Document(d0)
	require.NoError(t, err)
	require.Equal(t, old, old2)
	storeBytes, _, err := a.Rebuild(old)
	require.NoError(t, err)
	require.Equal(t, g[0].Store, storeBytes)

	// Moving back the other way.
	res, err = a.Ingest(g[0].Input, goldenTime, "dir/b.txt")
	require.NoError(t, err)
	require.True(t, res.Reused)
	require.Equal(t, map[string]db.Digest{"dir/b.txt": d1}, res.Moved)
	require.Equal(t, []string{"a.txt", "c.txt", "dir/b.txt"}, res.Doc.Names)
	now1, err := a.Document(d1)
	require.NoError(t, err)
	require.Equal(t, []string{"d.txt"}, now1.Names)

	// A name that looks like a hash prefix is still a name, and wins.
	prefix := d1.String()[:8]
	_, err = a.Ingest(g[0].Input, goldenTime, prefix)
	require.NoError(t, err)
	byName, err := a.Resolve(prefix)
	require.NoError(t, err)
	require.Equal(t, d0, byName.SHA256)

	require.Empty(t, problemsOf(t, a))
}

func TestResolve(t *testing.T) {
	g := loadGolden(t)
	a := openArchive(t, newPath(t))
	ingestGolden(t, a, g, goldenTime)
	d := g[3].Digest()
	h := d.String()
	// A hex prefix that no document has: flip the first digit until none
	// of the documents starts with it.
	var unknown string
	for _, c := range "0123456789abcdef" {
		p := string(c) + h[1:12]
		clash := false
		for i := range g {
			if strings.HasPrefix(g[i].Digest().String(), p) {
				clash = true
			}
		}
		if !clash {
			unknown = p
			break
		}
	}
	require.NotEmpty(t, unknown)

	tests := []struct {
		name, arg string
		want      error
	}{
		{"name", g[3].DocName(), nil},
		{"full hash", h, nil},
		{"full hash upper case", strings.ToUpper(h), nil},
		{"8-digit prefix", h[:8], nil},
		{"8-digit prefix upper case", strings.ToUpper(h[:8]), nil},
		{"9-digit prefix", h[:9], nil},
		{"odd 63-digit prefix", h[:63], nil},
		{"7-digit prefix is too short", h[:7], db.ErrUnknownDoc},
		{"65 digits", h + "0", db.ErrUnknownDoc},
		{"non-hex", "zz" + h[2:10], db.ErrUnknownDoc},
		{"unknown prefix", unknown, db.ErrUnknownDoc},
		{"unknown name", "nothing.txt", db.ErrUnknownDoc},
		{"empty", "", db.ErrUnknownDoc},
		{"name is case-sensitive", strings.ToUpper(g[3].DocName()), db.ErrUnknownDoc},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := a.Resolve(tc.arg)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
				require.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, d, got.SHA256)
		})
	}
}

// Two real documents whose SHA-256 share the first 8 hex digits: an 8-digit
// prefix is ambiguous, one more digit (where they differ) is not. The pair
// is found by a birthday search over small sources (about 2^16 hashes).
func TestResolveAmbiguousPrefix(t *testing.T) {
	srcA, srcB := collidingSources(t)
	a := openArchive(t, newPath(t))
	ra, err := a.Ingest(srcA, goldenTime, "a.txt")
	require.NoError(t, err)
	rb, err := a.Ingest(srcB, goldenTime)
	require.NoError(t, err)
	ha, hb := ra.Doc.SHA256.String(), rb.Doc.SHA256.String()
	require.Equal(t, ha[:8], hb[:8])

	_, err = a.Resolve(ha[:8])
	require.ErrorIs(t, err, db.ErrAmbiguousDoc)
	require.Contains(t, err.Error(), ha[:12])
	require.Contains(t, err.Error(), hb[:12])
	require.Contains(t, err.Error(), "a.txt")
	_, err = a.Resolve(strings.ToUpper(ha[:8]))
	require.ErrorIs(t, err, db.ErrAmbiguousDoc)

	n := 8
	for ha[:n] == hb[:n] {
		n++
	}
	// The shortest distinguishing prefix (possibly of odd length) resolves.
	for _, want := range []*db.Document{ra.Doc, rb.Doc} {
		got, err := a.Resolve(want.SHA256.String()[:n])
		require.NoError(t, err)
		require.Equal(t, want.SHA256, got.SHA256)
	}
}

// collidingSources returns two distinct valid sources whose SHA-256 share
// their first four bytes.
func collidingSources(t testing.TB) ([]byte, []byte) {
	t.Helper()
	seen := make(map[uint32]int, 1<<18)
	src := func(i int) []byte { return fmt.Appendf(nil, "note %d\n", i) }
	for i := 0; i < 1<<22; i++ {
		sum := sha256.Sum256(src(i))
		k := binary.BigEndian.Uint32(sum[:4])
		if j, ok := seen[k]; ok {
			return src(j), src(i)
		}
		seen[k] = i
	}
	t.Fatal("no 32-bit prefix collision found")
	return nil, nil
}

func TestDigestText(t *testing.T) {
	var d db.Digest
	h := strings.Repeat("ab", 32)
	require.NoError(t, d.UnmarshalText([]byte(h)))
	require.Equal(t, h, d.String())
	require.Equal(t, h[:12], d.Short())
	text, err := d.MarshalText()
	require.NoError(t, err)
	require.Equal(t, h, string(text))
	for _, bad := range []string{"", h[:62], h + "ab", strings.Repeat("zz", 32)} {
		require.Error(t, d.UnmarshalText([]byte(bad)), "%q", bad)
	}
	raw, _ := hex.DecodeString(h)
	require.True(t, bytes.Equal(raw, d[:]))
}
