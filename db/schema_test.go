package db

// Archive schema upgrades (issue 5): testdata/archives/schema1.db was
// written by schema 1 (golden inputs g0..g8 ingested at imported_at
// 1750000000, one query and one find receipt). Every test works on a copy:
// opening upgrades the file in place.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/receipt"
	"github.com/casper-chronicle/chronicle/engine/settle"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

const (
	schemaTestFixture = "../testdata/archives/schema1.db"
	schemaTestGolden  = "../testdata/golden"
	schemaTestTime    = 1750000000
)

// schemaTestCopy copies the schema-1 archive to a new file.
func schemaTestCopy(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(schemaTestFixture)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "schema1.db")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// schemaTestRaw reads the schema_version and the bucket names of an archive
// file without going through Open (which would upgrade it).
func schemaTestRaw(t *testing.T, path string) (string, map[string]bool) {
	t.Helper()
	b, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	var version string
	buckets := map[string]bool{}
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		version = string(tx.Bucket(bucketMeta).Get(keySchema))
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			buckets[string(name)] = true
			return nil
		})
	}))
	return version, buckets
}

// TestSchema1ArchiveUpgradesOnOpen: a write open of the schema-1 archive
// runs every registered step (UpgradedFrom 1, Schema() current), and the
// upgraded archive gives the results of a fresh archive of the same inputs:
// the same documents and store bytes (the golden stores), the same INGEST
// receipts, and every kept receipt verifies VALID.
func TestSchema1ArchiveUpgradesOnOpen(t *testing.T) {
	path := schemaTestCopy(t)
	version, buckets := schemaTestRaw(t, path)
	require.Equal(t, "1", version, "the fixture must stay a schema-1 archive")
	require.False(t, buckets[string(bucketOriginals)])
	require.Len(t, Upgrades, SchemaVersion-1, "one registered step per version")
	for i, u := range Upgrades {
		require.Equal(t, i+1, u.From)
		require.NotEmpty(t, u.Summary)
	}

	a, err := Open(path, Options{})
	require.NoError(t, err)
	defer a.Close()
	require.Equal(t, 1, a.UpgradedFrom)
	v, err := a.Schema()
	require.NoError(t, err)
	require.Equal(t, SchemaVersion, v)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
	origs, err := a.Originals(nil)
	require.NoError(t, err)
	require.Empty(t, origs)

	fresh, err := Open(filepath.Join(t.TempDir(), "fresh.db"), Options{})
	require.NoError(t, err)
	defer fresh.Close()

	docs, err := a.Docs()
	require.NoError(t, err)
	require.Len(t, docs, 9)
	for _, d := range docs {
		require.Len(t, d.Names, 1)
		name := d.Names[0] // testdata/golden/gN_.../input.txt, as ingested from the repository root
		caseDir := filepath.Join(schemaTestGolden, filepath.Base(filepath.Dir(name)))
		src, err := os.ReadFile(filepath.Join(caseDir, "input.txt"))
		require.NoError(t, err)
		golden, err := os.ReadFile(filepath.Join(caseDir, "input.txt.chronicle"))
		require.NoError(t, err)

		res, err := fresh.Ingest(src, schemaTestTime, name)
		require.NoError(t, err)
		want, _, err := fresh.Rebuild(res.Doc)
		require.NoError(t, err)
		require.Equal(t, golden, want, "fresh ingest of %s", name)
		got, s, err := a.Rebuild(d)
		require.NoError(t, err)
		require.Equal(t, want, got, "upgraded %s rebuilds to other bytes", name)
		require.Equal(t, 2, s.Version)

		require.Equal(t, res.Doc.SHA256, d.SHA256)
		require.Equal(t, res.Doc.StoreSHA256, d.StoreSHA256)
		require.Equal(t, res.Doc.EventsSHA256, d.EventsSHA256)
		require.Equal(t, res.Doc.ImportedAt, d.ImportedAt)
		require.Equal(t, res.Doc.EventCount, d.EventCount)
		require.Equal(t, res.Doc.SourceSize, d.SourceSize)
		require.Equal(t, res.Doc.Names, d.Names)
		require.Equal(t, res.Doc.Version, d.Version)

		// The upgraded document answers like the fresh one.
		for _, q := range []string{"Alice Bob", "@claim\tAlice\towns\tBook", "هل سدد أحمد دين خالد؟"} {
			ws, err := fresh.Load(res.Doc)
			require.NoError(t, err)
			gs, err := a.Load(d)
			require.NoError(t, err)
			wantJSON, wantErr := settle.Query(ws, q)
			gotJSON, gotErr := settle.Query(gs, q)
			require.Equal(t, wantErr, gotErr)
			require.Equal(t, string(wantJSON), string(gotJSON))
		}
	}

	recs, err := a.Receipts(nil)
	require.NoError(t, err)
	require.Len(t, recs, 11)
	kinds := map[ReceiptKind]int{}
	for _, r := range recs {
		kinds[r.Kind]++
		out, err := a.Verify(r, receipt.Canonical{})
		require.NoError(t, err)
		require.Equal(t, receipt.Valid, out, "kept %s receipt %s", r.Kind, r.ID())
	}
	require.Equal(t, map[ReceiptKind]int{KindIngest: 9, KindQuery: 1, KindFind: 1}, kinds)
	freshRecs, err := fresh.Receipts(nil)
	require.NoError(t, err)
	var upgradedIngest, freshIngest []string
	for _, r := range recs {
		if r.Kind == KindIngest {
			upgradedIngest = append(upgradedIngest, string(r.Encode()))
		}
	}
	for _, r := range freshRecs {
		freshIngest = append(freshIngest, string(r.Encode()))
	}
	require.ElementsMatch(t, freshIngest, upgradedIngest)
	require.NoError(t, a.Close())

	// Upgraded once: the next open has nothing to do.
	version, buckets = schemaTestRaw(t, path)
	require.Equal(t, strconv.Itoa(SchemaVersion), version)
	for _, b := range schemaBuckets {
		require.True(t, buckets[string(b)], "bucket %s after the upgrade", b)
	}
	a, err = Open(path, Options{})
	require.NoError(t, err)
	require.Zero(t, a.UpgradedFrom)
}

