package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

func TestCutPoint(t *testing.T) {
	for _, tc := range []struct {
		name          string
		in            string
		target, limit int
		want          int
	}{
		{"fits whole", "short\n", 10, 100, 6},
		{"last newline before the target", "aaaa\nbbbb\ncccc\n", 12, 100, 10},
		{"newline too early: the first one past the target", "a\nbbbbbbbbbbbbbbbbbbbb\ncc", 8, 100, 23},
		{"no newline within the limit: the rest when it fits", strings.Repeat("x", 30), 8, 40, 30},
		{"no newline at all: a character boundary at the limit", strings.Repeat("ب", 30), 8, 21, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, cutPoint([]byte(tc.in), tc.target, tc.limit))
		})
	}
}

// TestCutUnit: pieces put back together give the text, each is valid
// UTF-8, ends at a line boundary (but the last), and none exceeds
// maxPiece.
func TestCutUnit(t *testing.T) {
	var long strings.Builder
	for i := range 20000 {
		long.WriteString(strings.Repeat("كلمة word ", i%17+1))
		long.WriteString("\n")
	}
	for _, tc := range []struct {
		name   string
		text   string
		median float64
		pieces int // at least
	}{
		{"small file stays whole", "one line\ntwo lines\n", 4096, 1},
		{"long file is cut", long.String(), 4096, 20},
		{"smaller median, more pieces", long.String(), 1024, 80},
		{"one huge line: cut at characters, below maxPiece", strings.Repeat("ب", maxPiece), 4096, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := cutUnit([]byte(tc.text), "/some/path", tc.median)
			require.GreaterOrEqual(t, len(ps), tc.pieces)
			require.Equal(t, tc.text, string(bytes.Join(ps, nil)))
			for i, p := range ps {
				require.True(t, utf8.Valid(p), "piece %d", i)
				require.LessOrEqual(t, len(p), maxPiece, "piece %d", i)
				if i < len(ps)-1 && strings.Contains(tc.text, "\n") {
					require.Equal(t, byte('\n'), p[len(p)-1], "piece %d ends inside a line", i)
				}
			}
			// Seeded by the path: the same cut every time.
			require.Equal(t, ps, cutUnit([]byte(tc.text), "/some/path", tc.median))
		})
	}
}

func TestCutAllDropsDuplicatesBlanksAndRejects(t *testing.T) {
	units := []unit{
		{"a", "/a", []byte("same text\n")},
		{"b", "/b", []byte("same text\n")},
		{"c", "/c", []byte("   \n\n")},
		// A typed record with a bad field: chronicle rejects the document.
		{"d", "/d", []byte("@chronicle\tonly\n")},
		{"e", "/e", []byte("other text\n")},
	}
	ps, st := cutAll(units, 4096)
	require.Len(t, ps, 2)
	require.Equal(t, "a", ps[0].source)
	require.Equal(t, "e", ps[1].source)
	require.Equal(t, 1, st.dupes)
	require.Equal(t, 1, st.blank)
	require.Equal(t, 1, st.rejected)
}

func TestSample(t *testing.T) {
	files := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	for _, tc := range []struct {
		n    int
		want []string
	}{
		{1, []string{"a"}},
		{2, []string{"a", "f"}},
		{5, []string{"a", "c", "e", "g", "i"}},
		{10, files},
		{20, files},
	} {
		require.Equal(t, tc.want, sample(files, tc.n), "n=%d", tc.n)
	}
}

func TestFTSSQL(t *testing.T) {
	for _, tc := range []struct {
		name  string
		terms []string
		want  string
		scan  bool
	}{
		{"one term", []string{"hello"}, `SELECT count(*) FROM docs WHERE docs MATCH '"hello"';`, false},
		{"terms are ORed", []string{"abc", "كتاب"}, `SELECT count(*) FROM docs WHERE docs MATCH '"abc" OR "كتاب"';`, false},
		{"quotes are doubled", []string{`it's`, `a"b`}, `SELECT count(*) FROM docs WHERE docs MATCH '"it''s" OR "a""b"';`, false},
		{"a short term scans", []string{"a", "long"}, `SELECT count(*) FROM docs WHERE instr(body, 'a') > 0 OR instr(body, 'long') > 0;`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sql, scan := ftsSQL(tc.terms)
			require.Equal(t, tc.want, sql)
			require.Equal(t, tc.scan, scan)
		})
	}
}

