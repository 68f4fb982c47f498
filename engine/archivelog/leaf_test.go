package archivelog

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/engine/sign"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// goldenLeaves is one leaf of every kind, as testdata/leaves.golden holds
// their encodings, one a line.
var goldenLeaves = []Leaf{
	{Kind: KindDocument, SHA256: digestOf("a4b3c1b7767bb9d11e5486555702ffcb07c0964063cf27af85a296517bb46f0d"), Size: 383, Name: "samples/alice-bob-en.txt"},
	{Kind: KindName, SHA256: digestOf("a4b3c1b7767bb9d11e5486555702ffcb07c0964063cf27af85a296517bb46f0d"), Name: "عقد \"القرض\"\t2026.txt"},
	{Kind: KindOriginal, SHA256: digestOf("9149b99beb1d0000000000000000000000000000000000000000000000000000"), Receipt: digestOf("00000000000000000000000000000000000000000000000000000000000000ff"), Name: "input.txt.chronicle.receipt"},
	{Kind: KindReceipt, Number: 12, SHA256: digestOf("2ffcc3f8c7a30000000000000000000000000000000000000000000000000000")},
	{Kind: KindClaims, Namespace: "support-agent", RunID: "2026-12-01-alice", SHA256: digestOf("1111111111111111111111111111111111111111111111111111111111111111")},
	{Kind: KindDocument, SHA256: digestOf("2222222222222222222222222222222222222222222222222222222222222222"), Size: 0, Name: ""},
	{Kind: KindFile, SHA256: digestOf("3333333333333333333333333333333333333333333333333333333333333333"), Size: 1234, Name: "mail.eml"},
	{Kind: KindDerivation, SHA256: digestOf("4444444444444444444444444444444444444444444444444444444444444444"), Input: digestOf("3333333333333333333333333333333333333333333333333333333333333333"), Part: "receipt.pdf", Record: digestOf("5555555555555555555555555555555555555555555555555555555555555555")},
}

func digestOf(s string) [32]byte {
	d, err := digest(s)
	if err != nil {
		panic(err)
	}
	return d
}

// TestLeafGolden: every kind's encoding, byte for byte, and back.
func TestLeafGolden(t *testing.T) {
	var got []byte
	for i := range goldenLeaves {
		enc := goldenLeaves[i].Encode()
		require.NotContains(t, string(enc), "\n")
		back, err := ParseLeaf(enc)
		require.NoError(t, err)
		require.Equal(t, goldenLeaves[i], *back)
		got = append(append(got, enc...), '\n')
	}
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		require.NoError(t, os.WriteFile("testdata/leaves.golden", got, 0o644))
	}
	want, err := os.ReadFile("testdata/leaves.golden")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// TestParseLeafStrict: only the canonical bytes of a known kind parse.
func TestParseLeafStrict(t *testing.T) {
	good := string(goldenLeaves[0].Encode())
	for _, bad := range []string{
		"", "{}", "null", good + " ", " " + good, good + "\n",
		strings.Replace(good, `"size":383`, `"size":0383`, 1),
		strings.Replace(good, `{"kind":"document",`, `{"kind":"document", `, 1),
		strings.Replace(good, `"kind":"document"`, `"kind":"deleted"`, 1),
		strings.Replace(good, `"a4b3`, `"A4B3`, 1),
		strings.Replace(good, `,"name"`, `,"extra":1,"name"`, 1),
		`{"kind":"name","name":"x","sha256":"a4b3c1b7767bb9d11e5486555702ffcb07c0964063cf27af85a296517bb46f0d"}`, // members out of order
		`{"kind":"receipt","number":1,"sha256":"` + strings.Repeat("0", 64) + `","name":""}`,                     // a member of another kind
		strings.Replace(good, "samples", "\\u0073amples", 1),
		strings.Repeat("x", MaxLeafSize+1),
	} {
		_, err := ParseLeaf([]byte(bad))
		require.ErrorIs(t, err, ErrLeaf, "%q", bad)
	}
}

