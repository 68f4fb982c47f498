package db

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/engine/archivelog"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/note"
)

// testKey is a note key for the log's checkpoints.
func testKey(t *testing.T, name string) (note.Signer, note.Verifier) {
	t.Helper()
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	require.NoError(t, err)
	s, err := note.NewSigner(skey)
	require.NoError(t, err)
	v, err := note.NewVerifier(vkey)
	require.NoError(t, err)
	return s, v
}

// rfcLeafHash and rfcNodeHash are RFC 6962's (2.1), written here from the
// RFC, not taken from the code under test.
func rfcLeafHash(leaf []byte) [32]byte { return sha256.Sum256(append([]byte{0}, leaf...)) }
func rfcNodeHash(l, r [32]byte) [32]byte {
	return sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
}

// rfcVerifyInclusion is RFC 9162's inclusion proof verification (2.1.3.2).
func rfcVerifyInclusion(index, size int64, leaf []byte, proof [][32]byte, root [32]byte) bool {
	if index >= size {
		return false
	}
	fn, sn := index, size-1
	r := rfcLeafHash(leaf)
	for _, p := range proof {
		if sn == 0 {
			return false
		}
		if fn&1 == 1 || fn == sn {
			r = rfcNodeHash(p, r)
			if fn&1 == 0 {
				for fn&1 == 0 && fn != 0 {
					fn >>= 1
					sn >>= 1
				}
			}
		} else {
			r = rfcNodeHash(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	return sn == 0 && r == root
}

// logArchive is an archive with every kind of leaf, signed: three
// documents (one under a second name), a kept query receipt, and the
// checkpoint signed after them. It returns the archive's path and the
// signed checkpoint of that state.
func logArchive(t *testing.T, signer note.Signer) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chronicle.db")
	a, err := Open(path, Options{})
	require.NoError(t, err)
	a.LogSigner(signer)
	var docs []*Document
	for i, text := range []string{"Alice owns Book.\n", "Ali paid Omar 5 SAR.\n", "Nothing here.\n"} {
		res, err := a.Ingest([]byte(text), 1750000000, fmt.Sprintf("doc%d.txt", i))
		require.NoError(t, err)
		docs = append(docs, res.Doc)
	}
	_, err = a.Ingest([]byte("Alice owns Book.\n"), 1750000000, "again.txt")
	require.NoError(t, err)
	ans, err := a.Answer(docs[0], KindQuery, "@claim\tAlice\towns\tBook")
	require.NoError(t, err)
	require.NoError(t, a.KeepReceipt(ans.Receipt))
	st, err := a.Log()
	require.NoError(t, err)
	require.NoError(t, a.Close())
	return path, st.Signed
}

// TestLogLeavesAndProofs: each change appends its leaf, in order; the
// signed checkpoint covers them; every leaf's bundle verifies offline
// with the public key alone, and by RFC 9162's algorithm.
func TestLogLeavesAndProofs(t *testing.T) {
	signer, verifier := testKey(t, "chronicle-test")
	path, signed := logArchive(t, signer)
	c, err := archivelog.OpenSigned(signed, verifier)
	require.NoError(t, err)
	require.EqualValues(t, 8, c.Size, "3 documents and their ingest receipts, a name (its ingest receipt is the one kept), a query receipt")

	a, err := Open(path, Options{ReadOnly: true})
	require.NoError(t, err)
	defer a.Close()
	var kinds []string
	require.NoError(t, a.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLog)
		for i := range uint64(c.Size) {
			l, err := archivelog.ParseLeaf(b.Get(logKey(logLeaf, i)))
			require.NoError(t, err)
			kinds = append(kinds, l.Kind)
		}
		return nil
	}))
	require.Equal(t, []string{"document", "receipt", "document", "receipt", "document", "receipt", "name", "receipt"}, kinds)

	docs, err := a.Docs()
	require.NoError(t, err)
	for _, d := range docs {
		bundle, err := a.ProveDocument(d)
		require.NoError(t, err)
		parsed, err := archivelog.ParseBundle(bundle.Encode())
		require.NoError(t, err)
		leaf, cp, err := parsed.Verify(verifier)
		require.NoError(t, err)
		require.Equal(t, archivelog.KindDocument, leaf.Kind)
		require.Equal(t, [32]byte(d.SHA256), leaf.SHA256)
		proof := make([][32]byte, len(bundle.Proof))
		for i, h := range bundle.Proof {
			proof[i] = h
		}
		require.True(t, rfcVerifyInclusion(bundle.Index, cp.Size, bundle.Leaf, proof, cp.Root), "RFC 9162 inclusion of leaf %d", bundle.Index)
		require.False(t, rfcVerifyInclusion(bundle.Index, cp.Size, append(bytes.Clone(bundle.Leaf), ' '), proof, cp.Root))
	}
	_, err = a.ProveDocument(&Document{Seq: 99, SHA256: Digest{1}})
	require.ErrorIs(t, err, ErrNotLogged)
	_, err = a.ProveDocument(&Document{Seq: docs[1].Seq, SHA256: docs[0].SHA256})
	require.ErrorIs(t, err, ErrCorrupt, "the leaf at a document's entry must be its own")

	// Each kept receipt's bytes find its receipt leaf.
	kept, err := a.Receipts(nil)
	require.NoError(t, err)
	require.Len(t, kept, 4)
	for _, r := range kept {
		bundle, err := a.ProveKept(r.Encode())
		require.NoError(t, err)
		leaf, _, err := bundle.Verify(verifier)
		require.NoError(t, err)
		require.Equal(t, archivelog.KindReceipt, leaf.Kind)
		require.Equal(t, sha256.Sum256(r.Encode()), leaf.SHA256)
	}
	_, err = a.ProveKept([]byte("not kept"))
	require.ErrorIs(t, err, ErrNotLogged)

	// Another key's verifier refuses the bundle.
	_, other := testKey(t, "chronicle-test")
	bundle, err := a.ProveDocument(docs[0])
	require.NoError(t, err)
	_, _, err = bundle.Verify(other)
	require.ErrorIs(t, err, archivelog.ErrCheckpoint)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
}

