package db

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecordCache: a record decoded again comes from the cache as an
// equal document its caller may change without changing the next one;
// a record whose bytes changed is refused before the cache is asked.
func TestRecordCache(t *testing.T) {
	KeepDecodedRecords()
	defer keepDecoded.Store(false)
	frame := Digest{7}
	for _, d := range []*Document{
		{SHA256: Digest{1}, Seq: 1, ChunkSize: 1, Names: []string{}},
		{SHA256: Digest{2}, Seq: 2, ChunkSize: 1, Names: []string{"a.txt", "b.txt"}, Sources: map[string]string{"a.txt": "/x/a.txt"}, FrameSHA256: &frame},
	} {
		rec := d.encode()
		first, err := decodeDocument(d.SHA256[:], rec)
		require.NoError(t, err)
		require.Equal(t, d, first)
		first.Names = append(first.Names, "changed")
		if first.Sources != nil {
			first.Sources["b.txt"] = "/y"
		}
		if first.FrameSHA256 != nil {
			first.FrameSHA256[0] = 9
		}
		again, err := decodeDocument(d.SHA256[:], rec)
		require.NoError(t, err)
		require.NotNil(t, decoded.m[recordDigestOf(t, d.SHA256[:], rec)], "kept")
		require.Equal(t, d, again, "the cached copy is not the caller's")
		require.Equal(t, rec, again.encode(), "it encodes to the same record (names [] stays [])")

		bad := append([]byte(nil), rec...)
		bad[10] ^= 1
		_, err = decodeDocument(d.SHA256[:], bad)
		require.ErrorIs(t, err, ErrCorrupt)
	}
}

// recordDigestOf is the digest member of a record.
func recordDigestOf(t *testing.T, key, rec []byte) Digest {
	t.Helper()
	_, digest, ok := splitRecord(key, rec)
	require.True(t, ok)
	return digest
}
