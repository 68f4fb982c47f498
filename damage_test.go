package chronicle_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/casper-chronicle/chronicle"
	"github.com/casper-chronicle/chronicle/db"
)

// TestDamagedArchiveIsAnError: on a damaged archive the Go API returns
// the *DamageError the chronicle command prints (errors.As), naming the
// archive; it does not panic, and the Archive stays usable.
func TestDamagedArchiveIsAnError(t *testing.T) {
	t.Parallel()
	a, path := openTemp(t)
	// Enough text that the chunks bucket has a page of its own.
	r := rand.New(rand.NewPCG(27, 3))
	words := []string{"Alice", "Bob", "repaid", "lent", "ledger", "market", "أحمد", "خالد"}
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %d: %s %s %s %d\n", i, words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))], r.IntN(1e6))
	}
	_, err := a.Ingest("ledger.txt", []byte(b.String()))
	require.NoError(t, err)
	require.NoError(t, a.Close())

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	var root uint64
	require.NoError(t, bdb.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket([]byte("chunks")).Root())
		return nil
	}))
	pageSize := uint64(bdb.Info().PageSize)
	require.NoError(t, bdb.Close())
	require.NotZero(t, root, "the chunks bucket is inline")

	t.Run("a page that cannot be read", func(t *testing.T) {
		damaged := filepath.Join(t.TempDir(), "damaged.db")
		page := append([]byte(nil), raw...)
		clear(page[root*pageSize : (root+1)*pageSize])
		require.NoError(t, os.WriteFile(damaged, page, 0o600))
		d, err := chronicle.Open(damaged, &chronicle.Options{ReadOnly: true})
		require.NoError(t, err, "the header pages and the meta bucket check")
		defer d.Close()
		for i := range 2 { // the Archive survives the damage it met
			ans, err := d.FindIn("ledger.txt", "Alice")
			require.Nil(t, ans, "call %d", i)
			var damage *chronicle.DamageError
			require.True(t, errors.As(err, &damage), "call %d: %T %v", i, err, err)
			require.Equal(t, db.PageUnreadable, damage.Kind)
			require.Equal(t, fmt.Sprintf("archive %s is damaged: a page could not be read; `chronicle check` lists the problems it can find", damaged), err.Error())
			require.ErrorIs(t, err, chronicle.ErrDamaged)
			require.ErrorIs(t, err, chronicle.ErrCorrupt)
		}
		docs, err := d.Documents()
		require.NoError(t, err, "a read that does not meet the page")
		require.Len(t, docs, 1)
	})

	t.Run("a file too short for its header pages", func(t *testing.T) {
		short := filepath.Join(t.TempDir(), "short.db")
		require.NoError(t, os.WriteFile(short, raw[:5000], 0o600))
		d, err := chronicle.Open(short, nil)
		require.Nil(t, d)
		var damage *chronicle.DamageError
		require.True(t, errors.As(err, &damage), "%T %v", err, err)
		require.Equal(t, db.TooShort, damage.Kind)
		require.Equal(t, fmt.Sprintf("archive %s: not a Chronicle archive, or a damaged one (the file is too short to hold its header pages); if it is an archive, restore it from a copy", short), err.Error())
	})
}