// editLog rewrites the archive at path with fn, then, as an adversary
// who recomputes every digest the archive stores would, rebuilds the log
// from the archive (rebuild: buildLog) or recomputes its tree hashes from
// its leaves as they are (rehash).
func editLog(t *testing.T, path string, fn func(tx *bolt.Tx) error, mode string) {
	t.Helper()
	a, err := Open(path, Options{})
	require.NoError(t, err)
	require.NoError(t, a.bolt.Update(func(tx *bolt.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		switch mode {
		case "rebuild":
			return buildLog(tx)
		case "rehash":
			b := tx.Bucket(bucketLog)
			var leaves [][]byte
			for i := range b.Sequence() {
				leaves = append(leaves, bytes.Clone(b.Get(logKey(logLeaf, i))))
			}
			if err := b.SetSequence(0); err != nil {
				return err
			}
			for _, l := range leaves {
				parsed, err := archivelog.ParseLeaf(l)
				if err != nil {
					return err
				}
				if err := appendLeaf(tx, parsed, nil); err != nil { // the locator entries stay
					return err
				}
			}
		}
		return nil
	}))
	require.NoError(t, a.Close())
}

// TestLogTamperTrials: on copies of a signed archive, an adversary who can
// write the file removes a document, changes a document and recomputes
// every digest, reorders two leaves, truncates the log, or replaces the
// checkpoint with one signed by another key; an earlier checkpoint's
// verification (ExtendsCheckpoint), check, and proofs each detect it.
func TestLogTamperTrials(t *testing.T) {
	signer, verifier := testKey(t, "chronicle-test")
	path, signed := logArchive(t, signer)
	old, err := archivelog.OpenSigned(signed, verifier)
	require.NoError(t, err)

	a, err := Open(path, Options{})
	require.NoError(t, err)
	// The untouched archive extends the checkpoint, also after more writes.
	a.LogSigner(signer)
	_, err = a.Ingest([]byte("A later document.\n"), 1750000001, "later.txt")
	require.NoError(t, err)
	docs, err := a.Docs()
	require.NoError(t, err)
	now, err := a.ExtendsCheckpoint(old)
	require.NoError(t, err)
	require.Greater(t, now.Size, old.Size)
	require.NoError(t, a.Close())

	last := docs[len(docs)-1]
	removeLast := func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketDocs).Delete(last.SHA256[:]); err != nil {
			return err
		}
		if err := tx.Bucket(bucketSeqs).Delete(seqKey(last.Seq)); err != nil {
			return err
		}
		return tx.Bucket(bucketDocs).SetSequence(last.Seq - 1)
	}
	for _, c := range []struct {
		name    string
		edit    func(tx *bolt.Tx) error
		mode    string // how the adversary covers the edit (editLog)
		check   string // in a problem check reports ("": check cannot tell)
		extends bool   // the earlier checkpoint's verification fails
	}{
		{"remove a document", removeLast, "", "it was removed", false},
		{"remove a document and rebuild the log", removeLast, "rebuild", "", true},
		{"change a document's leaf and recompute the tree", func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketLog)
			l, err := archivelog.ParseLeaf(b.Get(logKey(logLeaf, 0)))
			if err != nil {
				return err
			}
			l.Size++
			return b.Put(logKey(logLeaf, 0), l.Encode())
		}, "rehash", "they were rewritten", true},
		{"reorder two leaves and recompute the tree", func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketLog)
			l1, l2 := bytes.Clone(b.Get(logKey(logLeaf, 1))), bytes.Clone(b.Get(logKey(logLeaf, 2)))
			if err := b.Put(logKey(logLeaf, 1), l2); err != nil {
				return err
			}
			return b.Put(logKey(logLeaf, 2), l1)
		}, "rehash", "they were rewritten", true},
		{"truncate the log", func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketLog)
			n := b.Sequence()
			for i := n - 3; i < n; i++ {
				if err := b.Delete(logKey(logLeaf, i)); err != nil {
					return err
				}
			}
			return b.SetSequence(n - 3)
		}, "", "leaves were removed", true},
		{"checkpoint signed by another key", func(tx *bolt.Tx) error {
			other, _ := testKey(t, "chronicle-test")
			b := tx.Bucket(bucketLog)
			c, err := treeCheckpoint(b, int64(b.Sequence()))
			if err != nil {
				return err
			}
			s, err := c.Sign(other)
			if err != nil {
				return err
			}
			return b.Put(keyLogCheckpoint, s)
		}, "", "not signed by", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := fixtureCopy(t, path)
			editLog(t, p, c.edit, c.mode)
			a, err := Open(p, Options{ReadOnly: true})
			require.NoError(t, err)
			defer a.Close()
			a.LogVerifier(verifier)
			problems, err := a.Check(context.Background())
			require.NoError(t, err)
			if c.check != "" {
				require.Contains(t, fmt.Sprint(problems), c.check)
			}
			_, extendsErr := a.ExtendsCheckpoint(old)
			if c.extends {
				require.ErrorIs(t, extendsErr, ErrLogMismatch, "the earlier checkpoint sees it")
				require.NotContains(t, extendsErr.Error(), "\n")
			} else {
				require.NoError(t, extendsErr)
			}
			if c.name == "checkpoint signed by another key" {
				st, err := a.Log()
				require.NoError(t, err)
				_, err = archivelog.OpenSigned(st.Signed, verifier)
				require.ErrorIs(t, err, archivelog.ErrCheckpoint)
				_, err = a.ProveDocument(docs[0])
				require.NoError(t, err)
			}
		})
	}
}