// TestSchema1ReadOnlyOpenUpgrades: a read-only open of a schema-1 archive
// works (it upgrades with a brief write open and reopens read-only).
func TestSchema1ReadOnlyOpenUpgrades(t *testing.T) {
	path := schemaTestCopy(t)
	a, err := Open(path, Options{ReadOnly: true})
	require.NoError(t, err)
	v, err := a.Schema()
	require.NoError(t, err)
	require.Equal(t, SchemaVersion, v)
	docs, err := a.Docs()
	require.NoError(t, err)
	require.Len(t, docs, 9)
	recs, err := a.Receipts(nil)
	require.NoError(t, err)
	for _, r := range recs {
		out, err := a.Verify(r, receipt.Canonical{})
		require.NoError(t, err)
		require.Equal(t, receipt.Valid, out)
	}
	require.NoError(t, a.Close())
	version, _ := schemaTestRaw(t, path)
	require.Equal(t, strconv.Itoa(SchemaVersion), version, "the read-only open upgraded the file")
}

// TestSchemaUpgradeIsOneTransaction: when a step fails, the open fails with
// the step named and the file is left byte-identical at schema 1 (earlier
// steps are rolled back too); a later open with working steps upgrades it.
func TestSchemaUpgradeIsOneTransaction(t *testing.T) {
	path := schemaTestCopy(t)
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	saved := Upgrades
	defer func() { Upgrades = saved }()
	Upgrades = append([]Upgrade(nil), saved...)
	last := len(Upgrades) - 1
	boom := errors.New("step failed")
	apply := saved[last].Apply
	Upgrades[last].Apply = func(a *Archive, tx *bolt.Tx) error {
		if err := apply(a, tx); err != nil {
			return err
		}
		return boom
	}
	for _, opts := range []Options{{}, {ReadOnly: true}} {
		a, err := Open(path, opts)
		require.ErrorIs(t, err, boom)
		require.Nil(t, a)
		require.Contains(t, err.Error(), Upgrades[last].Summary)
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, before, after, "a failed upgrade must leave the file untouched (read-only %v)", opts.ReadOnly)
	}

	Upgrades = saved
	a, err := Open(path, Options{})
	require.NoError(t, err)
	defer a.Close()
	require.Equal(t, 1, a.UpgradedFrom)
}

// TestMixedCodecs: documents stored before schema 6 keep their zstd chunks
// and new ones are S2; both read, search and check cleanly side by side.
func TestMixedCodecs(t *testing.T) {
	path := schemaTestCopy(t)
	a, err := Open(path, Options{})
	require.NoError(t, err)
	defer a.Close()
	src := []byte("Fresh prose about Saud.\n@chronicle\tSaud\tPAID_TO\tKhalid\t5\tSAR\tT9\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	res, err := a.Ingest(src, 1750000000, "fresh.txt")
	require.NoError(t, err)
	require.Equal(t, CodecS2, res.Doc.Codec)
	docs, err := a.Docs()
	require.NoError(t, err)
	codecs := map[string]int{}
	for _, d := range docs {
		codecs[d.Codec]++
		s, err := a.Load(d)
		require.NoError(t, err, d.Label())
		require.Equal(t, d.SourceSize, int64(len(s.Source)))
	}
	require.Equal(t, map[string]int{"": 9, CodecS2: 1}, codecs)
	q, err := find.NewQuery("Saud")
	require.NoError(t, err)
	hits, err := a.Find(q, 0)
	require.NoError(t, err)
	var names []string
	for _, h := range hits {
		names = append(names, h.Doc.Label())
	}
	require.Contains(t, names, "fresh.txt")
	require.Greater(t, len(names), 1, "old zstd documents mention Saud too")
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
}
