package db

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
	"path/filepath"
	"testing"

	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/index"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// unpackToSchema18 turns a schema-19 archive back into what schema 18
// kept, from db/FORMAT.md alone: every group block out of its pack, under
// its group's key, byte for byte; each packed group's start entry linked
// to the group's first block and resealed; no grampacks bucket.
func unpackToSchema18(t *testing.T, path string) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	defer b.Close()
	seal := func(k, body []byte) []byte {
		c := crc32.Update(crc32.Checksum(k, crc32.MakeTable(crc32.Castagnoli)), crc32.MakeTable(crc32.Castagnoli), body)
		i := crc32.Update(crc32.ChecksumIEEE(k), crc32.IEEETable, body)
		return binary.LittleEndian.AppendUint64(body, uint64(c)<<32|uint64(i))
	}
	prefixLen := map[byte]int{0: 0, 1: 0, 2: 1, 3: 2, 4: 2}
	require.NoError(t, b.Update(func(tx *bolt.Tx) error {
		gb, pb := tx.Bucket([]byte("grams")), tx.Bucket([]byte("grampacks"))
		first := map[uint32][]byte{} // each packed group's first block suffix
		err := pb.ForEach(func(k, v []byte) error {
			if len(k) == 4 || k[4] == 0 {
				return nil // the packed mark, a start pack
			}
			p := 1 + prefixLen[v[0]]
			if v[0] == 0 {
				p = 1
			}
			groups := binary.LittleEndian.Uint64(v[p:])
			p += 8
			var sizes []int
			for range bits.OnesCount64(groups) {
				n, m := binary.Uvarint(v[p:])
				sizes, p = append(sizes, int(n)), p+m
			}
			p += 8
			super := binary.BigEndian.Uint32(k)
			for i, w := 0, groups; w != 0; i, w = i+1, w&(w-1) {
				group := super*64 + uint32(bits.TrailingZeros64(w))
				gk := append(binary.BigEndian.AppendUint32(nil, group), k[4:]...)
				if err := gb.Put(gk, bytes.Clone(v[p:p+sizes[i]])); err != nil {
					return err
				}
				if f, ok := first[group]; !ok || bytes.Compare(k[4:], f) < 0 {
					first[group] = bytes.Clone(k[4:])
				}
				p += sizes[i]
			}
			return nil
		})
		if err != nil {
			return err
		}
		for group, link := range first {
			sk := append(binary.BigEndian.AppendUint32(nil, group), 0)
			v := gb.Get(sk)
			require.Equal(t, byte(0xFF), v[0], "group %d's start entry says packed", group)
			body := append(bytes.Clone(link), v[1:len(v)-8]...)
			if err := gb.Put(sk, seal(sk, body)); err != nil {
				return err
			}
		}
		if err := tx.DeleteBucket([]byte("grampacks")); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, []byte("18"))
	}))
}

func dumpBuckets(t *testing.T, path string, names ...string) map[string]string {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	m := map[string]string{}
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		for _, name := range names {
			bk := tx.Bucket([]byte(name))
			if bk == nil {
				continue
			}
			if err := bk.ForEach(func(k, v []byte) error {
				m[name+"/"+string(k)] = string(v)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	}))
	return m
}

// TestSchema18UpgradePacks: an archive of schema 18 (unpacked postings) is
// upgraded by a read-only open (through a brief write open), which packs
// every super-group wholly folded, writing byte for byte what packing
// during the ingest wrote; find answers as before and check is clean.
func TestSchema18UpgradePacks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chronicle.db")
	a, err := Open(path, Options{})
	require.NoError(t, err)
	a.BeginBatch()
	const at = 1750000000
	for i := 1; i <= index.SuperSize+50; i++ {
		note := fmt.Sprintf("Note %d: Khalid lent Ahmed %d dinars.\nعقد رقم %d\n", i, i%97+1, i*7)
		_, err := a.Ingest([]byte(note), at, fmt.Sprintf("notes/%05d.txt", i))
		require.NoError(t, err)
	}
	require.NoError(t, a.EndBatch())
	queries := []string{"Khalid", "lent 40", "عقد", "Note 4095", "zebra"}
	answers := func(a *Archive) []string {
		var out []string
		for _, q := range queries {
			fq, err := find.NewQuery(q)
			require.NoError(t, err)
			hits, st, err := a.FindWithStats(fq, 20)
			require.NoError(t, err, q)
			out = append(out, fmt.Sprintf("%s: %d candidates", q, st.Candidates))
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%x %+v", h.Doc.SHA256, *h.Result))
			}
		}
		return out
	}
	want := answers(a)
	require.NoError(t, a.Close())
	packed := dumpBuckets(t, path, "grams", "grampacks")
	require.Contains(t, packed, "grampacks/\x00\x00\x00\x00\x00", "super-group 0 is packed")

	unpackToSchema18(t, path)
	require.NotEqual(t, packed, dumpBuckets(t, path, "grams", "grampacks"))

	r, err := Open(path, Options{ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, want, answers(r))
	require.NoError(t, r.Close())
	require.Equal(t, packed, dumpBuckets(t, path, "grams", "grampacks"))

	w, err := Open(path, Options{})
	require.NoError(t, err)
	defer w.Close()
	problems, err := w.Check(context.Background())
	require.NoError(t, err)
	require.Empty(t, problems)
}
