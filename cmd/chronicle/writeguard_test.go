package main

// Writes into a damaged archive (issue 24): a write whose pages are
// damaged is refused before anything changes, with the one line a read of
// a damaged archive gives, and exit 1.

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// damagedLine is the one line of a read (and now a write) that meets a
// damaged page.
// (import and claims check name the file they were at first).
const damagedLine = "^chronicle %s: (\\S+: )?archive \\S*archive.db is damaged: a page could not be read; `chronicle check` lists the problems it can find\n$"

// bucketRoot returns the root page of bucket name of the archive at path.
func bucketRoot(t *testing.T, path, name string) uint64 {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	var root uint64
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket([]byte(name)).Root())
		return nil
	}))
	require.NotZero(t, root, "bucket %s is inline", name)
	return root
}

// writeGuardArchive is an archive of 60+ documents (every bucket written
// below has a branch page for its root), with a receipt kept, and a store
// file of a document it does not hold, for import.
func writeGuardArchive(t *testing.T) (w *ws, store string) {
	other := newWS(t)
	other.write("other.txt", "Carol paid Dan 5 SAR.\nDan thanked Carol at the market.\n")
	other.ok("ingest", "other.txt")
	other.ok("export", "other.txt", "out")
	store = filepath.Join(other.dir, "out", "other.txt.chronicle")

	w = newWS(t)
	for i := range 60 {
		w.write(fmt.Sprintf("gen/f%02d.txt", i), fmt.Sprintf("Line %d: Alice paid Bob %d SAR on day %d.\nPerson%d met Trader%d at the market.\n", i, 3*i, i, i, i%7))
	}
	for _, name := range []string{"testdata/samples/alice-bob-en.txt", "testdata/claims/samples.claims.jsonl"} {
		data, err := os.ReadFile(filepath.Join("../..", name))
		require.NoError(t, err)
		w.write(name, string(data))
	}
	w.ok("ingest", "gen", "testdata/samples")
	w.write("new.txt", "Brand new: Erin lent Frank 9 SAR.\n")
	return w, store
}

func TestWriteRefusedOnDamagedPages(t *testing.T) {
	w, store := writeGuardArchive(t)
	pristine, err := os.ReadFile(w.db)
	require.NoError(t, err)
	// The damage is of the kinds bbolt reads without a word (it checks
	// that a page is marked as the page it asked for, and its kind, and
	// panics otherwise: such a write was refused already). foreign points
	// every child of a bucket's root page at the first leaf of another
	// bucket: a write descends into it and would write its key among the
	// other bucket's. flipSeqLeaf makes the first key of the last leaf of
	// seqs (where a new document's number goes) larger than the keys
	// after it.
	foreign := func(bucket, into string, all bool) func([]byte) []byte {
		root, leaf := bucketRoot(t, w.db, bucket), bucketRoot(t, w.db, into)
		return func(raw []byte) []byte {
			for binary.LittleEndian.Uint16(raw[leaf*4096+8:]) == 0x01 { // a branch page: its first child
				leaf = binary.LittleEndian.Uint64(raw[leaf*4096+16+8:])
			}
			p := raw[root*4096:]
			require.Equal(t, uint16(0x01), binary.LittleEndian.Uint16(p[8:]), "%s's root is a branch page", bucket)
			n := int(binary.LittleEndian.Uint16(p[10:]))
			for i := range n {
				if all || i == n-1 {
					binary.LittleEndian.PutUint64(p[16+i*16+8:], leaf)
				}
			}
			return raw
		}
	}
	flipSeqLeaf := func(raw []byte) []byte {
		root := bucketRoot(t, w.db, "seqs")
		leaf := root
		for binary.LittleEndian.Uint16(raw[leaf*4096+8:]) == 0x01 { // a branch page: its last child
			p := raw[leaf*4096:]
			last := int(binary.LittleEndian.Uint16(p[10:])) - 1
			leaf = binary.LittleEndian.Uint64(p[16+last*16+8:])
		}
		l := raw[leaf*4096:]
		require.Equal(t, uint16(0x02), binary.LittleEndian.Uint16(l[8:]))
		require.GreaterOrEqual(t, binary.LittleEndian.Uint16(l[10:]), uint16(2))
		pos := binary.LittleEndian.Uint32(l[16+4:])
		l[16+pos] ^= 0x80 // the first key's top byte: now after every other key
		return raw
	}
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		args   []string
	}{
		{"ingest a new file, docs root points into chunks", foreign("docs", "chunks", true), []string{"ingest", "new.txt"}},
		{"ingest a new file, a seqs leaf's key flipped", flipSeqLeaf, []string{"ingest", "new.txt"}},
		{"ingest a directory, docs root points into chunks", foreign("docs", "chunks", true), []string{"ingest", "new.txt", "gen"}},
		{"ingest --json, docs root points into chunks", foreign("docs", "chunks", true), []string{"ingest", "new.txt", "--json"}},
		{"ingest a known file under a new name, names root points into chunks", foreign("names", "chunks", true), []string{"ingest", "gen/f01.txt", "--name", "alias"}},
		{"import, docs root points into chunks", foreign("docs", "chunks", true), []string{"import", store}},
		{"query --keep, receipts root points into chunks", foreign("receipts", "chunks", true), []string{"query", "testdata/samples/alice-bob-en.txt", "Did Alice repay Bob?", "--keep"}},
		{"find --keep, receipts root points into chunks", foreign("receipts", "chunks", true), []string{"find", "Alice", "--doc", "gen/f03.txt", "--keep"}},
		{"claims check, receipts root points into chunks", foreign("receipts", "chunks", true), []string{"claims", "check", "testdata/claims/samples.claims.jsonl"}},
		{"reindex, a grams child is a docs page", foreign("grams", "docs", false), []string{"reindex"}},
		// ingest folds the new documents' term postings after they
		// committed (a batch): the document is refused, not the fold.
		{"ingest, a grams child is a docs page", foreign("grams", "docs", false), []string{"ingest", "new.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(w.db, pristine, 0o600))
			damaged := tc.damage(append([]byte(nil), pristine...))
			require.NoError(t, os.WriteFile(w.db, damaged, 0o600))
			r := w.run("check")
			require.Equal(t, 1, r.code, "check must see the damage\n%s", r)

			r = w.run(tc.args...)
			after, err := os.ReadFile(w.db)
			require.NoError(t, err)
			require.Equal(t, sha256.Sum256(damaged), sha256.Sum256(after), "the archive changed\n%s", r)
			require.Equal(t, 1, r.code, "%s", r)
			require.Empty(t, r.stdout, "no outcome line before a commit")
			if strings.Contains(strings.Join(tc.args, " "), "--json") {
				require.Len(t, lines(r.stderr), 1, "%s", r)
				require.Contains(t, r.stderr, `"error":"damaged"`)
				require.Contains(t, r.stderr, "is damaged: a page could not be read")
				return
			}
			require.Regexp(t, fmt.Sprintf(damagedLine, tc.args[0]), r.stderr)
		})
	}
}
