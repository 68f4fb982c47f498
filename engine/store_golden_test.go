package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const goldenDir = "../testdata/golden"

// goldenCases lists the golden case directories that hold a V2 store.
func goldenCases(t testing.TB) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(goldenDir, "g[0-9]_*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	return dirs
}

func TestGoldenStoresRebuildByteForByte(t *testing.T) {
	for _, dir := range goldenCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, "input.txt"))
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join(dir, "input.txt.chronicle"))
			require.NoError(t, err)
			loaded, err := Load(want)
			require.NoError(t, err)
			if loaded.Version == 1 {
				// The legacy store must re-encode to itself with the V1 profile.
				require.Equal(t, want, loaded.Encode())
				return
			}
			s, err := NewStore(src, 1750000000)
			require.NoError(t, err)
			require.Equal(t, want, s.Encode())
		})
	}
}