func testKey(t *testing.T) (note.Signer, note.Verifier) {
	t.Helper()
	skey, vkey, err := note.GenerateKey(rand.Reader, "chronicle-test")
	require.NoError(t, err)
	s, err := note.NewSigner(skey)
	require.NoError(t, err)
	v, err := note.NewVerifier(vkey)
	require.NoError(t, err)
	return s, v
}

// TestCheckpoint: the three lines, signed and opened; anything else is
// refused.
func TestCheckpoint(t *testing.T) {
	c := &Checkpoint{Origin: "chronicle.archive/00112233445566778899aabbccddeeff", Size: 1234, Root: tlog.RecordHash([]byte("x"))}
	text := c.Text()
	require.Equal(t, 3, strings.Count(text, "\n"))
	back, err := ParseCheckpoint(text)
	require.NoError(t, err)
	require.Equal(t, c, back)
	for _, bad := range []string{
		"", text + "ext\n", strings.Replace(text, "1234", "01234", 1), strings.Replace(text, "1234", "-1", 1),
		strings.TrimSuffix(text, "\n"), "has space\n1\n" + strings.SplitN(text, "\n", 3)[2],
		"a+b\n1\n" + strings.SplitN(text, "\n", 3)[2], strings.Replace(text, "=\n", "\n", 1),
	} {
		_, err := ParseCheckpoint(bad)
		require.ErrorIs(t, err, ErrCheckpoint, "%q", bad)
	}
	signer, verifier := testKey(t)
	signed, err := c.Sign(signer)
	require.NoError(t, err)
	opened, err := OpenSigned(signed, verifier)
	require.NoError(t, err)
	require.Equal(t, c, opened)
	shown, err := Unverified(signed)
	require.NoError(t, err)
	require.Equal(t, c, shown)
	_, err = Unverified([]byte(text))
	require.ErrorIs(t, err, ErrCheckpoint, "no signature lines")
	_, other := testKey(t)
	_, err = OpenSigned(signed, other)
	require.ErrorIs(t, err, ErrCheckpoint)
	altered := bytes.Replace(signed, []byte("1234"), []byte("1235"), 1)
	_, err = OpenSigned(altered, verifier)
	require.ErrorIs(t, err, ErrCheckpoint)
}

// goldenTree is the tree of the golden leaves: their bytes, a reader of
// its stored hashes and its root.
func goldenTree(t *testing.T) ([][]byte, tlog.HashReader, tlog.Hash) {
	t.Helper()
	var hashes []tlog.Hash
	r := tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			out[i] = hashes[x]
		}
		return out, nil
	})
	var leaves [][]byte
	for i := range goldenLeaves {
		l := goldenLeaves[i].Encode()
		h, err := tlog.StoredHashes(int64(i), l, r)
		require.NoError(t, err)
		hashes = append(hashes, h...)
		leaves = append(leaves, l)
	}
	root, err := tlog.TreeHash(int64(len(leaves)), r)
	require.NoError(t, err)
	return leaves, r, root
}