func TestMedian(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	for _, tc := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{ms(7), 7 * time.Millisecond},
		{ms(5, 1, 3), 3 * time.Millisecond},
		{ms(4, 1, 3, 2), 3 * time.Millisecond},
		{ms(9, 9, 1, 9, 1), 9 * time.Millisecond},
	} {
		in := append([]time.Duration(nil), tc.in...)
		require.Equal(t, tc.want, median(tc.in))
		require.Equal(t, in, tc.in, "median must not reorder its argument")
	}
}

func TestCounts(t *testing.T) {
	docs, lines := findCounts([]byte(`{"result":{"status":"MATCHES","total_matching_lines":3}}
{"result":{"status":"MATCHES","total_matching_lines":2}}
`))
	require.Equal(t, 2, docs)
	require.Equal(t, 5, lines)
	files, lines := rgCounts([]byte("src/a.txt:4\nsrc/b:c.txt:1\n"))
	require.Equal(t, 2, files)
	require.Equal(t, 5, lines)
	require.Equal(t, "1,234,567", thousands(1234567))
	require.Equal(t, "999", thousands(999))
}

// TestWritePool: a pool is written whole or not at all, and a second
// build of the same pool (another run sharing the work directory) takes
// the first one's instead of replacing it.
func TestWritePool(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus-m4096")
	units := []unit{{"a", "/a", []byte("first text\n")}, {"b", "/b", []byte("second text\n")}}
	m, err := writePool(dir, units, 4096, func(m *manifest) { m.Sources = []string{"first"} })
	require.NoError(t, err)
	require.Equal(t, []string{"a-000000.txt", "b-000001.txt"}, m.Files)
	got, err := loadManifest(dir)
	require.NoError(t, err)
	require.Equal(t, m.Files, got.Files)
	require.Equal(t, []string{"first"}, got.Sources)

	again, err := writePool(dir, units[:1], 4096, func(m *manifest) { m.Sources = []string{"second"} })
	require.NoError(t, err)
	require.Equal(t, []string{"first"}, again.Sources, "the pool already there wins")
	b, err := os.ReadFile(filepath.Join(dir, "docs", "b-000001.txt"))
	require.NoError(t, err)
	require.Equal(t, "second text\n", string(b))
	left, err := filepath.Glob(dir + ".building-*")
	require.NoError(t, err)
	require.Empty(t, left, "no half-built directory is left behind")
}

// TestBucketUses reads the bucket statistics of a real bbolt file: every
// bucket, largest first, and the rest of the file as other pages, all of
// it accounted for.
func TestBucketUses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	b, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(func(tx *bolt.Tx) error {
		big, err := tx.CreateBucket([]byte("big"))
		if err != nil {
			return err
		}
		for i := range 2000 {
			if err := big.Put([]byte(fmt.Sprintf("k%05d", i)), bytes.Repeat([]byte{'v'}, 100)); err != nil {
				return err
			}
		}
		small, err := tx.CreateBucket([]byte("small"))
		if err != nil {
			return err
		}
		return small.Put([]byte("k"), []byte("v"))
	}))
	require.NoError(t, b.Close())
	st, err := os.Stat(path)
	require.NoError(t, err)
	us, err := bucketUses(path, st.Size())
	require.NoError(t, err)
	require.Len(t, us, 3)
	require.Equal(t, "big", us[0].name)
	require.Equal(t, 2000, us[0].keys)
	require.Greater(t, us[0].inuse, int64(2000*100))
	require.GreaterOrEqual(t, us[0].alloc, us[0].inuse)
	require.Equal(t, "small", us[1].name)
	var sum int64
	for _, u := range us {
		sum += u.alloc
	}
	require.Equal(t, st.Size(), sum)
	var out strings.Builder
	printBytes(&out, &result{docs: 10, sizes: sizeStats{total: 1e6}, archive: st.Size(), buckets: us})
	require.Contains(t, out.String(), "| big | 2,000 |")
}
