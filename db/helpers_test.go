package db_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/settle"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// goldenDir holds the cases captured from the original C tool.
const goldenDir = "../testdata/golden"

// goldenTime is the imported_at every golden store was made with.
const goldenTime = 1750000000

// goldenCmd is one successful query/claim/find of a golden transcript.
type goldenCmd struct {
	Kind     db.ReceiptKind // QUERY (query and claim) or FIND
	Question string         // the question or terms bytes as the receipt binds them
	Want     string         // the first stdout line: the canonical result JSON
}

// goldenCase is one V2 golden case directory.
type goldenCase struct {
	Name  string // directory name, e.g. g0_minimal_literal
	Input []byte // input.txt
	Store []byte // input.txt.chronicle, imported_at 1750000000
	Cmds  []goldenCmd
}

// DocName is the name a golden input is ingested under.
func (c *goldenCase) DocName() string { return c.Name + "/input.txt" }

// Digest is the document digest of the input.
func (c *goldenCase) Digest() db.Digest { return sha256.Sum256(c.Input) }

// replay computes the canonical result of one command over s.
func replay(t testing.TB, s *engine.Store, kind db.ReceiptKind, question string) []byte {
	t.Helper()
	var out []byte
	var err error
	switch kind {
	case db.KindQuery:
		out, err = settle.Query(s, question)
	case db.KindFind:
		out, err = find.Find(s, question)
	default:
		t.Fatalf("no replay for kind %s", kind)
	}
	require.NoError(t, err, "%s %q", kind, question)
	return out
}

// loadGolden reads the V2 golden cases g0..g8 (g9 is a legacy V1 store that
// an archive never produces by ingest).
func loadGolden(t testing.TB) []goldenCase {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(goldenDir, "g[0-8]_*"))
	require.NoError(t, err)
	require.Len(t, dirs, 9, "golden cases g0..g8")
	var cases []goldenCase
	for _, dir := range dirs {
		c := goldenCase{Name: filepath.Base(dir)}
		c.Input = readFile(t, filepath.Join(dir, "input.txt"))
		c.Store = readFile(t, filepath.Join(dir, "input.txt.chronicle"))
		var tr struct {
			Commands []struct {
				Argv   []string `json:"argv"`
				Exit   int      `json:"exit"`
				Stdout string   `json:"stdout"`
			} `json:"commands"`
		}
		require.NoError(t, json.Unmarshal(readFile(t, filepath.Join(dir, "transcript.json")), &tr))
		for _, cmd := range tr.Commands {
			if cmd.Exit != 0 {
				continue
			}
			g := goldenCmd{Want: strings.SplitN(cmd.Stdout, "\n", 2)[0]}
			switch cmd.Argv[0] {
			case "query":
				require.Len(t, cmd.Argv, 3)
				g.Kind, g.Question = db.KindQuery, cmd.Argv[2]
			case "claim":
				require.Len(t, cmd.Argv, 5)
				g.Kind, g.Question = db.KindQuery, "@claim\t"+strings.Join(cmd.Argv[2:], "\t")
			case "find":
				require.Len(t, cmd.Argv, 3)
				g.Kind, g.Question = db.KindFind, cmd.Argv[2]
			default:
				continue
			}
			c.Cmds = append(c.Cmds, g)
		}
		require.NotEmpty(t, c.Cmds, "%s has no query/claim/find", c.Name)
		cases = append(cases, c)
	}
	return cases
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Size()
}

// newPath is a fresh archive path in the test's temporary directory.
func newPath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "chronicle.db")
}

// openArchive opens (creating) the archive at path; it is closed at the end
// of the test unless the test closed it first (Close is idempotent enough
// for that: the second call only returns an error).
func openArchive(t testing.TB, path string, opts ...db.Options) *db.Archive {
	t.Helper()
	var o db.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	a, err := db.Open(path, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// ingestGolden ingests every golden input under its case name, in order.
func ingestGolden(t testing.TB, a *db.Archive, cases []goldenCase, importedAt uint64) []*db.IngestResult {
	t.Helper()
	var out []*db.IngestResult
	for i := range cases {
		res, err := a.Ingest(cases[i].Input, importedAt, cases[i].DocName())
		require.NoError(t, err, cases[i].Name)
		out = append(out, res)
	}
	return out
}

// editBolt opens a closed archive file with bbolt directly and runs fn in a
// write transaction: the way tests damage an archive by hand.
func editBolt(t testing.TB, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	b, err := bolt.Open(path, 0o644, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(fn))
	require.NoError(t, b.Close())
}

// chunkKey is the chunks-bucket key of chunk i of a document (doc.go).
func chunkKey(doc db.Digest, i int) []byte {
	return binary.BigEndian.AppendUint32(append([]byte(nil), doc[:]...), uint32(i))
}

// zstdFrame compresses b into one zstd frame, as the archive stores event
// tables.
func zstdFrame(t testing.TB, b []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// unzstd decompresses one zstd frame.
func unzstd(t testing.TB, frame []byte) []byte {
	t.Helper()
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	out, err := dec.DecodeAll(frame, nil)
	require.NoError(t, err)
	return out
}

// chunkFrame compresses b as the archive stores source chunks (S2).
func chunkFrame(t testing.TB, b []byte) []byte {
	t.Helper()
	return s2.EncodeBetter(nil, b)
}

// unchunk decompresses one source chunk.
func unchunk(t testing.TB, frame []byte) []byte {
	t.Helper()
	out, err := s2.Decode(nil, frame)
	require.NoError(t, err)
	return out
}

// problemsOf renders Check's findings for failure messages and matching.
func problemsOf(t testing.TB, a *db.Archive) []db.Problem {
	t.Helper()
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	return problems
}

func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