// TestLogBuiltByUpgrade: an archive of schema 16 gets its log from what
// it holds, in import order, and a write with the key signs it.
func TestLogBuiltByUpgrade(t *testing.T) {
	path := fixtureCopy(t, schema16Fixture)
	a, err := Open(path, Options{})
	require.NoError(t, err)
	defer a.Close()
	st, err := a.Log()
	require.NoError(t, err)
	require.Nil(t, st.Signed, "no key yet")
	docs, err := a.Docs()
	require.NoError(t, err)
	names := 0
	for _, d := range docs {
		names += len(d.Names)
	}
	totals, err := a.Totals()
	require.NoError(t, err)
	require.EqualValues(t, names+int(totals.Originals)+int(totals.Receipts+totals.SetReceipts), st.Tree.Size)
	problems, err := a.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)

	signer, verifier := testKey(t, "chronicle-test")
	a.LogSigner(signer)
	require.NoError(t, a.SignLog())
	st, err = a.Log()
	require.NoError(t, err)
	c, err := archivelog.OpenSigned(st.Signed, verifier)
	require.NoError(t, err)
	require.Equal(t, st.Tree.Size, c.Size)
	require.Equal(t, st.Tree.Root, c.Root)
	require.True(t, strings.HasPrefix(c.Origin, "chronicle.archive/"))
}
