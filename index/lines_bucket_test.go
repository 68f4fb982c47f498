package index

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestCheckLinesAcceptsBothBlockSizes: check accepts a stored record built
// with DictBlock or with the legacy 16 KiB blocks (older records), and
// refuses any other record: one cut at another size, or damaged.
func TestCheckLinesAcceptsBothBlockSizes(t *testing.T) {
	src := realLike(rand.New(rand.NewPCG(21, 4)), 200_000, false)
	const chunk = 16 << 10
	current, legacy := BuildLines(src, chunk), buildLines(src, chunk, legacyDictBlock)
	require.NotEqual(t, current, legacy, "the sizes must cut this source differently")
	damaged := bytes.Clone(legacy)
	damaged[len(damaged)/2] ^= 1
	b := openTestDB(t)
	for _, c := range []struct {
		name string
		rec  []byte
		ok   bool
	}{
		{"DictBlock", current, true},
		{"legacy 16 KiB", legacy, true},
		{"another block size", buildLines(src, chunk, 1<<10), false},
		{"another chunk size", BuildLines(src, 64<<10), false},
		{"damaged legacy", damaged, false},
	} {
		require.NoError(t, b.Update(func(tx *bolt.Tx) error { return PutLines(tx, 7, c.rec) }), c.name)
		require.NoError(t, b.View(func(tx *bolt.Tx) error {
			require.Equal(t, c.ok, CheckLines(tx, 7, src, chunk), c.name)
			return nil
		}))
	}
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		require.False(t, CheckLines(tx, 8, src, chunk), "no record")
		return nil
	}))
}
