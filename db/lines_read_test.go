package db_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// joined returns a db.Line as an engine.Line with its pieces joined.
func joined(l db.Line) engine.Line {
	return engine.Line{Number: l.Number, Start: l.Start, End: l.End, Text: append([]byte{}, bytes.Join(l.Text, nil)...)}
}

// Lines gives exactly the lines engine.ForEachLine cuts from the source,
// for any range, whatever the line lengths against the chunk and block
// sizes, CRs and a missing final LF.
func TestLinesMatchForEachLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 7))
	long := func(n int) string { return string(bytes.Repeat([]byte("ab\tc"), n/4)) }
	sources := map[string]string{
		"empty":              "",
		"one LF":             "\n",
		"no final LF":        "alpha\nbeta",
		"CRLF":               "a\r\nb\r\n\r\n",
		"lone CR at the end": "a\nb\r",
		"two CRs":            "a\r\r\nb",
		"CR kept inside":     "a\rb\nc",
		"empty lines":        "\n\n\nx\n\n",
		// Lines longer than a 64 KiB chunk and than a 64 KiB block, a CRLF
		// split across the chunk boundary.
		"long lines":     "short\n" + long(200_000) + "\r\n" + long(65_536-1) + "\r\n" + long(70_000) + "\nend",
		"CRLF at 64 KiB": long(65_535-1) + "\r\n" + "x\n",
		"multibyte":      "أحمد\r\nخالد " + long(65_533) + "سعود\n",
	}
	var b bytes.Buffer
	for i := range 3000 {
		b.WriteString([]string{"", "w", "word ", "\r", "أ", "x y"}[rng.IntN(6)])
		if rng.IntN(3) == 0 || i%997 == 0 {
			b.WriteString(long(rng.IntN(6_000)))
		}
		b.WriteString([]string{"\n", "\r\n", "\n\n"}[rng.IntN(3)])
	}
	sources["random"] = b.String()

	a := openArchive(t, newPath(t))
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			res, err := a.Ingest([]byte(src), 1, name)
			require.NoError(t, err)
			var want []engine.Line
			require.NoError(t, engine.ForEachLine([]byte(src), func(l engine.Line) error {
				want = append(want, engine.Line{Number: l.Number, Start: l.Start, End: l.End, Text: bytes.Clone(l.Text)})
				return nil
			}))
			n := len(want)
			for _, r := range [][2]int{{1, -1}, {1, 1}, {2, 3}, {n, -1}, {n, n}, {n + 1, -1}, {n / 2, n/2 + 2}, {3, n - 1}} {
				var got []engine.Line
				require.NoError(t, a.Lines(res.Doc, r[0], r[1], func(l db.Line) error {
					for _, p := range l.Text {
						require.LessOrEqual(t, len(p), 64<<10, "a piece is at most a block")
					}
					got = append(got, joined(l))
					return nil
				}))
				var exp []engine.Line
				for _, l := range want {
					if l.Number >= r[0] && (r[1] < 0 || l.Number <= r[1]) {
						exp = append(exp, l)
					}
				}
				require.Equal(t, len(exp), len(got), "lines %v", r)
				for i := range exp {
					require.Equal(t, exp[i], got[i], "lines %v, line %d", r, exp[i].Number)
				}
			}
		})
	}
}

// Lines reads damage as corruption and calls fn for no line: a chunk that
// decodes to other bytes fails the document digest, a damaged event table
// its own digest.
func TestLinesRefusesDamage(t *testing.T) {
	path := newPath(t)
	a := openArchive(t, path)
	src := []byte("alpha\nbeta\n@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	res, err := a.Ingest(src, 1, "doc")
	require.NoError(t, err)
	require.NoError(t, a.Close())
	for _, tc := range []struct {
		name   string
		bucket string
		key    []byte
		value  []byte
	}{
		{"chunk with other bytes", "chunks", chunkKey(res.Doc.SHA256, 0), chunkFrame(t, bytes.ToUpper(src))},
		{"event table frame", "events", res.Doc.SHA256[:], zstdFrame(t, []byte("not the table"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			copyPath := newPath(t)
			require.NoError(t, writeFile(copyPath, readFile(t, path)))
			editBolt(t, copyPath, func(tx *bolt.Tx) error {
				return tx.Bucket([]byte(tc.bucket)).Put(tc.key, tc.value)
			})
			b := openArchive(t, copyPath, db.Options{ReadOnly: true})
			d, err := b.Resolve("doc")
			require.NoError(t, err)
			called := 0
			err = b.Lines(d, 1, -1, func(db.Line) error { called++; return nil })
			require.ErrorIs(t, err, db.ErrCorrupt)
			require.Contains(t, err.Error(), "doc")
			require.Zero(t, called, "no line of a damaged document")
		})
	}
}
