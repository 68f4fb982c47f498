package db_test

import (
	"bytes"
	"testing"

	"chronicle/db"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

const entityStory = "Opening prose.\n" +
	"@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n" +
	"Alice owns Book.\n"

// TestEntityReadsOnlyTheIndex: a lookup re-derives its events from the
// spans kept in the entity index, so it answers without the document's
// chunks, and any damage to a kept span is corruption, never an answer.
func TestEntityReadsOnlyTheIndex(t *testing.T) {
	path := newPath(t)
	a := openArchive(t, path)
	res, err := a.Ingest([]byte(entityStory), 1750000000, "story.txt")
	require.NoError(t, err)
	want, err := a.Entity("Alice")
	require.NoError(t, err)
	require.Len(t, want, 2)
	require.Equal(t, "BORROWED_FROM", want[0].Event.Predicate)
	require.Equal(t, "owns", want[1].Event.Predicate)
	s, err := a.Load(res.Doc)
	require.NoError(t, err)
	require.Equal(t, s.Events[0], want[0].Event, "the re-derived event is the stored event")
	require.Equal(t, s.Events[1], want[1].Event)
	require.NoError(t, a.Close())

	// Without the document's chunks the lookup still answers.
	editBolt(t, path, func(tx *bolt.Tx) error { return tx.Bucket([]byte("chunks")).Delete(chunkKey(res.Doc.SHA256, 0)) })
	a = openArchive(t, path, db.Options{ReadOnly: true})
	got, err := a.Entity("Alice")
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.NoError(t, a.Close())

	// A flipped byte in a kept span fails the lookup with the document named.
	editBolt(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("spans"))
		k, v := b.Cursor().First() // the first event: the typed record naming Alice
		v = bytes.Clone(v)
		v[len(v)-2] ^= 0x01
		return b.Put(bytes.Clone(k), v)
	})
	a = openArchive(t, path, db.Options{ReadOnly: true})
	_, err = a.Entity("Alice")
	require.ErrorIs(t, err, db.ErrCorrupt)
	require.ErrorContains(t, err, "story.txt")
	problems := problemsOf(t, a)
	require.NotEmpty(t, problems)
}
