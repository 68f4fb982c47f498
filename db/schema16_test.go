package db

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/index"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// testdata/archives/schema16.db was written by schema 16, before the
// entity index kept each event's document: the samples, the stories, two
// golden inputs (one of them also a sample under another name) and the
// original tool's V1 store of g9 (`chronicle import`), ingested by
// `chronicle ingest` and compacted with bbolt.Compact. schema16.answers
// holds what that build printed for `entity --json NAME` of every known
// name and for `settle --json QUESTION` of six questions, each block
// headed by its command.
const (
	schema16Fixture = "../testdata/archives/schema16.db"
	schema16Answers = "../testdata/archives/schema16.answers"
)

// schema16Blocks reads schema16.answers: the command of each block and
// the lines it printed.
func schema16Blocks(t *testing.T) (commands []string, printed map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(schema16Answers)
	require.NoError(t, err)
	printed = map[string]string{}
	var cmd string
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		if strings.HasPrefix(line, "entity ") || strings.HasPrefix(line, "settle ") {
			cmd = strings.TrimSuffix(line, "\n")
			commands = append(commands, cmd)
			continue
		}
		printed[cmd] += line
	}
	require.Len(t, commands, 23)
	return commands, printed
}

// requireSchema16Answers: every entity lookup and settlement of the
// fixture answers, byte for byte, what schema 16 printed; EntityEvents
// gives the same events without the records.
func requireSchema16Answers(t *testing.T, a *Archive) {
	t.Helper()
	commands, printed := schema16Blocks(t)
	for _, cmd := range commands {
		var got string
		if name, ok := strings.CutPrefix(cmd, "entity "); ok {
			hits, err := a.Entity(name)
			require.NoError(t, err, cmd)
			for i := range hits {
				got += string(EntityHitJSON(&hits[i], true)) + "\n"
			}
			events, err := a.EntityEvents(name)
			require.NoError(t, err, cmd)
			require.Len(t, events, len(hits))
			for i := range events {
				require.Nil(t, events[i].Doc, cmd)
				events[i].Doc = hits[i].Doc
			}
			require.Equal(t, hits, events, cmd)
		} else {
			q := strings.TrimPrefix(cmd, "settle ")
			c, err := a.Settle(q, nil)
			require.NoError(t, err, cmd)
			got = string(c.Result.JSON()) + "\n"
			cited := map[Digest]bool{}
			for _, e := range c.Result.Evidence {
				cited[e.Document] = true
			}
			require.Len(t, c.Docs, len(cited), "%s: the documents read are those cited", cmd)
			for i, d := range c.Docs {
				require.True(t, cited[d.SHA256], cmd)
				require.True(t, i == 0 || c.Docs[i-1].Seq < d.Seq, "%s: in import order", cmd)
			}
		}
		require.Equal(t, printed[cmd], got, cmd)
	}
}

// upgradeSchema16 opens a copy of the schema-16 fixture, which upgrades
// it, rebuilding the indexes (rebuilt) or rewriting the spans, and checks
// the result finds nothing wrong.
func upgradeSchema16(t *testing.T, path string, rebuilt bool) *Archive {
	t.Helper()
	a, err := Open(path, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	require.Equal(t, 16, a.UpgradedFrom)
	require.Equal(t, rebuilt, a.reindexed, "rebuilt from the documents, or the spans rewritten")
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
	return a
}

// TestSchema16UpgradeKeepsDocumentsInSpans: the upgrade to schema 17
// rewrites every kept span with its document's digest and store version
// (the imported V1 store's spans say version 1), the answers stay those
// of schema 16, and check finds nothing wrong.
func TestSchema16UpgradeKeepsDocumentsInSpans(t *testing.T) {
	path := fixtureCopy(t, schema16Fixture)
	version, _ := schemaTestRaw(t, path)
	require.Equal(t, "16", version, "the fixture must stay a schema-16 archive")

	a := upgradeSchema16(t, path, false)

	versions := map[byte]int{}
	require.NoError(t, a.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("spans")).ForEach(func(k, v []byte) error {
			seq, event := binary.BigEndian.Uint64(k), int(binary.BigEndian.Uint32(k[8:]))
			sp, ok := index.DecodeEntitySpan(seq, event, v)
			require.True(t, ok, "span %x", k)
			d, err := docBySeq(tx, seq)
			require.NoError(t, err)
			require.Equal(t, d.SHA256, Digest(sp.Doc.SHA256))
			require.Equal(t, d.Version, int(sp.Doc.Version))
			versions[sp.Doc.Version]++
			return nil
		})
	}))
	require.Equal(t, 2, versions[1], "the V1 store's two events")
	require.Equal(t, 22, versions[2])
	requireSchema16Answers(t, a)
}

// TestSchema16UpgradeDamagedSpan: a kept span damaged before the upgrade
// cannot be rewritten; the upgrade rebuilds the indexes from the
// documents instead, and the answers are still those of schema 16.
func TestSchema16UpgradeDamagedSpan(t *testing.T) {
	path := fixtureCopy(t, schema16Fixture)
	b, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(func(tx *bolt.Tx) error {
		spans := tx.Bucket([]byte("spans"))
		k, v := spans.Cursor().Last()
		v = bytes.Clone(v)
		v[20] ^= 1
		return spans.Put(bytes.Clone(k), v)
	}))
	require.NoError(t, b.Close())

	a := upgradeSchema16(t, path, true)
	requireSchema16Answers(t, a)
}