// TestBundle: a bundle of each leaf of a small tree verifies; a bundle
// whose leaf, index, proof or checkpoint changed does not, and only the
// canonical bytes parse.
func TestBundle(t *testing.T) {
	signer, verifier := testKey(t)
	leaves, r, root := goldenTree(t)
	n := int64(len(leaves))
	c := &Checkpoint{Origin: "chronicle.archive/test", Size: n, Root: root}
	signed, err := c.Sign(signer)
	require.NoError(t, err)
	for i := range n {
		proof, err := tlog.ProveRecord(n, i, r)
		require.NoError(t, err)
		b := &Bundle{Index: i, Leaf: leaves[i], Proof: proof, Checkpoint: signed}
		enc := b.Encode()
		require.True(t, IsBundle(enc))
		back, err := ParseBundle(enc)
		require.NoError(t, err)
		leaf, cp, err := back.Verify(verifier)
		require.NoError(t, err)
		require.Equal(t, goldenLeaves[i], *leaf)
		require.Equal(t, c, cp)

		other := *back
		other.Index = (i + 1) % n
		_, _, err = other.Verify(verifier)
		require.ErrorIs(t, err, ErrBundle, "another index")
		other = *back
		other.Leaf = leaves[(i+1)%n]
		_, _, err = other.Verify(verifier)
		require.ErrorIs(t, err, ErrBundle, "another leaf")
		if len(back.Proof) > 0 {
			other = *back
			other.Proof = append(tlog.RecordProof{}, back.Proof...)
			other.Proof[0][0] ^= 1
			_, _, err = other.Verify(verifier)
			require.ErrorIs(t, err, ErrBundle, "a changed proof hash")
		}
		_, other2 := testKey(t)
		_, _, err = back.Verify(other2)
		require.ErrorIs(t, err, ErrCheckpoint, "another key")
	}
	b := &Bundle{Index: 0, Leaf: leaves[0], Checkpoint: signed}
	enc := string(b.Encode())
	for _, bad := range []string{"", enc + "\n", strings.Replace(enc, `"index":0`, `"index":00`, 1), strings.Replace(enc, "chronicle-log-proof/1", "chronicle-log-proof/2", 1), strings.Replace(enc, `"proof":[]`, `"proof":["AAAA"]`, 1)} {
		_, err := ParseBundle([]byte(bad))
		require.ErrorIs(t, err, ErrBundle, "%q", bad)
	}
}

// FuzzParseBundle: untrusted bundle bytes never panic, and what parses
// re-encodes to the same bytes.
func FuzzParseBundle(f *testing.F) {
	f.Add([]byte(`{"format":"chronicle-log-proof/1","index":0,"leaf":"{}","proof":[],"checkpoint":"x"}` + "\n"))
	f.Add(goldenLeaves[0].Encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		if b, err := ParseBundle(data); err == nil {
			require.Equal(t, data, b.Encode())
		}
		if l, err := ParseLeaf(data); err == nil {
			require.Equal(t, data, l.Encode())
		}
		_, _ = ParseCheckpoint(string(data))
	})
}

// TestCheckpointAndBundleGolden: a checkpoint of the golden leaves' tree,
// signed by a fixed Ed25519 key (Ed25519 signs deterministically), and the
// proof bundle of leaf 2, byte for byte.
func TestCheckpointAndBundleGolden(t *testing.T) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	signer, err := sign.NoteSigner("chronicle@golden", key)
	require.NoError(t, err)
	verifier, err := sign.NoteVerifier("chronicle@golden", key.Public().(ed25519.PublicKey))
	require.NoError(t, err)
	_, r, root := goldenTree(t)
	n := int64(len(goldenLeaves))
	c := &Checkpoint{Origin: "chronicle.archive/00112233445566778899aabbccddeeff", Size: n, Root: root}
	signed, err := c.Sign(signer)
	require.NoError(t, err)
	proof, err := tlog.ProveRecord(n, 2, r)
	require.NoError(t, err)
	bundle := (&Bundle{Index: 2, Leaf: goldenLeaves[2].Encode(), Proof: proof, Checkpoint: signed}).Encode()
	for name, got := range map[string][]byte{"checkpoint.golden": signed, "bundle.golden": bundle} {
		path := "testdata/" + name
		if os.Getenv("UPDATE_GOLDEN") == "1" {
			require.NoError(t, os.WriteFile(path, got, 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), name)
	}
	b, err := ParseBundle(bundle)
	require.NoError(t, err)
	leaf, _, err := b.Verify(verifier)
	require.NoError(t, err)
	require.Equal(t, goldenLeaves[2], *leaf)
}
